---- MODULE CommunityGraphs ----
\* The community modules Graphs, UndirectedGraphs and Relation, which the
\* engine provides in TLA+ (tlc/stdlib/tla). Every value below was printed
\* by the reference TLC with the CommunityModules (its Java code for
\* SimplePath, AreConnectedIn, IsStronglyConnected, ConnectedComponents);
\* TLC finds every ASSUME true.
\* Reference TLC: no error, 4 distinct states, 5 generated, depth 4.
EXTENDS Graphs, TLC
U == INSTANCE UndirectedGraphs
G == [node |-> {1, 2, 3, 4}, edge |-> {<<1, 2>>, <<2, 3>>, <<3, 1>>, <<3, 4>>, <<4, 9>>}]
T == [node |-> {1, 2, 3}, edge |-> {<<2, 1>>, <<3, 1>>}]
E == [node |-> {}, edge |-> {}]
ASSUME SimplePath(G) = {<<1>>, <<2>>, <<3>>, <<4>>, <<1, 2>>, <<2, 3>>, <<3, 1>>, <<3, 4>>,
                        <<1, 2, 3>>, <<2, 3, 1>>, <<2, 3, 4>>, <<3, 1, 2>>, <<1, 2, 3, 4>>}
ASSUME SimplePath(T) = {<<1>>, <<2>>, <<3>>, <<2, 1>>, <<3, 1>>}
ASSUME [m \in G.node |-> {n \in G.node : AreConnectedIn(m, n, G)}]
         = <<{1, 2, 3, 4}, {1, 2, 3, 4}, {1, 2, 3, 4}, {4}>>
ASSUME <<AreConnectedIn(4, 9, G), AreConnectedIn(9, 9, G), AreConnectedIn(1, 1, G)>> = <<FALSE, FALSE, TRUE>>
ASSUME <<IsStronglyConnected(G), IsStronglyConnected(T), IsStronglyConnected(E),
         IsStronglyConnected([node |-> {1, 2}, edge |-> {<<1, 2>>, <<2, 1>>}])>> = <<FALSE, FALSE, TRUE, TRUE>>
ASSUME ConnectionsIn(T) = [p \in T.node \X T.node |-> p[1] = p[2] \/ p[2] = 1]
ASSUME <<IsTreeWithRoot(T, 1), IsTreeWithRoot(G, 1)>> = <<TRUE, FALSE>>
ASSUME <<HasCycle(G), HasCycle(T), IsDag(T), IsDag(G)>> = <<TRUE, FALSE, TRUE, FALSE>>
ASSUME <<Ancestors(G, 1), Ancestors(T, 1), Descendants(G, 4), Descendants(T, 2)>> = <<{1, 2, 3}, {2, 3}, {}, {1}>>
ASSUME <<InDegree(G, 1), OutDegree(G, 3), Roots(T), Leaves(T), Roots(G), Leaves(G)>> = <<1, 2, {2, 3}, {1}, {}, {4}>>
ASSUME <<Successors(G, 3), AllSuccessors(G, {1, 3}), Predecessors(G, 1), AllPredecessors(G, {1, 2})>>
         = <<{1, 4}, {1, 2, 4}, {3}, {1, 3}>>
ASSUME Transpose(T) = [node |-> {1, 2, 3}, edge |-> {<<1, 2>>, <<1, 3>>}]
ASSUME GraphUnion(T, E) = T /\ EmptyGraph = E
ASSUME <<Cardinality(DirectedSubgraph(T)), Cardinality(UndirectedSubgraph(T)), Cardinality(Graphs({1, 2}))>> = <<13, 8, 16>>
ASSUME <<IsDirectedGraph(G), IsDirectedGraph(T), IsUndirectedGraph(T), IsBipartiteWithPartitions(T, {1}, {2, 3})>>
         = <<FALSE, TRUE, FALSE, TRUE>>
