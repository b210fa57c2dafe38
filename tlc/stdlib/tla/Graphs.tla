------------------------------- MODULE Graphs -------------------------------
(***************************************************************************)
(* Directed graphs, after the community module of the same name: a graph  *)
(* is a record [node |-> N, edge |-> E] with E a set of pairs <<m, n>> of  *)
(* nodes.                                                                  *)
(*                                                                         *)
(* Written for modelfuzz's TLC engine. TLC replaces SimplePath,            *)
(* AreConnectedIn and IsStronglyConnected by Java code; here they are      *)
(* defined so that they can be computed (by growing sets of reachable      *)
(* nodes and extending simple paths one node at a time), with the values   *)
(* TLC's code gives: only edges between nodes of the graph count.          *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets, SequencesExt, Relation

IsDirectedGraph(G) ==
  /\ G = [node |-> G.node, edge |-> G.edge]
  /\ G.edge \subseteq G.node \X G.node

DirectedSubgraph(G) ==
  {H \in [node : SUBSET G.node, edge : SUBSET (G.node \X G.node)] :
     IsDirectedGraph(H) /\ H.edge \subseteq G.edge}

Transpose(G) == [edge |-> {<<e[2], e[1]>> : e \in G.edge}, node |-> G.node]

(* An undirected graph as a directed one whose edges go both ways. *)
IsUndirectedGraph(G) ==
  IsDirectedGraph(G) /\ \A e \in G.edge : <<e[2], e[1]>> \in G.edge

UndirectedSubgraph(G) == {H \in DirectedSubgraph(G) : IsUndirectedGraph(H)}

(* The non-empty sequences of nodes each linked to the next by an edge. *)
Path(G) ==
  {p \in Seq(G.node) :
     p # << >> /\ \A i \in 1..(Len(p) - 1) : <<p[i], p[i + 1]>> \in G.edge}

(* The nodes reached from those of S (which are nodes of G), S included. *)
LOCAL Reach(G, S) ==
  LET Grow[T \in SUBSET G.node] ==
        LET More == T \cup {n \in G.node : \E m \in T : <<m, n>> \in G.edge}
        IN  IF More = T THEN T ELSE Grow[More]
  IN  Grow[S]

(* The paths without a repeated node. *)
SimplePath(G) ==
  LET Longer(p) ==
        {Append(p, n) : n \in {m \in G.node \ Range(p) : <<p[Len(p)], m>> \in G.edge}}
      OfLength[k \in 1..Cardinality(G.node)] ==
        IF k = 1 THEN {<<n>> : n \in G.node}
                 ELSE UNION {Longer(p) : p \in OfLength[k - 1]}
  IN  UNION {OfLength[k] : k \in 1..Cardinality(G.node)}

(* A path leads from m to n. *)
AreConnectedIn(m, n, G) ==
  IF m \in G.node /\ n \in G.node THEN n \in Reach(G, {m}) ELSE FALSE

IsStronglyConnected(G) == \A m \in G.node : Reach(G, {m}) = G.node

(* Whether a path leads from m to n, for all nodes m and n. *)
ConnectionsIn(G) ==
  LET Reached == [m \in G.node |-> Reach(G, {m})]
  IN  [p \in G.node \X G.node |-> p[2] \in Reached[p[1]]]

(* A tree with edges pointing to its root r. *)
IsTreeWithRoot(G, r) ==
  /\ IsDirectedGraph(G)
  /\ r \in G.node
  /\ \A e \in G.edge : /\ e[1] # r
                       /\ \A f \in G.edge : e[1] = f[1] => e = f
  /\ \A n \in G.node : AreConnectedIn(n, r, G)

GraphUnion(G, H) == [node |-> G.node \cup H.node, edge |-> G.edge \cup H.edge]

IsBipartiteWithPartitions(G, U, V) ==
  /\ U \cap V = {}
  /\ G.node \subseteq U \cup V
  /\ \A e \in G.edge : \/ e[1] \in U /\ e[2] \in V
                       \/ e[2] \in U /\ e[1] \in V

HasCycle(G) ==
  \/ \E n \in G.node : <<n, n>> \in G.edge
  \/ \E m, n \in G.node : /\ m # n
                          /\ ConnectionsIn(G)[m, n]
                          /\ ConnectionsIn(G)[n, m]

IsDag(G) == IsDirectedGraph(G) /\ ~HasCycle(G)

Successors(G, n) == {m \in G.node : <<n, m>> \in G.edge}
AllSuccessors(G, S) == UNION {Successors(G, n) : n \in S}
Predecessors(G, n) == {m \in G.node : <<m, n>> \in G.edge}
AllPredecessors(G, S) == UNION {Predecessors(G, n) : n \in S}

LOCAL EdgeRelation(G) == [p \in G.node \X G.node |-> p \in G.edge]

(* The nodes with a path of one or more edges to n. *)
Ancestors(G, n) ==
  {m \in G.node : TransitiveClosure(EdgeRelation(G), G.node)[m, n]}

(* The nodes reached from n by a path of one or more edges. *)
Descendants(G, n) ==
  {m \in G.node : TransitiveClosure(EdgeRelation(G), G.node)[n, m]}

InDegree(G, n) == Cardinality(Predecessors(G, n))
OutDegree(G, n) == Cardinality(Successors(G, n))

Roots(G) == {n \in G.node : Predecessors(G, n) = {}}
Leaves(G) == {n \in G.node : Successors(G, n) = {}}

EmptyGraph == [node |-> {}, edge |-> {}]

(* Every graph whose set of nodes is S. *)
Graphs(S) == [node : {S}, edge : SUBSET (S \X S)]
=============================================================================
