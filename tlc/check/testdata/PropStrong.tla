---- MODULE PropStrong ----
\* A process that toggles b and may take a lock only when b is TRUE: the
\* lock is enabled infinitely often but not continuously, so weak fairness
\* of Take does not make <>locked hold, strong fairness does (Props under
\* SpecSF holds; Props under SpecWF fails: PropWeak).
VARIABLES b, locked
vars == <<b, locked>>
Init == b = FALSE /\ locked = FALSE
Toggle == ~locked /\ b' = ~b /\ UNCHANGED locked
Take == b /\ ~locked /\ locked' = TRUE /\ UNCHANGED b
Next == Toggle \/ Take
SpecSF == Init /\ [][Next]_vars /\ WF_vars(Toggle) /\ SF_vars(Take)
SpecWF == Init /\ [][Next]_vars /\ WF_vars(Toggle) /\ WF_vars(Take)
Props == <>locked
====
