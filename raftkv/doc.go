// Package raftkv is a small key-value server on go.etcd.io/raft/v3, the
// system under test of the process adapter: a replica that persists to disk
// and runs either standalone (peers post messages to each other, a real
// clock ticks) or under the fuzzer, where every peer message goes through
// the interception API of docs/process-api.md and elections happen only when
// the fuzzer fires a timeout. cmd/raftkv is its command line. It must not
// depend on the fuzzer's packages: the API is its only contract.
//
// # The node
//
// Replica i is raft node i; the fuzzer's process p is replica p+1. Every
// replica starts from the same bootstrap snapshot (index 1, term 1, voters
// 1..N, an empty state machine), as in adapters/etcdraft, so no
// configuration change is ever proposed. One mutex guards the RawNode; every
// input (a delivered message, a timeout, a tick, a client request) is
// followed by Ready processing until the node is quiet, each Ready as the
// library's README prescribes: persist its snapshot, entries and HardState
// (fsynced), then send its messages, then apply its committed entries, then
// Advance. Every SnapshotEvery applied entries the node snapshots its state
// machine and compacts its log, so leaders send MsgSnap to lagging peers.
//
// Under the fuzzer ElectionTick is 1<<30 and nothing ticks: an election
// starts only at POST /timeout (RawNode.Campaign). Standalone, a clock ticks
// every Config.Tick with ElectionTick 10 and HeartbeatTick 1.
//
// # Client API
//
// PUT /kv/<key> (body: the value) proposes the command {"id","k","v"} (id
// unique per replica start) and answers 200 {"ok":true} once the entry is
// applied here. A proposal dropped for want of a leader (a follower that
// knows none, a candidate) waits and is proposed again when the replica
// learns of a leader. GET /kv/<key> asks for a read index
// (RawNode.ReadIndex) and answers 200 {"value":...,"found":...} once the
// read index is applied here; reads still without a read index are asked
// again when a leader becomes known (and standalone, every 10 ticks, as
// their messages may be lost). Requests wait without the node's lock; they
// end when the client goes away. GET /status shows the node's role, term,
// leader, commit and applied index.
//
// # Events
//
// Under the fuzzer every event is posted to /event as {replica, type,
// params, timestamp} (unix nanoseconds), synchronously and in the order
// adapters/etcdraft records them within a Ready: install, role, commit, the
// messages, apply, snapshot. Terms, indexes and values are JSON numbers;
// "vote" is a 0-based process (node-1, -1 for none). Params:
//
//   - role: role ("follower", "candidate", "precandidate", "leader"), term.
//     Sent when the role changes; a restarted replica is a follower and
//     reports no role.
//   - commit: index, when the commit index advances (a restart starts from
//     max(HardState.Commit, snapshot index) and reports no commit).
//   - apply: index, term, data, per entry applied to the state machine,
//     again after a restart for the committed entries after the snapshot.
//     data is "v=<value>" for a command (the etcdraft adapter's form; the
//     key is left out, as the model has values only) and "" for an empty
//     entry; a command's apply adds key.
//   - snapshot: index, term, when the replica snapshots and compacts.
//   - install: index, term, when it installs a snapshot from a MsgSnap.
//   - restart: term, vote, commit, snapindex, lastindex: the durable state
//     a start from a non-empty data directory found (after the repairs
//     described under Storage).
//   - timeout: term (before the campaign), at POST /timeout.
//   - request: value, when a PUT arrives (value is an integer if the body
//     reads as one, a string otherwise) and, with "retry": 1, when a
//     dropped proposal is proposed again. GET reports no request event.
//   - proposal: value, the proposal was dropped (no known leader).
//
// Messages are posted to /message as {from, to, type, id, data, params}:
// from and to are node ids ("1"), type the raftpb name ("MsgApp"), id
// "<from>-<seq>" with seq counting from (boot-1)*1000000+1 for the boot-th
// start of the data directory (unique per sender across restarts), data the
// protobuf encoding (base64). params are the etcdraft adapter's send/recv
// args: term, logterm, index, commit, reject (0/1), rejecthint, entries
// ("term:data,..." with data rendered as for apply; the context of a
// MsgReadIndex shows as it is, "read.<id>.<boot>.<n>"); MsgVote and
// MsgPreVote add vote (the candidate's process: from-1); MsgSnap adds
// snapindex, snapterm. The fuzzer records recv events itself.
//
// Standalone, events go to the debug log and messages are posted to the
// peer's /message in the same envelope.
//
// # Storage
//
// The data directory holds:
//
//   - snapshot: the latest snapshot (raftpb.Snapshot, data = the state
//     machine as a JSON object);
//   - hardstate: the latest raftpb.HardState;
//   - log: a base record (a raftpb.Entry holding only the index and term of
//     the snapshot the log follows) then one raftpb.Entry per record;
//   - boots: the number of starts (for message ids).
//
// Every file is a sequence of records: 4 bytes length, 4 bytes CRC-32C
// (Castagnoli) of the payload, both little-endian, then the payload.
// snapshot, hardstate and boots hold one record and are replaced
// atomically (write a temporary file, fsync, rename, fsync the directory).
// New entries are appended to log and fsynced; entries that overwrite a
// suffix (a conflict raft resolved) and compactions rewrite log atomically.
// On open, a torn or corrupt tail of log is cut; a record that repeats an
// index replaces the suffix from there.
//
// A Ready is persisted snapshot first (as etcd does: the log is cut only
// after the snapshot that covers it is durable), then entries, then
// HardState (the README's order for them). The crash windows are repaired on
// open: a log whose base is not the snapshot keeps the entries after the
// snapshot if it holds the snapshot's own entry and drops them otherwise (the
// snapshot replaced the log, as MemoryStorage.ApplySnapshot does); the
// HardState's commit is clamped to [snapshot, last index]; a term below the
// last entry's is raised to it with no vote (the replica sent nothing in
// that term: messages wait for the HardState). A fresh directory gets the
// bootstrap snapshot; the snapshot file is written last and marks the
// directory as initialized. The RawNode reads a raft.MemoryStorage rebuilt
// from the files; the state machine is restored from the snapshot and the
// committed entries after it are applied again.
//
// # Seeded bugs (Config.Inject)
//
//   - send-before-persist: a Ready's disk writes happen when the next Ready
//     is processed (the RawNode's MemoryStorage has them at once), so its
//     messages leave before its entries and HardState are durable and a
//     crash in between loses them while peers already acted on them.
//   - stale-read: GET answers from the local state machine at once.
package raftkv