\* Path(G) is infinite: membership only.
ASSUME <<<<1, 2, 3, 1, 2>> \in Path(G), <<1, 3>> \in Path(G), <<4>> \in Path(G)>> = <<TRUE, FALSE, TRUE>>

UG == [node |-> {1, 2, 3, 4, 5}, edge |-> {{1, 2}, {2, 3}, {4}, {5, 9}}]
ASSUME U!SimplePath(UG) = {<<1>>, <<2>>, <<3>>, <<4>>, <<5>>, <<1, 2>>, <<2, 1>>, <<2, 3>>, <<3, 2>>, <<1, 2, 3>>, <<3, 2, 1>>}
ASSUME <<U!AreConnectedIn(1, 3, UG), U!AreConnectedIn(3, 1, UG), U!AreConnectedIn(1, 4, UG),
         U!AreConnectedIn(4, 4, UG), U!AreConnectedIn(5, 9, UG)>> = <<TRUE, TRUE, FALSE, TRUE, FALSE>>
ASSUME <<U!ConnectedComponents(UG), U!ConnectedComponents(E)>> = <<{{4}, {5}, {1, 2, 3}}, {}>>
ASSUME <<U!IsStronglyConnected(UG), U!IsStronglyConnected(E), U!IsStronglyConnected([node |-> {1, 2}, edge |-> {{1, 2}}])>>
         = <<FALSE, FALSE, TRUE>>
ASSUME <<U!IsUndirectedGraph(UG), U!IsLoopFreeUndirectedGraph(UG), U!IsUndirectedGraph([node |-> {1, 2}, edge |-> {{1, 2}}]),
         U!IsLoopFreeUndirectedGraph([node |-> {1, 2}, edge |-> {{1, 2}}])>> = <<FALSE, FALSE, TRUE, TRUE>>
ASSUME Cardinality(U!UndirectedSubgraph([node |-> {1, 2}, edge |-> {{1, 2}}])) = 5
ASSUME Cardinality(U!UndirectedGraphs({1, 2})) = 8
ASSUME <<<<1, 2, 1, 2>> \in U!Path(UG), <<1, 3>> \in U!Path(UG)>> = <<TRUE, FALSE>>

\* Relation (extended by Graphs).
S == {1, 2, 3}
R == [p \in S \X S |-> p[2] = p[1] + 1]
ASSUME TransitiveClosure(R, S) = [p \in S \X S |-> p[1] < p[2]]
ASSUME ReflexiveTransitiveClosure(R, S) = [p \in S \X S |-> p[1] <= p[2]]
ASSUME <<IsConnected(R, S), IsConnected([p \in S \X S |-> TRUE], S)>> = <<FALSE, TRUE>>
ASSUME <<IsReflexiveUnder(=, S), IsReflexiveUnder(<, S), IsIrreflexiveUnder(<, S), IsIrreflexive(R, S)>> = <<TRUE, FALSE, TRUE, TRUE>>
ASSUME <<IsSymmetricUnder(=, S), IsSymmetricUnder(<, S), IsAntiSymmetricUnder(<=, S), IsAsymmetricUnder(<, S),
         IsAsymmetricUnder(<=, S)>> = <<TRUE, FALSE, TRUE, TRUE, FALSE>>
ASSUME <<IsTransitiveUnder(<, S), IsTransitive(R, S)>> = <<TRUE, FALSE>>
ASSUME <<IsStrictlyPartiallyOrderedUnder(<, S), IsPartiallyOrderedUnder(<=, S), IsStrictlyTotallyOrderedUnder(<, S),
         IsTotallyOrderedUnder(<=, S), IsTotallyOrderedUnder(<, S)>> = <<TRUE, TRUE, TRUE, TRUE, FALSE>>

\* A behaviour walking G while it stays connected to node 4.
VARIABLE at
Init == at = 1
Next == \E n \in Successors(G, at) : AreConnectedIn(n, 4, G) /\ at' = n
====
