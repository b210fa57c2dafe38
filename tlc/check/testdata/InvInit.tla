---- MODULE InvInit ----
\* The invariant fails in an initial state: x \in 1..5 enumerates in order,
\* 1 and 2 pass, 3 fails. Trace: the one state x = 3.
EXTENDS Naturals
VARIABLE x
Init == x \in 1..5
Next == UNCHANGED x
Inv == x < 3
====
