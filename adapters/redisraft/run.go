package redisraft

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/modelfuzz/modelfuzz/internal/osproc"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// Bounds on waits. They only turn a hang into a failure: a step never
// waits for them to pass when things go well.
const (
	callTimeout  = 10 * time.Second // a command of the fuzzer to a node
	readyTimeout = 20 * time.Second // a node started until it is up and linked
	// relinkTimeout bounds the wait of a restart or a drop for the
	// connections that nodes open again by themselves (every
	// --reconnect-interval); it is below the execution timeout, so a link
	// that does not come back leaves the execution going on without it
	// (with a warning) instead of making it a hang.
	relinkTimeout = 3 * time.Second
	dialTimeout   = 2 * time.Second
	exitGrace     = 5 * time.Second // a node whose connection broke, until it is reaped
	outputLimit   = 256 << 10
	barrierPings  = 3
)

// run is one execution: the cluster's processes, their proxies, what the
// proxies hold, the trace. The step goroutine owns everything but the
// fields under mu, which the listeners' goroutines share.
type run struct {
	s     *System
	cfg   *Config
	ctx   context.Context
	dir   string
	t0    time.Time
	nodes []*node

	mu        sync.Mutex
	newLinks  []*link
	nextLink  int
	over      bool
	linkAdded *sync.Cond

	links    []*link
	pending  []*message
	step     int
	trace    schedule.Trace
	failures []schedule.Failure
	skipped  int
	nextMsg  int
	cut      schedule.ProcSet
	// known are the ordered pairs of nodes that have had a link in this
	// execution: in a cluster being formed, the links a restart or a
	// drop waits for.
	known map[[2]int]bool

	client clientState

	// gcovDirs are where the incarnations of the nodes wrote their
	// coverage counters (with a coverage build), units the lines they ran.
	gcovDirs []string
	units    []uint64
	coverErr error
}

// node is one Redis server with the module, over its incarnations.
type node struct {
	index int
	port  int    // its Redis port
	pport int    // its proxy's port (the address it advertises)
	dir   string // its data directory
	out   *osproc.Output
	proc  *osproc.Proc // nil while down
	pid   int          // proc's pid, under run.mu (the listeners read it)
	ctl   *ctl
	ln    net.Listener
	info  nodeInfo // as last recorded
	boot  int
	gcov  string // the incarnation's directory of coverage counters (coverage build)
}

func (n *node) up() bool { return n.proc != nil }

func (n *node) addr() string { return "127.0.0.1:" + strconv.Itoa(n.port) }

// record appends an event of the current step.
func (r *run) record(kind string, node, peer, msg int, typ string, args []schedule.Arg) {
	r.trace = append(r.trace, schedule.Event{Step: r.step, Kind: kind, Node: node, Peer: peer, Msg: msg, Type: typ, Args: args})
}

// fail records a failure, once per signature and execution.
func (r *run) fail(kind schedule.FailureKind, sig, msg, detail string) {
	for _, f := range r.failures {
		if f.Signature == sig {
			return
		}
	}
	r.failures = append(r.failures, schedule.Failure{Kind: kind, Signature: sig, Message: msg, Step: r.step, Detail: detail})
}

// argv is node n's command line.
func (r *run) argv(n *node) []string {
	args := []string{r.cfg.RedisServer,
		"--port", strconv.Itoa(n.port), "--bind", "127.0.0.1",
		"--dir", n.dir, "--dbfilename", "raft.rdb",
		// RedisRaft's Deployment.md: no RDB saves, no AOF, one database.
		"--save", "", "--appendonly", "no", "--databases", "1",
		"--loglevel", "notice", "--logfile", "",
		// A crash report without its memory test: it would take seconds.
		"--crash-memcheck-enabled", "no",
		"--loadmodule", r.cfg.module(),
	}
	return append(args, r.cfg.moduleArgs(n.index, "127.0.0.1:"+strconv.Itoa(n.pport))...)
}

// The states start waits for, beside INFO raft's own ("up").
const (
	stateAny     = ""        // any: the port answers INFO raft
	stateSettled = "settled" // anything but "loading" (up, or uninitialized before it joined)
)

