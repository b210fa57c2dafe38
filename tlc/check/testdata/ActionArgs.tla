---- MODULE ActionArgs ----
\* Actions passed to operators: an operator parameter used as an action is
\* enumerated where the action was written (TLC passes arguments lazily),
\* so it can give primed variables their values; likewise an operator
\* argument called with arguments (Apply(Set, v)) and a LAMBDA. A
\* branching formula passed as an argument branches where it is used.
\* Reference TLC: 9 distinct states, 136 generated, depth 4.
EXTENDS Naturals
VARIABLES x, y
Init == x = 0 /\ y = 0
W(A) == A
V(A) == W(A) /\ TRUE
Both(A, B) == A /\ B
Set(v) == x' = v
Apply(Op(_), v) == Op(v) /\ UNCHANGED y
Inc == x' = (x + 1) % 3 /\ y' = y
Next ==
  \/ W(Inc)
  \/ V(Inc)
  \/ Both(x' = x, y' \in {(y + 1) % 3, y})
  \/ \E v \in 0..2 : Apply(Set, v)
  \/ \E v \in 0..2 : Apply(LAMBDA w : x' = w \/ x' = w, v)
  \/ Both(\E i \in 1..3 : i > x, x' = x /\ y' = x)
====
