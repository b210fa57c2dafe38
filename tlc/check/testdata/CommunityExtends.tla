---- MODULE CommunityExtends ----
\* FiniteSetsExt as the community modules define it today: it extends
\* Integers, FiniteSets, Folds and Functions, so Range, +, .. and
\* Cardinality are in scope with it alone; Functions has SumFunction.
\* Reference TLC: 7 distinct states, 7 generated, depth 3.
EXTENDS FiniteSetsExt
VARIABLE f
Init == f = [i \in 1..3 |-> 0]
Next == /\ SumFunction(f) < 2
        /\ \E i \in DOMAIN f : f' = [f EXCEPT ![i] = Max(Range(f)) + 1]
        /\ Cardinality(Range(f')) = 2
====
