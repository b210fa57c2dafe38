---- MODULE PropAction ----
\* [][x' = x + 2]_x fails on the first step (exit 13, "Action property").
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x < 5 /\ x' = x + 1
Spec == Init /\ [][Next]_x
Step2 == [][x' = x + 2]_x
====