// start starts a new incarnation of n and waits until its Redis port
// answers and INFO raft says state.
func (r *run) start(n *node, state string) error {
	n.boot++
	if n.boot > 1 {
		n.out.Mark("restart")
	}
	env := os.Environ()
	if r.cfg.CoverModule != "" {
		n.gcov = filepath.Join(r.dir, "gcov", "n"+strconv.Itoa(n.index+1)+"-"+strconv.Itoa(n.boot))
		if err := os.MkdirAll(n.gcov, 0o755); err != nil {
			return err
		}
		r.mu.Lock()
		r.gcovDirs = append(r.gcovDirs, n.gcov)
		r.mu.Unlock()
		env = append(env, coverEnv(n.gcov)...)
	}
	p, err := osproc.Start(r.s.fac.reg, r.argv(n), env, n.dir, n.out.Stdout, n.out.Stderr)
	if err != nil {
		return fmt.Errorf("n%d: starting redis-server: %w", n.index+1, err)
	}
	r.mu.Lock()
	n.proc, n.pid = p, p.Pgid()
	r.mu.Unlock()
	deadline := time.Now().Add(readyTimeout)
	for {
		if exited, _ := p.Exited(); exited {
			return fmt.Errorf("n%d exited while starting (%s)", n.index+1, p.ExitStatus())
		}
		if n.ctl == nil {
			if k, err := dialCtl(n.addr(), dialTimeout); err == nil {
				n.ctl = k
			}
		}
		if n.ctl != nil {
			v, err := n.ctl.do(callTimeout, "INFO", "raft")
			if err != nil {
				n.ctl.close()
				n.ctl = nil
			} else if in, err := parseInfo(string(v.str)); err == nil && (state == stateAny || in.State == state ||
				state == stateSettled && in.State != "loading") {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("n%d was not up within %v", n.index+1, readyTimeout)
		}
		select {
		case <-r.ctx.Done():
			return r.ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// listen opens n's proxy, unless it is still open from before a crash.
func (r *run) listen(n *node) error {
	if n.ln != nil {
		return nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(n.pport))
	if err != nil {
		return fmt.Errorf("n%d's proxy: %w", n.index+1, err)
	}
	n.ln = ln
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go r.accepted(n.index, c)
		}
	}()
	return nil
}

// stop kills n (SIGKILL to its process group) and closes its proxy, at
// the end of an execution.
func (r *run) stop(n *node) {
	if n.ln != nil {
		_ = n.ln.Close()
		n.ln = nil
	}
	r.kill(n)
}

// kill kills n (SIGKILL to its process group) and keeps its proxy
// listening, so that no other process takes the port its peers know
// before it restarts: a peer's connection is accepted and closed at once
// (the proxy cannot reach n's Redis port), and the peer tries again.
func (r *run) kill(n *node) {
	n.ctl.close()
	n.ctl = nil
	if n.proc != nil {
		r.dumpCounters(n)
		n.proc.Kill()
	}
	r.mu.Lock()
	n.proc, n.pid = nil, 0
	r.mu.Unlock()
}

// down handles the links of a node that is gone: what was on its way to
// it is lost, what it sent still arrives.
func (r *run) down(p int) {
	r.pump()
	for _, l := range slices.Clone(r.links) {
		if l.to == p {
			r.sideClosed(l, true)
		}
		if l.from == p {
			r.sideClosed(l, false)
		}
	}
}

// linked waits until every pair of live nodes is joined by a link in each
// direction (a node connects to its peers by itself, after its
// reconnect interval).
func (r *run) linked(deadline time.Time) error {
	for {
		r.pump()
		missing := r.missingLinks()
		if len(missing) == 0 {
			// Each node has read its AUTH replies by the time it answers.
			for _, n := range r.nodes {
				r.barrier(n)
			}
			r.pump()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not connected in time: %v", missing)
		}
		select {
		case <-r.ctx.Done():
			return r.ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
}

func (r *run) missingLinks() []string {
	var missing []string
	for _, a := range r.nodes {
		for _, b := range r.nodes {
			if a == b || !a.up() || !b.up() || r.cfg.forming() && !r.known[[2]int{a.index, b.index}] {
				// A cluster being formed: a node connects to the peers
				// its log names, which it may not know yet.
				continue
			}
			if !slices.ContainsFunc(r.links, func(l *link) bool {
				// A link whose server side is gone but that still holds
				// replies for a is, to a, a live connection: a reconnects
				// once they are delivered or lost and the proxy closes it.
				return l.from == a.index && l.to == b.index && l.clientUp && (l.serverUp || len(l.replies) > 0) && !l.copyOnly && l.authed
			}) {
				missing = append(missing, fmt.Sprintf("n%d->n%d", a.index+1, b.index+1))
			}
		}
	}
	return missing
}

// barrier returns once node n has handled everything it received before
// the call and written what that made it send: a few PINGs in a row on
// the fuzzer's own connection (Redis handles its connections in one loop
// and writes replies at the end of each pass, after the writes that
// RedisRaft's hiredis connections queued in that pass). It reports false
// when n did not answer (it exited; reapExits then records it).
func (r *run) barrier(n *node) bool {
	if !n.up() || n.ctl == nil {
		return false
	}
	for i := 0; i < barrierPings; i++ {
		if _, err := n.ctl.do(callTimeout, "PING"); err != nil {
			r.lost(n, err)
			return false
		}
	}
	return true
}

// lost handles a node that broke the fuzzer's connection: if it is dying
// its exit belongs to this step; if it is alive and silent, it hung.
func (r *run) lost(n *node, err error) {
	select {
	case <-n.proc.Done():
	case <-time.After(exitGrace):
	}
	if exited, _ := n.proc.Exited(); exited {
		r.reapExits()
		return
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		r.fail(schedule.FailureUnresponsive, "unresponsive: n"+strconv.Itoa(n.index+1),
			fmt.Sprintf("n%d did not answer PING within %v", n.index+1, callTimeout), "")
	}
}

// reapExits records the nodes that exited by themselves: an exit event
// and a failure named by what the node's log says.
func (r *run) reapExits() {
	for _, n := range r.nodes {
		if n.proc == nil {
			continue
		}
		exited, killed := n.proc.Exited()
		if !exited || killed {
			continue
		}
		status := n.proc.ExitStatus()
		r.kill(n)
		r.record(schedule.EvExit, n.index, -1, 0, schedule.EvExit, []schedule.Arg{schedule.S(argStatus, status)})
		log := n.out.Stdout.Kept() + n.out.Stderr.Kept()
		sig, msg := crashSignature(log)
		if sig == "" {
			sig, msg = "exit: "+status, fmt.Sprintf("n%d exited by itself (%s)", n.index+1, status)
		} else {
			msg = fmt.Sprintf("n%d: %s", n.index+1, msg)
		}
		r.fail(schedule.FailureExit, sig, msg, crashReport(log))
		r.down(n.index)
	}
}

// settle gives the nodes that may act the time to finish: a barrier at
// each, then what they sent is read; then, while one of them writes a
// snapshot (a child process of its own), the step waits for it.
func (r *run) settle(ps ...int) {
	for _, p := range ps {
		r.barrier(r.nodes[p])
	}
	r.pump()
	for _, p := range ps {
		r.awaitSnapshot(r.nodes[p])
	}
}

// awaitSnapshot waits while n writes a snapshot.
func (r *run) awaitSnapshot(n *node) {
	deadline := time.Now().Add(callTimeout)
	for n.up() && n.ctl != nil {
		in, ok := r.info(n)
		if !ok || !in.Snapping {
			return
		}
		if time.Now().After(deadline) {
			r.fail(schedule.FailureUnresponsive, "unresponsive: snapshot", fmt.Sprintf("n%d was still writing a snapshot after %v", n.index+1, callTimeout), "")
			return
		}
		time.Sleep(2 * time.Millisecond)
		r.barrier(n)
		r.pump()
	}
}

// info asks n for INFO raft.
func (r *run) info(n *node) (nodeInfo, bool) {
	if !n.up() || n.ctl == nil {
		return nodeInfo{}, false
	}
	v, err := n.ctl.do(callTimeout, "INFO", "raft")
	if err != nil {
		r.lost(n, err)
		return nodeInfo{}, false
	}
	in, err := parseInfo(string(v.str))
	if err != nil {
		r.s.log.Warn("INFO raft unreadable", "node", n.index+1, "error", err)
		return nodeInfo{}, false
	}
	return in, true
}

// poll asks n for its state and records a state event when it changed
// since the last one.
func (r *run) poll(n *node) {
	in, ok := r.info(n)
	if !ok || in == n.info {
		return
	}
	n.info = in
	r.record(EvState, n.index, -1, 0, in.Role, in.args())
}

// EvState is the kind of the event that records a node's state
// (schedule.RREvState).
const EvState = schedule.RREvState

// process is the process of RedisRaft node id id, -1 for none (INFO
// raft's -1 or 0).
func process(id int64) int64 {
	if id <= 0 {
		return -1
	}
	return id - 1
}

func (in nodeInfo) args() []schedule.Arg {
	return []schedule.Arg{
		schedule.I(schedule.ArgTerm, in.Term), schedule.I(schedule.ArgVote, process(in.Vote)), schedule.I(ArgLeader, process(in.Leader)),
		schedule.I(schedule.ArgIndex, in.Index), schedule.I(schedule.ArgCommit, in.Commit), schedule.I(argApplied, in.Applied),
		schedule.I(schedule.ArgSnapIndex, in.SnapIndex), schedule.I(schedule.ArgSnapTerm, in.SnapTerm), schedule.I(argVoters, in.Voters),
	}
}

// Args of the adapter's own events.
const (
	argApplied = schedule.RRArgApplied
	argVoters  = schedule.RRArgVoters
	argStatus  = "status" // how a node exited; a client answer's outcome
)

// newRunDir makes the execution's data directories.
func (r *run) makeDirs(template string) error {
	for _, n := range r.nodes {
		n.dir = filepath.Join(r.dir, "n"+strconv.Itoa(n.index+1))
		if err := os.MkdirAll(n.dir, 0o755); err != nil {
			return err
		}
		if template == "" {
			continue
		}
		src := filepath.Join(template, "n"+strconv.Itoa(n.index+1))
		ents, err := os.ReadDir(src)
		if err != nil {
			return fmt.Errorf("template: %w", err)
		}
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join(src, e.Name()))
			if err != nil {
				return fmt.Errorf("template: %w", err)
			}
			if err := os.WriteFile(filepath.Join(n.dir, e.Name()), b, 0o600); err != nil {
				return err
			}
		}
	}
	return nil
}
