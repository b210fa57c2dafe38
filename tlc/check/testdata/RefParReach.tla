---- MODULE RefParReach ----
\* Marking the reachable nodes with several processes, refining RefReach
\* through INSTANCE ... WITH of its variables to expressions.
CONSTANT Nodes, Succ, Root, Procs
VARIABLES marked, vroot, u, toVroot, pc
vars == <<marked, vroot, u, toVroot, pc>>
Init == /\ marked = {}
        /\ vroot = {Root}
        /\ u = [p \in Procs |-> Root]
        /\ toVroot = [p \in Procs |-> {}]
        /\ pc = [p \in Procs |-> "a"]
Take(p) == /\ pc[p] = "a"
           /\ IF vroot # {}
                THEN \E v \in vroot :
                       /\ u' = [u EXCEPT ![p] = v]
                       /\ vroot' = vroot \ {v}
                       /\ pc' = [pc EXCEPT ![p] = "b"]
                ELSE /\ pc' = [pc EXCEPT ![p] = "Done"]
                     /\ UNCHANGED <<vroot, u>>
           /\ UNCHANGED <<marked, toVroot>>
Mark(p) == /\ pc[p] = "b"
           /\ IF u[p] \notin marked
                THEN /\ marked' = marked \cup {u[p]}
                     /\ toVroot' = [toVroot EXCEPT ![p] = Succ[u[p]]]
                ELSE UNCHANGED <<marked, toVroot>>
           /\ pc' = [pc EXCEPT ![p] = "c"]
           /\ UNCHANGED <<vroot, u>>
Push(p) == /\ pc[p] = "c"
           /\ vroot' = vroot \cup toVroot[p]
           /\ toVroot' = [toVroot EXCEPT ![p] = {}]
           /\ pc' = [pc EXCEPT ![p] = "a"]
           /\ UNCHANGED <<marked, u>>
Terminating == /\ \A p \in Procs : pc[p] = "Done"
               /\ UNCHANGED vars
Next == Terminating \/ \E p \in Procs : Take(p) \/ Mark(p) \/ Push(p)
Spec == Init /\ [][Next]_vars /\ WF_vars(Next)

vrootBar == vroot \cup UNION {toVroot[p] \cup (IF pc[p] = "b" THEN {u[p]} ELSE {}) : p \in Procs}
pcBar == IF \A p \in Procs : pc[p] = "Done" THEN "Done" ELSE "a"
R == INSTANCE RefReach WITH vroot <- vrootBar, pc <- pcBar
RSpec == R!Spec
SuccMap == <<{2, 3}, {1, 3}, {3}>>
====
