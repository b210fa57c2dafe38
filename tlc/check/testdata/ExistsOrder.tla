---- MODULE ExistsOrder ----
\* TLC enumerates \E i \in S, j \in T with the first variable varying
\* fastest (its ContextEnumerator). From the initial state the successors
\* are, in order, (1,10) (2,10) (1,20) (2,20). Inv holds only in the first,
\* so the trace ends in (2,10) (last variable fastest would give (1,20)).
\* 3 distinct and 1 + 2 generated when the search stops.
EXTENDS Naturals
VARIABLES a, b
Init == a = 0 /\ b = 0
Next == \E i \in {1, 2}, j \in {10, 20} : a' = i /\ b' = j
Inv == a = 0 \/ (a = 1 /\ b = 10)
====
