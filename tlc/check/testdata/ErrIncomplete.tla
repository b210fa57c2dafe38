---- MODULE ErrIncomplete ----
\* The second disjunct leaves y' without a value.
EXTENDS Naturals
VARIABLES x, y
Init == x = 0 /\ y = 0
Next == \/ x' = x + 1 /\ y' = y /\ x < 1
        \/ x' = 0
====
