---- MODULE ErrDomain ----
\* f[3] outside f's domain 1..2 once x reaches 3.
EXTENDS Naturals
VARIABLE x
f == [i \in 1..2 |-> i * 10]
Init == x = 1
Next == x' = x + 1 /\ f[x] > 0
====
