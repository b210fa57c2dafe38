---- MODULE TraceQueueBranch ----
\* Trace validation's TraceMatched (etcd raft's Traceetcdraft.tla) on a
\* spec that follows two behaviours: TLC evaluates the property's
\* predicates when the initial state's two successors are queued, on its
\* stuttering step too, so TLCGet("queue") is 2 there and the property is
\* violated by the initial state alone. TLC: "Temporal property
\* TraceMatched was violated", the initial state as counterexample, 3
\* states generated, 3 distinct, depth 2, exit 12.
EXTENDS Naturals, TLC
CONSTANT N
VARIABLE x, l
Init == x = 0 /\ l = 1
Next == l <= N /\ l' = l + 1 /\ x' \in 0..1
Spec == Init /\ [][Next]_<<x, l>>
TraceMatched == [](l <= N => [](TLCGet("queue") = 1 \/ l > N))
====
