---- MODULE LazyStateDef ----
\* A definition equal to a filter that depends on the state is tested
\* lazily (x \in S /\ P(x)), as TLC tests a SetPredValue: building it would
\* enumerate SUBSET (0..60) in every state.
EXTENDS Naturals, FiniteSets
VARIABLE x
Init == x = 0
Next == x < 3 /\ x' = x + 1
Singletons == {s \in SUBSET (0..(x + 60)) : Cardinality(s) = 1}
Inv == {x} \in Singletons
====
