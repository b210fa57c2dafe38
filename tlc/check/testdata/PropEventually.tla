---- MODULE PropEventually ----
\* <>(x = 10) never holds: x stops at 5 and the behaviour stutters there
\* forever; the lasso is the six states and "Stuttering" (exit 13).
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x < 5 /\ x' = x + 1
Spec == Init /\ [][Next]_x /\ WF_x(Next)
Eventually10 == <>(x = 10)
====
