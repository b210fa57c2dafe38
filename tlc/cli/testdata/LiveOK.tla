---- MODULE LiveOK ----
\* Three temporal properties that hold under weak fairness: TLC checks
\* them as three branches (one for []<>, one for each ~>).
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x' = (x + 1) % 3
Spec == Init /\ [][Next]_x /\ WF_x(Next)
Often == []<>(x = 1)
Leads == (x = 0) ~> (x = 2)
Leads2 == (x = 1) ~> (x = 0)
====
