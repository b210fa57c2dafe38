---- MODULE VectorClocksModule ----
\* The community module VectorClocks: IsCausalOrder and CausalOrder. Every
\* ASSUME holds in TLC too (2026-11-25). Where entries are concurrent, TLC
\* breaks the tie by a Java hash map's order, which changes from run to run
\* (E6 and E5 of Log came in either order in three runs): only that the
\* result is a causal order of the whole log is checked there.
EXTENDS Naturals, Sequences, VectorClocks, TLC
VARIABLE x
E1 == [node |-> 0, vc |-> (0 :> 1)]
E2 == [node |-> 0, vc |-> (0 :> 2)]
E3 == [node |-> 1, vc |-> (0 :> 2 @@ 1 :> 1)]
E4 == [node |-> 1, vc |-> (0 :> 2 @@ 1 :> 2)]
E5 == [node |-> 2, vc |-> (0 :> 1 @@ 1 :> 2 @@ 2 :> 1)]
E6 == [node |-> 0, vc |-> (0 :> 3 @@ 1 :> 2)]
Log == <<E6, E5, E4, E3, E2, E1>>
Clock(e) == e.vc
Node(e) == e.node
Dom(vc) == DOMAIN vc
Init == x = 0
Next == x < 1 /\ x' = x + 1
ASSUME <<IsCausalOrder(Log, Clock), IsCausalOrder(<<E1, E2, E3, E4, E5, E6>>, Clock),
         IsCausalOrder(<<E1, E3, E2>>, Clock), IsCausalOrder(<<>>, Clock)>> = <<FALSE, TRUE, FALSE, TRUE>>
ASSUME LET o == CausalOrder(Log, Clock, Node, Dom) IN
         IsCausalOrder(o, Clock) /\ Len(o) = 6 /\ Range(o) = Range(Log) /\ o[1] = E1
ASSUME CausalOrder(<<E4, E1, E3, E2>>, Clock, Node, Dom) = <<E1, E2, E3, E4>>
ASSUME CausalOrder(<<E2, E1>>, Clock, Node, Dom) = <<E1, E2>>
ASSUME CausalOrder(<<>>, Clock, Node, Dom) = <<>>
ASSUME Range(<<1, 2>>) = {1, 2}
====
