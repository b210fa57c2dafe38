---- MODULE LevelSucc ----
\* TLCGet("level") in a CONSTRAINT and an INVARIANT is the level of the
\* state they are evaluated in (TLC sets a successor's level before it
\* checks them): n counts the levels, so both hold. 4 states, depth 4.
EXTENDS Naturals, TLC
VARIABLE n
Init == n = 1
Next == n < 4 /\ n' = n + 1
AtLevel == TLCGet("level") = n
====
