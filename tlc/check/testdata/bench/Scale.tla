---- MODULE Scale ----
\* A spec of 1,680,448 distinct states (N = 6, K = 2; depth 33) for
\* measuring the checker's memory and speed (scripts/scale-bench.sh,
\* BenchmarkScale): N processes each count up to K in two steps (take a
\* ticket, then add it), or drop their count; the last two processes to
\* add are remembered in order. TLC: 1,680,448 distinct, 13,444,417
\* generated, depth 33.
EXTENDS Naturals, Sequences
CONSTANTS N, K
Procs == 1..N
VARIABLES val, busy, last
vars == <<val, busy, last>>

Init == /\ val = [p \in Procs |-> 0]
        /\ busy = [p \in Procs |-> FALSE]
        /\ last = <<>>

Take(p) == /\ ~busy[p]
           /\ busy' = [busy EXCEPT ![p] = TRUE]
           /\ UNCHANGED <<val, last>>

Add(p) == /\ busy[p]
          /\ val[p] < K
          /\ val' = [val EXCEPT ![p] = @ + 1]
          /\ busy' = [busy EXCEPT ![p] = FALSE]
          /\ last' = Append(IF Len(last) = 2 THEN Tail(last) ELSE last, p)

Drop(p) == /\ busy[p]
           /\ val' = [val EXCEPT ![p] = 0]
           /\ busy' = [busy EXCEPT ![p] = FALSE]
           /\ UNCHANGED last

Next == \E p \in Procs : Take(p) \/ Add(p) \/ Drop(p)

Bounded == \A p \in Procs : val[p] <= K
====
