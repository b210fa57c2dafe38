package etcdraft

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
	"go.etcd.io/raft/v3/tracker"
	"google.golang.org/protobuf/proto"

	"github.com/modelfuzz/modelfuzz/linearize"
	"github.com/modelfuzz/modelfuzz/schedule"
)

const bootstrapIndex = 1 // index and term of the bootstrap snapshot

// envelope is a message in flight, with the id of its send event.
type envelope struct {
	id   int
	from int // the sender's process
	m    *pb.Message
	wire []byte // m's protobuf encoding: what the receiver decodes
	// commitTerm is, for a MsgHeartbeat, the term of the entry at its
	// commit index in the sender's log (-1 unknown).
	commitTerm int64
	copy       bool // a duplicate's copy
	// received counts the receipts of the message and of its copies
	// (nil: never duplicated).
	received *int
}

// node is one application of the library.
type node struct {
	id   uint64
	rn   raftNode // nil while crashed
	disk *raft.MemoryStorage
	// live is the storage the RawNode reads; it is disk except with
	// send-before-persist, where disk lags behind by the pending writes.
	live    *raft.MemoryStorage
	pending []func(*raft.MemoryStorage)

	inbox []envelope
	role  raft.StateType
	term  uint64
	// commit is the last commit index reported by an event.
	commit uint64
	// lastIndex is the index of the last entry of the node's log as the
	// library last handed it over (its storage, then the entries and
	// snapshots of each Ready).
	lastIndex uint64
	// trk is the library's progress tracker of the node, which the
	// progress oracle reads (nil while crashed).
	trk *tracker.ProgressTracker
	// applied is the index of the last entry applied to kv; snapIndex the
	// index of the last snapshot the node created or installed.
	applied, raftApplied, snapIndex uint64
	kv                              []kvPair // sorted by key
	conf                            *pb.ConfState
	// crashAt is an armed crash point ("" for none).
	crashAt string
	// puts and reads are the client operations waiting for an answer from
	// this node (indexes into System.hist); a crash detaches them.
	puts  []int
	reads []pendingRead
	// applyQueue holds the MsgStorageApply messages of the asynchronous
	// Ready loop that the node has not applied yet.
	applyQueue []*pb.Message
	// holdUntil is the step at whose end the node's storage stops holding
	// its writes (a hold-writes step; 0: it holds none), held the writes
	// it holds, oldest first, and holdID the id of its persist event while
	// it holds (Pending).
	holdUntil, holdID int
	held              []heldWrite
	// ready is the Ready the node's application is handling (nil
	// between Readys), whose writes logTerm counts before they are made.
	ready *raft.Ready
	// smKV and smIndex are the durable state machine and its applied index
	// of --inject applied-index-first (the other configurations keep the
	// state machine in memory, rebuilt from the snapshot and the log).
	smKV    []kvPair
	smIndex uint64
	// smSkip: entries up to it are in the state machine (its applied index
	// when the node started).
	smSkip uint64
	// progress is, by process, what the node last reported as leader of
	// each follower's progress (reportProgress).
	progress []seenProgress
	// reapply is, after a restart, the commit index the node had: its
	// restart is traced for the spec once it has applied up to it again
	// (specTrace.hold).
	reapply uint64
}

// heldWrite is a write the node's storage holds (hold-writes): a Ready of
// the synchronous loop, whose entries, HardState and snapshot are not
// durable and whose messages that must wait for them (votes and append
// answers) are not sent, and which the node cannot advance past; or a
// MsgStorageAppend of the asynchronous loop, with the responses it
// delivers once done.
type heldWrite struct {
	id int
	rd *raft.Ready
	m  *pb.Message
}

// heldReady reports whether n holds a Ready of the synchronous loop: it
// takes no Ready and no message until the write is durable.
func (n *node) heldReady() bool { return len(n.held) > 0 && n.held[0].rd != nil }

