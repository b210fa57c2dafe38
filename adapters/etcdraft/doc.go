// Package etcdraft is the system under test of modelfuzz's main use: a
// cluster of go.etcd.io/raft/v3 RawNodes in one process, each an application
// of the library as its README prescribes, driven only by the schedule. It
// must not depend on a model or a mapper.
//
// # The cluster
//
// Config.Nodes RawNodes with IDs 1..N; process p is node p+1. Every node
// starts from the same bootstrap snapshot (index 1, term 1, voters 1..N).
// Each node owns a durable store (a raft.MemoryStorage that survives
// crashes) and a small key-value state machine. On each Ready the node
// persists the snapshot, entries and HardState, then sends the messages
// (appending them to the receivers' inboxes, FIFO by arrival; a message to a
// crashed node is lost), then applies the committed entries, then calls
// Advance. After SnapshotEvery applied entries the node snapshots its state
// machine and compacts its log, so leaders send MsgSnap to lagging peers.
//
// ElectionTick is 1<<30, so timers never fire by themselves: elections
// happen only at timeout steps (the library draws randomized election
// timeouts from a process-wide random source, which would break
// determinism). HeartbeatTick is 1: a leader sends heartbeats on every tick.
//
// # Steps
//
// Every step first ticks each live node (in node order), then runs its
// action, then processes Ready on every live node until none has one (in
// node order), so the cluster is quiescent between steps.
//
//   - deliver(t): the node takes up to t messages from its inbox, each by
//     RawNode.Step followed by Ready processing.
//   - crash: the RawNode, its inbox and everything not durable are lost.
//   - restart: a new RawNode is built from the durable store; the state
//     machine is restored from the snapshot and committed entries after it
//     are applied again. A restarted node is a follower (no role event).
//   - timeout: RawNode.Campaign, then Ready processing.
//   - request(v): the node proposes "v=<v>"; a follower forwards it to its
//     leader (a MsgProp message); with no leader the proposal is dropped.
//
// Invalid steps (deliver, timeout, request or crash at a crashed node,
// restart of a live node) are skipped with an EvSkip event.
//
// # Events
//
// Node is the process (ID-1), Peer the other process or -1. Args are in the
// order listed.
//
//   - send / recv (schedule.EvSend, schedule.EvRecv): Type is the raftpb message
//     type name ("MsgApp", "MsgVote", ...), Msg links a recv to its send.
//     Args: term, logterm, index, commit, reject (0/1), rejecthint, entries
//     (string "term:data,term:data", data empty for an empty entry, e.g.
//     "1:v=3,2:"); MsgVote and MsgPreVote add vote (the candidate's
//     process, which is also the sender); MsgSnap adds snapindex, snapterm.
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
//
// # Oracles
//
// Failures of Kind "safety", each reported once per execution at the step
// where it is first seen:
//
//   - "safety: two leaders in one term": at most one leader per term, over
//     the whole execution;
//   - "safety: different entries applied at one index": no two nodes apply
//     different entries (term or data) at the same index;
//   - "safety: committed entries differ": no two nodes commit different
//     entries at the same index;
//   - "safety: committed entry lost": a node that becomes leader of term T
//     holds every entry committed so far by a leader of a term below T (a
//     committed request is never lost).
//
// A panic of the library is caught by schedule.Guard and ends the execution.
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
//
// Without Inject the adapter is correct: no schedule reports a failure.
// There is no clock, goroutine or map iteration in the execution path: the
// same input always yields the same trace.
package etcdraft
