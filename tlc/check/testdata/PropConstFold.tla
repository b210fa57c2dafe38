---- MODULE PropConstFold ----
\* Fairness under a quantified implication whose condition is constant
\* (i # j): the condition is folded, as TLC folds it, instead of doubling
\* the normal form for each of the 380 bindings.
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x < 3 /\ x' = x + 1
Spec == Init /\ [][Next]_x /\ \A i, j \in 1..20 : (i # j) => WF_x(Next)
Reach == <>(x = 3)
====
