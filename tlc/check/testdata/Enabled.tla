---- MODULE Enabled ----
\* ENABLED, and a CONSTRAINT. B resets x once A is disabled (x = 2).
\* (0,0) (1,0) (2,0) (0,1) (1,1) (2,1) then (0,2), which is generated but
\* outside the constraint: 6 distinct, 7 generated, depth 6. (2,1) has a
\* successor, so there is no deadlock.
EXTENDS Naturals
VARIABLES x, y
A == x < 2 /\ x' = x + 1
B == ~ENABLED A /\ x' = 0 /\ y' = y + 1
Init == x = 0 /\ y = 0
Next == (A /\ y' = y) \/ B
InBounds == y < 2
====
