---- MODULE TraceQueueMatched ----
\* TraceMatched on a spec that follows one behaviour to its end: one
\* state queued after each expansion, and the last state has l > N. TLC:
\* no error, 5 distinct states, 5 generated, depth 5.
EXTENDS Naturals, TLC
CONSTANT N
VARIABLE l
Init == l = 1
Next == l <= N /\ l' = l + 1
Spec == Init /\ [][Next]_l
TraceMatched == [](l <= N => [](TLCGet("queue") = 1 \/ l > N))
====
