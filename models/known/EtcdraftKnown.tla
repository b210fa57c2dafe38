--------------------------- MODULE EtcdraftKnown ---------------------------
(***************************************************************************)
(* Witnesses of the known disagreements between etcd raft's trace spec     *)
(* (Traceetcdraft.tla of go.etcd.io/raft/v3) and the library, listed in    *)
(* etcdraft.json beside this module. Each is a state predicate that        *)
(* modelfuzz evaluates where a disagreement showed: for a divergence, in    *)
(* the last state the spec matched, where l is the index of the event it   *)
(* did not match (logline); for an invariant, in the state that violates    *)
(* it. A failure is a known disagreement only when its witness is TRUE:     *)
(* the witness checks, from the library's own trace and the spec's state,  *)
(* that what happened is the understood case and not something else that  *)
(* breaks the same condition. docs/findings.md explains each one.           *)
(***************************************************************************)
EXTENDS Traceetcdraft

\* The event of trace line k.
Ev(k) == TraceLog[k].event

\* Whether record r has field f (a trace line's optional fields).
Has(r, f) == f \in DOMAIN r

\* Whether trace line k is a receipt or send of a message.
HasMsg(k) == Has(Ev(k), "msg")

-----------------------------------------------------------------------------
(* vote-refused-under-known-leader: a follower that has heard from the      *)
(* leader of its term receives a vote request of that term (a reordered    *)
(* message) and, not having voted, is asked for its vote. The library      *)
(* refuses (raft.go, Step: a node that knows a leader does not vote in its *)
(* term); the spec's HandleRequestVoteRequest grants it. The witness finds *)
(* that request in the trace: the voter had received an append of the     *)
(* term from its leader since it last started, had not voted, answered    *)
(* with a rejection, and the spec counts a vote for the candidate.         *)
VoteRefusedUnderKnownLeader ==
    \E k \in 1..(l - 1) :
        LET e == Ev(k) IN
        /\ e.name = "ReceiveRequestVoteRequest"
        /\ e.msg.term = e.state.term
        /\ e.state.vote = Nil
        /\ \E h \in 1..(k - 1) :
              /\ Ev(h).nid = e.nid
              /\ Ev(h).name = "ReceiveAppendEntriesRequest"
              /\ Ev(h).msg.term = e.msg.term
              /\ \A r \in (h + 1)..(k - 1) : ~(Ev(r).nid = e.nid /\ Ev(r).name = "InitState")
        /\ \E r \in (k + 1)..(l - 1) :
              /\ Ev(r).nid = e.nid
              /\ Ev(r).name = "SendRequestVoteResponse"
              /\ Ev(r).msg.to = e.msg.from
              /\ Ev(r).msg.term = e.msg.term
              /\ Ev(r).msg.reject
        /\ \/ votedFor[e.nid] = e.msg.from
           \/ \E m \in DOMAIN messages \cup DOMAIN pendingMessages :
                 /\ m.mtype = RequestVoteResponse
                 /\ m.msource = e.nid
                 /\ m.mdest = e.msg.from
                 /\ m.mterm = e.msg.term
                 /\ m.mvoteGranted

-----------------------------------------------------------------------------
(* msgapp-commit-beyond-entries: a leader's MsgApp carries its whole commit *)
(* index (raft.go, sendAppend), also when it ends before that index: an    *)
(* empty probe of a paused flow, or an append a size limit cut short. The  *)
(* spec caps a MsgApp's commit index at its last entry.                     *)
MsgAppCommitBeyondEntries ==
    /\ logline.event.name = "SendAppendEntriesRequest"
    /\ logline.event.msg.type = "MsgApp"
    /\ logline.event.msg.commit = logline.event.state.commit
    /\ logline.event.msg.commit > logline.event.msg.index + logline.event.msg.entries

-----------------------------------------------------------------------------
(* leader-completeness-stale-leader: LeaderCompletenessInv asks every       *)
(* leader of a term above an entry's term to hold the entry once it is     *)
(* committed, but an entry may be committed in a term later than its own,  *)
(* and a stale leader of a term between the two need not hold it. Leader   *)
(* Completeness (Raft paper, section 5.4) is about leaders of terms after  *)
(* the one the entry was committed in. The witness is the property stated  *)
(* so, with each server's current term as the bound of the term its        *)
(* committed entries were committed in (the form CCF's spec took,           *)
(* microsoft/CCF#7970): when it holds, the violation is only the stale     *)
(* leader's.                                                                *)
LeaderCompletenessForLaterTerms ==
    \A i \in CurrentLeaders :
        \A j \in Server :
            currentTerm[i] > currentTerm[j] => IsPrefix(Committed(j), log[i])

-----------------------------------------------------------------------------
(* stale-term-append-response: with CheckQuorum or PreVote, a node answers  *)
(* an append or heartbeat of a lower term with an empty MsgAppResp of its  *)
(* own term and no rejection (raft.go, Step: it lets a stale leader learn  *)
(* the term without the node's being disrupted). The spec answers with a   *)
(* rejection (RejectAppendEntriesRequest). The witness: the library's       *)
(* answer is not a rejection, and the spec holds a rejection of the same   *)
(* term between the same nodes.                                             *)
StaleTermAppendResponse ==
    /\ logline.event.name = "ReceiveAppendEntriesResponse"
    /\ logline.event.msg.type = "MsgAppResp"
    /\ ~logline.event.msg.reject
    /\ logline.event.msg.index = 0
    /\ \E m \in DOMAIN messages :
          /\ m.mtype = AppendEntriesResponse
          /\ m.msubtype = "app"
          /\ ~m.msuccess
          /\ m.mmatchIndex = 0
          /\ m.msource = logline.event.msg.from
          /\ m.mdest = logline.event.msg.to
          /\ m.mterm = logline.event.msg.term

-----------------------------------------------------------------------------
(* prevote-takes-term: with PreVote, a node that gets a pre-vote          *)
(* rejection of a higher term takes that term (raft.go Step: a              *)
(* MsgPreVoteResp with Reject is not among the messages of a higher term it *)
(* ignores), whether it is still the pre-candidate that asked or not. Pre-  *)
(* votes are not traced, and the spec has none: the term comes from no      *)
(* message it knows. The adapter marks the events a node traces while it   *)
(* handles a pre-vote message ("prevote"); the witness is such an event    *)
(* with a higher term than the spec's.                                      *)
PreVoteTakesTerm ==
    /\ Has(TraceLog[l], "prevote")
    /\ logline.event.state.term > currentTerm[logline.event.nid]

-----------------------------------------------------------------------------
(* snapshot-taken-as-done: the spec's MsgSnap is an append of the leader's  *)
(* log from index 1 (SendSnapshot); a follower whose commit index is at    *)
(* least 1 takes it as already done (AppendEntriesAlreadyDone) and keeps   *)
(* its log and commit index, while the library installs the snapshot. The *)
(* witness: a node received a snapshot past its commit index, the spec's   *)
(* commit index for it is still below the snapshot's, and the event not    *)
(* matched is that node's, or a message from it.                           *)
SnapshotTakenAsDone ==
    \E k \in 1..(l - 1) :
        LET e == Ev(k) IN
        /\ e.name = "ReceiveAppendEntriesRequest"
        /\ e.msg.type = "MsgSnap"
        /\ e.msg.entries > e.state.commit
        /\ commitIndex[e.nid] < e.msg.entries
        /\ \/ logline.event.nid = e.nid
           \/ HasMsg(l) /\ logline.event.msg.from = e.nid

-----------------------------------------------------------------------------
(* snapshot-answer-subtype: a follower that takes the spec's MsgSnap (one    *)
(* with no commit index yet) answers with the subtype of the request        *)
(* (AppendEntriesAlreadyDone: msubtype |-> m.msubtype, "snapshot"), while   *)
(* the trace spec reads every MsgAppResp as an "app" answer                 *)
(* (RaftMsgSubtype): the leader's receipt of the library's answer never    *)
(* matches. The witness: the spec holds an answer that is the library's but *)
(* for its subtype "snapshot".                                              *)
SnapshotAnswerSubtype ==
    /\ logline.event.name = "ReceiveAppendEntriesResponse"
    /\ logline.event.msg.type = "MsgAppResp"
    /\ \E m \in DOMAIN messages :
          /\ m.mtype = AppendEntriesResponse
          /\ m.msubtype = "snapshot"
          /\ m.msource = logline.event.msg.from
          /\ m.mdest = logline.event.msg.to
          /\ m.mterm = logline.event.msg.term
          /\ m.msuccess = ~logline.event.msg.reject
          /\ m.mmatchIndex = logline.event.msg.index

-----------------------------------------------------------------------------
(* snapshot-excludes-receiver: a node does not install a snapshot whose    *)
(* configuration does not contain it (raft.go restore), and answers with   *)
(* its commit index: a leader whose latest snapshot predates the           *)
(* configuration change that added a member sends it that snapshot until   *)
(* the application takes a newer one. The spec's MsgSnap carries entries   *)
(* and no configuration: the node takes them. The witness: a node got a    *)
(* snapshot past its commit index, answered it with less than the          *)
(* snapshot's index (it did not install it), the spec's commit index for it *)
(* is the snapshot's or more, and the event not matched is that node's, or  *)
(* a message from it.                                                        *)
SnapshotExcludesReceiver ==
    \E k \in 1..(l - 1) :
        LET e == Ev(k) IN
        /\ e.name = "ReceiveAppendEntriesRequest"
        /\ e.msg.type = "MsgSnap"
        /\ e.msg.entries > e.state.commit
        /\ \E r \in (k + 1)..(l - 1) :
              /\ Ev(r).nid = e.nid
              /\ Ev(r).name = "SendAppendEntriesResponse"
              /\ Ev(r).msg.to = e.msg.from
              /\ Ev(r).msg.type = "MsgAppResp"
              /\ Ev(r).msg.index < e.msg.entries
              /\ \A q \in (k + 1)..(r - 1) : Ev(q).nid /= e.nid \/ Ev(q).name /= "SendAppendEntriesResponse"
        /\ commitIndex[e.nid] >= e.msg.entries
        /\ \/ logline.event.nid = e.nid
           \/ HasMsg(l) /\ logline.event.msg.from = e.nid

-----------------------------------------------------------------------------
(* duplicate-delivery: the network delivered a message twice. The trace    *)
(* spec has no event for a duplication (etcdraft.tla's DuplicateMessage is *)
(* not in its TraceNext): its bag holds each message as often as it was    *)
(* sent, so the second receipt of a message, or of an identical one sent   *)
(* again, finds none left. The adapter marks a second receipt              *)
(* ("duplicate"); the witness is a receipt of a message of which a         *)
(* duplicate was received.                                                  *)
DuplicateDelivered ==
    /\ HasMsg(l)
    /\ \/ Has(TraceLog[l], "duplicate")
       \/ \E k \in 1..(l - 1) :
             /\ Has(TraceLog[k], "duplicate")
             /\ Ev(k).msg = logline.event.msg

-----------------------------------------------------------------------------
(* restart-configuration-rebuilt: the spec restores a restarted node's      *)
(* configuration from its durable state. The library restores the          *)
(* snapshot's configuration and rebuilds the rest as the application       *)
(* applies the committed entries again; a node that takes a step before it *)
(* has (its apply loop behind, committed entries paged over several        *)
(* Readys) shows the older configuration. The witness: the node restarts   *)
(* with everything the spec restores but its configuration.                *)
RestartBeforeConfigurationRebuilt ==
    LET i == logline.event.nid IN
    /\ logline.event.name = "InitState"
    /\ logline.event.state.term = durableState[i].currentTerm
    /\ logline.event.state.vote = durableState[i].votedFor
    /\ logline.event.state.commit = durableState[i].commitIndex
    /\ logline.event.log = durableState[i].log
    /\ ConfFromLog(logline) # durableState[i].config.jointConfig

=============================================================================
