package raftkv

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"
	"sync"

	"github.com/hashicorp/go-hclog"
	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
)

const bootstrapIndex = 1 // index and term of the bootstrap snapshot

// outbox is where a node hands over its messages and events: the fuzzer in
// interception mode, the peers (and the log) in standalone mode. Both are
// called with the node's lock held, in the order of the protocol.
type outbox interface {
	send(m *pb.Message, env *Envelope)
	event(ev *Event)
}

// command is a client's write, the data of a normal entry.
type command struct {
	ID    string `json:"id"`
	Key   string `json:"k"`
	Value string `json:"v"`
}

// proposal is a PUT waiting to be applied.
type proposal struct {
	cmd   command
	data  []byte
	value any // the request event's value
	done  chan struct{}
}

// read is a linearizable GET waiting for its read index to be applied.
type read struct {
	ctx   string
	key   string
	index uint64 // the read state's index; 0 until it arrives
	done  chan readResult
}

type readResult struct {
	value string
	found bool
}

// Status is a snapshot of a node's volatile state.
type Status struct {
	ID      uint64 `json:"id"`
	Lead    uint64 `json:"lead"`
	Role    string `json:"role"`
	Term    uint64 `json:"term"`
	Commit  uint64 `json:"commit"`
	Applied uint64 `json:"applied"`
}

// node is one application of the raft library, as its README prescribes.
// Every field is guarded by mu; the Ready loop runs to quiescence under it.
type node struct {
	mu     sync.Mutex
	id     uint64
	inject string
	every  uint64 // applied entries between snapshots
	log    hclog.Logger
	conf   *pb.ConfState
	out    outbox
	fatal  func(error)

	rn   *raft.RawNode
	mem  *raft.MemoryStorage // the RawNode's view of the disk
	disk *Disk
	// pending holds the disk writes of the last Ready with
	// send-before-persist: they reach the disk at the next Ready.
	pending []func() error
	stopped bool

	boot, nextMsg, nextReq uint64
	role                   raft.StateType
	lead, term, commit     uint64
	// applied is the last entry applied to kv; snapIndex the last snapshot
	// created or installed.
	applied, raftApplied, snapIndex uint64
	kv                              map[string]string

	props   map[string]*proposal
	dropped []*proposal // dropped for want of a leader, proposed again when one is known
	reads   []*read

	// handled counts the client requests whose own part (the proposal or
	// read index and the Ready loop after it) is done; decided those whose
	// outcome is known (applied, read); answered those whose handler has
	// written its answer (or given up) since. idle is signalled when one
	// of them grows or the node stops.
	handled, decided, answered uint64
	idle                       *sync.Cond
}

// nodeConfig is what newNode needs beyond the disk.
type nodeConfig struct {
	id            uint64
	inject        string
	snapshotEvery int
	electionTick  int
	log           hclog.Logger
	out           outbox
	fatal         func(error)
}

// newNode builds the RawNode from what the disk holds.
func newNode(c nodeConfig, disk *Disk, st *DiskState) (*node, error) {
	n := &node{
		id: c.id, inject: c.inject, every: uint64(c.snapshotEvery), log: c.log,
		// The configuration never changes: the bootstrap snapshot's.
		conf: st.Snapshot.GetMetadata().GetConfState(), out: c.out, fatal: c.fatal, disk: disk,
		boot: st.Boot, props: map[string]*proposal{},
	}
	n.idle = sync.NewCond(&n.mu)
	n.mem = raft.NewMemoryStorage()
	if err := n.mem.ApplySnapshot(st.Snapshot); err != nil {
		return nil, fmt.Errorf("raftkv: load snapshot: %v", err)
	}
	if err := n.mem.SetHardState(st.HardState); err != nil {
		return nil, fmt.Errorf("raftkv: load hardstate: %v", err)
	}
	if err := n.mem.Append(st.Entries); err != nil {
		return nil, fmt.Errorf("raftkv: load entries: %v", err)
	}
	kv, err := decodeKV(st.Snapshot.GetData())
	if err != nil {
		return nil, err
	}
	n.kv = kv
	n.applied = st.Snapshot.GetMetadata().GetIndex()
	n.raftApplied, n.snapIndex = n.applied, n.applied
	n.term, n.commit = st.HardState.GetTerm(), max(st.HardState.GetCommit(), n.applied)
	n.role = raft.StateFollower
	rn, err := raft.NewRawNode(&raft.Config{
		ID:              n.id,
		ElectionTick:    c.electionTick,
		HeartbeatTick:   1,
		Storage:         n.mem,
		Applied:         n.applied,
		MaxSizePerMsg:   1 << 20,
		MaxInflightMsgs: 256,
		Logger:          raftLogger{c.log},
	})
	if err != nil {
		return nil, fmt.Errorf("raftkv: node %d: %v", n.id, err)
	}
	n.rn = rn
	return n, nil
}

