---- MODULE PropForms ----
\* More forms real specs use, all true here (TLC agrees): IF over temporal
\* formulas (its condition on the initial state), [](P => <>[]Q),
\* [](P => []Q), [](P => []<>Q) and \E over a constant set.
EXTENDS Naturals
VARIABLE x
Init == x \in {0, 1}
Next == x < 6 /\ x' = x + 2
Spec == Init /\ [][Next]_x /\ WF_x(Next)
Parity == IF x % 2 = 0 THEN <>(x = 6) ELSE <>(x = 7)
Stable == [](x >= 6 => <>[](x >= 6))
Stays == [](x >= 6 => [](x >= 6))
Often == [](x = 0 => []<>(x >= 6))
Some == \E k \in {6, 7} : <>(x = k)
====