// pendingRead is a read waiting for its read index, then for the node to
// apply up to it.
type pendingRead struct {
	op    int
	index uint64
	known bool // index is known (the ReadState arrived)
	// floor is the highest index any node had committed when the read
	// began: a ReadIndex answer must not be below it (checkReadIndex).
	floor uint64
}

// System is one etcdraft cluster.
type System struct {
	cfg  Config
	spec *schedule.SystemSpec

	// Execution state, reset by Execute.
	nodes     []*node
	cut       schedule.ProcSet // the side of the partition, 0 for none
	nextMsg   int
	step      int
	steps     int  // steps run by Step
	ended     bool // a panic ended the execution
	trace     schedule.Trace
	args      []schedule.Arg
	buf       []byte
	ex        *schedule.Execution
	leaders   []int    // by term: process of the leader, -1 for none
	appliedAt []string // by index: "term:data" of the first entry applied there
	stateAt   []string // by index: the state machine of the first node that applied it
	confAt    map[uint64]string
	committed []uint64 // by index: term of the committed entry, 0 unknown
	// committedIn is, by index, the term of the node that first committed
	// the entry: the committing leader's term.
	committedIn []uint64
	// maxCommit is the highest commit index any node has reported.
	maxCommit uint64
	reported  []string // signatures already reported in this execution
	hist      linearize.History
	reads     int // reads answered
	// tlaTrace records the library's trace events (Config.SpecTrace).
	tlaTrace *specTrace
	// ids and flight are checkProgress's buffers.
	ids, flight []uint64
	// writes and holds number the held writes and holds of the execution.
	writes, holds int
}

// Spec implements schedule.System.
func (s *System) Spec() *schedule.SystemSpec { return s.spec }

// Execute implements schedule.System: Begin, Step for every step, End.
func (s *System) Execute(in *schedule.Input) (*schedule.Execution, error) {
	if err := in.Validate(s.spec); err != nil {
		return nil, err
	}
	return schedule.RunSteps(s, in), nil
}

// Begin implements schedule.Stepper.
func (s *System) Begin() {
	s.ex = &schedule.Execution{}
	s.step, s.steps, s.ended = 0, 0, false
	s.guard(s.reset)
}

// guard runs f; a panic ends the execution with a failure.
func (s *System) guard(f func()) {
	if fl := schedule.Guard(&s.step, f); fl != nil {
		s.ex.Failures = append(s.ex.Failures, *fl)
		s.ended = true
	}
}

// Step implements schedule.Stepper.
func (s *System) Step(st schedule.Step) bool {
	if s.ended {
		return false
	}
	s.step = s.steps
	s.steps++
	s.guard(func() { s.run(st) })
	return !s.ended
}

// Trace implements schedule.Stepper.
func (s *System) Trace() schedule.Trace { return s.trace }

// End implements schedule.Stepper.
func (s *System) End() *schedule.Execution {
	defer s.stopNodes()
	ex := s.ex
	if !s.ended {
		s.checkHistory(s.steps)
	}
	ex.Trace = s.trace
	if s.tlaTrace != nil {
		ex.Spec = s.tlaTrace.take()
	}
	s.ex = nil
	return ex
}

// Pending implements schedule.Stepper: every deliverable message of every
// live node, in inbox order, each delivered by a deliver-one step, dropped
// by a drop step and duplicated by a duplicate step (dropOrDuplicate's
// positions: drop counts every message of the inbox, held ones included,
// duplicate those but forwarded proposals, which it never copies); and
// the persist step of every node whose storage holds its writes (a node
// that holds a Ready of the synchronous loop takes no message till then).
func (s *System) Pending(dst []schedule.Enabled) []schedule.Enabled {
	for p, n := range s.nodes {
		if n.rn == nil {
			continue
		}
		if n.holdUntil > 0 {
			dst = append(dst, schedule.Enabled{ID: n.holdID, Kind: schedule.KindPersist, Process: p, From: -1,
				Type: schedule.KindPersist, Step: schedule.Step{Process: p, Action: schedule.Persist}})
		}
		if n.heldReady() {
			continue // it takes no message until its write is durable
		}
		k, dups := 0, 0
		for i, e := range n.inbox {
			prop := e.m.GetType() == pb.MsgProp
			if !prop {
				dups++
			}
			if s.held(e.from, p) {
				continue
			}
			k++
			ev := schedule.Enabled{ID: e.id, Kind: schedule.KindRecv, Process: p, From: e.from,
				Type: msgTypeName(e.m.GetType()), K: k, Step: schedule.Step{Process: p, Action: schedule.DeliverOne, K: k},
				DropStep: schedule.Step{Process: p, Action: schedule.Drop, K: i + 1}}
			if !prop {
				ev.DupStep = schedule.Step{Process: p, Action: schedule.Duplicate, K: dups}
			}
			dst = append(dst, ev)
		}
	}
	return dst
}

