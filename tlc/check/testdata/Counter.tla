---- MODULE Counter ----
\* x counts 0..3: 4 distinct states, 4 generated (1 initial + 3 steps),
\* depth 4. Deadlock checking is off.
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x < 3 /\ x' = x + 1
====
