---- MODULE InstanceAssume ----
\* Only the assumptions of the root module and of the modules it extends
\* are checked (SANY's ModuleNode.getAssumptions), not those of
\* InstanceAssumeDef, which it instantiates.
\* Reference TLC: 2 distinct states, 3 generated, depth 2.
EXTENDS Naturals
VARIABLE y
G(a, b) == a # b
I == INSTANCE InstanceAssumeDef WITH x <- y, F <- G
ASSUME 1 + 1 = 2
Init == I!Init
Next == I!Next
====