func (s *System) reset() {
	if s.tlaTrace != nil {
		s.tlaTrace.take() // what a failed execution left
	}
	s.nextMsg = 0
	s.cut = 0
	s.trace = s.trace[:0]
	s.args = s.args[:0]
	s.leaders = s.leaders[:0]
	s.appliedAt = s.appliedAt[:0]
	s.stateAt = s.stateAt[:0]
	s.confAt = map[uint64]string{}
	s.committed = s.committed[:0]
	s.committedIn = s.committedIn[:0]
	s.maxCommit = 0
	s.writes, s.holds = 0, 0
	s.reported = s.reported[:0]
	s.hist = s.hist[:0]
	s.reads = 0
	if s.nodes == nil {
		s.nodes = make([]*node, s.spec.Processes)
		for p := range s.nodes {
			s.nodes[p] = &node{id: uint64(p + 1)}
		}
	}
	voters := make([]uint64, s.cfg.Nodes)
	for i := range voters {
		voters[i] = uint64(i + 1)
	}
	for p, n := range s.nodes {
		*n = node{id: n.id, inbox: n.inbox[:0], kv: n.kv[:0], pending: n.pending[:0], puts: n.puts[:0], reads: n.reads[:0], applyQueue: n.applyQueue[:0], smKV: n.smKV[:0], held: n.held[:0], progress: n.progress}
		clear(n.progress)
		n.disk = raft.NewMemoryStorage()
		var peers []raft.Peer
		switch {
		case p >= s.cfg.Nodes:
			// Spares start with empty storage: they join when a leader
			// that added them sends a snapshot.
		case s.cfg.Bootstrap == BootstrapLog:
			for _, id := range voters {
				peers = append(peers, raft.Peer{ID: id})
			}
		default:
			snap := &pb.Snapshot{Metadata: &pb.SnapshotMetadata{
				ConfState: &pb.ConfState{Voters: voters}, Index: new(uint64(bootstrapIndex)), Term: new(uint64(bootstrapIndex)),
			}}
			if err := n.disk.ApplySnapshot(snap); err != nil {
				panic(err)
			}
		}
		n.live = n.disk
		if s.cfg.Inject == InjectSendBeforePersist {
			n.live = cloneStorage(n.disk)
		}
		s.start(n, peers)
	}
	if s.cfg.Bootstrap == BootstrapLog {
		// The application handles the bootstrap's first Ready (the
		// configuration entries, committed) before the schedule's first
		// step: a node with unapplied configuration changes cannot
		// campaign.
		for _, n := range s.nodes {
			s.drain(n)
		}
	}
}

// stopNodes ends the goroutines of the nodes that run through raft.Node.
func (s *System) stopNodes() {
	for _, n := range s.nodes {
		s.stop(n)
	}
}

func (s *System) stop(n *node) {
	if g, ok := n.rn.(*goNode); ok {
		g.stop()
	}
	n.rn, n.trk = nil, nil
}