// restartEvent reports the durable state the node restarted from.
func (n *node) restartEvent() {
	hs, _, _ := n.mem.InitialState()
	last, _ := n.mem.LastIndex()
	n.event("restart", map[string]any{
		"term": hs.GetTerm(), "vote": int64(hs.GetVote()) - 1, "commit": n.commit,
		"snapindex": n.snapIndex, "lastindex": last,
	})
}

// drain processes Ready until there is none: the node is quiet.
func (n *node) drain() {
	for !n.stopped && n.rn.HasReady() {
		n.handleReady()
	}
}

// handleReady is the application's Ready loop body: persist, send, apply,
// Advance.
func (n *node) handleReady() {
	rd := n.rn.Ready()
	if n.inject == InjectSendBeforePersist {
		n.flush() // the previous Ready's writes reach the disk now
	}

	// Persist: snapshot, entries, HardState.
	if !raft.IsEmptySnap(rd.Snapshot) {
		snap := rd.Snapshot
		if err := n.mem.ApplySnapshot(snap); err != nil {
			n.fail(fmt.Errorf("raftkv: install snapshot: %v", err))
			return
		}
		n.write(func() error { return n.disk.SaveSnapshot(snap) })
		kv, err := decodeKV(snap.GetData())
		if err != nil {
			n.fail(err)
			return
		}
		md := snap.GetMetadata()
		n.kv = kv
		n.applied, n.raftApplied, n.snapIndex = md.GetIndex(), md.GetIndex(), md.GetIndex()
		n.event("install", map[string]any{"index": md.GetIndex(), "term": md.GetTerm()})
	}
	if len(rd.Entries) > 0 {
		ents := rd.Entries
		if err := n.mem.Append(ents); err != nil {
			n.fail(fmt.Errorf("raftkv: append: %v", err))
			return
		}
		n.write(func() error { return n.disk.Append(ents) })
	}
	if !raft.IsEmptyHardState(rd.HardState) {
		hs := rd.HardState
		if err := n.mem.SetHardState(hs); err != nil {
			n.fail(fmt.Errorf("raftkv: hardstate: %v", err))
			return
		}
		n.write(func() error { return n.disk.SetHardState(hs) })
		n.term = hs.GetTerm()
	}
	if n.stopped {
		return
	}
	leaderKnown := false
	if ss := rd.SoftState; ss != nil {
		leaderKnown = ss.Lead != 0 && ss.Lead != n.lead
		n.lead = ss.Lead
		if ss.RaftState != n.role {
			n.role = ss.RaftState
			n.event("role", map[string]any{"role": roleName(n.role), "term": n.term})
		}
	}
	if c := rd.HardState.GetCommit(); c > n.commit {
		n.commit = c
		n.event("commit", map[string]any{"index": c})
	}

	// Send.
	for _, m := range rd.Messages {
		n.send(m)
	}

	// Apply.
	for _, e := range rd.CommittedEntries {
		if e.GetIndex() > n.applied {
			n.apply(e)
		}
		n.raftApplied = e.GetIndex()
	}
	for _, rs := range rd.ReadStates {
		for _, r := range n.reads {
			if r.ctx == string(rs.RequestCtx) && r.index == 0 {
				r.index = max(rs.Index, 1)
			}
		}
	}
	n.rn.Advance(rd)
	n.answerReads()

	if n.raftApplied >= n.snapIndex+n.every {
		n.snapshot()
	}
	if leaderKnown {
		n.retry()
	}
}

// snapshot snapshots the state machine at the last applied entry and
// compacts the log up to it.
func (n *node) snapshot() {
	i := n.raftApplied
	snap, err := n.mem.CreateSnapshot(i, n.conf, encodeKV(n.kv))
	if err != nil {
		n.fail(fmt.Errorf("raftkv: create snapshot at %d: %v", i, err))
		return
	}
	if err := n.mem.Compact(i); err != nil {
		n.fail(fmt.Errorf("raftkv: compact at %d: %v", i, err))
		return
	}
	n.write(func() error { return n.disk.SaveSnapshot(snap) })
	n.snapIndex = i
	n.event("snapshot", map[string]any{"index": i, "term": snap.GetMetadata().GetTerm()})
}

