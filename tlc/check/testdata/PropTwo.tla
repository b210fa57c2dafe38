---- MODULE PropTwo ----
\* Two properties violated by one behaviour (x stops at 2): TLC names both
\* ("Temporal properties A and B were violated."); Fine holds and is not
\* named.
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x < 2 /\ x' = x + 1
Spec == Init /\ [][Next]_x /\ WF_x(Next)
Ten == <>(x = 10)
Fine == <>(x = 2)
Zero == []<>(x = 0)
====
