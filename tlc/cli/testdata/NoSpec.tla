---- MODULE NoSpec ----
\* INIT and NEXT without fairness: []<>(x = 1) fails by stuttering at
\* x = 0, and TLC warns that only INIT and NEXT were given.
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x' = 1 - x
Often == []<>(x = 1)
====
