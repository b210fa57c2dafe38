---- MODULE ScopedOverride ----
\* Cap <- [Channel]TwoCap replaces Channel's constant Cap in that module
\* only: the instance C has capacity 2, while this module's Cap is 5 (the
\* instance would otherwise take it by implicit substitution and have 6
\* states). One message, lengths 0..2: 3 distinct, 1 + 1 + 2 + 1 = 5
\* generated, depth 3.
EXTENDS Naturals
CONSTANT Cap
VARIABLE box
TwoCap == 2
C == INSTANCE Channel WITH Msgs <- {"m"}, chan <- box
Init == C!ChInit
Next == C!ChNext
Other == Cap = 5
====
