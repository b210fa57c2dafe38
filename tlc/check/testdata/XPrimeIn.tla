---- MODULE XPrimeIn ----
\* x' \in S branches, and a later conjunct tests the value it assigned:
\* 0 -> 1, 2; 1 -> 2, 3; 2 -> 3, 4; 3 -> 4 (5 is rejected); 4 -> none.
\* 5 distinct, 1 + 7 generated, depth 3.
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x' \in {x + 1, x + 2} /\ x' <= 4
====
