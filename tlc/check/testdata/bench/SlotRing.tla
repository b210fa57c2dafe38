------------------------------ MODULE SlotRing ------------------------------
(* Producers claim sequence numbers and write them into a ring of slots;   *)
(* consumers read every slot in order. TypeOk is written the way the       *)
(* Disruptor specs write theirs: the ring is a member of a set of records  *)
(* whose fields are UNIONs of function sets over Int and power sets, sets  *)
(* a checker must test membership in without building them, and sets      *)
(* built from the state. SlotRingNoType.cfg checks the same spec without   *)
(* TypeOk, to measure what it costs.                                       *)
EXTENDS Integers, FiniteSets, Sequences

CONSTANTS Slots, Producers, Consumers, Limit, Empty

VARIABLES ring, next, held, done, log

vars == <<ring, next, held, done, log>>

Last == Slots - 1

Idx(n) == n % Slots

Init ==
  /\ ring = [val     |-> [i \in 0 .. Last |-> Empty],
             writing |-> [i \in 0 .. Last |-> {}],
             reading |-> [i \in 0 .. Last |-> {}]]
  /\ next = 0
  /\ held = [p \in Producers |-> -1]
  /\ done = [c \in Consumers |-> 0]
  /\ log  = [c \in Consumers |-> <<>>]

Claim(p) ==
  /\ held[p] = -1
  /\ next < Limit
  /\ \A c \in Consumers : next - done[c] < Slots
  /\ held' = [held EXCEPT ![p] = next]
  /\ next' = next + 1
  /\ ring' = [ring EXCEPT !.writing[Idx(next)] = @ \cup {p},
                          !.val[Idx(next)] = next]
  /\ UNCHANGED <<done, log>>

Release(p) ==
  /\ held[p] # -1
  /\ ring' = [ring EXCEPT !.writing[Idx(held[p])] = @ \ {p}]
  /\ held' = [held EXCEPT ![p] = -1]
  /\ UNCHANGED <<next, done, log>>

Take(c) ==
  /\ done[c] < next
  /\ ring.writing[Idx(done[c])] = {}
  /\ c \notin ring.reading[Idx(done[c])]
  /\ ring' = [ring EXCEPT !.reading[Idx(done[c])] = @ \cup {c}]
  /\ log' = [log EXCEPT ![c] = Append(@, ring.val[Idx(done[c])])]
  /\ UNCHANGED <<next, held, done>>

Finish(c) ==
  /\ c \in ring.reading[Idx(done[c])]
  /\ ring' = [ring EXCEPT !.reading[Idx(done[c])] = @ \ {c}]
  /\ done' = [done EXCEPT ![c] = @ + 1]
  /\ UNCHANGED <<next, held, log>>

Next ==
  \/ \E p \in Producers : Claim(p) \/ Release(p)
  \/ \E c \in Consumers : Take(c) \/ Finish(c)

Spec == Init /\ [][Next]_vars

TypeOk ==
  /\ ring \in [val:     UNION {[0 .. Last -> Int \cup {Empty}]},
               writing: UNION {[0 .. Last -> SUBSET Producers]},
               reading: UNION {[0 .. Last -> SUBSET Consumers]}]
  /\ next \in Nat
  /\ held \in [Producers -> Int]
  /\ done \in [Consumers -> Nat]
  /\ log  \in [Consumers -> Seq(Nat)]
  \* State-dependent sets, built anew in every state: [1 .. Len -> 0 .. next]
  \* has up to 13^12 elements here.
  /\ \A c \in Consumers : log[c] \in UNION {[1 .. Len(log[c]) -> 0 .. next]}
  /\ \A i \in 0 .. Last : ring.reading[i] \in SUBSET (Consumers \cup {Empty})
  /\ held \in [Producers -> {-1} \cup 0 .. next]

NoRace == \A i \in 0 .. Last : ring.writing[i] = {} \/ ring.reading[i] = {}

InOrder == \A c \in Consumers : \A k \in 1 .. Len(log[c]) : log[c][k] = k - 1
=============================================================================
