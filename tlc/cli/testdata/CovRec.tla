---- MODULE CovRec ----
\* A recursive operator under -coverage: its lines do not grow with the
\* depth of the recursion.
EXTENDS Naturals
VARIABLE n

RECURSIVE Sum(_)
Sum(k) == IF k = 0 THEN 0 ELSE k + Sum(k - 1)

Init == n = 0

Next == n < 4 /\ n' = n + 1

Small == Sum(n) <= 10
====
