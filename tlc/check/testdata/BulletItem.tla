---- MODULE BulletItem ----
\* A \/ right of the /\ column continues the item: P is (x \/ y) /\ ~y,
\* true only for x = TRUE, y = FALSE: 1 initial state of the 4 generated.
VARIABLES x, y
P == /\ x
        \/ y
     /\ ~y
Init == x \in BOOLEAN /\ y \in BOOLEAN /\ P
Next == UNCHANGED <<x, y>>
====
