-------------------------- MODULE UnionOfFuncSets --------------------------
(* Membership in UNIONs of function sets, SUBSET and record sets, some    *)
(* built from the state: decided without building the sets (4,096 to      *)
(* 65,536 functions each).                                                *)
EXTENDS Integers, FiniteSets
VARIABLE x, r
Init == x = [i \in 1 .. 4 |-> {}] /\ r = [f |-> 0, g |-> {}]
Next ==
  \E i \in 1 .. 4, s \in SUBSET (1 .. 3) :
    /\ x' = [x EXCEPT ![i] = s]
    /\ r' = [f |-> Cardinality(s), g |-> s]
Width == IF x[1] = {} THEN 4 ELSE 2
TypeOk ==
  /\ x \in UNION {[1 .. 4 -> SUBSET (1 .. 3)], [1 .. 2 -> 1 .. 5], [1 .. Width -> SUBSET (1 .. 3)]}
  /\ x \in UNION {[1 .. 4 -> SUBSET (0 .. r.f + 3)]}
  /\ r \in [f : 0 .. 3, g : UNION {SUBSET (1 .. 3), SUBSET (x[1] \cup x[2])}]
NotAll == \E i \in 1 .. 4 : x[i] # 1 .. 3
=============================================================================
