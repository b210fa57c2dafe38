---- MODULE InitInv ----
\* An invariant an initial state violates: TLC reports the state in its
\* message, without a trace or counts.
EXTENDS Naturals
VARIABLES x, y
Init == x = 0 /\ y = {1, 2}
Next == UNCHANGED <<x, y>>
Inv == x > 0
====
