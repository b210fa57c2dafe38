---- MODULE Stay ----
\* A temporal property whose violations are finite behaviours: TLC finds
\* its counterexample during the search, after announcing one branch.
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x' = (x + 1) % 3
Stay == [](x = 2 => [](x >= 1))
====
