package redisraft

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/modelfuzz/modelfuzz/internal/osproc"
	"github.com/modelfuzz/modelfuzz/linearize"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// Options are the settings of a factory that do not change what an
// execution does.
type Options struct {
	// Logger receives the adapter's complaints and, at debug level, the
	// nodes' lifecycle. Default: discard.
	Logger hclog.Logger
	// StateDir holds the registry of running process groups and the
	// executions' data directories. Default:
	// os.TempDir()/modelfuzz-redisraft.
	StateDir string
}

// DefaultStateDir is the state directory when Options.StateDir is empty.
func DefaultStateDir() string { return filepath.Join(os.TempDir(), "modelfuzz-redisraft") }

// Factory makes Systems of one cluster configuration. It is safe for
// concurrent use; its Systems are independent (each its own ports,
// processes and directories). Close closes them all.
type Factory struct {
	cfg  Config
	opts Options
	reg  *osproc.Registry
	spec *schedule.SystemSpec

	mu      sync.Mutex
	systems map[*System]bool
	closed  bool
}

// Actions are the actions the adapter runs (docs/redisraft.md).
var Actions = []schedule.Action{schedule.Deliver, schedule.Crash, schedule.Restart, schedule.Timeout, schedule.Request,
	schedule.Drop, schedule.Duplicate, schedule.DeliverOne, schedule.Partition, schedule.Heal, schedule.TransferLeader, schedule.Tick}

// NewFactory checks cfg and returns its factory. It first kills the
// processes and removes the directories that fuzzers killed before they
// could clean up left in the state directory.
func NewFactory(cfg Config, opts Options) (*Factory, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Start == StartTemplate {
		cfg.Start = "" // stored as campaigns before the setting were
	}
	if err := CheckBinaries(cfg.RedisServer, cfg.Module); err != nil {
		return nil, err
	}
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	if opts.StateDir == "" {
		opts.StateDir = DefaultStateDir()
	}
	reg, err := osproc.OpenRegistry(opts.StateDir)
	if err != nil {
		return nil, err
	}
	names := make([]string, cfg.Nodes)
	for p := range names {
		names[p] = "n" + strconv.Itoa(p+1)
	}
	spec := &schedule.SystemSpec{Name: "redisraft", Processes: cfg.Nodes, Actions: Actions, ProcessNames: names,
		ProcessArgs: []string{schedule.ArgVote, ArgLeader, ArgNode}}
	return &Factory{cfg: cfg, opts: opts, reg: reg, spec: spec, systems: map[*System]bool{}}, nil
}

// FactoryFromConfig rebuilds a factory from Factory.Config.
func FactoryFromConfig(raw json.RawMessage, opts Options) (*Factory, error) {
	var cfg Config
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return nil, fmt.Errorf("redisraft: stored configuration: %w", err)
	}
	return NewFactory(cfg, opts)
}

// Cfg is the factory's configuration.
func (f *Factory) Cfg() Config { return f.cfg }

// Spec implements schedule.Factory.
func (f *Factory) Spec() *schedule.SystemSpec { return f.spec }

// Config implements schedule.Factory.
func (f *Factory) Config() json.RawMessage { return f.cfg.configJSON() }

// New implements schedule.Factory.
func (f *Factory) New() (schedule.System, error) { return f.NewSystem() }

// NewSystem is New with the concrete type. The System must be closed.
func (f *Factory) NewSystem() (*System, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, errors.New("redisraft: New on a closed factory")
	}
	dir, err := f.reg.NewRunDir()
	if err != nil {
		return nil, err
	}
	s := &System{fac: f, cfg: &f.cfg, spec: f.spec, log: f.opts.Logger.Named("redisraft"), runDir: dir}
	f.systems[s] = true
	return s, nil
}

// Close closes every System the factory made and releases the state
// directory.
func (f *Factory) Close() error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil
	}
	f.closed = true
	var systems []*System
	for s := range f.systems {
		systems = append(systems, s)
	}
	f.mu.Unlock()
	var errs []error
	for _, s := range systems {
		errs = append(errs, s.Close())
	}
	f.reg.Release()
	return errors.Join(errs...)
}

// System runs inputs on one RedisRaft cluster: its own ports, its
// processes (started afresh for every execution), its directories. It is
// used by one goroutine at a time (Interrupt excepted).
type System struct {
	fac    *Factory
	cfg    *Config
	spec   *schedule.SystemSpec
	log    hclog.Logger
	runDir string

	execMu sync.Mutex
	closed bool
	seq    int
	// ports are each node's Redis port and its proxy's, fixed while the
	// template (a cluster formed by RAFT.CLUSTER INIT and JOIN, whose log
	// holds the proxies' addresses) is in use.
	ports    [][2]int
	template string

	cancelMu sync.Mutex
	cancel   context.CancelFunc
	ending   bool // End has begun (cancelMu)

	cur     *stepping
	lastErr error
	history linearize.History
	outputs []Output
}

