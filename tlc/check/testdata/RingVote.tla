---- MODULE RingVote ----
\* Every assignment of booleans to K cells of a ring is an initial state
\* (2^K of them); a step lets each cell take the majority of itself and its
\* two neighbours, computed from a function of the state (alive, built once
\* per state) and a constant LET definition (offsets, computed once), as
\* the Examples' GameOfLife does. With K = 16 this is 65,536 initial states
\* (the measurement in docs/benchmarks.md); the test uses K = 8.
\* Reference TLC (K = 8): 256 distinct states, 512 generated, depth 1.
EXTENDS Integers
CONSTANT K
VARIABLE x
Cells == 1..K
alive[i \in 0..(K + 1)] == IF i = 0 THEN x[K] ELSE IF i = K + 1 THEN x[1] ELSE x[i]
RECURSIVE Count(_, _)
Count(f, S) == IF S = {} THEN 0
               ELSE LET i == CHOOSE i \in S : TRUE
                    IN  (IF f[i] THEN 1 ELSE 0) + Count(f, S \ {i})
Votes(i) == LET offsets == {d \in -1..1 : TRUE}
            IN  Count(alive, {i + d : d \in offsets})
Init == x \in [Cells -> BOOLEAN]
Next == x' = [i \in Cells |-> Votes(i) >= 2]
====
