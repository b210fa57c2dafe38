---- MODULE GenLetDef ----
\* A LET definition used as a conjunct of an action is enumerated where it
\* stands (TLC passes it lazily), even when it was evaluated before: each
\* witness of its \E generates a state.
\* Reference TLC: 3 distinct states, 7 generated (3, 2 and 1 witnesses
\* from x = 0, 1, 2, and the initial state), depth 3.
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next ==
  LET g == \E j \in 1..3 : j > x
  IN  IF g THEN g /\ x' = (x + 1) % 3 ELSE x' = 0 /\ x' = 0
====
