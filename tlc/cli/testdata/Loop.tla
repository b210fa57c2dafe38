---- MODULE Loop ----
\* A counter that goes round 0, 1, 2 under weak fairness and so never
\* reaches 3; y changes after the first round, so the counterexample of
\* Never is a lasso with a prefix: three states, then a loop of three.
EXTENDS Naturals
VARIABLES x, y
Init == x = 0 /\ y = "a"
Next == x' = (x + 1) % 3 /\ y' = IF x = 2 THEN "b" ELSE y
Spec == Init /\ [][Next]_<<x, y>> /\ WF_<<x, y>>(Next)
Never == <>(x = 3)
====
