---- MODULE GenAllAssigned ----
\* Generated states once every variable has a value (TLC's
\* Tool.getNextStatesAllAssigned and getInitStates): the rest of the
\* predicate is evaluated, not enumerated. Before x' and y' both have
\* values, a disjunction or \E branches and each branch that holds counts.
\* Reference TLC (tla2tools built from tlaplus/tlaplus, 2026-11):
\* 9 distinct states, 29 generated (2 initial, then 1 + 2 per state), depth 4.
EXTENDS Naturals
VARIABLES x, y
\* Two initial states, each generated once although both disjuncts of the
\* last conjunct hold: x and y have values when it is reached.
Init == x \in 0..1 /\ y = 0 /\ (x >= 0 \/ y >= 0)
Next ==
  \/ /\ x' = (x + 1) % 3
     /\ y' = y
     /\ (x >= 0 \/ y >= 0)                   \* evaluated: one state
     /\ \E i \in 1..3 : i > x                \* evaluated: one state
  \/ /\ (x >= 0 \/ y >= 0)                   \* enumerated: two branches
     /\ x' = x
     /\ y' = (y + 1) % 3
====
