package schedule

// The RedisRaft event vocabulary: what adapters/redisraft records of a
// RedisRaft cluster and mapper/redisraft.go reads, declared once. Its
// messages are the RAFT.* commands the nodes send each other and the
// replies to them, as the adapter's proxy reads them off the wire
// (adapters/redisraft/wire.go has the formats); node states are what
// INFO raft reports. Processes are numbered from 0; RedisRaft's node ids
// are process numbers plus one, and the args that name a node hold its
// process number.

// The message types of RedisRaft (the Type of send, recv, drop and
// duplicate events): the command's name, and for the answer to a command
// its name and RRReplySuffix.
const (
	RRAppendEntries = "RAFT.AE"
	RRRequestVote   = "RAFT.REQUESTVOTE"
	RRSnapshot      = "RAFT.SNAPSHOT"
	RRTimeoutNow    = "RAFT.TIMEOUT_NOW"
	RRNodeShutdown  = "RAFT.NODESHUTDOWN"
	RRReplySuffix   = " reply"
)

// RREvState is the kind of the event that records a node's state as
// INFO raft reports it, when it changed (after every message a node
// handles and every step at it, and once for every node before the first
// step). Type is its role (RRFollower, RRPreCandidate, RRCandidate,
// RRLeader); args ArgTerm, ArgVote and RRArgLeader (processes, -1 for
// none), ArgIndex (its last log index), ArgCommit, RRArgApplied,
// ArgSnapIndex, ArgSnapTerm, RRArgVoters.
const RREvState = "state"

// RREvJoin is the kind (and Type) of the event that records the
// fuzzer's RAFT.CLUSTER JOIN sent to a node (Node; Peer the node whose
// address it names), when executions form their cluster.
const RREvJoin = "join"

// The roles INFO raft reports.
const (
	RRFollower     = "follower"
	RRPreCandidate = "pre-candidate"
	RRCandidate    = "candidate"
	RRLeader       = "leader"
)

// RedisRaft's args, beside the Raft vocabulary's ArgTerm, ArgLogTerm,
// ArgIndex, ArgCommit, ArgEntries, ArgVote, ArgSnapIndex, ArgSnapTerm:
//
//	RAFT.AE: term, logterm (prev_log_term), index (prev_log_idx), commit,
//	  leader, msgid, entries ("term:value" each, comma-separated);
//	  reply: term, success, index (current_idx), msgid
//	RAFT.REQUESTVOTE: term, logterm, index (the candidate's last entry),
//	  vote (the candidate), prevote; reply: term, granted, rterm, prevote
//	RAFT.SNAPSHOT: term, leader, msgid, snapindex, snapterm, offset,
//	  last, size; reply: term, success, snapindex, msgid, offset, last
//	RAFT.NODESHUTDOWN: node
//
// A reply that is an error has RRArgError alone.
const (
	RRArgLeader  = "leader"
	RRArgMsgID   = "msgid"
	RRArgPrevote = "prevote"
	RRArgSuccess = "success"
	RRArgGranted = "granted"
	RRArgReqTerm = "rterm"
	RRArgOffset  = "offset"
	RRArgLast    = "last"
	RRArgSize    = "size"
	RRArgError   = "error"
	RRArgReply   = "reply" // a reply of another shape: its text
	RRArgNode    = "node"
	RRArgArgs    = "args" // another command: its arguments
	RRArgApplied = "applied"
	RRArgVoters  = "voters"
	// RRArgCmd is, on a client request, the commands as the log entry
	// they make holds them: the entry's value in the entries arg.
	RRArgCmd = "cmd"
)
