---- MODULE PropCycle ----
\* x cycles 0 -> 1 -> 2 -> 0 under WF. []<>(x = 1) holds; x = 1 ~> x = 7
\* does not: the lasso goes from x = 0 to x = 1 (where the property is
\* triggered), round the cycle and back to state 2.
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x' = (x + 1) % 3
Spec == Init /\ [][Next]_x /\ WF_x(Next)
Inf == []<>(x = 1)
Lt == (x = 1) ~> (x = 7)
====
