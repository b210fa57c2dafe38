---- MODULE InstanceAssumeDef ----
EXTENDS Naturals
\* Instantiated by InstanceAssume: its ASSUME quantifies over everything,
\* which no model checker can evaluate; TLC does not check the
\* assumptions of instantiated modules.
CONSTANT F(_, _)
ASSUME \A a, b : F(a, b) \in BOOLEAN
VARIABLE x
Init == x = 0
Next == F(x, 1 - x) /\ x' = 1 - x
====
