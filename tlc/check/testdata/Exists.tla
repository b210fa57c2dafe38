---- MODULE Exists ----
\* \E in an action: s is a function 1..2 -> 0..2; each step raises one
\* entry below 2. All 9 functions are reachable; a state has one successor
\* per entry below 2, 12 in all: 1 + 12 = 13 generated. The longest path
\* has 4 steps: depth 5.
EXTENDS Naturals
VARIABLE s
Init == s = [i \in 1..2 |-> 0]
Next == \E i \in 1..2 : s[i] < 2 /\ s' = [s EXCEPT ![i] = @ + 1]
====