// start builds the node from its live storage; peers, when given, are the
// configuration the library bootstraps an empty storage with.
func (s *System) start(n *node, peers []raft.Peer) {
	hs, cs, _ := n.live.InitialState()
	snap, _ := n.live.Snapshot()
	n.applied = snap.GetMetadata().GetIndex()
	n.term, n.commit = hs.GetTerm(), max(hs.GetCommit(), n.applied)
	n.raftApplied, n.snapIndex = n.applied, n.applied
	n.kv = decodeKV(n.kv[:0], snap.GetData())
	n.smSkip = 0
	if s.cfg.Inject == InjectAppliedIndexFirst && n.smIndex > 0 && n.smIndex >= n.applied {
		// The durable state machine holds every entry up to its applied
		// index; the library delivers the log after the snapshot again,
		// and apply skips what the state machine says it has (as etcd's
		// applier skips entries below its consistent index).
		n.kv = append(n.kv[:0], n.smKV...)
		n.smSkip = n.smIndex
	}
	n.lastIndex, _ = n.live.LastIndex()
	n.conf = cs
	n.role = raft.StateFollower
	n.crashAt = ""
	cfg := &raft.Config{
		ID:                        n.id,
		ElectionTick:              s.cfg.electionTick(),
		HeartbeatTick:             s.cfg.heartbeatTick(),
		Storage:                   n.live,
		Applied:                   n.applied,
		MaxSizePerMsg:             s.cfg.maxSize(),
		MaxInflightMsgs:           s.cfg.maxInflight(),
		CheckQuorum:               s.cfg.CheckQuorum,
		PreVote:                   s.cfg.PreVote,
		AsyncStorageWrites:        s.cfg.async(n.id),
		MaxUncommittedEntriesSize: s.cfg.MaxUncommittedSize,
		StepDownOnRemoval:         s.cfg.StepDownOnRemoval,
		ReadOnlyOption:            s.cfg.readOnly(n.id),
		Logger:                    quietLogger{},
	}
	if s.cfg.SpecTrace {
		if s.tlaTrace == nil {
			s.tlaTrace = &specTrace{step: &s.step}
		}
		cfg.TraceLogger = s.tlaTrace.logger()
	}
	if s.cfg.goAPI(n.id) {
		g, err := startGoNode(cfg, peers, &s.step)
		if err != nil {
			panic(err)
		}
		n.rn, n.trk = g, progressTracker(g.rn)
		return
	}
	rn, err := raft.NewRawNode(cfg)
	if err != nil {
		panic(fmt.Sprintf("node %d: %v", n.id, err))
	}
	if len(peers) > 0 {
		if err := rn.Bootstrap(peers); err != nil {
			panic(fmt.Sprintf("node %d: %v", n.id, err))
		}
	}
	n.rn, n.trk = rn, progressTracker(rn)
}

// tick advances every live node's clock by one tick. Leaders tick fully
// (heartbeats, CheckQuorum, leader transfer timeouts); the others only
// count: their election timer is randomized from a process-wide source the
// schedule cannot control, so elections start only at timeout steps.
func (s *System) tick(n *node) {
	if n.role == raft.StateLeader {
		n.rn.Tick()
		if n.rn.BasicStatus().RaftState != raft.StateLeader {
			// CheckQuorum stepped it down: the role change shows before
			// whatever the step does next.
			s.drain(n)
		}
	} else {
		n.rn.TickQuiesced()
	}
}

func (s *System) run(st schedule.Step) {
	for _, n := range s.nodes {
		if n.rn != nil && !n.heldReady() {
			s.tick(n)
		}
	}
	p := st.Process
	n := s.nodes[p]
	if len(n.applyQueue) > 0 && !st.Action.Global() {
		// The node's apply "thread" catches up before its step (it may
		// crash at mid-apply).
		s.applyQueued(n)
		s.drain(n)
	}
	if !st.Action.Global() {
		s.restartDone(n, true)
	}
	switch {
	case n.rn == nil && st.Action != schedule.Restart && !st.Action.Global():
		s.skip(p, string(st.Action)+" at a crashed node")
	case n.heldReady() && !heldAction(st.Action):
		s.skip(p, string(st.Action)+" at a node that holds a Ready")
	default:
		s.act(n, st)
	}
	for _, n := range s.nodes {
		if n.rn != nil && n.holdUntil > 0 && n.holdUntil <= s.step {
			// The hold has lasted its steps: the writes become durable.
			s.release(n)
		}
	}
	for _, n := range s.nodes {
		s.drain(n)
	}
	for _, n := range s.nodes {
		s.checkProgress(n)
	}
}

