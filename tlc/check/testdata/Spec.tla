---- MODULE Spec ----
\* SPECIFICATION Init /\ [][Next]_vars /\ WF_vars(Next): the checker
\* explores Next from Init; fairness is not part of the state graph.
\* Model values as constants. x: the elements of Procs, 2 distinct;
\* each state has 2 successors: 2 + 4 = 6 generated, depth 1.
CONSTANT Procs
VARIABLE x
vars == <<x>>
Init == x \in Procs
Next == x' \in Procs
Spec == Init /\ [][Next]_vars /\ WF_vars(Next)
====
