-------------------------------- MODULE raft --------------------------------
(***************************************************************************)
(* Raft as go.etcd.io/raft/v3 behaves, seen by an observer of its messages *)
(* and state changes. Written from the Raft paper's rules (Ongaro and      *)
(* Ousterhout, "In Search of an Understandable Consensus Algorithm") and   *)
(* the library's handling of each message.                                 *)
(*                                                                         *)
(* Written for trace simulation, like microbench.tla: every action takes   *)
(* the contents of the message it handles as parameters and checks them    *)
(* against the state; there is no message bag. A message's contents are    *)
(* checked against history variables (the leaders of each term and what    *)
(* they held, the votes cast) so that a message no sender could have sent  *)
(* is a divergence, and the receiver's answer (granted, success) is        *)
(* checked against what Raft allows.                                       *)
(*                                                                         *)
(* Reads (ReadIndex) are counted, not held: requests in flight to each     *)
(* server, late copies among them, reads a leader has taken, and whether   *)
(* stale answers to a leader's heartbeats for reads are on their way (see  *)
(* Reads).                                                                 *)
(*                                                                         *)
(* Logs are compacted: log[i] holds the entries after snapshotIndex[i];    *)
(* the entry at index k (k > snapshotIndex[i]) is log[i][k - snapshotIndex[i]]. *)
(* Indexes and terms are the library's: a cluster starts from a snapshot of *)
(* its configuration at index 1, term 1 (Bootstrap "snapshot"), or from one *)
(* configuration entry per voter at indexes 1..N, term 1, committed         *)
(* (Bootstrap "log", the library's own bootstrap); spare servers start      *)
(* empty, outside the configuration.                                       *)
(*                                                                         *)
(* Configurations are etcd's: a change is an entry of the log that takes   *)
(* effect when a server applies it (not when it appends it), simple (one   *)
(* voter at a time) or joint (entered, then left by a later entry, or by   *)
(* the leader by itself), with learners, which receive the log and do not  *)
(* vote (see Configurations). Quorums are those of the configuration a     *)
(* server has applied.                                                     *)
(*                                                                         *)
(* What a leader believes of each follower (Match, Next and the flow       *)
(* control's state, as etcd's progress tracker holds them) is reported by  *)
(* the system and checked against what the model knows (FollowerProgress). *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets, TLC

CONSTANTS
    Servers,      \* a set of integers 1 .. N + spares
    InitVoters,   \* the voters of the bootstrap configuration, 1 .. N
    Bootstrap,    \* "snapshot" or "log" (see above)
    Nil,          \* a model value: no vote
    MaxTerm,      \* bounds for exhaustive checking (not used by simulation)
    MaxLogLen,    \*   entries after the bootstrap's
    MaxRequests,
    MaxReads,     \* reads (requests in flight and waiting) at a time, for exhaustive checking
    MaxConfChanges \* configuration entries proposed, for exhaustive checking

ASSUME InitVoters = 1 .. Cardinality(InitVoters) /\ InitVoters \subseteq Servers
ASSUME Bootstrap \in {"snapshot", "log"}

VARIABLES
    currentTerm,   \* durable
    votedFor,      \* durable
    log,           \* durable: the entries after the snapshot
    snapshotIndex, \* durable
    snapshotTerm,  \* durable
    commitIndex,   \* durable in etcd (HardState.Commit)
    role,          \* volatile
    votesGranted,  \* volatile: candidate i's granted votes (itself included)
    votesRejected, \* volatile: candidate i's rejections
    \* Configurations (see Configurations):
    config,        \* the configuration i has applied (what its tracker holds)
    configIndex,   \* how far i has applied configuration entries: the last it applied, or its snapshot's index when later
    snapConfig,    \* durable: the configuration of i's snapshot
    \* What leader i believes of each follower j (etcd's progress tracker):
    matchIndex,    \* the highest index it knows j holds
    nextIndex,     \* the next index it sends j (0: not reported)
    progState,     \* its flow control towards j: "probe", "replicate", "snapshot" ("none": not reported)
    live,          \* the servers not crashed
    \* Reads (ReadIndex), as counts: the model keeps no messages.
    readMsgs,      \* ReadIndex requests on their way to i (a network copy counts)
    readLate,      \* of those, copies of a request i has already received
    readQ,         \* leader i's reads waiting for a quorum's heartbeat answers
    readWait,      \* reads i holds back until it commits an entry of its term as leader
    readStale,     \* answers to i's heartbeats for reads it has answered are on their way
    readTwin,      \* ... and one of those reads has a late copy on its way to i too
    readBehind,    \* the last read i took, it took while another server had committed past i
    \* History variables (not part of the protocol's state):
    elections,     \* {<<term, server>>}: who became leader in which term
    leaderLog,     \* leaderLog[t]: what the leader of term t held and committed
    votesCast,     \* {<<term, voter, candidate>>}: the votes granted
    snaps          \* {<<index, term, configuration>>}: the snapshots made

serverVars == <<currentTerm, votedFor, log, snapshotIndex, snapshotTerm, commitIndex, role>>
candVars == <<votesGranted, votesRejected>>
confVars == <<config, configIndex, snapConfig>>
leaderVars == <<matchIndex, nextIndex, progState>>
histVars == <<elections, leaderLog, votesCast, snaps>>
readVars == <<readMsgs, readLate, readQ, readWait, readStale, readTwin, readBehind>>
vars == <<serverVars, candVars, confVars, leaderVars, live, readVars, histVars>>

Roles == {"follower", "precandidate", "candidate", "leader"}
Min(a, b) == IF a < b THEN a ELSE b
Max(a, b) == IF a > b THEN a ELSE b
SetMin(S) == CHOOSE k \in S : \A m \in S : k <= m
SetMax(S) == CHOOSE k \in S : \A m \in S : m <= k
Range(s) == {s[k] : k \in DOMAIN s}

-----------------------------------------------------------------------------
(* Configurations, as etcd's confchange package changes them.               *)
(*                                                                         *)
(* A configuration: the voters of its incoming (in) and, while joint, its   *)
(* outgoing (out) majority, its learners, the learners it will have when it *)
(* leaves the joint state (next: voters of out made learners), and whether *)
(* the leader leaves that state by itself (auto). A change (an entry's conf *)
(* field): its kind ("simple", "joint", "auto": joint and left by itself,   *)
(* "leave"), and the servers it makes voters, learners, or removes (each   *)
(* server once, as sorted sequences).                                      *)

NoConfig == [in |-> {}, out |-> {}, learners |-> {}, next |-> {}, auto |-> FALSE]
BootConfig == [NoConfig EXCEPT !.in = InitVoters]
Members(c) == c.in \cup c.out \cup c.learners \cup c.next
VotersOf(c) == c.in \cup c.out
Joint(c) == c.out # {}

\* S holds a majority of the voters V (an empty majority is always held),
\* of both majorities of configuration c.
MajorityOf(V, S) == 2 * Cardinality(S \cap V) > Cardinality(V) \/ V = {}
Quorum(c, S) == MajorityOf(c.in, S) /\ MajorityOf(c.out, S)
\* The rejections R make a vote lost in c: a majority cannot be reached.
Lost(c, R) == \E V \in {c.in, c.out} : V # {} /\ 2 * Cardinality(V \ R) <= Cardinality(V)

\* c after change ch, as the library applies it (makeVoter, makeLearner,
\* remove; a voter made learner while it is a voter of the outgoing
\* majority waits in next).
Changed(c, ch) ==
    LET adds == Range(ch.voters)
        learns == Range(ch.learners)
        rems == Range(ch.remove)
        touched == adds \cup learns \cup rems
        base == IF ch.kind \in {"joint", "auto"} THEN [c EXCEPT !.out = c.in] ELSE c
    IN [in |-> (base.in \cup adds) \ (learns \cup rems),
        out |-> base.out,
        learners |-> (base.learners \ touched) \cup {k \in learns : k \in c.learners \/ k \notin base.out},
        next |-> (base.next \ touched) \cup {k \in learns : k \notin c.learners /\ k \in base.out},
        auto |-> IF ch.kind \in {"joint", "auto"} THEN ch.kind = "auto" ELSE base.auto]

\* Whether the library takes change ch in configuration c (the application
\* applies an empty change instead of one it would refuse, as etcd's server
\* does).
Valid(c, ch) ==
    LET n == Changed(c, ch) IN
    CASE ch.kind = "leave" -> Joint(c)
      [] ch.kind \in {"joint", "auto"} -> ~Joint(c) /\ c.in # {} /\ n.in # {}
      [] OTHER -> /\ ~Joint(c) /\ n.in # {}
                  /\ Cardinality((c.in \ n.in) \cup (n.in \ c.in)) <= 1

\* The configuration after applying change ch to c.
Apply(c, ch) ==
    IF ~Valid(c, ch) THEN c
    ELSE IF ch.kind = "leave"
    THEN [in |-> c.in, out |-> {}, learners |-> c.learners \cup c.next, next |-> {}, auto |-> FALSE]
    ELSE Changed(c, ch)

\* A configuration as the system reports it (sorted sequences).
AsConfig(r) == [in |-> Range(r.voters), out |-> Range(r.outgoing), learners |-> Range(r.learners),
                next |-> Range(r.learnersNext), auto |-> r.auto]

IsConf(e) == "conf" \in DOMAIN e

\* The bootstrap's configuration entries (Bootstrap "log"): one per voter.
BootEntry(k) == [term |-> 1, value |-> "conf:v" \o ToString(k),
                 conf |-> [kind |-> "simple", voters |-> <<k>>, learners |-> <<>>, remove |-> <<>>]]
\* The last index of the bootstrap.
BootIndex == IF Bootstrap = "log" THEN Cardinality(InitVoters) ELSE 1

\* What a server that is not leader believes of the others: nothing.
NoIndex == [j \in Servers |-> 0]
NoState == [j \in Servers |-> "none"]
\* i forgets what it believed as leader.
NoLeaderVars(i) ==
    /\ matchIndex' = [matchIndex EXCEPT ![i] = NoIndex]
    /\ nextIndex' = [nextIndex EXCEPT ![i] = NoIndex]
    /\ progState' = [progState EXCEPT ![i] = NoState]

LastIndex(i) == snapshotIndex[i] + Len(log[i])
\* The term of i's entry k: snapshotTerm at the snapshot, -1 when i has no
\* entry k (compacted away or beyond the end).
TermAt(i, k) ==
    IF k = snapshotIndex[i] THEN snapshotTerm[i]
    ELSE IF k > snapshotIndex[i] /\ k <= LastIndex(i) THEN log[i][k - snapshotIndex[i]].term
    ELSE -1
LastTerm(i) == TermAt(i, LastIndex(i))
HasEntry(i, k) == k > snapshotIndex[i] /\ k <= LastIndex(i)
EntryAt(i, k) == log[i][k - snapshotIndex[i]]

\* The same on a leaderLog record L (fields base, baseTerm, ents).
LLast(L) == L.base + Len(L.ents)
LKnown(L, k) == k >= L.base /\ k <= LLast(L)
LTerm(L, k) == IF k = L.base THEN L.baseTerm ELSE L.ents[k - L.base].term

IsLeaderOf(j, t) == <<t, j>> \in elections

Values == {"v=" \o ToString(k) : k \in 1 .. MaxRequests}

\* The bootstrap servers start from the bootstrap (a snapshot, or their
\* configuration entries, committed, which they have not applied yet; the
\* library's bootstrap has put them in force already, in term 1); spares
\* start empty, with no configuration.
Boot(i) == i \in InitVoters
Init ==
    /\ currentTerm = [i \in Servers |-> IF Boot(i) /\ Bootstrap = "log" THEN 1 ELSE 0]
    /\ votedFor = [i \in Servers |-> Nil]
    /\ log = [i \in Servers |-> IF Boot(i) /\ Bootstrap = "log"
                                 THEN [k \in InitVoters |-> BootEntry(k)] ELSE <<>>]
    /\ snapshotIndex = [i \in Servers |-> IF Boot(i) /\ Bootstrap = "snapshot" THEN 1 ELSE 0]
    /\ snapshotTerm = [i \in Servers |-> IF Boot(i) /\ Bootstrap = "snapshot" THEN 1 ELSE 0]
    /\ commitIndex = [i \in Servers |-> IF Boot(i) THEN BootIndex ELSE 0]
    /\ role = [i \in Servers |-> "follower"]
    /\ votesGranted = [i \in Servers |-> {}]
    /\ votesRejected = [i \in Servers |-> {}]
    /\ config = [i \in Servers |-> IF Boot(i) THEN BootConfig ELSE NoConfig]
    /\ configIndex = [i \in Servers |-> IF Boot(i) /\ Bootstrap = "snapshot" THEN 1 ELSE 0]
    /\ snapConfig = [i \in Servers |-> IF Boot(i) /\ Bootstrap = "snapshot" THEN BootConfig ELSE NoConfig]
    /\ matchIndex = [i \in Servers |-> NoIndex]
    /\ nextIndex = [i \in Servers |-> NoIndex]
    /\ progState = [i \in Servers |-> NoState]
    /\ live = Servers
    /\ readMsgs = [i \in Servers |-> 0]
    /\ readLate = [i \in Servers |-> 0]
    /\ readQ = [i \in Servers |-> 0]
    /\ readWait = [i \in Servers |-> 0]
    /\ readStale = [i \in Servers |-> FALSE]
    /\ readTwin = [i \in Servers |-> FALSE]
    /\ readBehind = [i \in Servers |-> FALSE]
    /\ elections = {}
    /\ leaderLog = [t \in {} |-> 0]
    /\ votesCast = {}
    /\ snaps = IF Bootstrap = "snapshot" THEN {<<1, 1, BootConfig>>} ELSE {}

\* Volatile state is kept canonical (cleared when it stops mattering) so
\* that states that differ only in stale leftovers are one state.
StepDown(i, t) ==
    /\ currentTerm' = [currentTerm EXCEPT ![i] = t]
    /\ role' = [role EXCEPT ![i] = "follower"]
    /\ votedFor' = [votedFor EXCEPT ![i] = Nil]
    /\ votesGranted' = [votesGranted EXCEPT ![i] = {}]
    /\ votesRejected' = [votesRejected EXCEPT ![i] = {}]
    /\ NoLeaderVars(i)
    /\ readQ' = [readQ EXCEPT ![i] = 0]

\* i is no longer leader: the reads waiting for confirmation are dropped
\* (etcd resets its read-only state on every role change); the held-back
\* ones stay until a crash.
DropReads(i) == readQ' = [readQ EXCEPT ![i] = 0]

-----------------------------------------------------------------------------
(* Elections *)

\* i may campaign: it is a voter of the configuration it has applied (etcd's
\* promotable; the library also waits until it has applied the
\* configuration entries it knows committed, which the model does not tell).
Promotable(i) == i \in VotersOf(config[i])

\* i's pre-vote phase starts (etcd with PreVote): no term change. The
\* pre-vote messages are not modelled.
BecomePreCandidate(i) ==
    /\ i \in live
    /\ role[i] # "leader"
    /\ Promotable(i)
    /\ role' = [role EXCEPT ![i] = "precandidate"]
    /\ UNCHANGED <<currentTerm, votedFor, log, snapshotIndex, snapshotTerm, commitIndex,
                   candVars, confVars, leaderVars, live, readVars, histVars>>

\* i's election timer fires: it becomes candidate in the next term and
\* votes for itself.
Timeout(i) ==
    /\ i \in live
    /\ role[i] # "leader"
    /\ Promotable(i)
    /\ currentTerm' = [currentTerm EXCEPT ![i] = @ + 1]
    /\ role' = [role EXCEPT ![i] = "candidate"]
    /\ votedFor' = [votedFor EXCEPT ![i] = i]
    /\ votesGranted' = [votesGranted EXCEPT ![i] = {i}]
    /\ votesRejected' = [votesRejected EXCEPT ![i] = {}]
    /\ votesCast' = votesCast \cup {<<currentTerm[i] + 1, i, i>>}
    /\ UNCHANGED <<log, snapshotIndex, snapshotTerm, commitIndex, confVars, leaderVars, live,
                   readVars, elections, leaderLog, snaps>>

\* Leader i steps down in its own term: etcd's CheckQuorum found no quorum
\* of servers active in an election timeout, or i applied a configuration
\* that removed it (StepDownOnRemoval).
LeaderStepDown(i) ==
    /\ i \in live
    /\ role[i] = "leader"
    /\ role' = [role EXCEPT ![i] = "follower"]
    /\ NoLeaderVars(i)
    /\ DropReads(i)
    /\ UNCHANGED <<currentTerm, votedFor, log, snapshotIndex, snapshotTerm, commitIndex,
                   candVars, confVars, live, readMsgs, readLate, readWait, readStale, readTwin, readBehind, histVars>>

\* i handles j's vote request for term `term` (j's last entry: lastLogTerm,
\* lastLogIndex) and answers `granted`. A vote is granted only for a term at
\* least i's, to a candidate whose log is at least as up to date as i's, when
\* i has not voted for another in that term. A refusal is always allowed
\* (etcd also refuses when it knows a leader in the term).
HandleVoteRequest(i, j, term, lastLogTerm, lastLogIndex, granted) ==
    LET upToDate == \/ lastLogTerm > LastTerm(i)
                    \/ lastLogTerm = LastTerm(i) /\ lastLogIndex >= LastIndex(i)
        vote == IF term > currentTerm[i] THEN Nil ELSE votedFor[i]
    IN
    /\ i \in live
    /\ i # j
    /\ lastLogIndex \in Nat /\ lastLogTerm \in Nat /\ lastLogTerm <= term
    /\ granted \in BOOLEAN
    /\ granted => /\ term >= currentTerm[i]
                  /\ vote \in {Nil, j}
                  /\ upToDate
    /\ IF term > currentTerm[i]
          THEN /\ currentTerm' = [currentTerm EXCEPT ![i] = term]
               /\ role' = [role EXCEPT ![i] = "follower"]
               /\ votesGranted' = [votesGranted EXCEPT ![i] = {}]
               /\ votesRejected' = [votesRejected EXCEPT ![i] = {}]
               /\ NoLeaderVars(i)
               /\ DropReads(i)
          ELSE UNCHANGED <<currentTerm, role, candVars, leaderVars, readQ>>
    /\ votedFor' = [votedFor EXCEPT ![i] = IF granted THEN j ELSE vote]
    /\ votesCast' = IF granted THEN votesCast \cup {<<term, i, j>>} ELSE votesCast
    /\ UNCHANGED <<log, snapshotIndex, snapshotTerm, commitIndex, confVars, live,
                   readMsgs, readLate, readWait, readStale, readTwin, readBehind, elections, leaderLog, snaps>>

\* i handles j's answer to its vote request. A granted vote must have been
\* cast. A higher term makes i a follower; a lower one is ignored; refusals
\* that leave no majority of i's configuration to win make a candidate a
\* follower (etcd's poll; votes of servers outside it are recorded and not
\* counted).
HandleVoteResponse(i, j, term, granted) ==
    /\ i \in live
    /\ i # j
    /\ granted \in BOOLEAN
    /\ granted => <<term, j, i>> \in votesCast
    /\ \/ /\ term > currentTerm[i]
          /\ StepDown(i, term)
          /\ UNCHANGED <<log, snapshotIndex, snapshotTerm, commitIndex, confVars, live, readMsgs, readLate, readWait, readStale, readTwin, readBehind, histVars>>
       \/ /\ term = currentTerm[i]
          /\ role[i] = "candidate"
          /\ IF granted
                THEN /\ votesGranted' = [votesGranted EXCEPT ![i] = @ \cup {j}]
                     /\ UNCHANGED <<votesRejected, role>>
                ELSE IF Lost(config[i], votesRejected[i] \cup {j})
                THEN /\ role' = [role EXCEPT ![i] = "follower"]
                     /\ votesGranted' = [votesGranted EXCEPT ![i] = {}]
                     /\ votesRejected' = [votesRejected EXCEPT ![i] = {}]
                ELSE /\ votesRejected' = [votesRejected EXCEPT ![i] = @ \cup {j}]
                     /\ UNCHANGED <<votesGranted, role>>
          /\ UNCHANGED <<currentTerm, votedFor, log, snapshotIndex, snapshotTerm, commitIndex,
                         confVars, leaderVars, live, readVars, histVars>>
       \/ /\ \/ term < currentTerm[i]
             \/ term = currentTerm[i] /\ role[i] # "candidate"
          /\ UNCHANGED vars

\* Candidate i has the votes of a majority of its configuration (of both,
\* when joint) in `term` and becomes leader; the library appends an empty
\* entry of the new term.
BecomeLeader(i, term) ==
    /\ i \in live
    /\ role[i] = "candidate"
    /\ currentTerm[i] = term
    /\ Quorum(config[i], votesGranted[i])
    /\ role' = [role EXCEPT ![i] = "leader"]
    /\ log' = [log EXCEPT ![i] = Append(@, [term |-> term, value |-> ""])]
    /\ NoLeaderVars(i)
    /\ votesGranted' = [votesGranted EXCEPT ![i] = {}]
    /\ votesRejected' = [votesRejected EXCEPT ![i] = {}]
    /\ elections' = elections \cup {<<term, i>>}
    /\ leaderLog' = (term :> [leader |-> i, base |-> snapshotIndex[i], baseTerm |-> snapshotTerm[i],
                              ents |-> log'[i], commit |-> commitIndex[i]]) @@ leaderLog
    /\ UNCHANGED <<currentTerm, votedFor, snapshotIndex, snapshotTerm, commitIndex,
                   confVars, live, readVars, votesCast, snaps>>

-----------------------------------------------------------------------------
(* Log replication *)

\* Leader i appends entry e of its term.
LeaderAppend(i, e) ==
    LET t == currentTerm[i] IN
    /\ i \in live
    /\ role[i] = "leader"
    /\ e.term = t
    /\ log' = [log EXCEPT ![i] = Append(@, e)]
    /\ leaderLog' = IF t \in DOMAIN leaderLog
                       THEN [leaderLog EXCEPT ![t].ents = Append(@, e)]
                       ELSE leaderLog
    /\ UNCHANGED <<currentTerm, votedFor, snapshotIndex, snapshotTerm, commitIndex, role,
                   candVars, confVars, leaderVars, live, readVars, elections, votesCast, snaps>>

\* Leader i appends a client's value (an empty one in place of a
\* configuration change it refused).
ClientRequest(i, value) == LeaderAppend(i, [term |-> currentTerm[i], value |-> value])

\* Leader i appends configuration change ch (its text, value): one that
\* leaves the joint configuration i is in, or that starts from one that is
\* not joint (the library refuses the others, and a change while an earlier
\* one is not applied, which the model does not tell).
ProposeConf(i, value, ch) ==
    /\ ch.kind \in {"simple", "joint", "auto", "leave"}
    /\ Joint(config[i]) <=> ch.kind = "leave"
    /\ LeaderAppend(i, [term |-> currentTerm[i], value |-> value, conf |-> ch])

\* The message (term, prevLogIndex, prevLogTerm, entries, commit) is one the
\* leader of `term` could have sent: it agrees with what that leader held.
AppendSendable(j, term, prevLogIndex, prevLogTerm, entries, commit) ==
    LET L == leaderLog[term] IN
    /\ IsLeaderOf(j, term)
    /\ term \in DOMAIN leaderLog
    /\ prevLogIndex \in Nat /\ commit \in Nat
    /\ prevLogIndex + Len(entries) <= LLast(L)
    /\ LKnown(L, prevLogIndex) => LTerm(L, prevLogIndex) = prevLogTerm
    /\ \A k \in 1 .. Len(entries) :
          /\ prevLogIndex + k > L.base => L.ents[prevLogIndex + k - L.base] = entries[k]
          /\ prevLogIndex + k = L.base => L.baseTerm = entries[k].term
    /\ commit <= LLast(L)

\* The indexes (1 .. Len(ents)) where ents disagrees with i's log.
Conflicts(i, prev, ents) == {k \in 1 .. Len(ents) : TermAt(i, prev + k) # ents[k].term}

\* i handles j's append request. A lower term is refused. Otherwise i
\* follows j in `term`; a request below i's commit index is acknowledged
\* without change (etcd); one whose previous entry i holds is accepted: i's
\* log is cut at the first conflicting entry (never a committed one) and the
\* rest appended, and i's commit index moves to min(commit, last new index).
HandleAppendRequest(i, j, term, prevLogIndex, prevLogTerm, entries, commit, success) ==
    /\ i \in live
    /\ i # j
    /\ success \in BOOLEAN
    /\ AppendSendable(j, term, prevLogIndex, prevLogTerm, entries, commit)
    /\ IF term < currentTerm[i]
          THEN /\ ~success
               /\ UNCHANGED vars
          ELSE
          LET lastNew == prevLogIndex + Len(entries)
              cs == Conflicts(i, prevLogIndex, entries)
              newLog == IF cs = {} THEN log[i]
                        ELSE SubSeq(log[i], 1, prevLogIndex + SetMin(cs) - 1 - snapshotIndex[i])
                             \o SubSeq(entries, SetMin(cs), Len(entries))
          IN
          /\ currentTerm' = [currentTerm EXCEPT ![i] = term]
          /\ role' = [role EXCEPT ![i] = "follower"]
          /\ votedFor' = [votedFor EXCEPT ![i] = IF term > currentTerm[i] THEN Nil ELSE @]
          /\ votesGranted' = [votesGranted EXCEPT ![i] = {}]
          /\ votesRejected' = [votesRejected EXCEPT ![i] = {}]
          /\ NoLeaderVars(i)
          /\ IF prevLogIndex < commitIndex[i]
                THEN /\ success
                     /\ UNCHANGED <<log, commitIndex>>
                ELSE IF TermAt(i, prevLogIndex) = prevLogTerm
                THEN /\ success
                     /\ cs # {} => prevLogIndex + SetMin(cs) > commitIndex[i]
                     /\ log' = [log EXCEPT ![i] = newLog]
                     /\ commitIndex' = [commitIndex EXCEPT ![i] = Max(@, Min(commit, lastNew))]
                ELSE /\ ~success
                     /\ UNCHANGED <<log, commitIndex>>
          /\ DropReads(i)
          /\ UNCHANGED <<snapshotIndex, snapshotTerm, confVars, live, readMsgs, readLate, readWait, readStale, readTwin, readBehind, histVars>>

\* Leader i handles j's answer to an append request. A success tells i that
\* j holds i's log up to `index`; a refusal (rejectHint <= index) changes
\* nothing but what FollowerProgress reports. An answer from a server
\* outside i's configuration is ignored (the library tracks no progress
\* for it).
HandleAppendResponse(i, j, term, success, index, rejectHint) ==
    /\ i \in live
    /\ i # j
    /\ success \in BOOLEAN
    /\ index \in Nat /\ rejectHint \in Nat
    /\ \/ /\ term > currentTerm[i]
          /\ StepDown(i, term)
          /\ UNCHANGED <<log, snapshotIndex, snapshotTerm, commitIndex, confVars, live, readMsgs, readLate, readWait, readStale, readTwin, readBehind, histVars>>
       \/ /\ term = currentTerm[i]
          /\ role[i] = "leader"
          /\ IF success
                THEN /\ index <= LastIndex(i)
                     /\ matchIndex' = [matchIndex EXCEPT ![i][j] = IF j \in Members(config[i]) THEN Max(@, index) ELSE @]
                ELSE /\ rejectHint <= index
                     /\ UNCHANGED matchIndex
          /\ UNCHANGED <<serverVars, candVars, confVars, nextIndex, progState, live, readVars, histVars>>
       \/ /\ \/ term < currentTerm[i]
             \/ term = currentTerm[i] /\ role[i] # "leader"
          /\ UNCHANGED vars

\* Leader i's commit index moves to `index`: an entry of its own term that
\* a majority of its configuration holds (of both, when joint; i counts
\* when it is a voter).
AdvanceCommit(i, index) ==
    LET t == currentTerm[i] IN
    /\ i \in live
    /\ role[i] = "leader"
    /\ index > commitIndex[i]
    /\ index <= LastIndex(i)
    /\ TermAt(i, index) = t
    /\ Quorum(config[i], {i} \cup {k \in Servers : matchIndex[i][k] >= index})
    /\ commitIndex' = [commitIndex EXCEPT ![i] = index]
    /\ leaderLog' = IF t \in DOMAIN leaderLog
                       THEN [leaderLog EXCEPT ![t].commit = Max(@, index)]
                       ELSE leaderLog
    \* the first commit of its term releases the reads i held back
    /\ readQ' = [readQ EXCEPT ![i] = @ + readWait[i]]
    /\ readWait' = [readWait EXCEPT ![i] = 0]
    /\ UNCHANGED <<currentTerm, votedFor, log, snapshotIndex, snapshotTerm, role,
                   candVars, confVars, leaderVars, live, readMsgs, readLate, readStale, readTwin, readBehind, elections, votesCast, snaps>>

\* i receives from j a message of a higher term that no action above maps
\* (an answer to a heartbeat or a read, a leader transfer's MsgTimeoutNow):
\* etcd moves to every higher term it hears of as a follower, whatever the
\* message, as a higher-term append response makes i do. j holds that term:
\* no server sends a message of a term it never reached. (Next has no
\* disjunct for it: its refusals of HandleAppendResponse are these steps.)
UpdateTerm(i, j, term) ==
    /\ term > currentTerm[i]
    /\ term <= currentTerm[j]
    /\ HandleAppendResponse(i, j, term, FALSE, 0, 0)

-----------------------------------------------------------------------------
(* Snapshots *)

\* i compacts its log up to a committed index it has applied (etcd
\* snapshots at its applied index): the snapshot holds the configuration
\* i has applied.
Snapshot(i, index) ==
    /\ i \in live
    /\ index > snapshotIndex[i]
    /\ index <= commitIndex[i]
    /\ index >= configIndex[i]
    /\ snapshotTerm' = [snapshotTerm EXCEPT ![i] = TermAt(i, index)]
    /\ snapshotIndex' = [snapshotIndex EXCEPT ![i] = index]
    /\ log' = [log EXCEPT ![i] = SubSeq(@, index - snapshotIndex[i] + 1, Len(@))]
    /\ snapConfig' = [snapConfig EXCEPT ![i] = config[i]]
    /\ configIndex' = [configIndex EXCEPT ![i] = index]
    /\ snaps' = snaps \cup {<<index, TermAt(i, index), config[i]>>}
    /\ UNCHANGED <<currentTerm, votedFor, commitIndex, role, candVars, config,
                   leaderVars, live, readVars, elections, leaderLog, votesCast>>

\* i handles the snapshot (index, snapTerm, with configuration conf as the
\* system reports it) that the leader j of `term` sent: a snapshot some
\* server made. A lower term is ignored. Otherwise i follows j; a snapshot
\* at or below i's commit index is ignored, and one whose configuration
\* does not have i (etcd: "should never happen", and does, when a leader
\* sends a server it has just added the snapshot it made before); one whose
\* last entry i holds only moves i's commit index (etcd); otherwise i's log
\* is replaced and the snapshot's configuration is i's.
HandleSnapshot(i, j, term, index, snapTerm, conf) ==
    LET L == leaderLog[term]
        c == AsConfig(conf)
    IN
    /\ i \in live
    /\ i # j
    /\ IsLeaderOf(j, term)
    /\ term \in DOMAIN leaderLog
    /\ index \in Nat /\ snapTerm \in Nat /\ snapTerm <= term
    /\ index <= LLast(L)
    /\ LKnown(L, index) => LTerm(L, index) = snapTerm
    /\ <<index, snapTerm, c>> \in snaps
    /\ IF term < currentTerm[i]
          THEN UNCHANGED vars
          ELSE
          /\ currentTerm' = [currentTerm EXCEPT ![i] = term]
          /\ role' = [role EXCEPT ![i] = "follower"]
          /\ votedFor' = [votedFor EXCEPT ![i] = IF term > currentTerm[i] THEN Nil ELSE @]
          /\ votesGranted' = [votesGranted EXCEPT ![i] = {}]
          /\ votesRejected' = [votesRejected EXCEPT ![i] = {}]
          /\ NoLeaderVars(i)
          /\ IF index <= commitIndex[i] \/ i \notin Members(c)
                THEN UNCHANGED <<log, snapshotIndex, snapshotTerm, commitIndex, confVars>>
                ELSE IF TermAt(i, index) = snapTerm
                THEN /\ commitIndex' = [commitIndex EXCEPT ![i] = index]
                     /\ UNCHANGED <<log, snapshotIndex, snapshotTerm, confVars>>
                ELSE /\ log' = [log EXCEPT ![i] = <<>>]
                     /\ snapshotIndex' = [snapshotIndex EXCEPT ![i] = index]
                     /\ snapshotTerm' = [snapshotTerm EXCEPT ![i] = snapTerm]
                     /\ commitIndex' = [commitIndex EXCEPT ![i] = index]
                     /\ config' = [config EXCEPT ![i] = c]
                     /\ configIndex' = [configIndex EXCEPT ![i] = index]
                     /\ snapConfig' = [snapConfig EXCEPT ![i] = c]
          /\ DropReads(i)
          /\ UNCHANGED <<live, readMsgs, readLate, readWait, readStale, readTwin, readBehind, histVars>>

-----------------------------------------------------------------------------
(* Reads (ReadIndex, etcd's linearizable reads)                            *)
(*                                                                         *)
(* The model counts reads, it does not hold them: how many ReadIndex       *)
(* requests are on their way to each server (a copy the network made       *)
(* counts), how many a leader waits to confirm, how many it holds back     *)
(* because it has not yet committed an entry of its term. A confirmed read *)
(* is one its leader answered (a MsgReadIndexResp to the follower that     *)
(* asked, or a read state of its own). A leader confirms reads with        *)
(* heartbeats; answers to them still on its way after the reads they were  *)
(* for were answered are stale (readStale: whether there are any;         *)
(* readTwin: whether one of those reads also has a late copy on its way).  *)

\* i has committed an entry of its current term.
CommittedInTerm(i) == TermAt(i, commitIndex[i]) = currentTerm[i]

\* Leader i takes a read: queued for confirmation, or held back until its
\* first commit of the term.
TakeRead(i) ==
    /\ IF CommittedInTerm(i)
          THEN /\ readQ' = [readQ EXCEPT ![i] = @ + 1]
               /\ UNCHANGED readWait
          ELSE /\ readWait' = [readWait EXCEPT ![i] = @ + 1]
               /\ UNCHANGED readQ
    \* a read answered at i's commit index would miss what another server
    \* committed: a correct leader never answers it (it is deposed)
    /\ readBehind' = [readBehind EXCEPT ![i] = \E j \in Servers : commitIndex[j] > commitIndex[i]]

\* A client reads at leader i.
ReadLocal(i) ==
    /\ i \in live
    /\ role[i] = "leader"
    /\ TakeRead(i)
    /\ UNCHANGED <<serverVars, candVars, confVars, leaderVars, live, readMsgs, readLate, readStale, readTwin, histVars>>

\* i sends (or forwards) a ReadIndex request to a live server j.
SendReadIndex(i, j) ==
    /\ i # j
    /\ j \in live
    /\ readMsgs' = [readMsgs EXCEPT ![j] = @ + 1]
    /\ UNCHANGED <<serverVars, candVars, confVars, leaderVars, live, readLate, readQ, readWait, readStale, readTwin, readBehind, histVars>>

\* A late copy of a request on its way to i arrives or is lost: `twin`
\* says whether, after it, late copies of a read answered on stale answers
\* (readTwin) are still on their way.
LateCopyGone(i, twin) ==
    /\ twin \in BOOLEAN
    /\ twin => readTwin[i] /\ readLate'[i] > 0
    /\ readTwin' = [readTwin EXCEPT ![i] = twin]

\* The network copies, or loses, a ReadIndex request on its way to i: a
\* late one (a copy of a request i has received) when `late`.
DuplicateReadIndex(i, late) ==
    /\ late \in BOOLEAN
    /\ IF late THEN /\ readLate[i] > 0
                    /\ readLate' = [readLate EXCEPT ![i] = @ + 1]
       ELSE /\ readMsgs[i] > readLate[i]
            /\ UNCHANGED readLate
    /\ readMsgs' = [readMsgs EXCEPT ![i] = @ + 1]
    /\ UNCHANGED <<serverVars, candVars, confVars, leaderVars, live, readQ, readWait, readStale, readTwin, readBehind, histVars>>
DropReadIndex(i, late, twin) ==
    /\ late \in BOOLEAN
    /\ IF late THEN /\ readLate[i] > 0
                    /\ readLate' = [readLate EXCEPT ![i] = @ - 1]
                    /\ LateCopyGone(i, twin)
       ELSE /\ readMsgs[i] > readLate[i]
            /\ twin = readTwin[i]
            /\ UNCHANGED <<readLate, readTwin>>
    /\ readMsgs' = [readMsgs EXCEPT ![i] = @ - 1]
    /\ UNCHANGED <<serverVars, candVars, confVars, leaderVars, live, readQ, readWait, readStale, readBehind, histVars>>

\* i receives j's ReadIndex request: a late copy when `late`; otherwise the
\* first of its copies to arrive, and `copies` others of it, still on their
\* way, are late from now on. A leader takes the read (a late copy too: to
\* the library it is a new request); a follower forwards it to its leader
\* (a SendReadIndex of its own) or drops it when it knows none; a
\* candidate ignores it. `twin` as in LateCopyGone.
HandleReadIndex(i, j, late, copies, twin) ==
    /\ i \in live
    /\ i # j
    /\ late \in BOOLEAN /\ copies \in Nat
    /\ IF late THEN /\ copies = 0
                    /\ readLate[i] > 0
                    /\ readLate' = [readLate EXCEPT ![i] = @ - 1]
                    /\ LateCopyGone(i, twin)
       ELSE /\ readMsgs[i] - readLate[i] > copies
            /\ readLate' = [readLate EXCEPT ![i] = @ + copies]
            /\ twin = readTwin[i]
            /\ UNCHANGED readTwin
    /\ readMsgs' = [readMsgs EXCEPT ![i] = @ - 1]
    /\ IF role[i] = "leader" THEN TakeRead(i) ELSE UNCHANGED <<readQ, readWait, readBehind>>
    /\ UNCHANGED <<serverVars, candVars, confVars, leaderVars, live, readStale, histVars>>

\* Leader i answers a read: a quorum confirmed its leadership after the
\* read arrived (or, lease-based, at once). Only a leader answers reads.
\* `stale`: answers to heartbeats i sent for the reads it has now answered
\* are still on their way to it (a heartbeat not yet answered, an answer
\* not yet received), stale from now on; `twin`: and a late copy of one of
\* those reads is on its way to i too, the arrangement in which etcd raft
\* before go.etcd.io/raft 63903dd answered a later read on the stale
\* answers (a copy is a new request with the same context).
ConfirmRead(i, stale, twin) ==
    /\ i \in live
    /\ role[i] = "leader"
    /\ stale \in BOOLEAN /\ twin \in BOOLEAN
    /\ readQ[i] + readWait[i] > 0
    /\ IF readQ[i] > 0
          THEN /\ readQ' = [readQ EXCEPT ![i] = @ - 1]
               /\ UNCHANGED readWait
          ELSE /\ readWait' = [readWait EXCEPT ![i] = @ - 1]
               /\ UNCHANGED readQ
    /\ readStale' = [readStale EXCEPT ![i] = @ \/ stale]
    /\ twin => readStale'[i] /\ readLate[i] > 0
    /\ readTwin' = [readTwin EXCEPT ![i] = @ \/ twin]
    /\ UNCHANGED <<serverVars, candVars, confVars, leaderVars, live, readMsgs, readLate, readBehind, histVars>>

\* One of the stale answers on their way to i arrives at i, or is lost (the
\* network drops it, or the heartbeat it answers, or a server holding one
\* crashes); `more` of them are still on their way, `twin` as in
\* ConfirmRead. The model does not say what i does with it: to a correct
\* leader it confirms nothing new.
StaleAnswer(i, more, twin) ==
    /\ readStale[i]
    /\ more \in BOOLEAN /\ twin \in BOOLEAN
    /\ twin => more /\ readTwin[i]
    /\ readStale' = [readStale EXCEPT ![i] = more]
    /\ readTwin' = [readTwin EXCEPT ![i] = twin]
    /\ UNCHANGED <<serverVars, candVars, confVars, leaderVars, live, readMsgs, readLate, readQ, readWait, readBehind, histVars>>

-----------------------------------------------------------------------------
(* Configuration changes, and what a leader believes of its followers *)

\* The index of the first configuration entry i holds after index k, up to
\* index m (0 when there is none).
NextConfIn(i, k, m) ==
    LET S == {x \in (Max(k, snapshotIndex[i]) + 1) .. Min(m, LastIndex(i)) : IsConf(EntryAt(i, x))}
    IN IF S = {} THEN 0 ELSE SetMin(S)

\* i applies the configuration entry at `index`: committed, and the next
\* one of its log after the one it applied last. The library takes the
\* change, or the application refuses it (Valid). A leader forgets what it
\* believed of a server that leaves its configuration, and starts anew with
\* one that joins it (a removal steps it down, see LeaderStepDown).
ApplyConfAt(i, index) ==
    LET c == config[i]
        n == Apply(c, EntryAt(i, index).conf)
        kept == Members(c) \cap Members(n)
    IN
    /\ i \in live
    /\ HasEntry(i, index)
    /\ index <= commitIndex[i]
    /\ NextConfIn(i, configIndex[i], index) = index
    /\ config' = [config EXCEPT ![i] = n]
    /\ configIndex' = [configIndex EXCEPT ![i] = index]
    /\ matchIndex' = [matchIndex EXCEPT ![i] = [j \in Servers |-> IF j \in kept THEN matchIndex[i][j] ELSE 0]]
    /\ nextIndex' = [nextIndex EXCEPT ![i] = [j \in Servers |-> IF j \in kept THEN nextIndex[i][j] ELSE 0]]
    /\ progState' = [progState EXCEPT ![i] = [j \in Servers |-> IF j \in kept THEN progState[i][j] ELSE "none"]]
    /\ UNCHANGED <<serverVars, candVars, snapConfig, live, readVars, histVars>>

\* The same, with the configuration the system reports after it
\* (`reported`), which must be the model's.
ApplyConf(i, index, reported) ==
    /\ ApplyConfAt(i, index)
    /\ AsConfig(reported) = config'[i]

\* Leader i reports what it believes of j, a member of its configuration
\* (etcd's progress tracker): Match, which is what j's answers told the
\* model (HandleAppendResponse), Next, above Match and at most one past
\* i's last entry, and the flow control's state: probing j's log,
\* replicating to it, or waiting for it to apply a snapshot. The system
\* reports these after each of its steps that changed them; the model
\* does not predict them (Next allows any).
FollowerProgress(i, j, match, next, state) ==
    /\ i \in live
    /\ role[i] = "leader"
    /\ i # j
    /\ j \in Members(config[i])
    /\ state \in {"probe", "replicate", "snapshot"}
    /\ match = matchIndex[i][j]
    /\ match < next
    /\ next <= LastIndex(i) + 1
    /\ nextIndex' = [nextIndex EXCEPT ![i][j] = next]
    /\ progState' = [progState EXCEPT ![i][j] = state]
    /\ UNCHANGED <<serverVars, candVars, confVars, matchIndex, live, readVars, histVars>>

-----------------------------------------------------------------------------
(* Failures *)

\* i crashes: its volatile state is lost (cleared here, so a crashed
\* server shows as a follower).
Crash(i) ==
    /\ i \in live
    /\ live' = live \ {i}
    /\ role' = [role EXCEPT ![i] = "follower"]
    /\ votesGranted' = [votesGranted EXCEPT ![i] = {}]
    /\ votesRejected' = [votesRejected EXCEPT ![i] = {}]
    /\ NoLeaderVars(i)
    \* its inbox and its pending reads are lost
    /\ readMsgs' = [readMsgs EXCEPT ![i] = 0]
    /\ readLate' = [readLate EXCEPT ![i] = 0]
    /\ readQ' = [readQ EXCEPT ![i] = 0]
    /\ readWait' = [readWait EXCEPT ![i] = 0]
    /\ readStale' = [readStale EXCEPT ![i] = FALSE]
    /\ readTwin' = [readTwin EXCEPT ![i] = FALSE]
    /\ readBehind' = [readBehind EXCEPT ![i] = FALSE]
    /\ UNCHANGED <<currentTerm, votedFor, log, snapshotIndex, snapshotTerm, commitIndex, confVars, histVars>>

\* i restarts from its durable state (term, vote, log, snapshot and commit
\* index, as etcd's HardState and storage hold them); volatile state resets:
\* its configuration is its snapshot's until it applies the configuration
\* entries after it again.
Restart(i) ==
    /\ i \in Servers \ live
    /\ live' = live \cup {i}
    /\ role' = [role EXCEPT ![i] = "follower"]
    /\ votesGranted' = [votesGranted EXCEPT ![i] = {}]
    /\ votesRejected' = [votesRejected EXCEPT ![i] = {}]
    /\ NoLeaderVars(i)
    /\ commitIndex' = [commitIndex EXCEPT ![i] = Max(@, snapshotIndex[i])]
    /\ config' = [config EXCEPT ![i] = snapConfig[i]]
    /\ configIndex' = [configIndex EXCEPT ![i] = snapshotIndex[i]]
    /\ UNCHANGED <<currentTerm, votedFor, log, snapshotIndex, snapshotTerm, snapConfig, readVars, histVars>>

-----------------------------------------------------------------------------
(* The next-state relation for exhaustive checking: every message is one a  *)
(* sender could send (from the history variables or the sender's state), so *)
(* stale and reordered messages are explored.                               *)

\* Whether Raft lets i grant j's vote request (term, lastLogTerm, lastLogIndex).
Grantable(i, j, term, lastLogTerm, lastLogIndex) ==
    /\ term >= currentTerm[i]
    /\ (IF term > currentTerm[i] THEN Nil ELSE votedFor[i]) \in {Nil, j}
    /\ \/ lastLogTerm > LastTerm(i)
       \/ lastLogTerm = LastTerm(i) /\ lastLogIndex >= LastIndex(i)

\* A sequence of the elements of a set of integers, in order: how the
\* system reports a configuration.
RECURSIVE SortedSeq(_)
SortedSeq(S) == IF S = {} THEN <<>> ELSE <<SetMin(S)>> \o SortedSeq(S \ {SetMin(S)})
Reported(c) == [voters |-> SortedSeq(c.in), outgoing |-> SortedSeq(c.out), learners |-> SortedSeq(c.learners),
                learnersNext |-> SortedSeq(c.next), auto |-> c.auto]

\* Configuration changes a leader may propose in exhaustive checking: a
\* spare made voter or learner, the last bootstrap voter removed, both at
\* once in a joint configuration (left explicitly or by itself), and
\* leaving a joint configuration.
NoChange == [kind |-> "leave", voters |-> <<>>, learners |-> <<>>, remove |-> <<>>]
CheckChanges ==
    LET v == SetMax(InitVoters) IN
    {[NoChange EXCEPT !.kind = "simple", !.voters = <<k>>] : k \in Servers \ InitVoters} \cup
    {[NoChange EXCEPT !.kind = "simple", !.learners = <<k>>] : k \in Servers \ InitVoters} \cup
    {[NoChange EXCEPT !.kind = "simple", !.remove = <<v>>]} \cup
    {[NoChange EXCEPT !.kind = kd, !.voters = <<k>>, !.remove = <<v>>] :
        kd \in {"joint", "auto"}, k \in Servers \ InitVoters} \cup
    {NoChange}
\* The configuration changes the leaders of every term proposed.
ProposedConfs == UNION {{<<t, k>> : k \in {x \in DOMAIN leaderLog[t].ents :
                                              IsConf(leaderLog[t].ents[x]) /\ leaderLog[t].ents[x].term = t}} :
                         t \in DOMAIN leaderLog}

\* The largest index where i's and j's logs agree (both hold it with one term).
MatchPoint(i, j) ==
    LET S == {k \in snapshotIndex[j] .. LastIndex(j) : TermAt(i, k) = TermAt(j, k) /\ TermAt(j, k) # -1}
    IN IF S = {} THEN -1 ELSE CHOOSE k \in S : \A m \in S : m <= k

ProtocolNext ==
    \/ \E i \in Servers : Timeout(i) \/ Crash(i) \/ Restart(i) \/ LeaderStepDown(i)
    \/ \E i \in Servers : BecomeLeader(i, currentTerm[i])
    \/ \E i \in Servers, v \in Values : ClientRequest(i, v)
    \* vote requests of current candidates, answered as Raft says (the
    \* library's other refusals are not explored)
    \/ \E i, j \in Servers :
          /\ role[j] = "candidate"
          /\ HandleVoteRequest(i, j, currentTerm[j], LastTerm(j), LastIndex(j),
                               Grantable(i, j, currentTerm[j], LastTerm(j), LastIndex(j)))
    \* answers: a grant that was cast, or a refusal from a server that did
    \* not vote for i in its term
    \/ \E i, j \in Servers :
          HandleVoteResponse(i, j, currentTerm[j], <<currentTerm[j], j, i>> \in votesCast)
    \* append requests of any leader of any term, from what it held: no
    \* entries (a heartbeat-like probe) or all it held after prevLogIndex
    \/ \E t \in DOMAIN leaderLog, i \in Servers :
          LET L == leaderLog[t] IN
          \E prev \in L.base .. LLast(L) : \E n \in {0, LLast(L) - prev} :
          \E success \in BOOLEAN :
             HandleAppendRequest(i, L.leader, t, prev, LTerm(L, prev),
                                 SubSeq(L.ents, prev - L.base + 1, prev - L.base + n),
                                 Min(L.commit, prev + n), success)
    \* success answers tell how far j agrees with the leader in its term;
    \* refusals are always possible
    \/ \E i, j \in Servers :
          \/ /\ currentTerm[j] = currentTerm[i]
             /\ MatchPoint(i, j) >= 0
             /\ HandleAppendResponse(i, j, currentTerm[j], TRUE, MatchPoint(i, j), 0)
          \/ HandleAppendResponse(i, j, currentTerm[j], FALSE, 0, 0)
    \/ \E i \in Servers, idx \in 1 .. BootIndex + MaxLogLen : AdvanceCommit(i, idx)
    \* compaction of everything committed, once the configuration entries
    \* are applied
    \/ \E i \in Servers : /\ NextConfIn(i, configIndex[i], commitIndex[i]) = 0
                          /\ Snapshot(i, commitIndex[i])
    \* a leader's snapshot, when it has compacted its log or to a server that
    \* lacks the snapshot's last entry (a spare)
    \/ \E i, j \in Servers :
          /\ role[j] = "leader"
          /\ \/ snapshotIndex[j] > (IF Bootstrap = "snapshot" THEN 1 ELSE 0)
             \/ snapshotIndex[j] > LastIndex(i)
          /\ HandleSnapshot(i, j, currentTerm[j], snapshotIndex[j], snapshotTerm[j], Reported(snapConfig[j]))
    \* configuration changes: proposed by a leader, applied in log order
    \/ \E i \in Servers, ch \in CheckChanges :
          /\ Cardinality(ProposedConfs) < MaxConfChanges
          /\ ProposeConf(i, "conf", ch)
    \/ \E i \in Servers : ApplyConfAt(i, NextConfIn(i, configIndex[i], commitIndex[i]))
    \* reads: at a leader, or asked of a leader by another server (which the
    \* network may copy or lose); answered by a leader
    \/ \E i \in Servers : ReadLocal(i)
    \/ \E i \in Servers, b, c \in BOOLEAN : ConfirmRead(i, b, c) \/ StaleAnswer(i, b, c)
    \/ \E i \in Servers, late \in BOOLEAN : DuplicateReadIndex(i, late) \/ \E twin \in BOOLEAN : DropReadIndex(i, late, twin)
    \/ \E i, j \in Servers : /\ role[j] = "leader" /\ role[i] # "leader"
                            /\ SendReadIndex(i, j)
    \/ \E i, j \in Servers : \E late, twin \in BOOLEAN, copies \in 0 .. readMsgs[i] :
          HandleReadIndex(i, j, late, copies, twin)

\* With what a leader may believe of a follower: any Next above Match, up
\* to one past its last entry, in any state of the flow control.
Next ==
    \/ ProtocolNext
    \/ \E i, j \in Servers, st \in {"probe", "replicate", "snapshot"} :
          \E n \in (matchIndex[i][j] + 1) .. (LastIndex(i) + 1) : FollowerProgress(i, j, matchIndex[i][j], n, st)

Spec == Init /\ [][Next]_vars
\* For exhaustive checking: what leaders believe of their followers is read
\* by no invariant and by no other action, so the checker leaves it out.
ProtocolSpec == Init /\ [][ProtocolNext]_vars

\* The sum of a count over the servers.
RECURSIVE SumOver(_, _)
SumOver(f, S) == IF S = {} THEN 0 ELSE LET x == CHOOSE y \in S : TRUE IN f[x] + SumOver(f, S \ {x})
ReadsAt(f) == SumOver(f, Servers)

\* Exhaustive checking needs bounds; simulation does not use them.
Bounded == /\ \A i \in Servers : currentTerm[i] <= MaxTerm /\ LastIndex(i) <= BootIndex + MaxLogLen
           /\ Cardinality(live) + 1 >= Cardinality(Servers)  \* one crashed at a time
           \* at most MaxTerm candidacies in all (a candidate votes for itself)
           /\ Cardinality({v \in votesCast : v[2] = v[3]}) <= MaxTerm
           \* at most MaxReads reads at a time, in flight or at leaders
           /\ ReadsAt(readMsgs) + ReadsAt(readQ) + ReadsAt(readWait) <= MaxReads

\* For exhaustive checking (raft_check.cfg): every variable but the stale
\* answers' flags and readBehind, the snapshots made (snaps), and what
\* FollowerProgress reports (nextIndex, progState: it is not part of
\* ProtocolNext, so they never change here). Nothing else reads readStale, readTwin
\* and readBehind (but StaleAnswer's guard, which changes nothing but
\* them; readBehind is read by views only), and nothing else reads snaps
\* (but HandleSnapshot's guard, which every snapshot a leader of Next
\* sends passes: it made or installed it), so the states
\* this view tells apart are exactly those of the other variables (their
\* non-deterministic values would multiply the states several times over
\* and add none of the other variables). The flags are checked in
\* simulation, against the library's traces.
CheckView == <<serverVars, candVars, confVars, matchIndex, live, readMsgs, readLate, readQ, readWait,
               elections, leaderLog, votesCast>>

-----------------------------------------------------------------------------
(* Invariants *)

Changes == [kind : {"simple", "joint", "auto", "leave"}, voters : Seq(Servers), learners : Seq(Servers), remove : Seq(Servers)]
Entries == [term : Nat, value : STRING] \cup [term : Nat, value : STRING, conf : Changes]
Configs == [in : SUBSET Servers, out : SUBSET Servers, learners : SUBSET Servers, next : SUBSET Servers, auto : BOOLEAN]

TypeOK ==
    /\ currentTerm \in [Servers -> Nat]
    /\ votedFor \in [Servers -> Servers \cup {Nil}]
    /\ \A i \in Servers : log[i] \in Seq(Entries)
    /\ snapshotIndex \in [Servers -> Nat]
    /\ snapshotTerm \in [Servers -> Nat]
    /\ commitIndex \in [Servers -> Nat]
    /\ \A i \in Servers : snapshotIndex[i] <= commitIndex[i] /\ commitIndex[i] <= LastIndex(i)
    /\ role \in [Servers -> Roles]
    /\ votesGranted \in [Servers -> SUBSET Servers]
    /\ votesRejected \in [Servers -> SUBSET Servers]
    /\ config \in [Servers -> Configs]
    /\ snapConfig \in [Servers -> Configs]
    /\ configIndex \in [Servers -> Nat]
    /\ matchIndex \in [Servers -> [Servers -> Nat]]
    /\ nextIndex \in [Servers -> [Servers -> Nat]]
    /\ progState \in [Servers -> [Servers -> {"none", "probe", "replicate", "snapshot"}]]
    /\ live \subseteq Servers
    /\ readMsgs \in [Servers -> Nat]
    /\ readLate \in [Servers -> Nat]
    /\ \A i \in Servers : readLate[i] <= readMsgs[i]
    /\ readQ \in [Servers -> Nat]
    /\ readWait \in [Servers -> Nat]
    /\ readStale \in [Servers -> BOOLEAN]
    /\ readTwin \in [Servers -> BOOLEAN]
    /\ readBehind \in [Servers -> BOOLEAN]
    /\ \A i \in Servers : readTwin[i] => readStale[i] /\ readLate[i] > 0
    \* only a leader waits to confirm reads
    /\ \A i \in Servers : readQ[i] > 0 => role[i] = "leader"

\* The indexes below which one of i and j has compacted its log: the
\* invariants compare the two from there (below, one of them holds no term
\* to compare), so that their cost follows the logs' live part, not their
\* length.
Held(i, j) == Max(snapshotIndex[i], snapshotIndex[j])

\* The last index at or below k where i's and j's logs hold entries of the
\* same term, searched down from k; -1 when there is none at or above
\* Held(i, j).
RECURSIVE AgreeDown(_, _, _)
AgreeDown(i, j, k) ==
    IF k < snapshotIndex[i] \/ k < snapshotIndex[j] THEN -1
    ELSE IF TermAt(i, k) = TermAt(j, k) THEN k
    ELSE AgreeDown(i, j, k - 1)

\* i and j agree at index k: the same entry where both hold one, else
\* the same term (at a snapshot's index; -1 where one holds nothing). Where
\* both hold an entry its term is TermAt, so this is TermAt(i, k) =
\* TermAt(j, k) /\ (HasEntry(i, k) /\ HasEntry(j, k) => EntryAt(i, k) =
\* EntryAt(j, k)) with fewer evaluations.
SameAt(i, j, k) ==
    IF HasEntry(i, k) /\ HasEntry(j, k) THEN EntryAt(i, k) = EntryAt(j, k) ELSE TermAt(i, k) = TermAt(j, k)

\* At most one leader per term.
ElectionSafety == \A e, f \in elections : e[1] = f[1] => e[2] = f[2]

\* Two logs with an entry of the same term at the same index agree up to it
\* (as far as both still hold entries).
\* Written as: up to the last index where the two agree in term (AgreeDown,
\* -1 when nowhere from Held(i, j)), they agree at every index; the same
\* as asking it below every index where they agree in term, with one pass
\* over the logs instead of one per such index. A server agrees with
\* itself: pairs of distinct servers only.
LogMatching ==
    \A i, j \in Servers : i # j =>
       \A m \in Held(i, j) .. AgreeDown(i, j, Min(LastIndex(i), LastIndex(j))) : SameAt(i, j, m)

\* Two servers never commit different entries at an index.
StateMachineSafety ==
    \A i, j \in Servers : i # j =>
       \A k \in Held(i, j) .. Min(commitIndex[i], commitIndex[j]) : SameAt(i, j, k)

\* A leader holds every entry committed by a server whose term is not
\* greater than the leader's (a stale leader need not hold what later
\* leaders committed).
LeaderCompleteness ==
    \A i \in Servers : role[i] = "leader" =>
       \A j \in Servers : currentTerm[j] <= currentTerm[i] =>
          /\ commitIndex[j] <= LastIndex(i)
          /\ j # i => \A k \in Held(i, j) .. commitIndex[j] : SameAt(i, j, k)

-----------------------------------------------------------------------------
(* Coverage abstractions: the campaign's cfg names one as its VIEW       *)
(* (raft.cfg: ClusterView, the default; raft_paper.cfg: View;           *)
(* raft_order.cfg: OrderView; raft_shape.cfg: ShapeView;                *)
(* raft_standing.cfg: StandingView; raft_reads.cfg: ReadView;           *)
(* raft_conf.cfg: ConfView; raft_progress.cfg: ProgressView).           *)
(* `modelfuzz model size` counts the abstract states of each within     *)
(* bounds, so that a view's grain is measured, not guessed.             *)
(*                                                                       *)
(* ClusterView is the default because guidance by it reaches more of it  *)
(* than random inputs do (1.5x in model states over 5,000 iterations,    *)
(* docs/benchmarks.md), which guidance by the paper's View does not: that *)
(* view keeps every term, index and client value, which random inputs    *)
(* vary in almost every execution, and random inputs reach more of it.   *)

\* The paper's abstraction: the state with the terms of non-leaders
\* forgotten. Roles, logs (with their entries' terms and values), snapshot
\* and commit indexes and liveness are kept.
View == <<[i \in Servers |-> IF role[i] = "leader" THEN currentTerm[i] ELSE 0],
          role, log, snapshotIndex, commitIndex, live>>

\* A term by its order among the terms T: states that differ only in how
\* far apart their terms are look the same.
RankIn(t, T) == IF t < 0 THEN -1 ELSE Cardinality({u \in T : u < t})
LogTerms == UNION {{log[i][k].term : k \in DOMAIN log[i]} : i \in Servers}

\* The paper's view with terms by their order (among the terms it shows:
\* leaders' and entries') and client values forgotten: a log is the
\* sequence of its entries' term ranks. A function of View, so coarser.
OrderView ==
    LET T == LogTerms \cup {currentTerm[i] : i \in {j \in Servers : role[j] = "leader"}}
    IN <<[i \in Servers |-> IF role[i] = "leader" THEN RankIn(currentTerm[i], T) ELSE -1],
         role,
         [i \in Servers |-> [k \in DOMAIN log[i] |-> RankIn(log[i][k].term, T)]],
         snapshotIndex, commitIndex, live>>

\* Every term a state holds, and a term by its order among them.
HeldTerms == LogTerms \cup {currentTerm[i] : i \in Servers} \cup {snapshotTerm[i] : i \in Servers}
Rank(t) == RankIn(t, HeldTerms)

\* How many entries at the end of a log ShapeView keeps.
ShapeLen == 3

\* Servers by symmetry, terms by order, logs by their shape. One server is
\* seen as its role, liveness, term rank, whether it voted in its term, the
\* term ranks of its last ShapeLen entries, the rank of its last index and
\* of its commit index among the servers', and how many of its entries are
\* not committed (up to ShapeLen). The view is the bag of the servers'
\* shapes: which server is which is forgotten.
ServerShape(i) ==
    LET n == Min(LastIndex(i), ShapeLen)
        lasts == {LastIndex(j) : j \in Servers}
        commits == {commitIndex[j] : j \in Servers}
    IN [role |-> role[i], live |-> i \in live, term |-> Rank(currentTerm[i]),
        voted |-> votedFor[i] # Nil,
        end |-> [k \in 1 .. n |-> Rank(TermAt(i, LastIndex(i) - n + k))],
        last |-> Cardinality({x \in lasts : x < LastIndex(i)}),
        commit |-> Cardinality({x \in commits : x < commitIndex[i]}),
        pending |-> Min(LastIndex(i) - commitIndex[i], ShapeLen)]
ShapeView ==
    LET sh == [i \in Servers |-> ServerShape(i)]
    IN [s \in {sh[i] : i \in Servers} |-> Cardinality({i \in Servers : sh[i] = s})]

\* Servers by symmetry, and each by how it stands towards the others only:
\* no term, index or value is kept. One server is its role, liveness,
\* whether its term is behind the highest, whether its last entry's term
\* is, whether its commit index is, how many servers hold a shorter log,
\* how many hold a log ending at the same entry (index and term), and how
\* many of its entries are not committed (up to 2). Bounded whatever the
\* execution's length: the states it rewards are arrangements of servers
\* (a stale leader, a follower with a diverged tail, a candidate ahead of
\* the leader), not ever higher terms.
Standing(i) ==
    LET maxTerm == CHOOSE t \in {currentTerm[j] : j \in Servers} : \A j \in Servers : currentTerm[j] <= t
        maxLast == CHOOSE t \in {LastTerm(j) : j \in Servers} : \A j \in Servers : LastTerm(j) <= t
        maxCommit == CHOOSE c \in {commitIndex[j] : j \in Servers} : \A j \in Servers : commitIndex[j] <= c
    IN [role |-> role[i], live |-> i \in live,
        staleTerm |-> currentTerm[i] < maxTerm,
        staleLog |-> LastTerm(i) < maxLast,
        staleCommit |-> commitIndex[i] < maxCommit,
        longer |-> Cardinality({j \in Servers : LastIndex(j) < LastIndex(i)}),
        same |-> Cardinality({j \in Servers \ {i} : LastIndex(j) = LastIndex(i) /\ LastTerm(j) = LastTerm(i)}),
        pending |-> Min(LastIndex(i) - commitIndex[i], 2)]
StandingView ==
    LET st == [i \in Servers |-> Standing(i)]
    IN [s \in {st[i] : i \in Servers} |-> Cardinality({i \in Servers : st[i] = s})]

\* Reads alone: servers by symmetry, each by its role, liveness, whether its
\* term and its commit index are behind the highest, and its reads, as
\* counts: how many ReadIndex requests are on their way to it (up to 2),
\* whether a late copy of one it has received is, how many reads it has
\* taken and not answered (up to 2), and whether stale answers to its
\* heartbeats are on their way to it (1; 2: and a late copy of a read they
\* confirmed); no log shapes. Coarse on purpose: the
\* arrangements of reads are rare among its states, so that guidance by rare
\* states goes to them (the arrangements reads go wrong in: a copy of a
\* request still on its way after the read was answered, an answer to a
\* heartbeat still on its way after its reads were answered, a read taken
\* by a leader deposed without knowing it).
ReadView ==
    LET maxTerm == CHOOSE t \in {currentTerm[j] : j \in Servers} : \A j \in Servers : currentTerm[j] <= t
        maxCommit == CHOOSE c \in {commitIndex[j] : j \in Servers} : \A j \in Servers : commitIndex[j] <= c
        st == [i \in Servers |-> [role |-> role[i], live |-> i \in live,
                                  staleTerm |-> currentTerm[i] < maxTerm,
                                  staleCommit |-> commitIndex[i] < maxCommit,
                                  inflight |-> Min(readMsgs[i] - readLate[i], 2),
                                  late |-> Min(readLate[i], 1), taken |-> Min(readQ[i] + readWait[i], 2),
                                  behind |-> readQ[i] + readWait[i] > 0 /\ readBehind[i],
                                  stale |-> IF readTwin[i] THEN 2 ELSE IF readStale[i] THEN 1 ELSE 0]]
    IN [s \in {st[i] : i \in Servers} |-> Cardinality({i \in Servers : st[i] = s})]

\* A bag (a function from elements to their counts) of the values f[x] of
\* the x in S.
BagOf(f, S) == [v \in {f[x] : x \in S} |-> Cardinality({x \in S : f[x] = v})]

\* a compared with b: below, equal or above.
Rel(a, b) == IF a < b THEN "below" ELSE IF a = b THEN "equal" ELSE "above"

\* The last index where leader i's and j's logs agree: searched down from
\* the end of the shorter one (Log Matching: the first agreement found is
\* the last, AgreeDown); the end of j's log when it is below i's snapshot
\* (what j holds, i has compacted: committed, the same); -1 when they
\* agree nowhere i can tell.
Agreement(i, j) ==
    IF LastIndex(j) < snapshotIndex[i] THEN LastIndex(j)
    ELSE AgreeDown(i, j, Min(LastIndex(i), LastIndex(j)))

\* What leader i believes of follower j, against what j holds: the flow
\* control's state, Match against the last index where their logs agree
\* (below: j holds more than i knows; above: i believes j holds what it
\* does not), and Next against the index after it (below: i will send
\* again entries j has; above: i will send entries j cannot attach).
Belief(i, j) ==
    LET a == Agreement(i, j) IN
    [state |-> progState[i][j], match |-> Rel(matchIndex[i][j], a), next |-> Rel(nextIndex[i][j], a + 1)]
\* The followers leader i reported, and what it believes of them, as a set.
Followers(i) == IF role[i] = "leader" THEN {j \in Servers \ {i} : progState[i][j] # "none"} ELSE {}
Beliefs(i) == {Belief(i, j) : j \in Followers(i)}

\* The server's place in the configuration it has applied: a voter (of
\* the incoming majority), a voter of the outgoing majority only (being
\* removed), a learner, a voter to become learner when the joint state is
\* left, or none.
Place(i) ==
    LET c == config[i] IN
    IF i \in c.in THEN "voter" ELSE IF i \in c.next THEN "next" ELSE IF i \in c.out THEN "outgoing"
    ELSE IF i \in c.learners THEN "learner" ELSE "none"

\* How far the last configuration change in i's log has got at i:
\* "proposed" (not committed), "committed" (not applied), "applied"
\* (or none in its log).
RECURSIVE LastConfDown(_, _)
LastConfDown(i, k) == IF k <= snapshotIndex[i] THEN 0 ELSE IF IsConf(EntryAt(i, k)) THEN k ELSE LastConfDown(i, k - 1)
ConfStage(i) ==
    LET k == LastConfDown(i, LastIndex(i)) IN
    IF k > commitIndex[i] THEN "proposed" ELSE IF k > configIndex[i] THEN "committed" ELSE "applied"

\* Reconfiguration alone: servers by symmetry, each by its role, liveness,
\* place in its configuration, how far the configuration changes have
\* got at it, and whether its configuration is joint.
ConfView ==
    LET st == [i \in Servers |-> [role |-> role[i], live |-> i \in live, place |-> Place(i), conf |-> ConfStage(i),
                                  joint |-> Joint(config[i])]]
    IN BagOf(st, Servers)

\* What leaders believe of their followers alone: servers by symmetry,
\* each by its role, liveness, whether its term is behind the highest, and
\* a leader by its beliefs (Belief).
ProgressView ==
    LET maxTerm == SetMax({currentTerm[j] : j \in Servers})
        st == [i \in Servers |-> [role |-> role[i], live |-> i \in live, staleTerm |-> currentTerm[i] < maxTerm,
                                  beliefs |-> Beliefs(i)]]
    IN BagOf(st, Servers)

\* The campaigns' default (raft.cfg): servers by symmetry, each by how it
\* stands towards the others (its role, liveness, whether its term, its
\* last entry's term and its commit index are behind the highest, how many
\* of its entries are not committed, up to 2), its place in the
\* configuration it has applied, how far the last configuration change has
\* got at it, whether that configuration is joint, and, for a leader, what
\* it believes of its followers (Beliefs). No term, index or value is kept:
\* the view is bounded whatever the execution's length, so that guidance by
\* rare states goes to arrangements (a stale leader, a follower being
\* removed, a leader that will send again entries a follower has), not to
\* ever higher terms and indexes.
\* (Behind the highest is written as below some server's: the same, without
\* building the set of the values and choosing its maximum; each server's
\* last term is computed once.)
ClusterView ==
    LET lt == [j \in Servers |-> LastTerm(j)]
        st == [i \in Servers |->
                 [role |-> role[i], live |-> i \in live,
                  staleTerm |-> \E j \in Servers : currentTerm[i] < currentTerm[j],
                  staleLog |-> \E j \in Servers : lt[i] < lt[j],
                  staleCommit |-> \E j \in Servers : commitIndex[i] < commitIndex[j],
                  pending |-> Min(LastIndex(i) - commitIndex[i], 2),
                  place |-> Place(i), conf |-> ConfStage(i), joint |-> Joint(config[i]), beliefs |-> Beliefs(i)]]
    IN BagOf(st, Servers)
=============================================================================
