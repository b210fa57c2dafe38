---- MODULE InstanceLambda ----
\* An operator constant of an instantiated module given by a LAMBDA
\* (INSTANCE ... WITH F <- LAMBDA a, b : ...), as the Examples'
\* TestGraphs gives TLCMC its Constraint.
\* Reference TLC: 2 distinct states, 3 generated, depth 2.
VARIABLE y
I == INSTANCE InstanceAssumeDef WITH x <- y, F <- LAMBDA a, b : a # b
Init == I!Init
Next == I!Next
====
