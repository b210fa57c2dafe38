---- MODULE PropLetBad ----
\* A LET-wrapped liveness property that fails: x stops at 2, never 3.
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x < 2 /\ x' = x + 1
Spec == Init /\ [][Next]_x /\ WF_x(Next)
Three == LET Goal(k) == x = k IN <>Goal(3)
====