// stepping is one execution driven step by step.
type stepping struct {
	r      *run
	ctx    context.Context
	cancel context.CancelFunc
	steps  int
	err    error
}

var (
	_ schedule.Stepper       = (*System)(nil)
	_ schedule.Interruptible = (*System)(nil)
	_ schedule.HarnessErr    = (*System)(nil)
)

// Spec implements schedule.System.
func (s *System) Spec() *schedule.SystemSpec { return s.spec }

// Interrupt implements schedule.Interruptible.
func (s *System) Interrupt() {
	s.cancelMu.Lock()
	defer s.cancelMu.Unlock()
	if s.cancel != nil {
		s.cancel()
	}
}

// Close interrupts a running execution, waits for it and removes the
// System's directories.
func (s *System) Close() error {
	s.Interrupt()
	if !s.lockWithin(abandonAfter) {
		// An execution begun and never ended (its caller gave up between
		// Begin and End, e.g. a failed test): end it here, which stops its
		// nodes and releases the lock, rather than wait for ever.
		s.cancelMu.Lock()
		o := s.cur
		abandoned := o != nil && !s.ending
		if abandoned {
			s.ending = true
		}
		s.cancelMu.Unlock()
		if abandoned {
			s.log.Warn("closing a system whose execution was begun and never ended")
			s.end(o)
		}
		s.execMu.Lock()
	}
	defer s.execMu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.fac.mu.Lock()
	delete(s.fac.systems, s)
	s.fac.mu.Unlock()
	return os.RemoveAll(s.runDir)
}

// abandonAfter is how long Close waits for an interrupted execution to
// end before it ends it itself.
var abandonAfter = 30 * time.Second

// lockWithin takes execMu if it is free within d.
func (s *System) lockWithin(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for !s.execMu.TryLock() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

// Output is what one node printed during an execution (restarts marked).
type Output struct {
	Process int    `json:"process"`
	Stdout  string `json:"stdout"`
	Stderr  string `json:"stderr"`
}

// History is the client history of the last execution.
func (s *System) History() linearize.History { return s.history }

// Outputs is what every node printed during the last execution.
func (s *System) Outputs() []Output { return s.outputs }

// Execute implements schedule.System.
func (s *System) Execute(in *schedule.Input) (*schedule.Execution, error) {
	if err := in.Validate(s.spec); err != nil {
		return nil, err
	}
	ex := schedule.RunSteps(s, in)
	if err := s.Err(); err != nil {
		return nil, err
	}
	return ex, nil
}

// Err implements schedule.HarnessErr: the cluster of the last execution
// did not start.
func (s *System) Err() error { return s.lastErr }

// Begin implements schedule.Stepper: it starts the cluster from its
// template, every node a follower in the template's term with the same
// log, linked to every other through the proxies, nothing in flight.
func (s *System) Begin() {
	s.execMu.Lock()
	o := &stepping{}
	s.cancelMu.Lock()
	s.cur = o
	s.cancelMu.Unlock()
	if s.closed {
		o.err = errors.New("redisraft: Execute on a closed System")
		return
	}
	o.ctx, o.cancel = context.WithCancel(context.Background())
	s.cancelMu.Lock()
	s.cancel = o.cancel
	s.cancelMu.Unlock()
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		switch {
		case s.cfg.forming() && s.ports == nil:
			if err = s.choosePorts(); err != nil {
				continue
			}
		case !s.cfg.forming() && s.template == "":
			if err = s.makeTemplate(o.ctx); err != nil {
				continue
			}
		}
		var r *run
		r, err = s.begin(o.ctx)
		if err == nil {
			o.r = r
			return
		}
		if o.ctx.Err() != nil {
			break
		}
		// A port taken meanwhile, most likely: new ports, new template.
		s.log.Debug("cluster did not start; new ports", "attempt", attempt+1, "error", err)
		s.template, s.ports = "", nil
	}
	if o.ctx.Err() == nil {
		o.err = err
	}
}

func (s *System) newRun(ctx context.Context, dir string) *run {
	r := &run{s: s, cfg: s.cfg, ctx: ctx, dir: dir, t0: time.Now()}
	r.linkAdded = sync.NewCond(&r.mu)
	r.client.ctx, r.client.cancel = context.WithCancel(ctx)
	for i := 0; i < s.cfg.Nodes; i++ {
		r.nodes = append(r.nodes, &node{index: i, port: s.ports[i][0], pport: s.ports[i][1], out: osproc.NewOutput(outputLimit)})
	}
	return r
}

