---- MODULE ErrChoose ----
\* CHOOSE with no satisfying element, evaluated in Next when x = 2.
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x' = CHOOSE y \in 0..3 : y > x /\ y < 3
====
