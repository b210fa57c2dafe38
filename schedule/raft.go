package schedule

// The Raft event vocabulary: the kinds, types and args of the events a
// Raft adapter reports and a Raft mapper reads, declared once.
// adapters/etcdraft reports them from go.etcd.io/raft/v3 in process;
// adapters/process records them from what a replica (such as raftkv)
// reports over the interception API (docs/process-api.md); mapper/
// maps them onto models/raft.tla. The strings are the wire form: traces,
// their JSON and golden files spell them so.
//
// Node is the process where an event happened and Peer the other process,
// or -1. The generic kinds (EvSend, EvRecv, EvCrash, EvRestart, EvTimeout,
// EvRequest, EvResponse, EvSkip, EvDuplicate, EvDrop, EvExit) are declared
// in event.go; a Raft adapter gives them the args declared here.

// Raft event kinds.
const (
	// EvRole: Node's role changed. Type is the new role (RoleFollower,
	// RolePreCandidate, RoleCandidate, RoleLeader). Args: ArgTerm.
	EvRole = "role"
	// EvCommit: Node's commit index advanced. Type "commit". Args:
	// ArgIndex, the new commit index.
	EvCommit = "commit"
	// EvApply: Node applied an entry to its state machine. Type "apply".
	// Args: ArgIndex, ArgTerm, ArgData.
	EvApply = "apply"
	// EvSnapshot: Node snapshotted its state machine and compacted its
	// log. Type "snapshot". Args: ArgIndex, ArgTerm (of the last entry the
	// snapshot holds).
	EvSnapshot = "snapshot"
	// EvInstall: Node installed a snapshot it received in a MsgSnap. Type
	// "install". Args: ArgIndex, ArgTerm.
	EvInstall = "install"
	// EvDropped: Node dropped a proposal (no leader known, or a leader
	// transfer under way). Type TypeProposal for a client request (Args:
	// ArgValue; none when the proposal was a forwarded MsgProp, Peer its
	// sender), EvConf for a configuration change (Args: ArgChanges).
	EvDropped = "dropped"
	// EvUnsent: a message of a Ready that a crash kept from leaving (at
	// the after-persist point, or while the write it waited for was held):
	// the fields of an EvSend, with no Msg id (no one receives it).
	EvUnsent = "unsent"
	// EvRead: a client read began at Node. Type "read". Args: ArgOp (the
	// read's operation number), ArgReadKind. (The process adapter records a
	// client's get this way, with args of its own.)
	EvRead = "read"
	// EvReadIndex: a read state in Node's Ready (a read confirmed, by Node
	// as leader or by a leader's MsgReadIndexResp), answered or not. Type
	// "read". Args: ArgOp, ArgIndex.
	EvReadIndex = "readindex"
	// EvPartition: the processes of a set were cut from the others. Node
	// and Peer -1, Type "partition". Args: ArgSet.
	EvPartition = "partition"
	// EvHeal: the partition ended. Node and Peer -1, Type "heal".
	EvHeal = "heal"
	// EvArm: Node will crash at a point inside its handling of a Ready. Type
	// "crash". Args: ArgPoint.
	EvArm = "arm"
	// EvTick: Node's clock advanced. Type "tick". Args: ArgTicks.
	EvTick = "tick"
	// EvTransfer: Node was asked to hand its leadership to Peer. Type
	// "transfer".
	EvTransfer = "transfer"
	// EvProposeConf: Node was asked to change the configuration. Type
	// "conf". Args: ArgChanges.
	EvProposeConf = "propose-conf"
	// EvConf: Node applied a configuration change. Type "conf". Args:
	// ArgIndex, ArgConfig.
	EvConf = "conf"
	// EvConfRefused: Node's application refused a configuration change it
	// could not take (and applied an empty one instead). Type "conf". Args:
	// ArgWhy.
	EvConfRefused = "conf-refused"
	// EvAppend: Node, a leader, appended entries to its log: the empty
	// entry of its term, client requests, proposals forwarded to it,
	// configuration changes, the automatic leave of a joint configuration,
	// and the empty entry that takes the place of a configuration change
	// it refused. Type "append". Args: ArgIndex (of the first entry),
	// ArgEntries.
	EvAppend = "append"
	// EvProgress: what Node, a leader, believes of Peer, a member of its
	// configuration, changed (its progress tracker's entry for Peer). Type
	// is the flow-control state (ProgressProbe, ProgressReplicate,
	// ProgressSnapshot). Args: ArgMatch, ArgNext.
	EvProgress = "progress"
	// EvHold: Node's storage holds its writes from now on. Type "writes".
	// Args: ArgSteps, the steps the hold lasts at most.
	EvHold = "hold"
	// EvHeld: the writes of one of Node's Readys (its entries, HardState
	// and snapshot) are held, not durable; the messages that wait for them
	// (votes and answers to appends) follow as EvWaiting. Type "write".
	// Args: ArgWrite, the write's number.
	EvHeld = "held"
	// EvWaiting: a message Node decided that waits for a held write: the
	// fields of an EvSend, with no Msg id; it is sent (an EvSend of its
	// own) when the write becomes durable, and never if a crash loses it.
	EvWaiting = "waiting"
	// EvPersist: a held write became durable; the messages that waited
	// for it are sent. Type "write". Args: ArgWrite.
	EvPersist = "persist"
	// EvLost: a held write was lost in a crash of Node before it became
	// durable, with the messages that waited for it. Type "write". Args:
	// ArgWrite.
	EvLost = "lost"
)

