package etcd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"go.etcd.io/raft/v3/raftpb"

	"github.com/modelfuzz/modelfuzz/internal/osproc"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// System runs executions of one etcd cluster configuration; one execution
// at a time.
type System struct {
	fac    *Factory
	cfg    Config
	spec   *schedule.SystemSpec
	log    hclog.Logger
	runDir string
	runs   int

	interrupted atomic.Bool
	mu          sync.Mutex
	cur         *execution

	ex      *execution // the execution a Stepper runs
	lastErr error
	history []Op
	outputs []string
}

// Spec implements schedule.System.
func (s *System) Spec() *schedule.SystemSpec { return s.spec }

// Interrupt stops the execution under way at its next step; it ends with
// the steps run so far (schedule.Interruptible).
func (s *System) Interrupt() {
	s.interrupted.Store(true)
	s.mu.Lock()
	if e := s.cur; e != nil {
		e.cancel()
	}
	s.mu.Unlock()
}

// Close stops what is still running and removes the System's directory.
func (s *System) Close() error {
	s.mu.Lock()
	e := s.cur
	s.mu.Unlock()
	if e != nil {
		e.teardown()
	}
	s.fac.forget(s)
	return os.RemoveAll(s.runDir)
}

// History is the client history of the last execution.
func (s *System) History() []Op { return s.history }

// Output is what each member printed in the last execution.
func (s *System) Output() []string { return s.outputs }

// Execute implements schedule.System.
func (s *System) Execute(in *schedule.Input) (*schedule.Execution, error) {
	if err := in.Validate(s.spec); err != nil {
		return nil, err
	}
	ex := schedule.RunSteps(s, in)
	return ex, s.lastErr
}

// Begin starts a cluster (schedule.Stepper).
func (s *System) Begin() {
	s.lastErr = nil
	s.ex = nil
	e, err := s.begin()
	if err != nil {
		s.lastErr = err
		return
	}
	s.ex = e
}

// Step runs one step; false when the execution cannot go on.
func (s *System) Step(st schedule.Step) bool {
	e := s.ex
	if e == nil || s.interrupted.Load() {
		return false
	}
	if err := (&schedule.Input{Steps: []schedule.Step{st}}).Validate(s.spec); err != nil {
		s.lastErr = err
		return false
	}
	e.runStep(st)
	return !s.interrupted.Load()
}

// Trace is the trace so far.
func (s *System) Trace() schedule.Trace {
	if s.ex == nil {
		return nil
	}
	s.ex.mu.Lock()
	defer s.ex.mu.Unlock()
	return slices.Clone(s.ex.trace)
}

// End finishes the execution: the oracles run, the cluster is stopped.
func (s *System) End() *schedule.Execution {
	e := s.ex
	if e == nil {
		return &schedule.Execution{}
	}
	s.ex = nil
	out := e.finish()
	e.teardown()
	if e.harnessErr != nil && s.lastErr == nil {
		s.lastErr = e.harnessErr
	}
	s.mu.Lock()
	s.cur = nil
	s.mu.Unlock()
	s.history = e.history
	s.outputs = make([]string, len(e.members))
	for i, m := range e.members {
		s.outputs[i] = m.out.String()
	}
	return out
}

// Err is the harness error of the last execution, if any.
func (s *System) Err() error { return s.lastErr }

