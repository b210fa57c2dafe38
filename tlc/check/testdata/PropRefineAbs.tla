---- MODULE PropRefineAbs ----
\* The abstract spec PropRefine refines: d becomes TRUE once, eventually.
VARIABLE d
A == ~d /\ d' = TRUE
Spec == ~d /\ [][A]_d /\ WF_d(A)
====
