---- MODULE InstanceParamDef ----
\* Instantiated by InstanceParam with its constant Succ given by an
\* instance parameter, and by a LET.
EXTENDS Naturals
CONSTANTS Nodes, Succ
VARIABLE x
Reach(n) == {Succ[n]} \cup {Succ[Succ[n]]}
Closed == \A n \in Nodes : Succ[n] \in Nodes
Step == x' = Succ[x]
====