// Pending lists what can happen next (schedule.Stepper): the messages
// each member can receive, crashes, restarts and client requests.
func (s *System) Pending(dst []schedule.Enabled) []schedule.Enabled {
	e := s.ex
	if e == nil {
		return dst
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	id := 0
	add := func(ev schedule.Enabled) {
		id++
		ev.ID = id
		dst = append(dst, ev)
	}
	for p := range e.members {
		if e.down[p] {
			add(schedule.Enabled{Kind: schedule.KindRestart, Process: p, From: -1, Type: schedule.KindRestart, Step: schedule.Step{Process: p, Action: schedule.Restart}})
			continue
		}
		k := 0
		for _, h := range e.inbox[p] {
			if e.cutLocked(h.from, p) {
				continue
			}
			k++
			add(schedule.Enabled{Kind: schedule.KindRecv, Process: p, From: h.from, Type: msgType(h.m), K: k,
				Step:     schedule.Step{Process: p, Action: schedule.DeliverOne, K: k},
				DropStep: schedule.Step{Process: p, Action: schedule.Drop, K: k}, DupStep: schedule.Step{Process: p, Action: schedule.Duplicate, K: k}})
		}
		add(schedule.Enabled{Kind: schedule.KindCrash, Process: p, From: -1, Type: schedule.KindCrash, Step: schedule.Step{Process: p, Action: schedule.Crash}})
		add(schedule.Enabled{Kind: schedule.KindRequest, Process: p, From: -1, Type: schedule.KindRequest, Step: schedule.Step{Process: p, Action: schedule.Request, Value: e.nextValue}})
		add(schedule.Enabled{Kind: schedule.KindRead, Process: p, From: -1, Type: schedule.KindRead, Step: schedule.Step{Process: p, Action: schedule.Read}})
	}
	return dst
}

// member is one member of an execution's cluster.
type member struct {
	name       string
	data       string
	peer       string // real peer address
	client     string // client address
	proxyLn    net.Listener
	proc       *osproc.Proc
	out        *memberLog
	incarnated int
}

// held is a message the proxy holds.
type held struct {
	msg      int // its id in the trace
	from, to int
	m        *raftpb.Message
	snap     *snapBody
}

// execution is one run of an input on a fresh cluster.
type execution struct {
	s       *System
	lease   *portLease // the members' ports, until teardown
	cfg     Config
	dir     string
	start   time.Time
	members []*member
	px      *proxy
	cl      *v3client
	ctx     context.Context
	cancel  context.CancelFunc

	mu        sync.Mutex
	step      int
	steps     int
	open      bool // messages are delivered as they arrive
	trace     schedule.Trace
	nextMsg   int
	inbox     [][]*held
	part      schedule.ProcSet
	down      []bool
	exited    []bool
	ranks     map[string]int
	history   []Op
	failures  []schedule.Failure
	skipped   int
	leases    []int64
	lastPut   map[string]string
	lastKey   string
	nextValue int
	clients   sync.WaitGroup
	async     sync.WaitGroup // proposals being delivered
	torn      bool
	dmu       []sync.Mutex // per receiver: deliveries
	// The dispatcher of the open network.
	wake       chan struct{}
	lastFrom   []time.Time // when the proxy last took a message from each member
	closeNet   func()
	harnessErr error
}

func (s *System) begin() (*execution, error) {
	s.interrupted.Store(false)
	var lastErr error
	for try := 0; try < 3; try++ {
		e, err := s.newExecution()
		if err != nil {
			return nil, err
		}
		s.mu.Lock()
		s.cur = e
		s.mu.Unlock()
		err = e.bootstrap()
		if err == nil {
			return e, nil
		}
		e.teardown()
		s.mu.Lock()
		s.cur = nil
		s.mu.Unlock()
		lastErr = err
		if s.interrupted.Load() {
			break
		}
	}
	return nil, fmt.Errorf("etcd: starting the cluster: %w", lastErr)
}

func (s *System) newExecution() (*execution, error) {
	s.runs++
	dir := filepath.Join(s.runDir, "x"+strconv.Itoa(s.runs))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	n := s.cfg.Nodes
	ctx, cancel := context.WithCancel(context.Background())
	e := &execution{s: s, cfg: s.cfg, dir: dir, start: time.Now(), cl: newV3Client(), ctx: ctx, cancel: cancel,
		inbox: make([][]*held, n), down: make([]bool, n), exited: make([]bool, n),
		ranks: map[string]int{}, lastPut: map[string]string{}, lastKey: "k0", nextValue: 1, dmu: make([]sync.Mutex, n),
		wake: make(chan struct{}, 1), lastFrom: make([]time.Time, n)}
	var lns []net.Listener
	real := make([]string, n)
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			for _, l := range lns {
				l.Close()
			}
			return nil, err
		}
		lns = append(lns, ln)
	}
	lo, hi := portRange()
	lease, err := reservePorts(PortDir(), 2*n, lo, hi)
	if err != nil {
		for _, l := range lns {
			l.Close()
		}
		return nil, err
	}
	e.lease = lease
	ports := lease.ports
	for i := range n {
		real[i] = "127.0.0.1:" + strconv.Itoa(ports[2*i])
		e.members = append(e.members, &member{name: "n" + strconv.Itoa(i+1), data: filepath.Join(dir, "n"+strconv.Itoa(i+1)),
			peer: real[i], client: "127.0.0.1:" + strconv.Itoa(ports[2*i+1]), proxyLn: lns[i], out: newMemberLog(s.fac.opts.OutputLimit)})
	}
	e.px = newProxy(lns, real, clusterToken, e)
	return e, nil
}

// clusterToken is every cluster's --initial-cluster-token.
const clusterToken = "modelfuzz"

