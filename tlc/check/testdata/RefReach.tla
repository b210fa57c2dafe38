---- MODULE RefReach ----
\* Marking the nodes reachable from Root, one node at a time: the
\* abstract spec that RefParReach refines.
CONSTANT Nodes, Succ, Root
VARIABLES marked, vroot, pc
vars == <<marked, vroot, pc>>
Init == marked = {} /\ vroot = {Root} /\ pc = "a"
Visit == /\ pc = "a"
         /\ vroot # {}
         /\ \E v \in vroot :
              IF v \notin marked
                THEN /\ marked' = marked \cup {v}
                     /\ vroot' = (vroot \ {v}) \cup Succ[v]
                ELSE /\ vroot' = vroot \ {v}
                     /\ UNCHANGED marked
         /\ UNCHANGED pc
Stop == /\ pc = "a"
        /\ vroot = {}
        /\ pc' = "Done"
        /\ UNCHANGED <<marked, vroot>>
Terminating == pc = "Done" /\ UNCHANGED vars
Next == Visit \/ Stop \/ Terminating
Spec == Init /\ [][Next]_vars /\ WF_vars(Next)
====
