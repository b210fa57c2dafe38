---- MODULE PropLet ----
\* LET around temporal operators: a LET definition used by a leaf, a LET
\* definition whose body is temporal, one with a parameter under a
\* quantifier, nested LETs.
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x < 4 /\ x' = x + 1
Spec == Init /\ [][Next]_x /\ WF_x(Next)
Reach == LET P == x = 4 IN <>[]P
Named == LET F == <>(x = 4) IN F /\ []F
Each == LET Q(k) == x = k IN \A k \in 1..4 : <>Q(k)
Nested == LET a == 2 IN LET Up == x >= a IN (x = 1) ~> Up
Steps == LET Inc == x' = x + 1 IN [][Inc]_x
====
