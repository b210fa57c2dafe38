---- MODULE PropRefineKeepAbs ----
\* The abstract spec PropRefineKeep refines: n counts up until d, then
\* Stop stutters (UNCHANGED vars), which <<Next>>_vars excludes.
EXTENDS Naturals
VARIABLES d, n
vars == <<d, n>>
Step == ~d /\ n' = n + 1 /\ d' = (n' >= 2)
Stop == d /\ UNCHANGED vars
Next == Step \/ Stop
Spec == ~d /\ n = 0 /\ [][Next]_vars /\ WF_vars(Next)
====
