---- MODULE PropRefineBad ----
\* A refinement whose next-state relation fails: x goes 0 -> 3 -> 0, so d
\* (x > 2) falls back to FALSE, which PropRefineAbs's action forbids; TLC
\* names the action property by its conjunct's location.
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x' = IF x = 0 THEN 3 ELSE 0
Spec == Init /\ [][Next]_x /\ WF_x(Next)
Abs == INSTANCE PropRefineAbs WITH d <- (x > 2)
Refines == Abs!Spec
====