// The flow-control states of a leader's progress of a follower, the Type
// of an EvProgress event: probing for the follower's last matching entry,
// replicating optimistically, or waiting for a snapshot to be applied.
const (
	ProgressProbe     = "probe"
	ProgressReplicate = "replicate"
	ProgressSnapshot  = "snapshot"
)

// The values of ArgReadKind.
const (
	ReadByIndex = "index" // ReadIndex: the leader confirms its leadership with a heartbeat round
	ReadByLease = "lease" // the leader serves it in its lease, without a round
)

// TypeProposal is the Type of the EvDropped event of a client request's
// proposal. A process reports such a drop as an event of this type, which
// the process adapter records as EvDropped.
const TypeProposal = "proposal"

// The roles, the Type of an EvRole event.
const (
	RoleFollower     = "follower"
	RolePreCandidate = "precandidate"
	RoleCandidate    = "candidate"
	RoleLeader       = "leader"
)

// The Raft message types a mapper reads: the Type of EvSend, EvRecv,
// EvUnsent, EvDrop and EvDuplicate events is the name of the message's
// raftpb.MessageType, and these are the names of those it tells apart.
const (
	MsgProp          = "MsgProp"
	MsgApp           = "MsgApp"
	MsgAppResp       = "MsgAppResp"
	MsgVote          = "MsgVote"
	MsgVoteResp      = "MsgVoteResp"
	MsgPreVote       = "MsgPreVote"
	MsgPreVoteResp   = "MsgPreVoteResp"
	MsgSnap          = "MsgSnap"
	MsgHeartbeat     = "MsgHeartbeat"
	MsgHeartbeatResp = "MsgHeartbeatResp"
	MsgReadIndex     = "MsgReadIndex"
	MsgReadIndexResp = "MsgReadIndexResp"
)

