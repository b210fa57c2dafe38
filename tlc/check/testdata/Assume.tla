---- MODULE Assume ----
EXTENDS Naturals
CONSTANT N
ASSUME N > 0
ASSUME Positive == N > 5
VARIABLE x
Init == x = N
Next == UNCHANGED x
====
