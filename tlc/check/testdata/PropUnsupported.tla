---- MODULE PropUnsupported ----
\* A property the checker cannot resolve (a temporal formula quantified over
\* an infinite set) is named as not checked, never passed over: the result
\* is not "success".
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x < 5 /\ x' = x + 1
Spec == Init /\ [][Next]_x
Reached == \A k \in Nat : <>(x = k)
====