// heldAction reports whether a can run at a node that holds a Ready of
// the synchronous loop: the application's one thread is writing, so the
// node takes no message, tick or client operation until the write is
// durable; it can crash, the network can lose or copy what waits in its
// inbox, and its storage can hold on or finish.
func heldAction(a schedule.Action) bool {
	switch a {
	case schedule.Crash, schedule.Drop, schedule.Duplicate, schedule.Partition, schedule.Heal,
		schedule.HoldWrites, schedule.Persist:
		return true
	}
	return false
}

// act runs the step's action at n (live, except for restart and the
// global actions).
func (s *System) act(n *node, st schedule.Step) {
	p := st.Process
	switch st.Action {
	case schedule.Deliver, schedule.DeliverOne:
		if st.Action == schedule.DeliverOne {
			if i := s.deliverable(p, st.K); i >= 0 {
				s.receive(n, i)
			} else {
				s.skip(p, "no deliverable message")
			}
			break
		}
		for k := 0; k < st.Messages && n.rn != nil && !n.heldReady(); k++ {
			i := s.deliverable(p, 1)
			if i < 0 {
				break
			}
			s.receive(n, i)
		}
	case schedule.Drop, schedule.Duplicate:
		s.dropOrDuplicate(n, st)
	case schedule.Partition:
		s.cut = st.Set
		s.event(schedule.EvPartition, -1, -1, schedule.EvPartition, schedule.S(schedule.ArgSet, st.Set.String()))
	case schedule.Heal:
		s.cut = 0
		s.event(schedule.EvHeal, -1, -1, schedule.EvHeal)
	case schedule.Crash:
		if st.Point == "" {
			s.crash(n, "")
			break
		}
		n.crashAt = st.Point
		s.event(schedule.EvArm, p, -1, schedule.EvCrash, schedule.S(schedule.ArgPoint, st.Point))
	case schedule.Restart:
		if n.rn != nil {
			s.skip(p, "restart of a live node")
			break
		}
		s.restart(n)
	case schedule.Timeout:
		s.event(schedule.EvTimeout, p, -1, schedule.EvTimeout, schedule.I(schedule.ArgTerm, int64(n.term)))
		_ = n.rn.Campaign()
	case schedule.Tick:
		s.event(schedule.EvTick, p, -1, schedule.EvTick, schedule.I(schedule.ArgTicks, int64(st.N)))
		for k := 0; k < st.N && n.rn != nil; k++ {
			s.tick(n)
			s.drain(n)
		}
	case schedule.Request:
		s.request(n, st.Value)
	case schedule.Read:
		s.read(n)
	case schedule.TransferLeader:
		s.event(schedule.EvTransfer, p, st.To, schedule.EvTransfer)
		n.rn.TransferLeader(uint64(st.To + 1))
	case schedule.ConfChange:
		s.proposeConf(n, st.Conf)
	case schedule.HoldWrites:
		s.event(schedule.EvHold, p, -1, "writes", schedule.I(schedule.ArgSteps, int64(st.N)))
		if n.holdUntil == 0 {
			s.holds++
			n.holdID = 1<<30 + s.holds
		}
		n.holdUntil = s.step + st.N
	case schedule.Persist:
		if n.holdUntil == 0 && len(n.held) == 0 {
			s.skip(p, "no writes held")
			break
		}
		s.release(n)
	}
	if st.Action != schedule.Restart {
		// A restarted node's Ready waits for the end of the step, where
		// every node is drained in order (as in the first release).
		s.drain(n)
	}
}

