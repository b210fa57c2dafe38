package etcdraft

import (
	"context"
	"fmt"
	"path"
	"reflect"
	"runtime"
	"sync/atomic"
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

// goNode drives a raft.Node (StartNode, RestartNode) deterministically.
//
// The library runs a Node in a goroutine of its own (node.run) that
// selects over its channels. Go picks at random among ready cases, so the
// application must never offer two at once: every operation here is one
// blocking channel operation followed by sync, which waits until the loop
// has finished with it. Between operations the loop only prepares the next
// Ready (pure reads of the node's state), so the application may then read
// that state itself: HasReady says whether the loop offers a Ready, and
// Ready takes it. Ticks go through Node.Tick's buffered channel; Tick waits
// until the loop has taken the tick. Followers' quiesced ticks, which the
// Node API does not offer, are made on the RawNode between operations.
//
// The application writes the storage the loop reads only while hold keeps
// the loop inside a case, never while it computes a Ready.
//
// A panic inside the loop would end the process: the library's own
// assertions (Logger.Panicf and friends) are caught in the loop's
// goroutine instead, which closes the node's done channel (so that no call
// blocks) and exits; the next operation reports the failure. A runtime
// error there that does not go through the logger still ends the process.
type goNode struct {
	nd raft.Node
	// rn is the RawNode inside nd (node.rn), read only between operations.
	rn *raft.RawNode
	// tickc is nd's tick channel (node.tickc), for its length; status
	// (node.status) lets hold keep the loop inside a case; done (node.done)
	// is closed when the loop fails, so that no call on the node blocks.
	tickc, status, done reflect.Value
	id                  uint64
	async               bool

	ctx    context.Context
	cancel context.CancelFunc
	// started: the loop runs, so the logger's panics are the loop's.
	started atomic.Bool
	fail    *schedule.Failure
	step    *int

	// lead and propc mirror the loop's: proposals are taken only while the
	// node knows a leader (and was not removed from the configuration).
	lead  uint64
	propc bool
}

// startGoNode starts a Node: with StartNode and peers when the storage is
// empty and peers are given (the library's bootstrap), with RestartNode
// otherwise.
func startGoNode(cfg *raft.Config, peers []raft.Peer, step *int) (g *goNode, err error) {
	g = &goNode{id: cfg.ID, async: cfg.AsyncStorageWrites, step: step}
	g.ctx, g.cancel = context.WithCancel(context.Background())
	cfg.Logger = goLogger{g}
	if len(peers) > 0 {
		g.nd = raft.StartNode(cfg, peers)
	} else {
		g.nd = raft.RestartNode(cfg)
	}
	g.started.Store(true)
	v := reflect.ValueOf(g.nd)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		g.nd.Stop()
		return nil, fmt.Errorf("etcdraft: raft.Node is a %s, not the library's *node this adapter drives", v.Type())
	}
	rn, tickc := v.Elem().FieldByName("rn"), v.Elem().FieldByName("tickc")
	status, done := v.Elem().FieldByName("status"), v.Elem().FieldByName("done")
	if !rn.IsValid() || rn.Type() != reflect.TypeFor[*raft.RawNode]() || !tickc.IsValid() || tickc.Kind() != reflect.Chan ||
		!status.IsValid() || status.Type() != reflect.TypeFor[chan chan raft.Status]() || !done.IsValid() || done.Type() != reflect.TypeFor[chan struct{}]() {
		g.nd.Stop()
		return nil, fmt.Errorf("etcdraft: this go.etcd.io/raft/v3's node has no rn *RawNode, tickc, status and done channels: the Node API driver does not know it")
	}
	g.rn = (*raft.RawNode)(rn.UnsafePointer())
	g.tickc = tickc
	g.status = reflect.NewAt(status.Type(), unsafe.Pointer(status.UnsafeAddr())).Elem()
	g.done = reflect.NewAt(done.Type(), unsafe.Pointer(done.UnsafeAddr())).Elem()
	g.sync()
	return g, nil
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
	chosen, _, _ := reflect.Select([]reflect.SelectCase{
		{Dir: reflect.SelectSend, Chan: g.status, Send: reflect.ValueOf(c)},
		{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(g.ctx.Done())},
	})
	if chosen == 1 {
		g.ok(g.ctx.Err())
	}
	return func() { <-c }
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
	for g.tickc.Len() > 0 {
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

func (g *goNode) Status() raft.Status {
	st := g.nd.Status()
	g.ok(g.ctx.Err())
	return st
}

func (g *goNode) BasicStatus() raft.BasicStatus { return g.rn.BasicStatus() }

// WithProgress visits the leader's progress of each peer, read between
// operations as BasicStatus is.
func (g *goNode) WithProgress(visitor func(id uint64, typ raft.ProgressType, pr tracker.Progress)) {
	g.rn.WithProgress(visitor)
}

// goLogger is a goNode's logger: quiet, except that the library's
// assertions inside the node's loop end the loop's goroutine with the
// failure (a panic there would end the process).
type goLogger struct{ g *goNode }

func (goLogger) Debug(...any)            {}
func (goLogger) Debugf(string, ...any)   {}
func (goLogger) Error(...any)            {}
func (goLogger) Errorf(string, ...any)   {}
func (goLogger) Info(...any)             {}
func (goLogger) Infof(string, ...any)    {}
func (goLogger) Warning(...any)          {}
func (goLogger) Warningf(string, ...any) {}

func (l goLogger) Fatal(v ...any)            { l.fail(func() { quietLogger{}.Fatal(v...) }) }
func (l goLogger) Fatalf(f string, v ...any) { l.fail(func() { quietLogger{}.Fatalf(f, v...) }) }
func (l goLogger) Panic(v ...any)            { l.fail(func() { quietLogger{}.Panic(v...) }) }
func (l goLogger) Panicf(f string, v ...any) { l.fail(func() { quietLogger{}.Panicf(f, v...) }) }

// framePrefix is how this package's functions start in a stack frame's
// short name ("etcdraft."; the package's own path, not a literal, so that
// the exported reproducer, which carries this code into a package of
// another name, skips the same frames).
var framePrefix = path.Base(reflect.TypeFor[goLogger]().PkgPath()) + "."

// fail panics as quietLogger does (panic); in the loop's goroutine the
// panic is recovered, kept with its stack (the signature a RawNode's would
// have), and the goroutine exits.
func (l goLogger) fail(panics func()) {
	g := l.g
	if !g.started.Load() {
		panics()
	}
	func() {
		defer func() {
			g.fail = schedule.PanicFailureSkipping(*g.step, recover(), 3, framePrefix+"goLogger.", framePrefix+"(*goNode).")
		}()
		panics()
	}()
	// The loop ends here: as when it stops, its done channel is closed, so
	// that the application's calls return instead of waiting for it.
	g.cancel()
	g.done.Close()
	runtime.Goexit()
}
