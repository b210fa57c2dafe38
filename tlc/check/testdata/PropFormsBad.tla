---- MODULE PropFormsBad ----
\* PropForms' process with false properties of the same forms: from
\* x = 1, x ends at 7, so <>(x = 6) fails on that branch of Parity.
EXTENDS Naturals
VARIABLE x
Init == x \in {0, 1}
Next == x < 6 /\ x' = x + 2
Spec == Init /\ [][Next]_x /\ WF_x(Next)
Parity == IF x % 2 = 0 THEN <>(x = 6) ELSE <>(x = 6)
====