// begin starts one execution's cluster.
func (s *System) begin(ctx context.Context) (*run, error) {
	s.seq++
	dir := filepath.Join(s.runDir, strconv.Itoa(s.seq))
	r := s.newRun(ctx, dir)
	if s.cfg.forming() {
		return r, r.beginForming()
	}
	err := r.startNodes(s.template, "up")
	if err == nil {
		err = r.linked(time.Now().Add(readyTimeout))
	}
	if err != nil {
		r.teardown()
		return nil, err
	}
	for _, n := range r.nodes {
		in, ok := r.info(n)
		if !ok {
			r.teardown()
			return nil, fmt.Errorf("n%d: INFO raft failed at start", n.index+1)
		}
		n.info = in
		// The initial state, before the first step: a mapper reads the
		// template's term and log from it.
		r.record(EvState, n.index, -1, 0, in.Role, in.args())
	}
	r.pump()
	return r, nil
}

// Step implements schedule.Stepper.
func (s *System) Step(st schedule.Step) bool {
	o := s.cur
	if o.r == nil || o.ctx.Err() != nil {
		return false
	}
	// Answers read in the background record the step they arrived in.
	o.r.client.mu.Lock()
	o.r.step = o.steps
	o.r.client.mu.Unlock()
	o.r.runStep(st)
	o.steps++
	return o.ctx.Err() == nil
}

// Trace implements schedule.Stepper.
func (s *System) Trace() schedule.Trace {
	if o := s.cur; o != nil && o.r != nil {
		return o.r.trace
	}
	return nil
}

// Pending implements schedule.Stepper: the messages each live node can be
// handed now, each with the steps that deliver, drop and copy it.
func (s *System) Pending(dst []schedule.Enabled) []schedule.Enabled {
	o := s.cur
	if o == nil || o.r == nil {
		return dst
	}
	r := o.r
	r.pump()
	for _, n := range r.nodes {
		if !n.up() {
			continue
		}
		all := r.inbox(n.index, false)
		var reqs []*message
		for _, m := range all {
			if !m.reply {
				reqs = append(reqs, m)
			}
		}
		for k, m := range r.inbox(n.index, true) {
			e := schedule.Enabled{ID: m.id, Kind: schedule.KindRecv, Process: n.index, From: m.from, Type: m.typ, K: k + 1,
				Step: schedule.Step{Process: n.index, Action: schedule.DeliverOne, K: k + 1}}
			for i, x := range all {
				if x == m {
					e.DropStep = schedule.Step{Process: n.index, Action: schedule.Drop, K: i + 1}
				}
			}
			for i, x := range reqs {
				if x == m {
					e.DupStep = schedule.Step{Process: n.index, Action: schedule.Duplicate, K: i + 1}
				}
			}
			dst = append(dst, e)
		}
	}
	return dst
}

// End implements schedule.Stepper: it stops the cluster and checks the
// execution.
func (s *System) End() *schedule.Execution {
	s.cancelMu.Lock()
	if s.ending || s.cur == nil { // Close is ending an abandoned execution, or none was begun
		s.cancelMu.Unlock()
		return &schedule.Execution{}
	}
	s.ending = true
	o := s.cur
	s.cancelMu.Unlock()
	return s.end(o)
}

// end stops the cluster of o and checks the execution; it releases the
// lock Begin took.
func (s *System) end(o *stepping) *schedule.Execution {
	defer func() {
		s.cancelMu.Lock()
		s.cur, s.lastErr = nil, o.err
		s.cancel, s.ending = nil, false
		s.cancelMu.Unlock()
		if o.cancel != nil {
			o.cancel()
		}
		s.execMu.Unlock()
	}()
	if o.r == nil {
		return &schedule.Execution{}
	}
	ex := o.r.finish(o.steps)
	if o.err == nil {
		o.err = o.r.coverErr // a harness error: the execution is not recorded
	}
	return ex
}

// drain is how long the end of an execution waits for answers to client
// operations still open (most wait for commits that no step will cause).
const drain = 50 * time.Millisecond

// finish ends an execution: the last answers, the cluster stopped, the
// oracles.
func (r *run) finish(steps int) *schedule.Execution {
	if r.ctx.Err() == nil {
		done := make(chan struct{})
		go func() { r.client.wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(drain):
		}
	}
	r.teardown()
	if r.ctx.Err() == nil {
		r.responses(steps)
	} else {
		r.responses(r.step)
	}
	outs := make([]Output, len(r.nodes))
	for i, n := range r.nodes {
		outs[i] = Output{Process: i, Stdout: n.out.Stdout.String(), Stderr: n.out.Stderr.String()}
	}
	h := r.history()
	r.s.history, r.s.outputs = h, outs
	r.checkLeaders()
	if f := linearize.Check(h, steps); f != nil {
		f.Detail = linearize.Detail(h)
		r.failures = append(r.failures, *f)
	}
	detail := outputDetail(outs)
	for i := range r.failures {
		r.failures[i].Detail += detail
	}
	return &schedule.Execution{Trace: r.trace, Failures: r.failures, Skipped: r.skipped, Units: r.units}
}