// write makes a disk change: at once, or, with send-before-persist, at the
// next Ready.
func (n *node) write(f func() error) {
	if n.inject == InjectSendBeforePersist {
		n.pending = append(n.pending, f)
		return
	}
	if err := f(); err != nil {
		n.fail(err)
	}
}

func (n *node) flush() {
	for _, f := range n.pending {
		if err := f(); err != nil {
			n.fail(err)
			break
		}
	}
	n.pending = n.pending[:0]
}

// fail stops the node at a disk error: it must not send what it could not
// persist.
func (n *node) fail(err error) {
	if n.stopped {
		return
	}
	n.stopped = true
	n.idle.Broadcast()
	n.log.Error("node stopped", "error", err)
	n.fatal(err)
}

// guard turns a panic of the library into a stop of the node and a fatal
// error (see Server.Fatal): net/http would recover it and serve on from a
// broken state.
func (n *node) guard() {
	if r := recover(); r != nil {
		n.stopped = true
		n.idle.Broadcast()
		err := fmt.Errorf("panic: %v\n\n%s", r, debug.Stack())
		n.log.Error("node stopped", "error", err)
		n.fatal(err)
	}
}

func (n *node) send(m *pb.Message) {
	data, err := marshalMessage(m)
	if err != nil {
		n.log.Error("encode message", "type", m.GetType().String(), "error", err)
		return
	}
	n.nextMsg++
	env := &Envelope{
		From:   strconv.FormatUint(m.GetFrom(), 10),
		To:     strconv.FormatUint(m.GetTo(), 10),
		Type:   m.GetType().String(),
		ID:     strconv.FormatUint(m.GetFrom(), 10) + "-" + strconv.FormatUint((n.boot-1)*msgIDsPerBoot+n.nextMsg, 10),
		Data:   data,
		Params: msgParams(m),
	}
	n.out.send(m, env)
}

// msgIDsPerBoot separates the message ids of a replica's starts, so that
// they stay unique per sender across restarts.
const msgIDsPerBoot = 1_000_000

func (n *node) event(typ string, params map[string]any) {
	n.out.event(newEvent(n.id, typ, params))
}

func (n *node) apply(e *pb.Entry) {
	n.applied = e.GetIndex()
	data := e.GetData()
	params := map[string]any{"index": e.GetIndex(), "term": e.GetTerm(), "data": renderData(data)}
	if e.GetType() == pb.EntryNormal && len(data) > 0 {
		var c command
		if err := json.Unmarshal(data, &c); err != nil {
			n.log.Warn("skip an entry that is no command", "index", e.GetIndex(), "error", err)
		} else {
			n.kv[c.Key] = c.Value
			params["key"] = c.Key
			if p := n.props[c.ID]; p != nil {
				delete(n.props, c.ID)
				close(p.done)
				n.decided++
			}
		}
	}
	n.event("apply", params)
}

// answerReads answers the reads whose index is applied.
func (n *node) answerReads() {
	keep := n.reads[:0]
	for _, r := range n.reads {
		if r.index != 0 && r.index <= n.applied {
			v, ok := n.kv[r.key]
			r.done <- readResult{v, ok}
			n.decided++
			continue
		}
		keep = append(keep, r)
	}
	clear(n.reads[len(keep):])
	n.reads = keep
}

// retry proposes the dropped proposals and asks again for the read indexes
// not yet known: a leader is known now. A follower without a leader drops
// both silently or with ErrProposalDropped.
func (n *node) retry() {
	props := n.dropped
	n.dropped = nil
	for _, p := range props {
		if n.props[p.cmd.ID] == p { // not cancelled meanwhile
			n.propose(p, true)
		}
	}
	for _, r := range n.reads {
		if r.index == 0 {
			n.rn.ReadIndex([]byte(r.ctx))
		}
	}
}

// propose hands p to raft and records a request event (again when retried).
func (n *node) propose(p *proposal, retried bool) {
	params := map[string]any{"value": p.value}
	if retried {
		params["retry"] = 1
	}
	n.event("request", params)
	if err := n.rn.Propose(p.data); errors.Is(err, raft.ErrProposalDropped) {
		n.event("proposal", map[string]any{"value": p.value})
		n.dropped = append(n.dropped, p)
	}
}

