package etcdraft

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// The seeded application bugs (Config.Inject).
const (
	InjectForgetHardState       = "forget-hardstate"
	InjectSendBeforePersist     = "send-before-persist"
	InjectApplyUncommitted      = "apply-uncommitted"
	InjectDropSnapshotOnRestart = "drop-snapshot-on-restart"
)

var injections = []string{InjectForgetHardState, InjectSendBeforePersist, InjectApplyUncommitted, InjectDropSnapshotOnRestart}

// Config configures the cluster.
type Config struct {
	Nodes         int    `json:"nodes"`
	SnapshotEvery int    `json:"snapshot_every"` // applied entries between snapshots
	PreVote       bool   `json:"prevote,omitempty"`
	CheckQuorum   bool   `json:"checkquorum,omitempty"`
	Inject        string `json:"inject,omitempty"`
}

// DefaultConfig is the configuration of the command line's defaults.
func DefaultConfig() Config { return Config{Nodes: 3, SnapshotEvery: 3} }

// Validate checks the configuration.
func (c Config) Validate() error {
	if c.Nodes < 1 {
		return fmt.Errorf("etcdraft: --nodes must be at least 1, got %d", c.Nodes)
	}
	if c.SnapshotEvery < 1 {
		return fmt.Errorf("etcdraft: --snapshot-every must be at least 1, got %d", c.SnapshotEvery)
	}
	if c.Inject != "" {
		for _, k := range injections {
			if c.Inject == k {
				return nil
			}
		}
		return fmt.Errorf("etcdraft: unknown --inject %q (known: %s)", c.Inject, strings.Join(injections, ", "))
	}
	return nil
}

// Factory makes etcdraft clusters.
type Factory struct {
	cfg  Config
	spec *schedule.SystemSpec
}

// NewFactory validates cfg and returns a factory.
func NewFactory(cfg Config) (*Factory, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	names := make([]string, cfg.Nodes)
	for p := range names {
		names[p] = "n" + strconv.Itoa(p+1)
	}
	return &Factory{cfg: cfg, spec: &schedule.SystemSpec{
		Name:         "etcdraft",
		Processes:    cfg.Nodes,
		Actions:      []schedule.Action{schedule.Deliver, schedule.Crash, schedule.Restart, schedule.Timeout, schedule.Request},
		ProcessNames: names,
	}}, nil
}

// FactoryFromConfig decodes a stored configuration.
func FactoryFromConfig(raw json.RawMessage) (*Factory, error) {
	var c Config
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("etcdraft: bad stored configuration: %v", err)
	}
	return NewFactory(c)
}

// Spec implements schedule.Factory.
func (f *Factory) Spec() *schedule.SystemSpec { return f.spec }

// Cfg returns the system's configuration.
func (f *Factory) Cfg() Config { return f.cfg }

// Config implements schedule.Factory.
func (f *Factory) Config() json.RawMessage {
	b, _ := json.Marshal(f.cfg)
	return b
}

// New implements schedule.Factory.
func (f *Factory) New() (schedule.System, error) {
	voters := make([]uint64, f.cfg.Nodes)
	for i := range voters {
		voters[i] = uint64(i + 1)
	}
	return &System{cfg: f.cfg, spec: f.spec, conf: &pb.ConfState{Voters: voters}}, nil
}

const bootstrapIndex = 1 // index and term of the bootstrap snapshot

// envelope is a message in flight, with the id of its send event.
type envelope struct {
	id int
	m  *pb.Message
}

// node is one application of the library.
type node struct {
	id   uint64
	rn   *raft.RawNode // nil while crashed
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
	// applied is the index of the last entry applied to kv; snapIndex the
	// index of the last snapshot the node created or installed.
	applied, raftApplied, snapIndex uint64
	kv                              []kvPair // sorted by key
}

type kvPair struct{ key, val string }

// System is one etcdraft cluster.
type System struct {
	cfg  Config
	spec *schedule.SystemSpec
	conf *pb.ConfState

	// Execution state, reset by Execute.
	nodes     []*node
	nextMsg   int
	step      int
	trace     schedule.Trace
	args      []schedule.Arg
	buf       []byte
	ex        *schedule.Execution
	leaders   []int    // by term: process of the leader, -1 for none
	appliedAt []string // by index: "term:data" of the first entry applied there
	committed []uint64 // by index: term of the committed entry, 0 unknown
	// committedIn is, by index, the term of the node that first committed
	// the entry: the committing leader's term.
	committedIn []uint64
	reported    []string // signatures already reported in this execution
}