// teardown stops the client operations, every node and proxy, and removes
// the execution's directory.
func (r *run) teardown() {
	r.client.cancel()
	r.client.wg.Wait()
	r.client.mu.Lock()
	for _, c := range r.client.extra {
		_ = c.Close()
	}
	r.client.mu.Unlock()
	r.mu.Lock()
	r.over = true
	r.mu.Unlock()
	var wg sync.WaitGroup
	for _, n := range r.nodes {
		wg.Add(1)
		go func() { defer wg.Done(); r.stop(n) }()
	}
	wg.Wait()
	for _, l := range r.links {
		if l.client != nil {
			_ = l.client.Close()
		}
		if l.server != nil {
			_ = l.server.Close()
		}
	}
	r.mu.Lock()
	for _, l := range r.newLinks {
		_ = l.client.Close()
		_ = l.server.Close()
	}
	r.newLinks = nil
	r.mu.Unlock()
	if r.cfg.CoverModule != "" && r.ctx.Err() == nil {
		var err error
		if r.units, err = r.coveredLines(); err != nil {
			r.coverErr = fmt.Errorf("redisraft: line coverage: %w", err)
		}
	}
	if err := os.RemoveAll(r.dir); err != nil {
		r.s.log.Warn("cannot remove the execution's directory", "dir", r.dir, "error", err)
	}
}

// checkLeaders is the oracle on the nodes' own states: two nodes never
// lead in one term.
func (r *run) checkLeaders() {
	leaders := map[int64]int{}
	for _, e := range r.trace {
		if e.Kind != EvState || e.Type != "leader" {
			continue
		}
		t, _ := argInt(&e, schedule.ArgTerm)
		if q, ok := leaders[t]; ok && q != e.Node {
			r.step = e.Step
			r.fail(schedule.FailureSafety, "safety: two leaders in one term",
				fmt.Sprintf("n%d and n%d were both leaders of term %d", q+1, e.Node+1, t), "")
			return
		}
		leaders[t] = e.Node
	}
}

func argInt(e *schedule.Event, key string) (int64, bool) {
	for _, a := range e.Args {
		if a.Key == key && !a.IsStr {
			return a.Int, true
		}
	}
	return 0, false
}

func outputDetail(outs []Output) string {
	var b strings.Builder
	b.WriteString("\nnode output:\n")
	for _, o := range outs {
		for _, s := range []struct{ name, text string }{{"stdout", o.Stdout}, {"stderr", o.Stderr}} {
			fmt.Fprintf(&b, "== n%d %s ==\n", o.Process+1, s.name)
			b.WriteString(s.text)
			if s.text != "" && !strings.HasSuffix(s.text, "\n") {
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

// freePorts finds n distinct free ports on loopback below the kernel's
// ephemeral range: a port a crashed node's proxy gives up must still be
// free at its restart, and any outgoing connection (the proxy's own, the
// nodes') could take a port of the ephemeral range meanwhile.
func freePorts(n int) ([]int, error) {
	lo := ephemeralLow()
	const floor = 10000
	if lo-floor < 4*n {
		return nil, fmt.Errorf("choosing free ports: the kernel's ephemeral range starts at %d, leaving no room below it", lo)
	}
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			_ = ln.Close()
		}
	}()
	var ports []int
	start := floor + rand.IntN(lo-floor)
	for k := 0; k < lo-floor && len(ports) < n; k++ {
		port := floor + (start-floor+k)%(lo-floor)
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			continue
		}
		lns = append(lns, ln)
		ports = append(ports, port)
	}
	if len(ports) < n {
		return nil, fmt.Errorf("choosing free ports: fewer than %d free between %d and %d", n, floor, lo)
	}
	return ports, nil
}

// ephemeralLow is the first port of the kernel's ephemeral range
// (Linux's default when it cannot be read).
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if lo, err := strconv.Atoi(f[0]); err == nil && lo > 0 {
				return lo
			}
		}
	}
	return 32768
}

// startNodes makes the execution's data directories (copies of template's,
// or empty when template is ""), opens each node's proxies and starts
// every node, all at once: each waits for its own Redis port and log
// (about 20 ms a node, most of it loading the log) until it answers in
// state, none for another (a node connects to a peer's proxy, which stays
// open).
func (r *run) startNodes(template, state string) error {
	err := r.makeDirs(template)
	for _, n := range r.nodes {
		if err != nil {
			return err
		}
		err = r.listen(n)
	}
	if err != nil {
		return err
	}
	errs := make([]error, len(r.nodes))
	var wg sync.WaitGroup
	for i, n := range r.nodes {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = r.start(n, state) }()
	}
	wg.Wait()
	return errors.Join(errs...)
}
