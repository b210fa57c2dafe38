---- MODULE counter ----
\* A tiny model for the sidecar's tests: an action with several
\* successors (Jump), an invariant that a trace can violate (Small), and a
\* Print that must not reach the server's stdout.
EXTENDS Naturals, TLC
CONSTANT Limit
VARIABLE x, tag

Init == x \in {0, 10} /\ tag = "a<b>&"

Inc(n) == x' = x + n /\ UNCHANGED tag

Jump == x' \in {x + 1, x + 2} /\ UNCHANGED tag

Shout == PrintT("hello from the model") /\ x' = x /\ UNCHANGED tag

Twice(n) == n * 2

Next == (\E n \in 1 .. 2 : Inc(n)) \/ Jump \/ Shout

Small == x < Limit
====
