package etcdraft

import (
	"context"
	"fmt"
	"path"
	"reflect"
	"runtime"
	"sync"
	"unsafe"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
	"go.etcd.io/raft/v3/tracker"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// raftNode is what the application asks of one node of the library: the
// methods of *raft.RawNode it uses. A node runs either as a RawNode driven
// directly, or through the goroutine API of raft.Node (goNode), as etcd's
// server drives it.
type raftNode interface {
	Tick()
	TickQuiesced()
	Campaign() error
	Propose(data []byte) error
	ProposeConfChange(cc pb.ConfChangeI) error
	Step(m *pb.Message) error
	ReadIndex(rctx []byte)
	TransferLeader(transferee uint64)
	ReportUnreachable(id uint64)
	ReportSnapshot(id uint64, status raft.SnapshotStatus)
	ApplyConfChange(cc pb.ConfChangeI) *pb.ConfState
	HasReady() bool
	Ready() raft.Ready
	Advance(rd raft.Ready)
	Status() raft.Status
	BasicStatus() raft.BasicStatus
	WithProgress(visitor func(id uint64, typ raft.ProgressType, pr tracker.Progress))
}

var _ raftNode = (*raft.RawNode)(nil)
var _ raftNode = (*goNode)(nil)

// noSuchPeer is the sender of goNode's synchronizing message: a response
// from a peer that no configuration has, which the node's loop discards
// before stepping (node.go: "Filter out response message from unknown
// From").
const noSuchPeer = 1 << 62

// goNode drives a raft.Node deterministically.
//
// The library runs a Node in a goroutine (node.run) that selects over its
// channels. Go picks at random among ready cases, so the application must
// never offer two at once: every operation here is one blocking channel
// operation followed by sync, which waits until the loop has finished with
// it. Between operations the loop only prepares the next Ready (pure reads
// of the node's state), so the application may then read that state
// itself: HasReady says whether the loop offers a Ready, and Ready takes
// it. Ticks go through Node.Tick's buffered channel; Tick waits until the
// loop has taken the tick. Followers' quiesced ticks, which the Node API
// does not offer, are made on the RawNode between operations.
//
// The application writes the storage the loop reads only while hold keeps
// the loop inside a case, never while it computes a Ready.
//
// The loop is the library's own, but on a goroutine of ours (startGoNode):
// a panic there, an assertion of the library or a runtime error, would
// otherwise end the whole process. It is recovered with its stack, the
// node's done channel is closed (so that no call on the node blocks) and
// the next operation reports the failure, as a fork server reports the
// crash of its child and goes on.
type goNode struct {
	nd raft.Node
	// rn is the RawNode inside nd (node.rn), read only between operations.
	rn *raft.RawNode
	// tickc, status and done are nd's channels (node.tickc, node.status,
	// node.done): tickc's length says whether the loop took a tick; status
	// lets hold keep the loop inside a case; done is closed when the loop
	// ends.
	tickc  chan struct{}
	status chan chan raft.Status
	done   chan struct{}
	id     uint64
	async  bool

	ctx    context.Context
	cancel context.CancelFunc
	fail   *schedule.Failure
	step   *int

	// lead and propc mirror the loop's: proposals are taken only while the
	// node knows a leader (and was not removed from the configuration).
	lead  uint64
	propc bool
}

// nodeRun is the Node's loop, (*node).run in node.go, which StartNode and
// RestartNode start on a goroutine of their own; startGoNode starts it on
// one of ours instead, under a recover.
//
//go:linkname nodeRun go.etcd.io/raft/v3.(*node).run
func nodeRun(n unsafe.Pointer)

// nodeType is the library's Node implementation (*node), learnt once from
// a Node the library builds, with the capacity of each of its channels.
var nodeType struct {
	once sync.Once
	typ  reflect.Type // *node
	caps []int        // by field: a channel's capacity (-1: not a channel)
	err  error
}

// learnNodeType builds and stops one Node to learn its type and channels:
// a goNode is made alike, field by field, so that whatever the library's
// newNode gives its loop, ours has it too (a field of another kind than a
// channel, but the RawNode, is refused: the driver would not know it).
func learnNodeType() error {
	nodeType.once.Do(func() {
		nd := raft.RestartNode(&raft.Config{ID: 1, ElectionTick: 10, HeartbeatTick: 1, Storage: raft.NewMemoryStorage(),
			MaxSizePerMsg: 1, MaxInflightMsgs: 1, Logger: quietLogger{}})
		defer nd.Stop()
		v := reflect.ValueOf(nd)
		if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
			nodeType.err = fmt.Errorf("etcdraft: raft.Node is a %s, not the library's *node this adapter drives", v.Type())
			return
		}
		st := v.Elem()
		nodeType.typ = v.Type()
		for i := range st.NumField() {
			f, sf := st.Field(i), st.Type().Field(i)
			switch {
			case f.Kind() == reflect.Chan:
				nodeType.caps = append(nodeType.caps, f.Cap())
			case sf.Name == "rn" && f.Type() == reflect.TypeFor[*raft.RawNode]():
				nodeType.caps = append(nodeType.caps, -1)
			default:
				nodeType.err = fmt.Errorf("etcdraft: this go.etcd.io/raft/v3's node has a field %s %s: the Node API driver does not know it", sf.Name, f.Type())
				return
			}
		}
		for _, name := range []string{"tickc", "status", "done"} {
			if _, ok := st.Type().FieldByName(name); !ok {
				nodeType.err = fmt.Errorf("etcdraft: this go.etcd.io/raft/v3's node has no %s channel: the Node API driver does not know it", name)
				return
			}
		}
	})
	return nodeType.err
}

