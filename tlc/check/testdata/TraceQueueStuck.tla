---- MODULE TraceQueueStuck ----
\* TraceMatched on a spec that cannot consume its "log" past l = 3: the
\* queue is empty on the stuttering step of the state with l = 3, which
\* violates the property. TLC: the behaviour up to l = 3, 3 distinct
\* states, 3 generated, depth 3, exit 12.
EXTENDS Naturals, TLC
CONSTANT N
VARIABLE l
Init == l = 1
Next == l < 3 /\ l' = l + 1
Spec == Init /\ [][Next]_l
TraceMatched == [](l <= N => [](TLCGet("queue") = 1 \/ l > N))
====
