---- MODULE ErrArity ----
EXTENDS Naturals
VARIABLE x
Inc(a) == a + 1
Init == x = 0
Next == x' = Inc(x, 1)
====
