---- MODULE LazyMembership ----
\* Membership in sets that are not built: x \in {y \in S : P(y)} tests
\* x \in S /\ P(x) (TLC's SetPredValue), so that S, here over a million
\* functions or all of Nat, is never enumerated; likewise SUBSET, [S -> T],
\* Seq(S), Nat and Int.
\* Reference TLC: 2 distinct states, 3 generated, depth 2.
EXTENDS Integers, Sequences
CONSTANT Jug, Capacity
ASSUME Capacity \in [Jug -> {n \in Nat : n > 0}]
VARIABLE x
Cap == [j \in Jug |-> 3]
Positive == {n \in Nat : n > 0}
Big == [1..20 -> BOOLEAN]
Init == x = [i \in 1..20 |-> FALSE]
Next ==
  /\ x \in {f \in Big : \A i \in 2..20 : ~f[i]}
  /\ x \notin {f \in Big : f[2]}
  /\ LET Odd == {n \in Int : n % 2 = 1} IN -3 \in Odd /\ 4 \notin Odd
  /\ 5 \in Positive /\ 0 \notin Positive
  /\ <<1, 2>> \in Seq(Positive) /\ <<0>> \notin Seq(Positive)
  /\ {1, 3} \in SUBSET Positive /\ [i \in 1..3 |-> i] \in [1..3 -> Positive]
  /\ x' = [x EXCEPT ![1] = ~@]
====
