---- MODULE ByName ----
\* An action operator whose parameter is a variable, primed inside it:
\* Lose(q) assigns q'. q has lengths 3..0 and r 1..0: 8 distinct. Each
\* state has one successor per non-empty sequence: 3 * 2 + 4 * 1 = 10,
\* 1 + 10 = 11 generated, plus the final state's stuttering step: 12.
\* 4 steps: depth 5. The same holds for a LET operator (Drop). UNCHANGED
\* takes a definition and a nested tuple.
EXTENDS Sequences
VARIABLES q, r
vars == <<q, r>>
Lose(s) == /\ s # <<>>
           /\ s' = Tail(s)
Init == q = <<1, 2, 3>> /\ r = <<4>>
Next == \/ Lose(q) /\ UNCHANGED <<r>>
        \/ LET Drop(s) == s # <<>> /\ s' = Tail(s)
           IN Drop(r) /\ UNCHANGED <<<<q>>>>
        \/ q = <<>> /\ r = <<>> /\ UNCHANGED vars
====