func (s *System) crash(n *node, point string) {
	p := int(n.id) - 1
	s.loseHeld(n)
	if point == "" {
		s.event(schedule.EvCrash, p, -1, schedule.EvCrash)
	} else {
		s.event(schedule.EvCrash, p, -1, schedule.EvCrash, schedule.S(schedule.ArgPoint, point))
	}
	s.stop(n)
	if s.tlaTrace != nil {
		s.tlaTrace.release(n.id) // a restart not complete: the next one is traced
	}
	for _, e := range n.inbox {
		if e.m.GetType() == pb.MsgSnap {
			s.reportSnapshot(e, raft.SnapshotFailure)
		}
	}
	n.inbox = n.inbox[:0]
	n.pending = n.pending[:0]
	n.crashAt = ""
	// The clients of the node's unanswered operations lose their
	// connection: puts stay pending (they may still take effect), reads
	// are forgotten.
	n.puts = n.puts[:0]
	n.reads = n.reads[:0]
	n.applyQueue = n.applyQueue[:0]
}

// crashesAt reports whether n has a crash armed at point, and crashes it.
func (s *System) crashesAt(n *node, point string) bool {
	if n.crashAt != point {
		return false
	}
	s.crash(n, point)
	return true
}

func (s *System) restart(n *node) {
	p := int(n.id) - 1
	switch s.cfg.Inject {
	case InjectForgetHardState:
		hs, _, _ := n.disk.InitialState()
		_ = n.disk.SetHardState(&pb.HardState{Commit: new(hs.GetCommit())})
	case InjectDropSnapshotOnRestart:
		// The node comes back with the storage of a fresh cluster (the
		// bootstrap snapshot, or the bootstrap configuration entries), and
		// the HardState's term and vote.
		boot := uint64(bootstrapIndex)
		if s.cfg.Bootstrap == BootstrapLog {
			boot = 0
		}
		if snap, _ := n.disk.Snapshot(); snap.GetMetadata().GetIndex() > boot {
			hs, _, _ := n.disk.InitialState()
			voters := make([]uint64, s.cfg.Nodes)
			for i := range voters {
				voters[i] = uint64(i + 1)
			}
			fresh := raft.NewMemoryStorage()
			commit := uint64(bootstrapIndex)
			if s.cfg.Bootstrap == BootstrapLog {
				commit = uint64(len(voters))
				ents := make([]*pb.Entry, len(voters))
				for i, id := range voters {
					data, _ := proto.Marshal(&pb.ConfChange{Type: pb.ConfChangeType_ConfChangeAddNode.Enum(), NodeId: new(id)})
					ents[i] = &pb.Entry{Type: pb.EntryType_EntryConfChange.Enum(), Term: new(uint64(1)), Index: new(uint64(i + 1)), Data: data}
				}
				_ = fresh.Append(ents)
			} else {
				_ = fresh.ApplySnapshot(&pb.Snapshot{Metadata: &pb.SnapshotMetadata{
					ConfState: &pb.ConfState{Voters: voters}, Index: new(uint64(bootstrapIndex)), Term: new(uint64(bootstrapIndex)),
				}})
			}
			_ = fresh.SetHardState(&pb.HardState{Term: new(hs.GetTerm()), Vote: new(hs.GetVote()), Commit: new(commit)})
			n.disk = fresh
		}
	}
	n.live = n.disk
	if s.cfg.Inject == InjectSendBeforePersist {
		n.live = cloneStorage(n.disk)
	}
	hs, _, _ := n.disk.InitialState()
	snap, _ := n.disk.Snapshot()
	last, _ := n.disk.LastIndex()
	s.event(schedule.EvRestart, p, -1, schedule.EvRestart,
		schedule.I(schedule.ArgTerm, int64(hs.GetTerm())), schedule.I(schedule.ArgVote, int64(hs.GetVote())-1),
		schedule.I(schedule.ArgCommit, int64(max(hs.GetCommit(), snap.GetMetadata().GetIndex()))), schedule.I(schedule.ArgSnapIndex, int64(snap.GetMetadata().GetIndex())),
		schedule.I(schedule.ArgLastIndex, int64(last)))
	if s.tlaTrace != nil {
		s.tlaTrace.hold(n.id)
		n.reapply = max(hs.GetCommit(), snap.GetMetadata().GetIndex())
	}
	s.start(n, nil)
	s.restartDone(n, false)
}

