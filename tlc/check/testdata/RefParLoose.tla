---- MODULE RefParLoose ----
\* RefParReach without fairness: the refinement of RefReach's
\* WF_vars(Next) fails.
EXTENDS RefParReach
LooseSpec == Init /\ [][Next]_vars
====
