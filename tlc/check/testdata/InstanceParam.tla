---- MODULE InstanceParam ----
\* P(Succ) == INSTANCE M fills M's constant Succ from the parameter (as
\* the Examples' MisraReachability ReachabilityTest does), and
\* LET CC == INSTANCE M IN CC!Op defines an instance inside a LET (as
\* MCCheckpointCoordination does).
\* Reference TLC: 3 distinct states, 7 generated, depth 2.
EXTENDS Naturals
CONSTANT Nodes
VARIABLE x
Succs == {[n \in Nodes |-> (n + 1) % 3], [n \in Nodes |-> (n + 2) % 3]}
P(Succ) == INSTANCE InstanceParamDef
ASSUME \A s \in Succs : P(s)!Closed
Init == x = 0
Next == \E s \in Succs :
          LET CC == INSTANCE InstanceParamDef WITH Succ <- s
          IN  CC!Step /\ x' \in P(s)!Reach(x)
====