// restartDone traces a restarted node's InitState for the spec once the
// application has applied again what the node had committed before it
// crashed, or at once when force is set (the node takes a step of its own:
// nothing it does after is left out).
func (s *System) restartDone(n *node, force bool) {
	t := s.tlaTrace
	if t == nil || n.rn == nil || !t.holds(n.id) || !force && n.applied < n.reapply {
		return
	}
	last, _ := n.live.LastIndex()
	t.restarted(n.rn, n.id, last)
}

// request proposes the client's put of value at n.
func (s *System) request(n *node, value int) {
	p := int(n.id) - 1
	s.event(schedule.EvRequest, p, -1, schedule.EvRequest, schedule.I(schedule.ArgValue, int64(value)))
	op := linearize.Op{Process: p, Value: value, Step: s.step, Put: true, Key: "v", Arg: strconv.Itoa(value), Call: int64(len(s.trace))}
	data := []byte("v=" + strconv.Itoa(value))
	if err := n.rn.Propose(data); errors.Is(err, raft.ErrProposalDropped) {
		// The client is told: the put did not happen.
		s.event(schedule.EvDropped, p, -1, schedule.TypeProposal, schedule.I(schedule.ArgValue, int64(value)))
		return
	}
	n.puts = append(n.puts, len(s.hist))
	s.hist = append(s.hist, op)
}

// read starts a client read at n: a ReadIndex request whose context is the
// operation's number.
func (s *System) read(n *node) {
	p := int(n.id) - 1
	kind := schedule.ReadByIndex
	if s.cfg.readOnly(n.id) == raft.ReadOnlyLeaseBased {
		kind = schedule.ReadByLease
	}
	i := len(s.hist)
	s.event(schedule.EvRead, p, -1, schedule.EvRead, schedule.I(schedule.ArgOp, int64(i)), schedule.S(schedule.ArgReadKind, kind))
	s.hist = append(s.hist, linearize.Op{Process: p, Step: s.step, Key: "v", Call: int64(len(s.trace))})
	n.reads = append(n.reads, pendingRead{op: i, floor: s.maxCommit})
	n.rn.ReadIndex(binary.BigEndian.AppendUint64(nil, uint64(i)))
}

// readStates records the read indexes of a Ready and answers the reads
// the node has applied far enough for.
func (s *System) readStates(n *node, rss []raft.ReadState) {
	for _, rs := range rss {
		if len(rs.RequestCtx) != 8 {
			continue
		}
		op := int(binary.BigEndian.Uint64(rs.RequestCtx))
		// Every read state shows, answered or not (the read may have been
		// forgotten in a crash): the model counts the reads a leader
		// confirms.
		s.event(schedule.EvReadIndex, int(n.id)-1, -1, schedule.EvRead, schedule.I(schedule.ArgOp, int64(op)), schedule.I(schedule.ArgIndex, int64(rs.Index)))
		for k := range n.reads {
			if r := &n.reads[k]; r.op == op && !r.known {
				r.index, r.known = rs.Index, true
				s.checkReadIndex(n, r)
			}
		}
	}
	s.answerReads(n)
}

// answerReads answers the reads whose read index n has applied.
func (s *System) answerReads(n *node) {
	kept := n.reads[:0]
	for _, r := range n.reads {
		if !r.known || n.applied < r.index {
			kept = append(kept, r)
			continue
		}
		out := kvGet(n.kv, "v")
		o := &s.hist[r.op]
		o.Out, o.Return, o.RetStep = out, int64(len(s.trace)), s.step
		s.reads++
		s.event(schedule.EvResponse, int(n.id)-1, -1, schedule.EvRead, schedule.I(schedule.ArgOp, int64(r.op)),
			schedule.I(schedule.ArgIndex, int64(r.index)), schedule.S(schedule.ArgValue, out))
	}
	n.reads = kept
}

