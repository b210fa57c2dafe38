---- MODULE Deadlock ----
\* As Counter, with deadlock checking: x = 3 has no successor. Exit 11,
\* the trace is x = 0, 1, 2, 3.
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x < 3 /\ x' = x + 1
====
