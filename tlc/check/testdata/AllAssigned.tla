---- MODULE AllAssigned ----
\* Once every variable has a value, TLC evaluates what remains of Init or
\* of an action instead of enumerating it: the disjunctions below hold on
\* both sides in some states, and each such state is generated once.
\* Init: x \in 1..3, and x = 1 \/ x > 0 holds for all three, twice for
\* x = 1: 3 initial states generated, not 4. Next: from x, x' = x + 1 (3: 1)
\* and then x' > 0 \/ x > 0 (both true): 1 successor each, 3 + 3 = 6
\* generated, 3 distinct, depth 1 (every successor is an initial state).
EXTENDS Naturals
VARIABLE x
Init == x \in 1..3 /\ (x = 1 \/ x > 0)
Next == x' = (IF x = 3 THEN 1 ELSE x + 1) /\ (x' > 0 \/ x > 0)
====
