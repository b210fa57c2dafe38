---- MODULE PropRefineKeep ----
\* Refinement whose abstract fairness is WF_vars(Next) with a disjunct
\* d /\ UNCHANGED vars, d and n mapped to expressions of x: in ENABLED
\* <<Next>>_vars, TLC (enabledUnchanged) gives each mapped variable of the
\* UNCHANGED its current value as its primed one, so <<Stop>>_vars is not
\* enabled once d holds and the refinement holds (as in the Examples'
\* TLC/TestGraphs, whose MCR!Spec TLC verifies).
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x < 2 /\ x' = x + 1
Spec == Init /\ [][Next]_x /\ WF_x(Next)
Abs == INSTANCE PropRefineKeepAbs WITH d <- (x >= 2), n <- x + 0
Refines == Abs!Spec
====