// Raft event args, by key.
const (
	// ArgTerm: a message's term; the term of a role, a timeout (before the
	// campaign), a restart (durable), an applied, snapshotted or installed
	// entry.
	ArgTerm = "term"
	// ArgLogTerm: a message's log term (raftpb.Message.LogTerm).
	ArgLogTerm = "logterm"
	// ArgIndex: a message's index; the commit index of EvCommit; the index
	// of an applied entry, a snapshot, a configuration change or a read
	// state.
	ArgIndex = "index"
	// ArgCommit: a message's commit index; the durable commit index of a
	// restart.
	ArgCommit = "commit"
	// ArgReject: a message's reject flag, 0 or 1.
	ArgReject = "reject"
	// ArgRejectHint: a message's reject hint.
	ArgRejectHint = "rejecthint"
	// ArgEntries: a message's entries (an EvAppend's), "term:data" each,
	// comma-separated, data empty for an empty entry (e.g. "1:v=3,2:").
	ArgEntries = "entries"
	// ArgVote: the candidate of MsgVote and MsgPreVote (its process, which
	// is also the sender); the durable vote of a restart (a process, -1 for
	// none).
	ArgVote = "vote"
	// ArgSnapIndex, ArgSnapTerm: the snapshot's index and term of a
	// MsgSnap; ArgSnapIndex also the durable snapshot's index of a restart.
	ArgSnapIndex = "snapindex"
	ArgSnapTerm  = "snapterm"
	// ArgRead: 1 on MsgHeartbeat and MsgHeartbeatResp that carry a context:
	// a leader's heartbeat round that confirms reads, and its answers.
	ArgRead = "read"
	// ArgCommitTerm: on MsgHeartbeat, the term of the entry at its commit
	// index in the sender's log, when the sender holds it (the message does
	// not carry it; the adapter adds it).
	ArgCommitTerm = "committerm"
	// ArgLastIndex: the last index of the durable log of a restart.
	ArgLastIndex = "lastindex"
	// ArgValue: the value of a client request (EvRequest, a dropped
	// proposal's EvDropped); the value a read returned (EvResponse).
	ArgValue = "value"
	// ArgData: an applied entry's data: empty for an empty entry, "k=v" for
	// a client's put, "conf:" and the changes for a configuration change
	// ("conf:v4" a simple change; "conf:joint v4 r2" entering a joint
	// configuration, "conf:auto v4 r2" one left by itself; "conf:leave").
	ArgData = "data"
	// ArgOp: a client read's operation number (EvRead, EvReadIndex,
	// EvResponse).
	ArgOp = "op"
	// ArgReadKind: how a read is served, ReadByIndex or ReadByLease.
	ArgReadKind = "kind"
	// ArgPoint: the point inside the handling of a Ready where a crash
	// happens (EvArm, EvCrash).
	ArgPoint = "point"
	// ArgSet: the processes a partition cuts from the others.
	ArgSet = "set"
	// ArgTicks: how many ticks an EvTick advances the clock by.
	ArgTicks = "n"
	// ArgChanges: the changes of a configuration change proposed or
	// dropped.
	ArgChanges = "changes"
	// ArgConfig: the configuration after a change ("voters=1,2,3
	// outgoing=1,2 learners=4"), or a MsgSnap's snapshot's.
	ArgConfig = "config"
	// ArgMatch, ArgNext: a leader's Match (the highest index it knows the
	// follower holds) and Next (the next index it will send) of a follower
	// (EvProgress).
	ArgMatch = "match"
	ArgNext  = "next"
	// ArgWhy: why a configuration change was refused.
	ArgWhy = "why"
	// ArgSteps: how many steps an EvHold lasts at most.
	ArgSteps = "steps"
	// ArgWrite: the number of a held write (EvHeld, EvPersist, EvLost),
	// from 1 in each execution.
	ArgWrite = "write"
	// ArgRole: the role a process reports in the params of a role event
	// over the interception API; the process adapter makes it the event's
	// Type, not an arg.
	ArgRole = "role"
)

// raftMessageArgs is the order of a message's args in EvSend and EvRecv
// events, as adapters/etcdraft writes them.
var raftMessageArgs = []string{ArgTerm, ArgLogTerm, ArgIndex, ArgCommit, ArgReject, ArgRejectHint, ArgEntries, ArgVote, ArgSnapIndex, ArgSnapTerm}

// raftEventArgs is the order of the args of the events a Raft process
// reports, by the type it reports them as, as adapters/etcdraft writes
// them.
var raftEventArgs = map[string][]string{
	EvRole:       {ArgTerm},
	EvCommit:     {ArgIndex},
	EvApply:      {ArgIndex, ArgTerm, ArgData},
	EvSnapshot:   {ArgIndex, ArgTerm},
	EvInstall:    {ArgIndex, ArgTerm},
	EvRestart:    {ArgTerm, ArgVote, ArgCommit, ArgSnapIndex, ArgLastIndex},
	EvTimeout:    {ArgTerm},
	EvRequest:    {ArgValue},
	TypeProposal: {ArgValue},
}

// RaftMessageArgs returns the keys of a Raft message's args in EvSend and
// EvRecv events, in the order adapters/etcdraft writes them (others follow
// it). The slice is shared: callers must not modify it.
func RaftMessageArgs() []string { return raftMessageArgs }

// RaftEventArgs returns the keys of the args of the event a Raft process
// reports as type typ (over the interception API: EvRole, EvCommit,
// EvApply, EvSnapshot, EvInstall, EvRestart, EvTimeout, EvRequest and
// TypeProposal), in the order adapters/etcdraft writes them; ok is false
// for a type outside the vocabulary. The slice is shared: callers must not
// modify it.
func RaftEventArgs(typ string) (keys []string, ok bool) {
	keys, ok = raftEventArgs[typ]
	return keys, ok
}
