---- MODULE PropInit ----
\* The state predicate x = 1 is checked on the initial states and fails.
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x < 5 /\ x' = x + 1
Spec == Init /\ [][Next]_x
StartsAtOne == x = 1
====