// Put proposes key=value; the returned proposal's done is closed once the
// entry is applied here. It returns nil when the node is stopped.
func (n *node) put(key, value string) *proposal {
	n.mu.Lock()
	defer n.mu.Unlock()
	defer n.guard()
	if n.stopped {
		return nil
	}
	n.nextReq++
	c := command{ID: fmt.Sprintf("%d.%d.%d", n.id, n.boot, n.nextReq), Key: key, Value: value}
	data, _ := json.Marshal(c) // strings only: cannot fail
	p := &proposal{cmd: c, data: data, value: requestValue(value), done: make(chan struct{})}
	n.props[c.ID] = p
	n.propose(p, false)
	n.drain()
	return p
}

// requestHandled counts a client request whose own part is done.
func (n *node) requestHandled() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.handled++
	n.idle.Broadcast()
}

// answer counts a request whose handler has written its answer (and
// flushed it) or given up on it. now: the outcome was known at once (an
// error, a local read), not decided by the node.
func (n *node) answer(now bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if now {
		n.decided++
	}
	n.answered++
	n.idle.Broadcast()
}

// waitIdle returns once k client requests have been handled since the
// start, every answer decided has been written, and the Ready loop has run
// to quiescence (it runs under the lock, so holding the lock means it is
// done). It returns the number of answers written, and false when the
// node stops or ctx ends first.
func (n *node) waitIdle(ctx context.Context, k uint64) (uint64, bool) {
	stop := context.AfterFunc(ctx, func() {
		n.mu.Lock()
		defer n.mu.Unlock()
		n.idle.Broadcast()
	})
	defer stop()
	n.mu.Lock()
	defer n.mu.Unlock()
	for (n.handled < k || n.answered < n.decided) && !n.stopped && ctx.Err() == nil {
		n.idle.Wait()
	}
	return n.answered, n.handled >= k && n.answered >= n.decided && !n.stopped
}

// forgetProposal drops the waiter of a request whose client went away.
func (n *node) forgetProposal(p *proposal) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.props[p.cmd.ID] == p {
		delete(n.props, p.cmd.ID)
	}
}

// readIndex starts a linearizable read of key. It returns nil when the node
// is stopped.
func (n *node) readIndex(key string) *read {
	n.mu.Lock()
	defer n.mu.Unlock()
	defer n.guard()
	if n.stopped {
		return nil
	}
	n.nextReq++
	r := &read{ctx: fmt.Sprintf("read.%d.%d.%d", n.id, n.boot, n.nextReq), key: key, done: make(chan readResult, 1)}
	n.reads = append(n.reads, r)
	n.rn.ReadIndex([]byte(r.ctx))
	n.drain()
	return r
}

func (n *node) forgetRead(r *read) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for i, x := range n.reads {
		if x == r {
			n.reads = append(n.reads[:i], n.reads[i+1:]...)
			return
		}
	}
}

// localGet reads key from the local state machine, without the read-index
// protocol (the stale-read bug).
func (n *node) localGet(key string) (readResult, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	v, ok := n.kv[key]
	return readResult{v, ok}, !n.stopped
}

// step hands a message from a peer to raft; false if the node is (or
// got) stopped.
func (n *node) step(m *pb.Message) (ok bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	defer func() { ok = !n.stopped }()
	defer n.guard()
	if n.stopped {
		return
	}
	if err := n.rn.Step(m); err != nil {
		n.log.Debug("step", "type", m.GetType().String(), "from", m.GetFrom(), "error", err)
	}
	n.drain()
	return
}

// timeout fires the election timer: the node campaigns. False if the node
// is (or got) stopped.
func (n *node) timeout() (ok bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	defer func() { ok = !n.stopped }()
	defer n.guard()
	if n.stopped {
		return
	}
	n.event("timeout", map[string]any{"term": n.term})
	if err := n.rn.Campaign(); err != nil {
		n.log.Debug("campaign", "error", err)
	}
	n.drain()
	return
}

// tick advances the logical clock (standalone mode only); every
// retryTicks it asks again for read indexes that got no answer.
func (n *node) tick(retry bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	defer n.guard()
	if n.stopped {
		return
	}
	n.rn.Tick()
	if retry && n.lead != 0 {
		n.retry()
	}
	n.drain()
}

// reportSend tells raft how a send to a peer went (standalone mode).
func (n *node) reportSend(m *pb.Message, err error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	defer n.guard()
	if n.stopped {
		return
	}
	if err != nil {
		n.rn.ReportUnreachable(m.GetTo())
	}
	if m.GetType() == pb.MsgSnap {
		st := raft.SnapshotFinish
		if err != nil {
			st = raft.SnapshotFailure
		}
		n.rn.ReportSnapshot(m.GetTo(), st)
	}
	n.drain()
}

