---- MODULE CovQueue ----
\* A bounded queue of jobs between producers and one consumer: the golden
\* spec of -coverage's per-expression report.
EXTENDS Naturals, Sequences
CONSTANTS Producers, Cap
VARIABLES queue, sent, busy

vars == <<queue, sent, busy>>

Full == Len(queue) >= Cap

Init ==
  /\ queue = <<>>
  /\ sent = [p \in Producers |-> 0]
  /\ busy = FALSE

Send(p) ==
  /\ ~Full
  /\ sent[p] < 2
  /\ queue' = Append(queue, [from |-> p, n |-> sent[p]])
  /\ sent' = [sent EXCEPT ![p] = @ + 1]
  /\ UNCHANGED busy

Take ==
  /\ ~busy
  /\ queue /= <<>>
  /\ busy' = TRUE
  /\ queue' = Tail(queue)
  /\ UNCHANGED sent

Done ==
  /\ busy
  /\ busy' = FALSE
  /\ UNCHANGED <<queue, sent>>

Next == Take \/ Done \/ \E p \in Producers : Send(p)

Spec == Init /\ [][Next]_vars

TypeOK ==
  /\ queue \in Seq([from : Producers, n : 0..2])
  /\ \A p \in Producers : sent[p] \in 0..2

Bounded == Len(queue) <= Cap
====
