---- MODULE PropWeak ----
\* PropStrong's process under weak fairness: <>locked fails on the cycle
\* of Toggle steps.
VARIABLES b, locked
vars == <<b, locked>>
Init == b = FALSE /\ locked = FALSE
Toggle == ~locked /\ b' = ~b /\ UNCHANGED locked
Take == b /\ ~locked /\ locked' = TRUE /\ UNCHANGED b
Next == Toggle \/ Take
SpecWF == Init /\ [][Next]_vars /\ WF_vars(Toggle) /\ WF_vars(Take)
Props == <>locked
====
