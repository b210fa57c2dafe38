---- MODULE BulletNested ----
\* A \/ list nested in a /\ item: x < 3 /\ (x' = x + 1 \/ x' = x + 2).
\* 0 -> 1, 2; 1 -> 2, 3; 2 -> 3, 4: 5 distinct, 1 + 6 = 7 generated,
\* levels {0} {1, 2} {3, 4}: depth 3.
EXTENDS Naturals
VARIABLES x, y
Init == x = 0 /\ y = 0
Next == /\ x < 3
        /\ \/ x' = x + 1
           \/ x' = x + 2
        /\ y' = y
====
