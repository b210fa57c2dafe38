------------------------------ MODULE microbench ------------------------------
(***************************************************************************)
(* The micro-benchmark of the ModelFuzz chapter, as modelfuzz's            *)
(* adapters/microbench implements it: a master (process 0), a terminator   *)
(* (process 1) and Workers workers (processes 2 .. Workers+1).             *)
(*                                                                         *)
(* Written for trace simulation: every action takes the contents of the    *)
(* message it handles as parameters, and checks them against the state,    *)
(* so a step of the implementation that the protocol does not allow shows *)
(* up as a disabled action (a divergence). There is no message bag.        *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets

CONSTANTS
    Workers,      \* number of workers
    Tasks,        \* execute messages per request
    MaxRequests   \* bounds requests when the model is checked exhaustively

Terminator == 1
WorkerProcs == 2 .. Workers + 1
Starters == {Terminator} \cup WorkerProcs

VARIABLES
    started,     \* processes (terminator, workers) that started and registered
    registered,  \* processes whose registration the master received
    reqs,        \* the served requests, in order: their worker and progress
    rejected,    \* requests the master rejected (before all registrations)
    buffer,      \* buffer[w]: tasks worker w buffered since its last flush
    lastFlush    \* lastFlush[w]: the last message worker w handled was a flush

vars == <<started, registered, reqs, rejected, buffer, lastFlush>>

\* The worker the master gives its r-th request to: round robin.
WorkerOf(r) == 2 + ((r - 1) % Workers)

AllRegistered == registered = Starters

Init ==
    /\ started = {}
    /\ registered = {}
    /\ reqs = <<>>
    /\ rejected = 0
    /\ buffer = [w \in WorkerProcs |-> 0]
    /\ lastFlush = [w \in WorkerProcs |-> FALSE]

\* Process p runs for the first time and sends its registration.
Start(p) ==
    /\ p \in Starters \ started
    /\ started' = started \cup {p}
    /\ UNCHANGED <<registered, reqs, rejected, buffer, lastFlush>>

\* The master receives p's registration.
RecvRegister(p) ==
    /\ p \in started \ registered
    /\ registered' = registered \cup {p}
    /\ UNCHANGED <<started, reqs, rejected, buffer, lastFlush>>

\* A client request with value v arrives before every registration did.
Reject(v) ==
    /\ ~AllRegistered
    /\ rejected' = rejected + 1
    /\ UNCHANGED <<started, registered, reqs, buffer, lastFlush>>

\* The master serves request r (value v) with worker w: it sends
\* execute(r, 1) to w and terminate(r) to the terminator.
Serve(v, r, w) ==
    /\ AllRegistered
    /\ r = Len(reqs) + 1
    /\ w = WorkerOf(r)
    /\ reqs' = Append(reqs, [worker |-> w, executed |-> 0, done |-> FALSE,
                             terminated |-> FALSE, flushed |-> FALSE])
    /\ UNCHANGED <<started, registered, rejected, buffer, lastFlush>>

IsReq(r) == r \in 1 .. Len(reqs)

\* Worker w executes task k of request r (sent by the master for k = 1, by
\* the worker itself after task k - 1 otherwise).
Execute(w, r, k) ==
    /\ IsReq(r)
    /\ reqs[r].worker = w
    /\ k \in 1 .. Tasks
    /\ reqs[r].executed = k - 1
    /\ reqs' = [reqs EXCEPT ![r].executed = k]
    /\ buffer' = [buffer EXCEPT ![w] = @ + 1]
    /\ lastFlush' = [lastFlush EXCEPT ![w] = FALSE]
    /\ UNCHANGED <<started, registered, rejected>>

\* The master receives done(r): the worker executed the whole chain.
RecvDone(r) ==
    /\ IsReq(r)
    /\ reqs[r].executed = Tasks
    /\ ~reqs[r].done
    /\ reqs' = [reqs EXCEPT ![r].done = TRUE]
    /\ UNCHANGED <<started, registered, rejected, buffer, lastFlush>>

\* The terminator handles terminate(r) for worker w and sends it flush(r).
Terminate(r, w) ==
    /\ IsReq(r)
    /\ reqs[r].worker = w
    /\ ~reqs[r].terminated
    /\ reqs' = [reqs EXCEPT ![r].terminated = TRUE]
    /\ UNCHANGED <<started, registered, rejected, buffer, lastFlush>>

\* Worker w handles flush(r): its buffer empties.
Flush(w, r) ==
    /\ IsReq(r)
    /\ reqs[r].worker = w
    /\ reqs[r].terminated
    /\ ~reqs[r].flushed
    /\ reqs' = [reqs EXCEPT ![r].flushed = TRUE]
    /\ buffer' = [buffer EXCEPT ![w] = 0]
    /\ lastFlush' = [lastFlush EXCEPT ![w] = TRUE]
    /\ UNCHANGED <<started, registered, rejected>>

Values == 1 .. MaxRequests

Next ==
    \/ \E p \in Starters : Start(p) \/ RecvRegister(p)
    \/ \E v \in Values : Reject(v)
    \/ \E v \in Values : Serve(v, Len(reqs) + 1, WorkerOf(Len(reqs) + 1))
    \/ \E r \in 1 .. Len(reqs), k \in 1 .. Tasks : Execute(reqs[r].worker, r, k)
    \/ \E r \in 1 .. Len(reqs) :
          \/ RecvDone(r)
          \/ Terminate(r, reqs[r].worker)
          \/ Flush(reqs[r].worker, r)

Spec == Init /\ [][Next]_vars

\* Exhaustive checking needs a bound; simulation does not use it.
Bounded == Len(reqs) + rejected <= MaxRequests

-----------------------------------------------------------------------------
TypeOK ==
    /\ started \subseteq Starters
    /\ registered \subseteq started
    /\ rejected \in Nat
    /\ buffer \in [WorkerProcs -> Nat]
    /\ lastFlush \in [WorkerProcs -> BOOLEAN]
    /\ \A r \in 1 .. Len(reqs) :
          /\ reqs[r].worker \in WorkerProcs
          /\ reqs[r].executed \in 0 .. Tasks
          /\ reqs[r].done => reqs[r].executed = Tasks
          /\ reqs[r].flushed => reqs[r].terminated

\* A worker never holds more tasks than were sent to it since its flush.
BufferBound == \A w \in WorkerProcs : buffer[w] <= Tasks * Len(reqs)

\* The abstraction used as coverage: how far registration got (not which
\* process registered first), and for every served request how far its
\* chain of tasks got, whether its flush was sent and handled, and whether
\* its worker's last message was a flush. The order in which interchangeable
\* processes start and the number of early requests are left out: they add
\* states without adding behaviour.
View == <<Cardinality(registered),
          [r \in DOMAIN reqs |-> <<reqs[r].executed, reqs[r].done, reqs[r].terminated,
                                   reqs[r].flushed, lastFlush[reqs[r].worker]>>]>>
=============================================================================
