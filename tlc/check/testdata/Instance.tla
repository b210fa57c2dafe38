---- MODULE Instance ----
\* A named instance with WITH substitutions (Cap <- 2, chan <- box): box
\* holds sequences over {"a", "b"} of length 0..2: 1 + 2 + 4 = 7 states.
\* Successors: Send from lengths 0, 1 (2 each) and Recv from lengths 1, 2:
\* 1 * 2 + 2 * (2 + 1) + 4 * 1 = 12, 1 + 12 = 13 generated, depth 3.
\* The invariant uses the instance's operator.
EXTENDS Naturals
VARIABLE box
C == INSTANCE Channel WITH Msgs <- {"a", "b"}, Cap <- 2, chan <- box
Init == C!ChInit
Next == C!ChNext
Inv == C!Size =< 2
====