// answerPut completes n's earliest unanswered put of data "v=<arg>".
func (s *System) answerPut(n *node, data string) {
	arg, ok := cutPrefix(data, "v=")
	if !ok {
		return
	}
	for k, i := range n.puts {
		if s.hist[i].Arg == arg {
			s.hist[i].Return, s.hist[i].RetStep = int64(len(s.trace)), s.step
			n.puts = append(n.puts[:k], n.puts[k+1:]...)
			return
		}
	}
}

// drain processes Ready on n until it has none (or holds one).
func (s *System) drain(n *node) {
	for n.rn != nil && !n.heldReady() && n.rn.HasReady() {
		s.handleReady(n)
	}
	s.reportProgress(n)
	s.restartDone(n, false)
}

func (s *System) skip(p int, why string) {
	s.ex.Skipped++
	s.event(schedule.EvSkip, p, -1, why)
}

// msgEvent records the send or recv of m with its fields as args.
func (s *System) msgEvent(kind string, node, peer, id int, m *pb.Message, extra ...schedule.Arg) {
	start := len(s.args)
	reject := int64(0)
	if m.GetReject() {
		reject = 1
	}
	s.buf = s.buf[:0]
	for i, e := range m.GetEntries() {
		if i > 0 {
			s.buf = append(s.buf, ',')
		}
		s.buf = strconv.AppendUint(s.buf, e.GetTerm(), 10)
		s.buf = append(s.buf, ':')
		s.buf = appendEntryData(s.buf, e)
	}
	s.args = append(s.args,
		schedule.I(schedule.ArgTerm, int64(m.GetTerm())), schedule.I(schedule.ArgLogTerm, int64(m.GetLogTerm())),
		schedule.I(schedule.ArgIndex, int64(m.GetIndex())), schedule.I(schedule.ArgCommit, int64(m.GetCommit())),
		schedule.I(schedule.ArgReject, reject), schedule.I(schedule.ArgRejectHint, int64(m.GetRejectHint())),
		schedule.S(schedule.ArgEntries, string(s.buf)))
	typ := m.GetType()
	switch typ {
	case pb.MsgVote, pb.MsgPreVote:
		s.args = append(s.args, schedule.I(schedule.ArgVote, int64(m.GetFrom())-1))
	case pb.MsgSnap:
		md := m.GetSnapshot().GetMetadata()
		s.args = append(s.args, schedule.I(schedule.ArgSnapIndex, int64(md.GetIndex())), schedule.I(schedule.ArgSnapTerm, int64(md.GetTerm())),
			schedule.S(schedule.ArgConfig, confText(md.GetConfState())))
	case pb.MsgHeartbeat, pb.MsgHeartbeatResp:
		if len(m.GetContext()) > 0 {
			s.args = append(s.args, schedule.I(schedule.ArgRead, 1))
		}
	}
	s.args = append(s.args, extra...)
	s.record(kind, node, peer, id, msgTypeName(typ), start)
}

func (s *System) event(kind string, node, peer int, typ string, args ...schedule.Arg) {
	start := len(s.args)
	s.args = append(s.args, args...)
	s.record(kind, node, peer, 0, typ, start)
}

// record appends an event whose args are s.args[start:]. When s.args grows,
// earlier events keep pointing into the old array, which stays valid.
func (s *System) record(kind string, node, peer, msg int, typ string, start int) {
	var args []schedule.Arg
	if len(s.args) > start {
		args = s.args[start:len(s.args):len(s.args)]
	}
	s.trace = append(s.trace, schedule.Event{Step: s.step, Kind: kind, Node: node, Peer: peer, Msg: msg, Type: typ, Args: args})
}
