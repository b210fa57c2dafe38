---- MODULE PropBoth ----
\* A property whose negation meets two <> conditions in some order:
\* []P \/ []Q fails when P fails somewhere and Q somewhere else (x = 1
\* then x = 2); OkEither holds ([](x < 3) holds).
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x < 3 /\ x' = x + 1
Spec == Init /\ [][Next]_x /\ WF_x(Next)
Either == [](x # 2) \/ [](x # 1)
OkEither == [](x < 4) \/ [](x # 1)
====
