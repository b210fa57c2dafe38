---- MODULE ErrAssert ----
\* A failed Assert in the next-state relation ends the check with TLC's
\* exit code for it, 14 (not 75, an evaluation error): x reaches 2 in two
\* steps, where the Assert fails, with the trace to the state it fails in.
EXTENDS Naturals, TLC
VARIABLE x
Init == x = 0
Next == x < 3 /\ x' = x + 1 /\ Assert(x < 2, "x too big")
====