// startGoNode starts a Node as StartNode does (a RawNode bootstrapped with
// peers) when peers are given, as RestartNode does otherwise, its loop
// running on a goroutine of ours.
func startGoNode(cfg *raft.Config, peers []raft.Peer, step *int) (*goNode, error) {
	if err := learnNodeType(); err != nil {
		return nil, err
	}
	g := &goNode{id: cfg.ID, async: cfg.AsyncStorageWrites, step: step}
	rn, err := raft.NewRawNode(cfg)
	if err != nil {
		return nil, err
	}
	if len(peers) > 0 {
		// StartNode only warns when the storage is not empty.
		_ = rn.Bootstrap(peers)
	}
	ptr := reflect.New(nodeType.typ.Elem())
	st := ptr.Elem()
	for i, c := range nodeType.caps {
		f := st.Field(i)
		f = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
		if c < 0 {
			f.Set(reflect.ValueOf(rn))
			continue
		}
		f.Set(reflect.MakeChan(f.Type(), c))
	}
	field := func(name string) any {
		f := st.FieldByName(name)
		return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Interface()
	}
	var ok1, ok2, ok3 bool
	g.tickc, ok1 = field("tickc").(chan struct{})
	g.status, ok2 = field("status").(chan chan raft.Status)
	g.done, ok3 = field("done").(chan struct{})
	if !ok1 || !ok2 || !ok3 {
		return nil, fmt.Errorf("etcdraft: this go.etcd.io/raft/v3's node has tickc, status or done channels of other types: the Node API driver does not know them")
	}
	g.nd = ptr.Interface().(raft.Node)
	g.rn = rn
	g.ctx, g.cancel = context.WithCancel(context.Background())
	go g.run(ptr.UnsafePointer())
	g.sync()
	return g, nil
}

// run runs the node's loop until it stops or panics; a panic is kept as
// the node's failure (the signature a RawNode's would have) and ends the
// loop as Stop does, closing done, so that every call returns.
func (g *goNode) run(n unsafe.Pointer) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		g.fail = schedule.PanicFailureSkipping(*g.step, r, 3, framePrefix+"(*goNode).")
		g.cancel()
		close(g.done)
	}()
	nodeRun(n)
}

// sync waits until the loop has handled every operation given to it, and
// updates the mirror of its proposal channel.
func (g *goNode) sync() {
	g.ok(g.nd.Step(g.ctx, &pb.Message{Type: pb.MsgHeartbeatResp.Enum(), From: new(uint64(noSuchPeer)), To: new(g.id)}))
	if lead := g.rn.BasicStatus().Lead; lead != g.lead {
		g.lead, g.propc = lead, lead != raft.None
	}
}

// hold waits until the loop is between operations and keeps it there,
// inside its status case, until release is called: the application writes
// the storage the loop reads while it holds it, so that no computation of
// the next Ready reads a storage half written.
func (g *goNode) hold() (release func()) {
	c := make(chan raft.Status)
	select {
	case g.status <- c:
	case <-g.ctx.Done():
		g.ok(g.ctx.Err())
	}
	return func() {
		select {
		case <-c:
		case <-g.ctx.Done():
			g.ok(g.ctx.Err())
		}
	}
}

// ok reports the loop's failure, if it failed, by panicking with it.
func (g *goNode) ok(err error) {
	if err == nil {
		return
	}
	if g.ctx.Err() != nil && g.fail != nil {
		panic(g.fail)
	}
	panic(fmt.Sprintf("etcdraft: n%d: %v", g.id, err))
}

// stop ends the node's goroutine (nothing when it failed: it has exited).
func (g *goNode) stop() {
	if g.ctx.Err() == nil {
		g.nd.Stop()
		g.cancel()
	}
}

// Tick hands the loop one tick and waits until it has taken it.
func (g *goNode) Tick() {
	g.nd.Tick()
	for len(g.tickc) > 0 {
		if g.ctx.Err() != nil {
			break
		}
		runtime.Gosched()
	}
	g.sync()
}

