// Package etcdraft is the system under test of modelfuzz's main use: a
// cluster of go.etcd.io/raft/v3 RawNodes in one process, each an application
// of the library as its README prescribes, driven only by the schedule. It
// must not depend on a model or a mapper.
//
// # The cluster
//
// Config.Nodes RawNodes with IDs 1..N form the bootstrap configuration;
// Config.Spares more processes (IDs N+1..) start with empty storage,
// outside it, and join when a conf-change step adds them and a leader sends
// them a snapshot. Process p is node p+1. Every bootstrap node starts from
// the same snapshot (index 1, term 1, voters 1..N). Each node owns a
// durable store (a raft.MemoryStorage that survives crashes) and a small
// key-value state machine. On each Ready the node persists the snapshot,
// entries and HardState, then sends the messages (appending them to the
// receivers' inboxes; a message to a crashed node is lost), then applies
// the committed entries (configuration changes through ApplyConfChange),
// then calls Advance. A node with AsyncStorageWrites (Config.AsyncStorageWrites
// "on", or "mixed": at odd node IDs) instead does what the Ready's local
// messages ask: a MsgStorageAppend at once (its writes, then its
// responses), a MsgStorageApply when the node next takes a step (its
// apply "thread" lags: the node may know of commits it has not applied).
// After SnapshotEvery applied entries the node snapshots its state machine
// with its current configuration and compacts its log, so leaders send
// MsgSnap to lagging peers. Messages cross a wire: the sender's message
// is encoded (protobuf) when sent and every receipt decodes it anew, so no
// two nodes share memory. The transport tells a sender when a message goes
// to a crashed node (RawNode.ReportUnreachable) and whether a MsgSnap arrived
// (ReportSnapshot), as etcd's does. MaxInflightMsgs, MaxSizePerMsg and
// MaxUncommittedEntriesSize are the library's flow control; the defaults
// (2, 1 byte: one entry per append, 64 bytes) keep it under pressure.
//
// Time: every step ticks each live node once, and tick(n) n more times.
// A leader ticks fully (a heartbeat every HeartbeatTick ticks; CheckQuorum
// every ElectionTick ticks; a leader transfer is abandoned after one). Other
// nodes only count ticks (RawNode.TickQuiesced): their leases expire, but
// their election timer, randomized by the library from a process-wide
// crypto source that no schedule controls, never fires by itself, so
// elections start only at timeout steps and executions stay deterministic.
//
// # Steps
//
// Every step first ticks each live node (in node order), then runs its
// action, then processes Ready on every live node until none has one (in
// node order), so the cluster is quiescent between steps.
//
//   - deliver(t): the node takes up to t deliverable messages from its
//     inbox, in arrival order, each by RawNode.Step followed by Ready
//     processing. Messages held by a partition are skipped.
//   - deliver-one(k): the k-th deliverable message (counted modulo their
//     number), out of arrival order.
//   - drop(k), duplicate(k): the k-th pending message is lost, or a copy
//     goes to the end of the inbox (it is received twice). Forwarded
//     proposals (MsgProp) are never duplicated: deduplicating client
//     commands is the application's job, and etcd's transport does not
//     resend them.
//   - partition(set), heal: messages between the set and the others stay
//     in their inboxes, not deliverable, until heal (drop can still lose
//     them). The step's process is not used.
//   - crash: the RawNode, its inbox and everything not durable are lost.
//     crash(point) arms the crash instead: the node crashes the next time
//     its Ready handling reaches the point: after-persist (the Ready's
//     writes are durable, its messages not sent: they are recorded as
//     "unsent" events), after-send (sent, nothing applied, no Advance),
//     mid-apply (after the first committed entry of the Ready is applied).
//   - restart: a new RawNode is built from the durable store; the state
//     machine and configuration are restored from the snapshot and the
//     committed entries after it are applied again. A restarted node is a
//     follower (no role event).
//   - timeout: RawNode.Campaign, then Ready processing.
//   - tick(n): n ticks of the node's clock (see Time).
//   - request(v): the node proposes "v=<v>"; a follower forwards it to its
//     leader (a MsgProp message); with no leader the proposal is dropped.
//   - read: a client read of key "v" through RawNode.ReadIndex; the node
//     answers once its ReadState arrives and it has applied up to the read
//     index. Config.ReadOnly chooses the protocol per node (the library
//     fixes it in raft.Config.ReadOnlyOption): safe (ReadIndex: a
//     heartbeat round), lease (answered from the CheckQuorum lease; the
//     library documents it as unsafe under unbounded clock drift, which
//     tick(n) can create), or mixed (lease at odd node IDs).
//   - transfer-leader(to): RawNode.TransferLeader to node to+1.
//   - conf-change(changes): RawNode.ProposeConfChange of a ConfChangeV2:
//     one change is a simple change, several enter a joint configuration
//     (explicit transition), "leave" leaves it. When the change is
//     applied, the application checks it against its configuration with
//     the library's confchange.Changer and applies an empty change instead
//     of one the library would panic on (removing every voter, a simple
//     change in a joint configuration...), as etcd's server does.
//   - hold-writes(n): the node's storage holds its writes until a persist
//     step at it or the end of the n-th step after this one (then, after
//     the step's action, they become durable). A Ready's entries,
//     HardState and snapshot wait, in order, not durable, with the
//     messages decided on them (votes and answers to appends, which the
//     library keeps back until the write: msgsAfterAppend); a crash loses
//     them. With AsyncStorageWrites the node goes on and its append thread
//     holds each MsgStorageAppend with its responses. With the synchronous
//     loop the node reports the Ready's role change and read states and
//     sends its other messages (as the library does before the write with
//     AsyncStorageWrites), then does nothing until the write is durable
//     (no message, tick or client operation: those steps are skipped);
//     then the Ready is finished as usual. A snapshot of the state
//     machine waits until the durable commit index covers it.
//   - persist: the held writes become durable, oldest first, and what
//     waited for them goes on (the messages are sent, a synchronous
//     Ready applied and advanced).
//
// Invalid steps (an action at a crashed node, restart of a live node, a
// message step with no message to pick) are skipped with an EvSkip event.
//
// # Events
//
// The kinds, types and arg keys are the Raft event vocabulary declared in
// package schedule (schedule/raft.go: schedule.EvRole, schedule.ArgTerm,
// ...), which the mappers read. Node is the process (ID-1), Peer the other
// process or -1. Args are in the order listed.
//
//   - send / recv (schedule.EvSend, schedule.EvRecv): Type is the raftpb message
//     type name ("MsgApp", "MsgVote", ...), Msg links a recv to its send.
//     Args: term, logterm, index, commit, reject (0/1), rejecthint, entries
//     (string "term:data,term:data", data empty for an empty entry, e.g.
//     "1:v=3,2:"); MsgVote and MsgPreVote add vote (the candidate's
//     process, which is also the sender); MsgSnap adds snapindex, snapterm
//     and config (the snapshot's configuration);
//     MsgHeartbeat and MsgHeartbeatResp add read=1 when they carry a
//     context (a leader's heartbeat round that confirms reads, and its
//     answers); MsgHeartbeat then adds committerm, the term of the entry
//     at its commit index in the sender's log (when the sender holds it).
//   - crash (schedule.EvCrash), Type "crash", no args.
//   - restart (schedule.EvRestart), Type "restart". Args: term, vote (process of
//     the vote, -1 for none), commit, snapindex, lastindex: the durable state
//     the node restarts from.
//   - timeout (schedule.EvTimeout), Type "timeout". Args: term (before the
//     campaign).
//   - request (schedule.EvRequest), Type "request". Args: value.
//   - dropped, Type "proposal": the proposal of a request was dropped (no
//     known leader). Args: value.
//   - role, Type "leader", "follower", "candidate" or "precandidate": the
//     node's role changed. Args: term.
//   - commit, Type "commit": the node's commit index advanced. Args: index.
//   - apply, Type "apply": the node applied an entry to its state machine.
//     Args: index, term, data (empty for an empty entry).
//   - snapshot, Type "snapshot": the node snapshotted its state machine and
//     compacted its log. Args: index, term.
//   - install, Type "install": the node installed a snapshot received in a
//     MsgSnap. Args: index, term.
//   - skip (schedule.EvSkip): Type says why the step could not run.
//   - drop: Type is the message type, Msg the id of its send, Peer its
//     sender. duplicate (schedule.EvDuplicate): the same, but Msg is the
//     id of the copy, a message of its own whose recv adds copy=1. Args:
//     of, the id of the message copied.
//   - readindex, Type "read": a read state in the node's Ready (its read
//     confirmed, by itself as leader or by a leader's MsgReadIndexResp),
//     answered or not. Args: op (the read's operation), index.
//   - unsent: a message of a Ready that a crash at after-persist kept from
//     leaving; the fields of a send, no Msg id.
//   - partition (Args: set) and heal: Node -1.
//   - arm, Type "crash". Args: point.
//   - crash with a point: Args: point.
//   - tick. Args: n. transfer: Peer is the target.
//   - read, Type "read". Args: op (the operation's number), kind (index
//     or lease). response, Type "read": the answer. Args: op, index, value.
//   - propose-conf, Type "conf". Args: changes. conf-refused, Type "conf":
//     the application refused the change. Args: why. conf, Type "conf": a
//     configuration change was applied. Args: index, config ("voters=1,2,3
//     outgoing=1,2 learners=4").
//   - apply of a configuration change: data "conf:" and the changes
//     (raftpb.ConfChangesToString), after "joint " when they enter a joint
//     configuration and "auto " when the library leaves it by itself;
//     "conf:leave" for leaving.
//   - append, Type "append": the node, a leader, appended entries to its
//     log (those of its Ready), whatever asked for them: its empty entry,
//     requests, forwarded proposals, configuration changes (an empty entry
//     in place of one it refused), the library's own leave of a joint
//     configuration. Args: index (of the first), entries.
//   - progress, Type "probe", "replicate" or "snapshot" (the flow-control
//     state): what the node, a leader, believes of Peer changed, reported
//     after the node's Ready handling. Args: match, next.
//   - hold, Type "writes": a hold-writes step. Args: steps. held, Type
//     "write": a Ready's writes are held. Args: write (their number, from
//     1). It is followed by a waiting event per message that waits for
//     them (the fields of a send, no Msg id). persist, Type "write": a
//     held write became durable (Args: write); the messages that waited
//     are sent after it. lost, Type "write": a crash lost a held write
//     (Args: write), before the crash event.
//
// # Oracles
//
// Failures of Kind "safety" (schedule.FailureSafety), each reported once
// per execution at the step where it is first seen:
//
//   - "safety: two leaders in one term": at most one leader per term, over
//     the whole execution;
//   - "safety: different entries applied at one index": no two nodes apply
//     different entries (term or data) at the same index;
//   - "safety: committed entries differ": no two nodes commit different
//     entries at the same index;
//   - "safety: committed entry lost": a node that becomes leader of term T
//     holds every entry committed so far by a leader of a term below T (a
//     committed request is never lost);
//   - "safety: a non-voter became leader": a leader is a voter of its own
//     configuration (Status);
//   - "safety: configurations differ at one index": every node that
//     applies the configuration change at an index ends in the same
//     configuration;
//   - "safety: commit index beyond a quorum": when a leader's commit index
//     advances, each majority of its (joint) configuration holds it, by the
//     Match of its progress tracker (Status), counted here independently of
//     the library's quorum package: a removed node or a learner is never
//     counted;
//   - "safety: progress tracked for a non-member", "library invariant:
//     match below next", "library invariant: next within the leader's
//     log", "library invariant: in-flight window" and "library invariant:
//     progress state": after every message a leader takes and at the end
//     of every step, its progress tracker holds exactly its
//     configuration's members, each with Match < Next <= last index + 1,
//     at most MaxInflightMsgs appends in flight, each above Match and below
//     Next, none in StateProbe or StateSnapshot, and a pending snapshot in
//     StateSnapshot only (checkProgress);
//   - "safety: stale read index": a safe read (ReadIndex, --read-only
//     safe) is answered at an index at least as high as every commit
//     index any node reported before the read began (Raft's ReadIndex
//     guarantee, Ongaro's thesis 6.4). It sees a stale read as soon as the
//     index is stale, where the client history needs a put to complete
//     first; lease reads are left to the history (the fuzzer's ticks do
//     not keep the bounded clock drift leases rely on).
//
// Failures of Kind "linearizability" (schedule.FailureLinearizability,
// from package linearize): the client history of puts (request steps;
// answered when the proposing node applies the entry, pending when it
// crashed or the proposal was lost) and reads (read steps; unanswered
// reads are left out) is checked with porcupine at the end of every
// execution that answered a read.
//
// A panic of the library is caught by schedule.Guard and ends the
// execution; one in raft.Node's goroutine is caught there (see The Node
// API).
//
// # Seeded bugs (Config.Inject)
//
//   - forget-hardstate: a restart loses the term and the vote.
//   - send-before-persist: messages leave before the entries, HardState and
//     snapshots of the same Ready are durable; they become durable only when
//     the node processes its next Ready, so a crash in between loses them
//     while peers already acted on them.
//   - apply-uncommitted: entries are applied when appended, not when
//     committed.
//   - drop-snapshot-on-restart: a restart ignores the snapshot; the log after
//     it cannot be attached without it, so the node restarts from the
//     bootstrap state with only its term and vote.
//   - unchecked-conf: committed configuration changes are applied without
//     being tried on the configuration first; the library panics on one it
//     cannot take (removing every voter), in raft.Node's goroutine at the
//     nodes that run through it.
//
// Two seeded bugs are correct unless a node crashes inside the handling of
// a Ready (a crash step with a point), so their reproducers need one:
//
//   - send-then-persist (synchronous Ready loop): a Ready's messages leave
//     before its state is durable; a crash at after-send (which, with this
//     bug, comes before the writes) forgets what peers already counted.
//   - applied-index-first (synchronous Ready loop): the application keeps
//     a durable state machine with its applied index, and makes the index
//     of a Ready's last committed entry durable with the Ready's writes,
//     before applying the entries; after a restart it skips entries up to
//     that index (as etcd's applier skips entries below its consistent
//     index). A crash at after-persist, after-send or mid-apply loses
//     writes; the state-machine oracle sees it.
//
// # The Node API
//
// With Config.API "node" or "mixed", nodes run through raft.Node (built as
// StartNode and RestartNode build it: the library's own loop in a
// goroutine, as etcd's server drives it) instead of a RawNode driven
// directly. goNode keeps them
// deterministic: one channel operation at a time, each followed by a
// message the node's loop discards, so that Go's select never has two
// ready cases to choose from at random (see goNode). The loop runs on a
// goroutine of the adapter's, under a recover: a panic there ends the
// execution with a failure, not the process.
//
// Without Inject the adapter is correct: no schedule reports a failure.
// There is no clock or map iteration in the execution path (the progress
// tracker's map is read in sorted order), and the goroutines of raft.Node
// only ever have one thing to do: the same input always yields the same
// trace.
package etcdraft
