---- MODULE CkptRing ----
\* A spec for checkpoints: model values, sets, functions, a dozen levels
\* and a liveness property under fairness, so that a checkpoint holds
\* model values' names, the queue and the state graph. Counts from TLC.
EXTENDS Naturals, FiniteSets
CONSTANTS Procs, N
VARIABLES have, count
vars == <<have, count>>
Init == have = {} /\ count = [p \in Procs |-> 0]
Take(p) == count[p] < N /\ count' = [count EXCEPT ![p] = @ + 1] /\ have' = have \cup {p}
Drop(p) == p \in have /\ have' = have \ {p} /\ UNCHANGED count
Next == \E p \in Procs : Take(p) \/ Drop(p)
Spec == Init /\ [][Next]_vars /\ WF_vars(\E p \in Procs : Drop(p))
Inv == Cardinality(have) <= 3
Empties == have # {} ~> have = {}
====