func (e *execution) argv(i int) []string {
	m := e.members[i]
	var cluster []string
	for _, o := range e.members {
		cluster = append(cluster, o.name+"=http://"+o.proxyLn.Addr().String())
	}
	return []string{e.cfg.Binary,
		"--name", m.name, "--data-dir", m.data,
		"--listen-peer-urls", "http://" + m.peer,
		"--initial-advertise-peer-urls", "http://" + m.proxyLn.Addr().String(),
		"--listen-client-urls", "http://" + m.client, "--advertise-client-urls", "http://" + m.client,
		"--initial-cluster", strings.Join(cluster, ","), "--initial-cluster-state", "new",
		"--initial-cluster-token", clusterToken,
		"--heartbeat-interval", strconv.Itoa(e.cfg.HeartbeatMS), "--election-timeout", strconv.Itoa(e.cfg.ElectionMS),
		"--pre-vote=" + strconv.FormatBool(e.cfg.PreVote),
		"--logger", "zap", "--log-outputs", "stderr", "--log-level", "warn",
	}
}

func (e *execution) startMember(i int) error {
	m := e.members[i]
	if err := os.MkdirAll(m.data, 0o700); err != nil {
		return err
	}
	m.incarnated++
	m.out.mark(fmt.Sprintf("start %d", m.incarnated))
	p, err := osproc.Start(e.s.fac.reg, e.argv(i), os.Environ(), e.dir, m.out, m.out)
	if err != nil {
		return fmt.Errorf("starting %s: %w", e.cfg.Binary, err)
	}
	m.proc = p
	return nil
}