// stop makes the node inert, as a crash would: what is not on disk is lost.
func (n *node) stop() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.stopped = true
	n.pending = nil
	n.idle.Broadcast()
	_ = n.disk.Close()
}

func (n *node) status() Status {
	n.mu.Lock()
	defer n.mu.Unlock()
	return Status{ID: n.id, Lead: n.lead, Role: roleName(n.role), Term: n.term, Commit: n.commit, Applied: n.applied}
}

// requestValue is the value of a request event: an integer if the value
// reads as one.
func requestValue(v string) any {
	if i, err := strconv.ParseInt(v, 10, 64); err == nil {
		return i
	}
	return v
}

// renderData is an entry's data as events show it: "v=<value>" for a
// command, as the etcdraft adapter writes its entries (the model knows
// values, not keys; the fuzzer's values are unique), empty for an empty
// entry, the bytes as they are otherwise (the context of a read index).
func renderData(data []byte) string {
	if len(data) == 0 {
		return ""
	}
	var c command
	if data[0] == '{' && json.Unmarshal(data, &c) == nil {
		return "v=" + c.Value
	}
	return string(data)
}

// msgParams are the fields of a message that events show, as the etcdraft
// adapter records them for send and recv.
func msgParams(m *pb.Message) map[string]any {
	reject := 0
	if m.GetReject() {
		reject = 1
	}
	var ents []byte
	for i, e := range m.GetEntries() {
		if i > 0 {
			ents = append(ents, ',')
		}
		ents = strconv.AppendUint(ents, e.GetTerm(), 10)
		ents = append(ents, ':')
		ents = append(ents, renderData(e.GetData())...)
	}
	p := map[string]any{
		"term": m.GetTerm(), "logterm": m.GetLogTerm(), "index": m.GetIndex(), "commit": m.GetCommit(),
		"reject": reject, "rejecthint": m.GetRejectHint(), "entries": string(ents),
	}
	switch m.GetType() {
	case pb.MsgVote, pb.MsgPreVote:
		p["vote"] = int64(m.GetFrom()) - 1
	case pb.MsgSnap:
		md := m.GetSnapshot().GetMetadata()
		p["snapindex"], p["snapterm"] = md.GetIndex(), md.GetTerm()
	}
	return p
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

// encodeKV is the snapshot data of the state machine: a JSON object, keys
// sorted.
func encodeKV(kv map[string]string) []byte {
	b, _ := json.Marshal(kv) // a map of strings: cannot fail
	return b
}

func decodeKV(data []byte) (map[string]string, error) {
	kv := map[string]string{}
	if len(data) == 0 {
		return kv, nil
	}
	if err := json.Unmarshal(data, &kv); err != nil {
		return nil, fmt.Errorf("raftkv: snapshot data: %v", err)
	}
	return kv, nil
}

// raftLogger sends the library's logging to hclog, at debug level except
// warnings and errors; its panics stay panics.
type raftLogger struct{ l hclog.Logger }

func (r raftLogger) Debug(v ...any)              { r.l.Trace(fmt.Sprint(v...)) }
func (r raftLogger) Debugf(f string, v ...any)   { r.l.Trace(fmt.Sprintf(f, v...)) }
func (r raftLogger) Info(v ...any)               { r.l.Debug(fmt.Sprint(v...)) }
func (r raftLogger) Infof(f string, v ...any)    { r.l.Debug(fmt.Sprintf(f, v...)) }
func (r raftLogger) Warning(v ...any)            { r.l.Warn(fmt.Sprint(v...)) }
func (r raftLogger) Warningf(f string, v ...any) { r.l.Warn(fmt.Sprintf(f, v...)) }
func (r raftLogger) Error(v ...any)              { r.l.Error(fmt.Sprint(v...)) }
func (r raftLogger) Errorf(f string, v ...any)   { r.l.Error(fmt.Sprintf(f, v...)) }
func (r raftLogger) Fatal(v ...any)              { panic(fmt.Sprint(v...)) }
func (r raftLogger) Fatalf(f string, v ...any)   { panic(fmt.Sprintf(f, v...)) }
func (r raftLogger) Panic(v ...any)              { panic(fmt.Sprint(v...)) }
func (r raftLogger) Panicf(f string, v ...any)   { panic(fmt.Sprintf(f, v...)) }
