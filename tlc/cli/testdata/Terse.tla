---- MODULE Terse ----
\* Values TLC prints expanded by default and as written under -terse.
EXTENDS Integers, Sequences, TLC
VARIABLES x, y
S == {1, 2}
Init == /\ PrintT(<<"fs", [S -> {"a", "b"}]>>)
        /\ PrintT(<<"rs", [f : S, g : {TRUE}]>>)
        /\ PrintT(<<"ps", S \X {3}>>)
        /\ PrintT(<<"sub", SUBSET S>>)
        /\ PrintT(<<"sub7", SUBSET (1..7)>>)
        /\ PrintT(<<"sub7e", SUBSET {1, 2, 3, 4, 5, 6, 7}>>)
        /\ PrintT(<<"un", UNION {S, {3}}>>)
        /\ PrintT(<<"cup", S \cup {5}>>)
        /\ PrintT(<<"cap", S \cap {2, 5}>>)
        /\ PrintT(<<"diff", S \ {1}>>)
        /\ PrintT(<<"pred", {n \in S : n > 1}>>)
        /\ PrintT(<<"lam", [n \in S |-> n + 1]>>)
        /\ PrintT(<<"seq", Seq(S)>>)
        /\ PrintT(<<"big", [1..20 -> 1..20]>>)
        /\ PrintT(<<"nested", [a |-> SUBSET {1}, b |-> [{1} -> {2, 3}]]>>)
        /\ Print([{1} -> {0}], TRUE)
        /\ x = [S -> {0}]
        /\ y = [a |-> SUBSET {1}, b |-> [{"p"} -> {2, 3}]]
Next == UNCHANGED <<x, y>>
Inv == x # {[n \in S |-> 0]}
====
