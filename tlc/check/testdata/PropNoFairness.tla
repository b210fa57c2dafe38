---- MODULE PropNoFairness ----
\* PropLiveWF without fairness: the behaviour may stop at x = 0 forever,
\* so <>(x = 5) fails with a stuttering lasso of one state.
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x < 5 /\ x' = x + 1
Spec == Init /\ [][Next]_x
Reach == <>(x = 5)
====
