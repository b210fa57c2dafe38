------------------------------ MODULE Relation ------------------------------
(***************************************************************************)
(* Binary relations over a set S, given as Boolean functions on S \X S     *)
(* (R[x, y] means that x is related to y), after the community module of  *)
(* the same name. Each property also comes as ...Under(op, S) for a        *)
(* relation given by an operator op(_, _).                                 *)
(*                                                                         *)
(* Written for modelfuzz's TLC engine. TransitiveClosure is computed by    *)
(* growing, for each x, the set of elements reachable from x, which gives  *)
(* the same function as the community module's definition.                *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets

LOCAL AsFunction(op(_, _), S) == [p \in S \X S |-> op(p[1], p[2])]

IsReflexive(R, S) == \A x \in S : R[x, x]
IsReflexiveUnder(op(_, _), S) == IsReflexive(AsFunction(op, S), S)

IsIrreflexive(R, S) == \A x \in S : ~R[x, x]
IsIrreflexiveUnder(op(_, _), S) == IsIrreflexive(AsFunction(op, S), S)

IsSymmetric(R, S) == \A x, y \in S : R[x, y] <=> R[y, x]
IsSymmetricUnder(op(_, _), S) == IsSymmetric(AsFunction(op, S), S)

IsAntiSymmetric(R, S) == \A x, y \in S : R[x, y] /\ R[y, x] => x = y
IsAntiSymmetricUnder(op(_, _), S) == IsAntiSymmetric(AsFunction(op, S), S)

IsAsymmetric(R, S) == \A x, y \in S : ~(R[x, y] /\ R[y, x])
IsAsymmetricUnder(op(_, _), S) == IsAsymmetric(AsFunction(op, S), S)

IsTransitive(R, S) == \A x, y, z \in S : R[x, y] /\ R[y, z] => R[x, z]
IsTransitiveUnder(op(_, _), S) == IsTransitive(AsFunction(op, S), S)

IsStrictlyPartiallyOrdered(R, S) ==
  IsIrreflexive(R, S) /\ IsAntiSymmetric(R, S) /\ IsTransitive(R, S)
IsStrictlyPartiallyOrderedUnder(op(_, _), S) ==
  IsStrictlyPartiallyOrdered(AsFunction(op, S), S)

IsPartiallyOrdered(R, S) ==
  IsReflexive(R, S) /\ IsAntiSymmetric(R, S) /\ IsTransitive(R, S)
IsPartiallyOrderedUnder(op(_, _), S) ==
  IsPartiallyOrdered(AsFunction(op, S), S)

IsStrictlyTotallyOrdered(R, S) ==
  /\ IsStrictlyPartiallyOrdered(R, S)
  /\ \A x, y \in S : x # y => R[x, y] \/ R[y, x]
IsStrictlyTotallyOrderedUnder(op(_, _), S) ==
  IsStrictlyTotallyOrdered(AsFunction(op, S), S)

IsTotallyOrdered(R, S) ==
  IsPartiallyOrdered(R, S) /\ \A x, y \in S : R[x, y] \/ R[y, x]
IsTotallyOrderedUnder(op(_, _), S) ==
  IsTotallyOrdered(AsFunction(op, S), S)

(* The elements of S that x reaches in one or more steps of R. *)
LOCAL ReachedFrom(R, S, x) ==
  LET Grow[T \in SUBSET S] ==
        LET More == T \cup {y \in S : \E z \in T : R[z, y]}
        IN  IF More = T THEN T ELSE Grow[More]
  IN  Grow[{y \in S : R[x, y]}]

(* R[x, y] holds in the transitive closure when y is reached from x in  *)
(* one or more steps.                                                     *)
TransitiveClosure(R, S) ==
  LET Reached == [x \in S |-> ReachedFrom(R, S, x)]
  IN  [p \in S \X S |-> p[2] \in Reached[p[1]]]

ReflexiveTransitiveClosure(R, S) ==
  LET T == TransitiveClosure(R, S)
  IN  [p \in S \X S |-> p[1] = p[2] \/ T[p]]

(* Any two elements of S are connected by R, in zero or more steps. *)
IsConnected(R, S) ==
  LET RT == ReflexiveTransitiveClosure(R, S)
  IN  \A x, y \in S : RT[x, y]
=============================================================================