// Spec implements schedule.System.
func (s *System) Spec() *schedule.SystemSpec { return s.spec }

// Execute implements schedule.System.
func (s *System) Execute(in *schedule.Input) (*schedule.Execution, error) {
	if err := in.Validate(s.spec); err != nil {
		return nil, err
	}
	ex := &schedule.Execution{}
	s.ex = ex
	s.step = 0
	if f := schedule.Guard(&s.step, func() {
		s.reset()
		for i, st := range in.Steps {
			s.step = i
			s.run(st)
		}
	}); f != nil {
		ex.Failures = append(ex.Failures, *f)
	}
	ex.Trace = s.trace
	s.ex = nil
	return ex, nil
}

func (s *System) reset() {
	s.nextMsg = 0
	s.trace = s.trace[:0]
	s.args = s.args[:0]
	s.leaders = s.leaders[:0]
	s.appliedAt = s.appliedAt[:0]
	s.committed = s.committed[:0]
	s.committedIn = s.committedIn[:0]
	s.reported = s.reported[:0]
	if s.nodes == nil {
		s.nodes = make([]*node, s.cfg.Nodes)
		for p := range s.nodes {
			s.nodes[p] = &node{id: uint64(p + 1)}
		}
	}
	for _, n := range s.nodes {
		*n = node{id: n.id, inbox: n.inbox[:0], kv: n.kv[:0], pending: n.pending[:0]}
		n.disk = raft.NewMemoryStorage()
		snap := &pb.Snapshot{Metadata: &pb.SnapshotMetadata{
			ConfState: s.conf, Index: new(uint64(bootstrapIndex)), Term: new(uint64(bootstrapIndex)),
		}}
		if err := n.disk.ApplySnapshot(snap); err != nil {
			panic(err)
		}
		n.live = n.disk
		if s.cfg.Inject == InjectSendBeforePersist {
			n.live = cloneStorage(n.disk)
		}
		s.start(n)
	}
}

// start builds the node's RawNode from its live storage.
func (s *System) start(n *node) {
	hs, _, _ := n.live.InitialState()
	snap, _ := n.live.Snapshot()
	n.applied = snap.GetMetadata().GetIndex()
	n.term, n.commit = hs.GetTerm(), max(hs.GetCommit(), n.applied)
	n.raftApplied, n.snapIndex = n.applied, n.applied
	n.kv = decodeKV(n.kv[:0], snap.GetData())
	n.role = raft.StateFollower
	rn, err := raft.NewRawNode(&raft.Config{
		ID:              n.id,
		ElectionTick:    1 << 30,
		HeartbeatTick:   1,
		Storage:         n.live,
		Applied:         n.applied,
		MaxSizePerMsg:   1 << 20,
		MaxInflightMsgs: 256,
		CheckQuorum:     s.cfg.CheckQuorum,
		PreVote:         s.cfg.PreVote,
		Logger:          quietLogger{},
	})
	if err != nil {
		panic(fmt.Sprintf("node %d: %v", n.id, err))
	}
	n.rn = rn
}

func (s *System) run(st schedule.Step) {
	for _, n := range s.nodes {
		if n.rn != nil {
			n.rn.Tick()
		}
	}
	p := st.Process
	n := s.nodes[p]
	switch st.Action {
	case schedule.Deliver:
		if n.rn == nil {
			s.skip(p, "deliver to a crashed node")
			break
		}
		for k := 0; k < st.Messages && len(n.inbox) > 0 && n.rn != nil; k++ {
			e := n.inbox[0]
			n.inbox = n.inbox[1:]
			s.msgEvent(schedule.EvRecv, p, int(e.m.GetFrom())-1, e.id, e.m)
			_ = n.rn.Step(e.m) // errors are for local or unknown-peer messages: ignored
			s.drain(n)
		}
	case schedule.Crash:
		if n.rn == nil {
			s.skip(p, "crash of a crashed node")
			break
		}
		s.event(schedule.EvCrash, p, -1, schedule.EvCrash)
		n.rn = nil
		n.inbox = n.inbox[:0]
		n.pending = n.pending[:0]
	case schedule.Restart:
		if n.rn != nil {
			s.skip(p, "restart of a live node")
			break
		}
		s.restart(n)
	case schedule.Timeout:
		if n.rn == nil {
			s.skip(p, "timeout at a crashed node")
			break
		}
		s.event(schedule.EvTimeout, p, -1, schedule.EvTimeout, schedule.I("term", int64(n.term)))
		_ = n.rn.Campaign()
		s.drain(n)
	case schedule.Request:
		if n.rn == nil {
			s.skip(p, "request at a crashed node")
			break
		}
		s.event(schedule.EvRequest, p, -1, "request", schedule.I("value", int64(st.Value)))
		data := []byte("v=" + strconv.Itoa(st.Value))
		if err := n.rn.Propose(data); errors.Is(err, raft.ErrProposalDropped) {
			s.event("dropped", p, -1, "proposal", schedule.I("value", int64(st.Value)))
		}
		s.drain(n)
	}
	for _, n := range s.nodes {
		s.drain(n)
	}
}

