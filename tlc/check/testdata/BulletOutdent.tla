---- MODULE BulletOutdent ----
\* The \/ left of the /\ column ends the conjunction: Next is
\* (x < 2 /\ x' = x + 1) \/ x' = 0. From 0: 1, 0; 1: 2, 0; 2: 0; 3: 0.
\* 4 distinct (all initial), 4 + 6 = 10 generated, depth 1.
\* (Read as x < 2 /\ (x' = x + 1 \/ x' = 0) it would be 8 generated.)
EXTENDS Naturals
VARIABLE x
Init == x \in 0..3
Next == /\ x < 2
        /\ x' = x + 1
      \/ x' = 0
====
