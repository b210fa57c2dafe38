---- MODULE LetUnderExists ----
\* A LET under a \E of the next-state relation: TLC splits the \E into one
\* action per binding, and the LET's frame is built on the binding's
\* (the search action by action once lost it).
\* Reference TLC: 3 distinct states, 7 generated, depth 2.
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == \E s \in 1..2 : LET t == s + x IN x' = t % 3
====
