-------------------------- MODULE UndirectedGraphs --------------------------
(***************************************************************************)
(* Undirected graphs, after the community module of the same name: a      *)
(* graph is a record [node |-> N, edge |-> E] whose edges are sets {m, n}  *)
(* of nodes ({n} is a loop).                                               *)
(*                                                                         *)
(* Written for modelfuzz's TLC engine. TLC replaces SimplePath,            *)
(* AreConnectedIn and ConnectedComponents by Java code; here they are      *)
(* defined so that they can be computed, with the values TLC's code gives: *)
(* only edges between nodes of the graph count.                            *)
(***************************************************************************)
LOCAL INSTANCE Naturals
LOCAL INSTANCE Sequences
LOCAL INSTANCE SequencesExt
LOCAL INSTANCE FiniteSets
LOCAL INSTANCE Functions

IsUndirectedGraph(G) ==
  /\ G = [node |-> G.node, edge |-> G.edge]
  /\ \A e \in G.edge : \E m, n \in G.node : e = {m, n}

IsLoopFreeUndirectedGraph(G) ==
  /\ G = [node |-> G.node, edge |-> G.edge]
  /\ \A e \in G.edge : \E m, n \in G.node : m # n /\ e = {m, n}

UndirectedSubgraph(G) ==
  {H \in [node : SUBSET G.node, edge : SUBSET G.edge] : IsUndirectedGraph(H)}

(* The non-empty sequences of nodes each linked to the next by an edge. *)
Path(G) ==
  {p \in Seq(G.node) :
     p # << >> /\ \A i \in 1..(Len(p) - 1) : {p[i], p[i + 1]} \in G.edge}

(* The nodes reached from those of S (which are nodes of G), S included. *)
LOCAL Reach(G, S) ==
  LET Grow[T \in SUBSET G.node] ==
        LET More == T \cup {n \in G.node : \E m \in T : {m, n} \in G.edge}
        IN  IF More = T THEN T ELSE Grow[More]
  IN  Grow[S]

(* The paths without a repeated node. *)
SimplePath(G) ==
  LET Longer(p) ==
        {Append(p, n) : n \in {m \in G.node \ Range(p) : {p[Len(p)], m} \in G.edge}}
      OfLength[k \in 1..Cardinality(G.node)] ==
        IF k = 1 THEN {<<n>> : n \in G.node}
                 ELSE UNION {Longer(p) : p \in OfLength[k - 1]}
  IN  UNION {OfLength[k] : k \in 1..Cardinality(G.node)}

(* A path leads from m to n. *)
AreConnectedIn(m, n, G) ==
  IF m \in G.node /\ n \in G.node THEN n \in Reach(G, {m}) ELSE FALSE

(* The maximal sets of nodes connected to each other. *)
ConnectedComponents(G) == {Reach(G, {n}) : n \in G.node}

(* One component holds every node (so a graph without nodes is not). *)
IsStronglyConnected(G) == ConnectedComponents(G) = {G.node}

(* Every undirected graph whose set of nodes is S. *)
UndirectedGraphs(S) == [node : {S}, edge : SUBSET {{m, n} : <<m, n>> \in S \X S}]
=============================================================================
