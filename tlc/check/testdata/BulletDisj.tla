---- MODULE BulletDisj ----
\* /\ lists inside a \/ list. The last /\ is at the column of the \/
\* bullets: it ends both lists and is an infix operator, so Next is
\*   ((x = 0 /\ x' = 1) \/ (x = 1 /\ x' = 2) \/ (x = 2 /\ x' = 0)) /\ y' = y
\* (were it part of the last disjunct, y' would have no value in the first
\* two). 3 states, 1 + 3 generated, depth 3.
EXTENDS Naturals
VARIABLES x, y
Init == x = 0 /\ y = 0
Next == \/ /\ x = 0
           /\ x' = 1
        \/ /\ x = 1
           /\ x' = 2
        \/ /\ x = 2
           /\ x' = 0
        /\ y' = y
====