// TickQuiesced counts a tick without acting on it: on the RawNode, while
// the loop waits for its next operation.
func (g *goNode) TickQuiesced() { g.rn.TickQuiesced() }

func (g *goNode) Campaign() error {
	err := g.nd.Campaign(g.ctx)
	g.sync()
	return err
}

// Propose proposes data; without a known leader the loop takes no
// proposal, and the client's call would time out: it is dropped.
func (g *goNode) Propose(data []byte) error {
	if !g.propc {
		return raft.ErrProposalDropped
	}
	err := g.nd.Propose(g.ctx, data)
	g.sync()
	return err
}

func (g *goNode) ProposeConfChange(cc pb.ConfChangeI) error {
	if !g.propc {
		return raft.ErrProposalDropped
	}
	err := g.nd.ProposeConfChange(g.ctx, cc)
	g.sync()
	return err
}

// Step delivers a message. A forwarded proposal (MsgProp) waits for a
// leader like a client's, and is dropped without one; whether the leader
// then takes it, the Node API does not say.
func (g *goNode) Step(m *pb.Message) error {
	if m.GetType() == pb.MsgProp && !g.propc {
		return raft.ErrProposalDropped
	}
	err := g.nd.Step(g.ctx, m)
	g.sync()
	return err
}

func (g *goNode) ReadIndex(rctx []byte) {
	g.ok(g.nd.ReadIndex(g.ctx, rctx))
	g.sync()
}

func (g *goNode) TransferLeader(transferee uint64) {
	g.nd.TransferLeadership(g.ctx, g.lead, transferee)
	g.sync()
}

func (g *goNode) ReportUnreachable(id uint64) {
	g.nd.ReportUnreachable(id)
	g.ok(g.ctx.Err())
	g.sync()
}

func (g *goNode) ReportSnapshot(id uint64, status raft.SnapshotStatus) {
	g.nd.ReportSnapshot(id, status)
	g.ok(g.ctx.Err())
	g.sync()
}

// ApplyConfChange applies a committed change; like the loop, a node that
// the change removes takes no more proposals until its leader changes.
func (g *goNode) ApplyConfChange(cc pb.ConfChangeI) *pb.ConfState {
	before := g.rn.Status().Config
	cs := g.nd.ApplyConfChange(cc)
	if cs == nil {
		g.ok(g.ctx.Err())
	}
	_, wasMember := before.Voters.IDs()[g.id]
	if _, l := before.Learners[g.id]; l {
		wasMember = true
	}
	if _, l := before.LearnersNext[g.id]; l {
		wasMember = true
	}
	isMember, voter := false, false
	for _, ids := range [][]uint64{cs.GetVoters(), cs.GetVotersOutgoing()} {
		for _, id := range ids {
			if id == g.id {
				isMember, voter = true, true
			}
		}
	}
	for _, ids := range [][]uint64{cs.GetLearners(), cs.GetLearnersNext()} {
		for _, id := range ids {
			if id == g.id {
				isMember = true
			}
		}
	}
	if wasMember && !isMember && !voter {
		g.propc = false
	}
	g.sync()
	return cs
}

func (g *goNode) HasReady() bool { return g.rn.HasReady() }

// Ready takes the Ready the loop offers (HasReady said it does).
func (g *goNode) Ready() raft.Ready {
	select {
	case rd := <-g.nd.Ready():
		g.sync()
		return rd
	case <-g.ctx.Done():
		g.ok(g.ctx.Err())
		return raft.Ready{}
	}
}

// Advance acknowledges the last Ready (synchronous Ready loop only).
func (g *goNode) Advance(raft.Ready) {
	g.nd.Advance()
	g.ok(g.ctx.Err())
	g.sync()
}

// Status asks the loop for the node's status (as Node.Status does, but
// returning if the loop fails while it answers).
func (g *goNode) Status() raft.Status {
	c := make(chan raft.Status)
	select {
	case g.status <- c:
	case <-g.ctx.Done():
		g.ok(g.ctx.Err())
	}
	select {
	case st := <-c:
		return st
	case <-g.ctx.Done():
		g.ok(g.ctx.Err())
		return raft.Status{}
	}
}

func (g *goNode) BasicStatus() raft.BasicStatus { return g.rn.BasicStatus() }

// WithProgress visits the leader's progress of each peer, read between
// operations as BasicStatus is.
func (g *goNode) WithProgress(visitor func(id uint64, typ raft.ProgressType, pr tracker.Progress)) {
	g.rn.WithProgress(visitor)
}

// framePrefix is how this package's functions start in a stack frame's
// short name ("etcdraft."; the package's own path, not a literal, so that
// the exported reproducer, which carries this code into a package of
// another name, skips the same frames).
var framePrefix = path.Base(reflect.TypeFor[goNode]().PkgPath()) + "."