func (s *System) restart(n *node) {
	p := int(n.id) - 1
	switch s.cfg.Inject {
	case InjectForgetHardState:
		hs, _, _ := n.disk.InitialState()
		_ = n.disk.SetHardState(&pb.HardState{Commit: new(hs.GetCommit())})
	case InjectDropSnapshotOnRestart:
		if snap, _ := n.disk.Snapshot(); snap.GetMetadata().GetIndex() > bootstrapIndex {
			hs, _, _ := n.disk.InitialState()
			fresh := raft.NewMemoryStorage()
			_ = fresh.ApplySnapshot(&pb.Snapshot{Metadata: &pb.SnapshotMetadata{
				ConfState: s.conf, Index: new(uint64(bootstrapIndex)), Term: new(uint64(bootstrapIndex)),
			}})
			_ = fresh.SetHardState(&pb.HardState{Term: new(hs.GetTerm()), Vote: new(hs.GetVote()), Commit: new(uint64(bootstrapIndex))})
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
		schedule.I("term", int64(hs.GetTerm())), schedule.I("vote", int64(hs.GetVote())-1),
		schedule.I("commit", int64(max(hs.GetCommit(), snap.GetMetadata().GetIndex()))), schedule.I("snapindex", int64(snap.GetMetadata().GetIndex())),
		schedule.I("lastindex", int64(last)))
	s.start(n)
}

// drain processes Ready on n until it has none.
func (s *System) drain(n *node) {
	for n.rn != nil && n.rn.HasReady() {
		s.handleReady(n)
	}
}

// handleReady is the application's Ready loop body: persist, send, apply,
// Advance.
func (s *System) handleReady(n *node) {
	p := int(n.id) - 1
	rd := n.rn.Ready()
	bug := s.cfg.Inject
	if bug == InjectSendBeforePersist {
		s.flush(n) // the previous Ready's writes reach the disk now
	}

	// Persist.
	if !raft.IsEmptySnap(rd.Snapshot) {
		snap := rd.Snapshot
		s.write(n, func(st *raft.MemoryStorage) { _ = st.ApplySnapshot(snap) })
		md := snap.GetMetadata()
		n.kv = decodeKV(n.kv[:0], snap.GetData())
		n.applied, n.raftApplied, n.snapIndex = md.GetIndex(), md.GetIndex(), md.GetIndex()
		s.event("install", p, -1, "install", schedule.I("index", int64(md.GetIndex())), schedule.I("term", int64(md.GetTerm())))
	}
	if len(rd.Entries) > 0 {
		ents := rd.Entries
		s.write(n, func(st *raft.MemoryStorage) { _ = st.Append(ents) })
	}
	if !raft.IsEmptyHardState(rd.HardState) {
		hs := rd.HardState
		s.write(n, func(st *raft.MemoryStorage) { _ = st.SetHardState(hs) })
		n.term = hs.GetTerm()
	}
	if rd.SoftState != nil && rd.SoftState.RaftState != n.role {
		n.role = rd.SoftState.RaftState
		s.event("role", p, -1, roleName(n.role), schedule.I("term", int64(n.term)))
		if n.role == raft.StateLeader {
			s.checkLeader(n)
		}
	}
	if c := rd.HardState.GetCommit(); c > n.commit {
		s.recordCommit(n, n.commit, c)
		n.commit = c
		s.event("commit", p, -1, "commit", schedule.I("index", int64(c)))
	}

	// Send.
	for _, m := range rd.Messages {
		s.nextMsg++
		to := int(m.GetTo()) - 1
		s.msgEvent(schedule.EvSend, p, to, s.nextMsg, m)
		if to >= 0 && to < len(s.nodes) && s.nodes[to].rn != nil {
			s.nodes[to].inbox = append(s.nodes[to].inbox, envelope{id: s.nextMsg, m: m})
		}
	}

	// Apply.
	if bug == InjectApplyUncommitted {
		for _, e := range rd.Entries {
			if e.GetIndex() > n.applied {
				s.apply(n, e)
			}
		}
	}
	for _, e := range rd.CommittedEntries {
		if e.GetIndex() > n.applied {
			s.apply(n, e)
		}
		n.raftApplied = e.GetIndex()
	}
	n.rn.Advance(rd)

	if n.raftApplied >= n.snapIndex+uint64(s.cfg.SnapshotEvery) {
		i, data := n.raftApplied, encodeKV(n.kv)
		term, _ := n.live.Term(i)
		conf := s.conf
		s.write(n, func(st *raft.MemoryStorage) {
			if _, err := st.CreateSnapshot(i, conf, data); err == nil {
				_ = st.Compact(i)
			}
		})
		n.snapIndex = i
		s.event("snapshot", p, -1, "snapshot", schedule.I("index", int64(i)), schedule.I("term", int64(term)))
	}
}

// write makes a storage change: durable at once, or, with
// send-before-persist, visible to the RawNode at once and durable at the
// next flush.
func (s *System) write(n *node, f func(*raft.MemoryStorage)) {
	f(n.live)
	if n.live != n.disk {
		n.pending = append(n.pending, f)
	}
}

func (s *System) flush(n *node) {
	for _, f := range n.pending {
		f(n.disk)
	}
	n.pending = n.pending[:0]
}

func (s *System) apply(n *node, e *pb.Entry) {
	p := int(n.id) - 1
	n.applied = e.GetIndex()
	data := string(e.GetData())
	if e.GetType() == pb.EntryNormal && data != "" {
		k, v, _ := strings.Cut(data, "=")
		n.kv = kvSet(n.kv, k, v)
	}
	s.event("apply", p, -1, "apply", schedule.I("index", int64(e.GetIndex())), schedule.I("term", int64(e.GetTerm())), schedule.S("data", data))

	i := int(e.GetIndex())
	for len(s.appliedAt) <= i {
		s.appliedAt = append(s.appliedAt, "")
	}
	key := strconv.FormatUint(e.GetTerm(), 10) + ":" + data
	switch prev := s.appliedAt[i]; {
	case prev == "":
		s.appliedAt[i] = key
	case prev != key:
		s.fail("safety: different entries applied at one index",
			fmt.Sprintf("n%d applied %s at index %d, another node applied %s", n.id, key, i, prev))
	}
}

// recordCommit records the terms of the entries n committed in (from, to];
// entries no longer in n's log (covered by a snapshot) were recorded by the
// node that committed them first.
func (s *System) recordCommit(n *node, from, to uint64) {
	for i := from + 1; i <= to; i++ {
		t, err := n.live.Term(i)
		if err != nil {
			continue
		}
		for uint64(len(s.committed)) <= i {
			s.committed = append(s.committed, 0)
			s.committedIn = append(s.committedIn, 0)
		}
		switch prev := s.committed[i]; {
		case prev == 0:
			s.committed[i], s.committedIn[i] = t, n.term
		case prev != t:
			s.fail("safety: committed entries differ",
				fmt.Sprintf("n%d committed index %d with term %d, another node with term %d", n.id, i, t, prev))
		}
	}
}

// checkLeader runs the leader oracles when n has just become leader: one
// leader per term, and the leader's log holds every committed entry.
func (s *System) checkLeader(n *node) {
	p := int(n.id) - 1
	for uint64(len(s.leaders)) <= n.term {
		s.leaders = append(s.leaders, -1)
	}
	if q := s.leaders[n.term]; q >= 0 && q != p {
		s.fail("safety: two leaders in one term", fmt.Sprintf("n%d and n%d are both leader in term %d", q+1, n.id, n.term))
	} else {
		s.leaders[n.term] = p
	}
	first, _ := n.live.FirstIndex()
	last, _ := n.live.LastIndex()
	for i := first; i < uint64(len(s.committed)); i++ {
		want := s.committed[i]
		if want == 0 || s.committedIn[i] >= n.term {
			// Leader completeness holds for entries committed in earlier
			// terms: a candidate of a lower term may count its last votes
			// after a leader of a later term committed.
			continue
		}
		got := uint64(0)
		if i <= last {
			got, _ = n.live.Term(i)
		}
		if got != want {
			s.fail("safety: committed entry lost",
				fmt.Sprintf("n%d became leader in term %d without the committed entry at index %d (term %d)", n.id, n.term, i, want))
			return
		}
	}
}

// fail reports a safety failure once per signature and execution.
func (s *System) fail(sig, msg string) {
	for _, r := range s.reported {
		if r == sig {
			return
		}
	}
	s.reported = append(s.reported, sig)
	s.ex.Failures = append(s.ex.Failures, schedule.Failure{Kind: "safety", Signature: sig, Message: msg, Step: s.step})
}

func (s *System) skip(p int, why string) {
	s.ex.Skipped++
	s.event(schedule.EvSkip, p, -1, why)
}

// msgEvent records the send or recv of m with its fields as args.
func (s *System) msgEvent(kind string, node, peer, id int, m *pb.Message) {
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
		s.buf = append(s.buf, e.GetData()...)
	}
	s.args = append(s.args,
		schedule.I("term", int64(m.GetTerm())), schedule.I("logterm", int64(m.GetLogTerm())),
		schedule.I("index", int64(m.GetIndex())), schedule.I("commit", int64(m.GetCommit())),
		schedule.I("reject", reject), schedule.I("rejecthint", int64(m.GetRejectHint())),
		schedule.S("entries", string(s.buf)))
	typ := m.GetType()
	switch typ {
	case pb.MsgVote, pb.MsgPreVote:
		s.args = append(s.args, schedule.I("vote", int64(m.GetFrom())-1))
	case pb.MsgSnap:
		md := m.GetSnapshot().GetMetadata()
		s.args = append(s.args, schedule.I("snapindex", int64(md.GetIndex())), schedule.I("snapterm", int64(md.GetTerm())))
	}
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

var msgTypeNames = map[pb.MessageType]string{}

// msgTypeName caches the names of message types (the protobuf enum's String
// goes through reflection). The map is only looked up, never iterated.
func msgTypeName(t pb.MessageType) string {
	if name, ok := msgTypeNames[t]; ok {
		return name
	}
	return t.String()
}

func init() {
	for t := pb.MessageType(0); t < 64; t++ {
		msgTypeNames[t] = t.String()
	}
}

func roleName(r raft.StateType) string {
	switch r {
	case raft.StateLeader:
		return "leader"
	case raft.StateCandidate:
		return "candidate"
	case raft.StatePreCandidate:
		return "precandidate"
	}
	return "follower"
}

// cloneStorage copies a storage: the RawNode's view of the disk after a
// restart with send-before-persist.
func cloneStorage(src *raft.MemoryStorage) *raft.MemoryStorage {
	dst := raft.NewMemoryStorage()
	snap, _ := src.Snapshot()
	_ = dst.ApplySnapshot(snap)
	first, _ := src.FirstIndex()
	last, _ := src.LastIndex()
	if last >= first {
		ents, _ := src.Entries(first, last+1, 1<<62)
		_ = dst.Append(ents)
	}
	if hs, _, _ := src.InitialState(); hs != nil {
		_ = dst.SetHardState(hs)
	}
	return dst
}

// kvSet sets k to v in the sorted pairs.
func kvSet(kv []kvPair, k, v string) []kvPair {
	for i := range kv {
		if kv[i].key == k {
			kv[i].val = v
			return kv
		}
		if kv[i].key > k {
			kv = append(kv, kvPair{})
			copy(kv[i+1:], kv[i:])
			kv[i] = kvPair{k, v}
			return kv
		}
	}
	return append(kv, kvPair{k, v})
}

// encodeKV is the snapshot data of the state machine: "k=v\n" per key.
func encodeKV(kv []kvPair) []byte {
	var b []byte
	for _, p := range kv {
		b = append(b, p.key...)
		b = append(b, '=')
		b = append(b, p.val...)
		b = append(b, '\n')
	}
	return b
}

func decodeKV(kv []kvPair, data []byte) []kvPair {
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			kv = kvSet(kv, k, v)
		}
	}
	return kv
}

// quietLogger discards the library's logging; its panics and fatal errors
// panic, so that schedule.Guard reports them.
type quietLogger struct{}

func (quietLogger) Debug(...any)          {}
func (quietLogger) Debugf(string, ...any) {}
func (quietLogger) Error(...any)          {}
func (quietLogger) Errorf(string, ...any) {}
func (quietLogger) Info(...any)           {}
func (quietLogger) Infof(string, ...any)  {}

func (quietLogger) Warning(...any)          {}
func (quietLogger) Warningf(string, ...any) {}
func (quietLogger) Fatal(v ...any)          { panic(fmt.Sprint(v...)) }
func (quietLogger) Fatalf(f string, v ...any) {
	panic(fmt.Sprintf(f, v...))
}
func (quietLogger) Panic(v ...any) { panic(fmt.Sprint(v...)) }
func (quietLogger) Panicf(f string, v ...any) {
	panic(fmt.Sprintf(f, v...))
}
