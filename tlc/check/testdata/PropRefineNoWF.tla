---- MODULE PropRefineNoWF ----
\* PropRefine without fairness: x may stop below 3, where the abstract
\* action is enabled (x' = 3 would make d' TRUE) and never taken: Abs!Spec's
\* fairness fails with a stuttering lasso (TLC's ends at x = 2 too).
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x < 4 /\ x' = x + 1
Spec == Init /\ [][Next]_x
Abs == INSTANCE PropRefineAbs WITH d <- (x > 2)
Refines == Abs!Spec
====