// bootstrap starts every member with the proxy delivering at once, and
// waits until each serves clients and agrees on what it applied.
func (e *execution) bootstrap() error {
	e.closeNet = e.startDispatch(true)
	for i := range e.members {
		if err := e.startMember(i); err != nil {
			return err
		}
	}
	wait := newPatience(time.Duration(e.cfg.StartTimeoutMS) * time.Millisecond)
	for i, m := range e.members {
		for {
			if ex, _ := m.proc.Exited(); ex {
				return fmt.Errorf("member %s exited while starting (%s): %s", m.name, m.proc.ExitStatus(), lastLines(m.out.String(), 5))
			}
			ctx, cancel := context.WithTimeout(e.ctx, time.Second)
			st, err := e.cl.status(ctx, m.client)
			cancel()
			if err == nil {
				if uint64(st.Header.MemberID) != e.px.ids[i] {
					return fmt.Errorf("member %s has ID %x, the proxy computed %x", m.name, uint64(st.Header.MemberID), e.px.ids[i])
				}
				break
			}
			if e.ctx.Err() != nil {
				return errors.New("interrupted")
			}
			if wait.expired() {
				return fmt.Errorf("member %s not serving clients (%s): %v", m.name, wait, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if _, err := e.converged(wait); err != nil {
		return err
	}
	e.closeNet()
	e.closeNet = nil
	return nil
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, " | ")
}

// converged waits until every live member reports the same leader,
// applied index and revision; it returns that revision.
func (e *execution) converged(wait *patience) (int64, error) {
	var last error
	timeout := make([]time.Duration, len(e.members))
	for {
		var sts []statusResp
		ok := true
		for i, m := range e.members {
			e.mu.Lock()
			down := e.down[i]
			e.mu.Unlock()
			if down {
				continue
			}
			if timeout[i] == 0 {
				timeout[i] = time.Second
			}
			ctx, cancel := context.WithTimeout(e.ctx, timeout[i])
			st, err := e.cl.status(ctx, m.client)
			cancel()
			if err != nil {
				ok = false
				last = &lateMember{name: m.name, err: err}
				if errors.Is(err, context.DeadlineExceeded) {
					// A starved member answers late: give it longer.
					timeout[i] = min(2*timeout[i], 8*time.Second)
				}
				break
			}
			sts = append(sts, st)
		}
		if ok && len(sts) > 0 {
			a := sts[0]
			same := a.Leader != 0
			for _, b := range sts[1:] {
				same = same && b.Leader == a.Leader && b.RaftAppliedIndex == a.RaftAppliedIndex && b.Header.Revision == a.Header.Revision
			}
			if same {
				return int64(a.Header.Revision), nil
			}
			var parts []string
			for k, b := range sts {
				parts = append(parts, fmt.Sprintf("#%d leader %x applied %d revision %d", k, uint64(b.Leader), b.RaftAppliedIndex, b.Header.Revision))
			}
			last = errors.New(strings.Join(parts, "; "))
		}
		if e.ctx.Err() != nil {
			return 0, errors.New("interrupted")
		}
		if wait.expired() {
			if last == nil {
				last = errors.New("no member is running")
			}
			return 0, fmt.Errorf("members did not agree: %w", last)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// lateMember is a member that did not answer its status call.
type lateMember struct {
	name string
	err  error
}

func (l *lateMember) Error() string { return l.name + ": " + l.err.Error() }
func (l *lateMember) Unwrap() error { return l.err }

// refused reports whether err says that nothing listens where a member
// should: the member is not there, however starved the machine.
func refused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }

// record appends an event of the current step.
func (e *execution) recordLocked(kind string, node, peer, msg int, typ string, args []schedule.Arg) {
	e.trace = append(e.trace, schedule.Event{Step: e.step, Kind: kind, Node: node, Peer: peer, Msg: msg, Type: typ, Args: args})
}

func (e *execution) record(kind string, node, peer, msg int, typ string, args []schedule.Arg) {
	e.mu.Lock()
	e.recordLocked(kind, node, peer, msg, typ, args)
	e.mu.Unlock()
}

func (e *execution) fail(f schedule.Failure) {
	e.mu.Lock()
	for _, g := range e.failures {
		if g.Signature == f.Signature {
			e.mu.Unlock()
			return
		}
	}
	e.failures = append(e.failures, f)
	e.mu.Unlock()
}

// cut implements wire.
func (e *execution) cut(a, b int) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.cutLocked(a, b)
}

func (e *execution) cutLocked(a, b int) bool {
	return e.part != 0 && e.part.Has(a) != e.part.Has(b)
}

// arrived implements wire: a message the proxy took off the wire.
func (e *execution) arrived(from, to int, m *raftpb.Message, snap *snapBody) {
	e.mu.Lock()
	if e.torn {
		e.mu.Unlock()
		if snap != nil {
			snap.drop()
		}
		return
	}
	e.nextMsg++
	h := &held{msg: e.nextMsg, from: from, to: to, m: m, snap: snap}
	e.recordLocked(schedule.EvSend, from, to, h.msg, msgType(m), e.msgArgs(from, m))
	if e.down[to] {
		e.recordLocked(schedule.EvDrop, to, from, h.msg, msgType(m), nil)
		e.mu.Unlock()
		if snap != nil {
			snap.drop()
		}
		return
	}
	e.inbox[to] = append(e.inbox[to], h)
	e.lastFrom[from] = time.Now()
	open := e.open
	e.mu.Unlock()
	if open {
		select {
		case e.wake <- struct{}{}:
		default:
		}
	}
}

// dispatch is the network while it is open (the cluster's start, and
// after the last step): one message at a time, the oldest first, each
// followed by a quiet moment in which what it caused reaches the proxy,
// so that the trace's order is the order things happened in. It returns
// when stop is closed or the execution ends.
func (e *execution) dispatch(stop <-chan struct{}, done chan<- struct{}, quiet bool) {
	defer close(done)
	for {
		select {
		case <-stop:
			return
		case <-e.ctx.Done():
			return
		default:
		}
		h := e.takeOldest()
		if h == nil {
			select {
			case <-stop:
				return
			case <-e.ctx.Done():
				return
			case <-e.wake:
			case <-time.After(5 * time.Millisecond):
			}
			continue
		}
		e.deliver(h)
		if quiet {
			e.waitQuiet(h.to, quietAfterDelivery, maxQuietWait)
		}
	}
}

// startDispatch opens the network; the function it returns closes it
// again and waits until the dispatcher stopped. With quiet, each delivery
// waits for the receiver's reaction (the cluster's start, which the model
// maps); without, messages go as fast as the members take them (after the
// last step, when the cluster must catch up for the final checks: the
// mapper leaves that phase out).
func (e *execution) startDispatch(quiet bool) func() {
	e.mu.Lock()
	e.open = true
	e.mu.Unlock()
	stop, done := make(chan struct{}), make(chan struct{})
	go e.dispatch(stop, done, quiet)
	return func() {
		close(stop)
		<-done
		e.mu.Lock()
		e.open = false
		e.mu.Unlock()
	}
}

// takeOldest removes and returns the oldest message that can be
// delivered, nil if none.
func (e *execution) takeOldest() *held {
	e.mu.Lock()
	defer e.mu.Unlock()
	bp, bi := -1, -1
	for p, hs := range e.inbox {
		for i, h := range hs {
			if e.cutLocked(h.from, p) {
				continue
			}
			if bp < 0 || h.msg < e.inbox[bp][bi].msg {
				bp, bi = p, i
			}
			break
		}
	}
	if bp < 0 {
		return nil
	}
	h := e.inbox[bp][bi]
	e.inbox[bp] = slices.Delete(e.inbox[bp], bi, bi+1)
	return h
}

// waitQuiet waits until no message from member p arrived for quiet, at
// most max: what p does with a message it was just given reaches the
// proxy before anything else is delivered.
func (e *execution) waitQuiet(p int, quiet, max time.Duration) {
	start := time.Now()
	for {
		e.mu.Lock()
		last := e.lastFrom[p]
		e.mu.Unlock()
		now := time.Now()
		if now.Sub(last) >= quiet || now.Sub(start) >= max || e.ctx.Err() != nil {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// deliver hands a held message to its receiver, recording its receipt
// (before: what the receiver does with it follows), or its loss when the
// receiver cannot take it.
func (e *execution) deliver(h *held) {
	// One delivery at a time per receiver: the order recorded is the
	// order raft takes them in (the proxy's streams deliver concurrently
	// while the network is open).
	e.dmu[h.to].Lock()
	defer e.dmu[h.to].Unlock()
	e.mu.Lock() // msgArgs names entries in e.ranks, which arrived writes
	e.recordLocked(schedule.EvRecv, h.to, h.from, h.msg, msgType(h.m), e.msgArgs(h.from, h.m))
	e.mu.Unlock()
	post := func() {
		if err := e.px.deliver(h.from, h.to, h.m, h.snap); err != nil {
			e.record(schedule.EvDrop, h.to, h.from, h.msg, msgType(h.m), []schedule.Arg{schedule.S("why", firstLine(err.Error()))})
			e.s.log.Debug("delivery failed", "to", h.to+1, "error", err)
		}
	}
	if h.m.GetType() != raftpb.MessageType_MsgProp {
		post()
		return
	}
	// A forwarded proposal waits in the receiver's raft until it knows a
	// leader (etcd's peer hands proposals to raft on a channel of their
	// own for that reason): it must not hold up the messages that would
	// elect one.
	e.async.Add(1)
	go func() {
		defer e.async.Done()
		post()
	}()
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func msgType(m *raftpb.Message) string { return m.GetType().String() }

// msgArgs are a message's fields in the Raft event vocabulary
// (schedule.RaftMessageArgs). Entries are "term:data": data empty for an
// empty entry, "conf" for a configuration change, else "v=<n>", n
// numbering the distinct entries of the execution in the order they were
// first seen (the trace keeps which entry is which, not etcd's requests).
func (e *execution) msgArgs(from int, m *raftpb.Message) []schedule.Arg {
	args := []schedule.Arg{
		schedule.I(schedule.ArgTerm, int64(m.GetTerm())), schedule.I(schedule.ArgLogTerm, int64(m.GetLogTerm())),
		schedule.I(schedule.ArgIndex, int64(m.GetIndex())), schedule.I(schedule.ArgCommit, int64(m.GetCommit())),
		schedule.I(schedule.ArgReject, b2i(m.GetReject())), schedule.I(schedule.ArgRejectHint, int64(m.GetRejectHint())),
	}
	if len(m.Entries) > 0 {
		var b strings.Builder
		for k, en := range m.Entries {
			if k > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatUint(en.GetTerm(), 10))
			b.WriteByte(':')
			b.WriteString(e.entryData(en))
		}
		args = append(args, schedule.S(schedule.ArgEntries, b.String()))
	} else {
		args = append(args, schedule.S(schedule.ArgEntries, ""))
	}
	switch m.GetType() {
	case raftpb.MessageType_MsgVote, raftpb.MessageType_MsgPreVote:
		args = append(args, schedule.I(schedule.ArgVote, int64(from)))
	case raftpb.MessageType_MsgSnap:
		md := m.GetSnapshot().GetMetadata()
		args = append(args, schedule.I(schedule.ArgSnapIndex, int64(md.GetIndex())), schedule.I(schedule.ArgSnapTerm, int64(md.GetTerm())))
	}
	return args
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// entryData names an entry's data (under e.mu).
func (e *execution) entryData(en *raftpb.Entry) string {
	switch {
	case en.GetType() != raftpb.EntryType_EntryNormal:
		return "conf"
	case len(en.Data) == 0:
		return ""
	}
	r, ok := e.ranks[string(en.Data)]
	if !ok {
		r = len(e.ranks) + 1
		e.ranks[string(en.Data)] = r
	}
	return "v=" + strconv.Itoa(r)
}
