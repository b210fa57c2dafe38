---- MODULE RefAbs ----
\* A counter up to N: the abstract spec that RefConc refines.
EXTENDS Naturals
CONSTANT N
VARIABLES total, pc
vars == <<total, pc>>
Init == total = 0 /\ pc = "run"
Inc == pc = "run" /\ total < N /\ total' = total + 1 /\ UNCHANGED pc
Finish == pc = "run" /\ total = N /\ pc' = "done" /\ UNCHANGED total
Terminating == pc = "done" /\ UNCHANGED vars
Next == Inc \/ Finish \/ Terminating
Spec == Init /\ [][Next]_vars /\ WF_vars(Next)
====
