---- MODULE PropRefine ----
\* Refinement under a mapping d <- (x > 2): the abstract initial predicate,
\* its next-state relation and its fairness (whose ENABLED reads d', an
\* expression of x') are checked. Under WF x reaches 4, so d becomes TRUE.
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x < 4 /\ x' = x + 1
Spec == Init /\ [][Next]_x /\ WF_x(Next)
Abs == INSTANCE PropRefineAbs WITH d <- (x > 2)
Refines == Abs!Spec
Quant == \A k \in 1..3 : (x = k) ~> (x = 4)
====
