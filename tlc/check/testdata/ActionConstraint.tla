---- MODULE ActionConstraint ----
\* Next allows any x' in 0..3; the ACTION_CONSTRAINT keeps steps of 0 or
\* +1. Up(x) primes its parameter: x is passed by name, so v' is x'.
\* Every state generates 4 successors: 4 distinct, 1 + 16 = 17 generated,
\* depth 4.
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x' \in 0..3
Up(v) == v' - v \in {0, 1}
Step == Up(x)
====
