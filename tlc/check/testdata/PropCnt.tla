---- MODULE PropCnt ----
\* A counter: x counts 0..5 and stops. [](x < 3) fails at x = 3
\* (checked as an invariant, exit 12, as TLC reports it); the search stops
\* there, before <>(x = 10) is looked at.
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x < 5 /\ x' = x + 1
Spec == Init /\ [][Next]_x
AlwaysSmall == [](x < 3)
Eventually10 == <>(x = 10)
====
