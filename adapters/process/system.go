package process

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelfuzz/modelfuzz/linearize"

	"github.com/hashicorp/go-hclog"

	"github.com/modelfuzz/modelfuzz/internal/osproc"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// System runs inputs on a cluster of OS processes. It is used by one
// goroutine at a time (Interrupt excepted). Callers must Close it (or the
// Factory) when done: an execution stops all its processes when it ends,
// but the System's run directory stays until Close.
type System struct {
	fac    *Factory
	cl     *Cluster
	spec   *schedule.SystemSpec
	log    hclog.Logger
	runDir string

	execMu sync.Mutex // held by Execute and Close
	closed bool
	seq    int         // executions run
	noIdle atomic.Bool // the replicas answered POST /idle with 404

	cancelMu sync.Mutex
	cancel   context.CancelFunc // of the running execution

	// Of the last execution.
	history History
	outputs []Output

	// cur is the execution Begin started, until End; lastErr the harness's
	// failure in the last one (Err).
	cur     *stepping
	lastErr error
}

// stepping is one execution driven step by step (Begin, Step, End).
type stepping struct {
	e      *execution // nil when the cluster did not start
	ctx    context.Context
	cancel context.CancelFunc
	steps  int   // steps run
	err    error // the harness failed (Err)
}

var (
	_ schedule.Interruptible = (*System)(nil)
	_ schedule.Stepper       = (*System)(nil)
)

// Spec implements schedule.System.
func (s *System) Spec() *schedule.SystemSpec { return s.spec }

// Interrupt implements schedule.Interruptible: the running Execute stops
// its current step, stops the cluster and returns the trace so far.
func (s *System) Interrupt() {
	s.cancelMu.Lock()
	defer s.cancelMu.Unlock()
	if s.cancel != nil {
		s.cancel()
	}
}

// Close interrupts a running execution, waits for it to end and removes
// the System's directories. Closing twice is harmless.
func (s *System) Close() error {
	s.Interrupt()
	s.execMu.Lock()
	defer s.execMu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.fac.forget(s)
	return os.RemoveAll(s.runDir)
}

// History returns the client history of the last execution (valid until
// the next Execute).
func (s *System) History() History { return s.history }

// Output returns what each replica printed during the last execution.
func (s *System) Output() []Output { return s.outputs }

// startAttempts is how often an execution tries to start its cluster: a
// replica that cannot bind the port it was given (taken by someone else
// since it was chosen) exits, and a new set of ports usually works.
const startAttempts = 3

// Execute implements schedule.System: it starts the cluster on fresh data
// directories, runs the steps and stops every process. It is Begin, Step
// for every step, End, as an online strategy drives the system.
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

// Begin implements schedule.Stepper: it starts the cluster. A cluster that
// does not start is the harness's failure (Err); the steps then do nothing.
// Begin holds the System until End.
func (s *System) Begin() {
	s.execMu.Lock()
	o := &stepping{}
	s.cur = o
	if s.closed {
		o.err = errors.New("process: Execute on a closed System")
		return
	}
	o.ctx, o.cancel = context.WithCancel(context.Background())
	s.cancelMu.Lock()
	s.cancel = o.cancel
	s.cancelMu.Unlock()
	e, err := s.begin(o.ctx)
	if err != nil && o.ctx.Err() == nil {
		o.err = err
	}
	o.e = e // nil on an error, or interrupted while starting
}

// Step implements schedule.Stepper: it runs one step; false once the
// execution was interrupted (or never started).
func (s *System) Step(st schedule.Step) bool {
	o := s.cur
	if o.e == nil || o.ctx.Err() != nil {
		return false
	}
	o.e.runStep(o.steps, st)
	o.steps++
	return o.ctx.Err() == nil
}

// Pending implements schedule.Stepper: the first message of every live
// replica's inbox (the fuzzer holds every message a replica sends; the
// adapter delivers in arrival order), each delivered by a deliver(1) step.
func (s *System) Pending(dst []schedule.Enabled) []schedule.Enabled {
	o := s.cur
	if o == nil || o.e == nil {
		return dst
	}
	e := o.e
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, r := range e.reps {
		if r.proc == nil || len(r.inbox) == 0 {
			continue
		}
		m := r.inbox[0]
		dst = append(dst, schedule.Enabled{ID: m.id, Kind: schedule.KindRecv, Process: r.index, From: m.from, Type: m.typ,
			K: 1, Step: schedule.Step{Process: r.index, Action: schedule.Deliver, Messages: 1}})
	}
	return dst
}

// Trace implements schedule.Stepper.
func (s *System) Trace() schedule.Trace {
	o := s.cur
	if o == nil || o.e == nil {
		return nil
	}
	o.e.mu.Lock()
	defer o.e.mu.Unlock()
	return o.e.trace
}

// End implements schedule.Stepper: it stops the cluster and checks the
// execution.
func (s *System) End() *schedule.Execution {
	o := s.cur
	defer func() {
		s.cur, s.lastErr = nil, o.err
		s.cancelMu.Lock()
		s.cancel = nil
		s.cancelMu.Unlock()
		if o.cancel != nil {
			o.cancel()
		}
		s.execMu.Unlock()
	}()
	if o.e == nil {
		return &schedule.Execution{}
	}
	return o.e.finish(o.steps)
}

// Err implements schedule.HarnessErr: the harness's failure in the last
// execution (its cluster did not start), nil when it ran; the execution
// End returned says nothing about the system then.
func (s *System) Err() error { return s.lastErr }

// begin starts a cluster and waits until every replica is ready.
func (s *System) begin(ctx context.Context) (*execution, error) {
	var err error
	for attempt := 1; attempt <= startAttempts; attempt++ {
		var e *execution
		e, err = s.newExecution(ctx)
		if err != nil {
			return nil, err
		}
		err = e.startAll()
		if err == nil {
			return e, nil
		}
		e.teardown()
		if ctx.Err() != nil || !errors.Is(err, errExited) {
			break
		}
		s.log.Debug("a replica exited while starting; trying new ports", "attempt", attempt, "error", err)
	}
	return nil, err
}

// execution is the state of one Execute. Its mutex guards the fields below
// it, shared with the interception server's handlers and the client
// requests' goroutines.
type execution struct {
	s    *System
	cl   *Cluster
	ctx  context.Context
	dir  string
	url  string // the interception server
	srv  *http.Server
	http *http.Client // fuzzer -> replica calls
	t0   time.Time

	ops       []*op
	answered  chan struct{} // closed (and replaced) when a client answer is read
	opsWG     sync.WaitGroup
	opsCtx    context.Context
	opsCancel context.CancelFunc
	reqHTTP   *http.Client

	mu       sync.Mutex
	step     int
	startup  bool // before the first step
	over     bool // teardown started: the handlers refuse everything
	trace    schedule.Trace
	failures []schedule.Failure
	skipped  int
	nextMsg  int
	reps     []*replica
	activity time.Time
	// merge is the index in trace of the current step's own event (timeout,
	// restart, request) that the replica's report of the same kind
	// completes; -1 when none.
	merge int
}

// replica is one process of the cluster, over its incarnations.
type replica struct {
	index  int
	vars   procVars
	client string // base URL of its client endpoint
	out    *osproc.Output

	proc     *osproc.Proc // nil while crashed
	starting bool         // being started: proc is not set yet, but it may call
	addr     string
	info     json.RawMessage // of the last registration
	ready    chan struct{}   // closed when the current incarnation is ready
	isReady  bool
	inbox    []envelope
	requests int // client requests written to the current incarnation
	boot     int // incarnations started
	answers  int // client answers read from the current incarnation
}

// envelope is a message in an inbox: the body to deliver as it was
// received, and what its recv event records.
type envelope struct {
	id, from int
	typ      string
	args     []schedule.Arg
	body     []byte
}

func (s *System) newExecution(ctx context.Context) (*execution, error) {
	s.seq++
	dir := filepath.Join(s.runDir, strconv.Itoa(s.seq))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("execution directory: %w", err)
	}
	n := s.cl.Processes
	ports, err := freePorts(2 * n)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	var cluster []string
	for i := 0; i < n; i++ {
		cluster = append(cluster, strconv.Itoa(i+1)+"=127.0.0.1:"+strconv.Itoa(ports[2*i]))
	}
	e := &execution{s: s, cl: s.cl, ctx: ctx, dir: dir, merge: -1, startup: true, t0: time.Now()}
	e.http = &http.Client{Transport: &http.Transport{}}
	e.reqHTTP = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	e.opsCtx, e.opsCancel = context.WithCancel(ctx)
	e.answered = make(chan struct{})
	for i := 0; i < n; i++ {
		v := procVars{index: i, port: ports[2*i], clientPort: ports[2*i+1], cluster: strings.Join(cluster, ","), processes: n}
		rel := strings.NewReplacer("{id}", strconv.Itoa(i+1), "{index}", strconv.Itoa(i)).Replace(s.cl.DataDir)
		v.data = filepath.Join(dir, rel)
		if err := os.MkdirAll(v.data, 0o755); err != nil {
			_ = os.RemoveAll(dir)
			return nil, fmt.Errorf("data directory: %w", err)
		}
		e.reps = append(e.reps, &replica{index: i, vars: v, client: s.cl.expand(s.cl.Client, v), out: osproc.NewOutput(s.fac.opts.OutputLimit)})
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("interception server: %w", err)
	}
	e.url = "http://" + ln.Addr().String()
	e.srv = &http.Server{Handler: e.handler(), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = e.srv.Serve(ln) }()
	return e, nil
}

// freePorts asks the kernel for n distinct free ports on loopback.
func freePorts(n int) ([]int, error) {
	lns := make([]net.Listener, 0, n)
	defer func() {
		for _, ln := range lns {
			_ = ln.Close()
		}
	}()
	ports := make([]int, 0, n)
	for i := 0; i < n; i++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("choosing free ports: %w", err)
		}
		lns = append(lns, ln)
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// exitGrace is how long a call that lost its connection waits for the
// replica's exit.
const exitGrace = 500 * time.Millisecond

var (
	errExited   = errors.New("exited before it was ready")
	errNotReady = errors.New("not ready in time")
)

// startAll starts every replica, waits until all are ready and puts the
// messages and events of the start in a deterministic order.
func (e *execution) startAll() error {
	for _, r := range e.reps {
		if err := e.startReplica(r); err != nil {
			return err
		}
	}
	deadline := time.Now().Add(e.cl.readyTimeout)
	for _, r := range e.reps {
		if err := e.waitReady(r, deadline); err != nil {
			return fmt.Errorf("n%d %w (within %v)\n%s", r.index+1, err, e.cl.readyTimeout,
				formatOutputs([]Output{r.output()}))
		}
	}
	for _, r := range e.reps {
		e.settle(r)
	}
	e.mu.Lock()
	e.normalizeStart()
	e.startup = false
	e.mu.Unlock()
	return e.ctx.Err()
}

// startReplica starts a new incarnation of r.
func (e *execution) startReplica(r *replica) error {
	cl := e.cl
	argv := []string{e.s.fac.command}
	for _, a := range cl.Args {
		argv = append(argv, cl.expand(a, r.vars))
	}
	var extra []string
	for _, k := range slices.Sorted(maps.Keys(cl.Env)) {
		extra = append(extra, k+"="+cl.expand(cl.Env[k], r.vars))
	}
	wd := cl.resolvePath(cl.expand(cl.Workdir, r.vars))
	ready := make(chan struct{})
	e.mu.Lock()
	r.addr, r.isReady, r.ready, r.starting, r.requests, r.answers = "", false, ready, true, 0, 0
	r.boot++
	e.mu.Unlock()
	p, err := osproc.Start(e.s.fac.reg, argv, environ(extra, e.url, r.index+1), wd, r.out.Stdout, r.out.Stderr)
	e.mu.Lock()
	r.proc, r.starting = p, false
	e.mu.Unlock()
	if err != nil {
		return fmt.Errorf("n%d: starting %s: %w", r.index+1, argv[0], err)
	}
	e.s.log.Debug("started", "replica", r.index+1, "pid", p.Pgid())
	go func() {
		<-p.Done()
		e.exited(r, p)
	}()
	return nil
}

// waitReady waits until r's current incarnation is ready.
func (e *execution) waitReady(r *replica, deadline time.Time) error {
	e.mu.Lock()
	p, ready := r.proc, r.ready
	e.mu.Unlock()
	if p == nil {
		return errExited
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	if !e.cl.register() {
		return e.waitClient(r, p, timer.C)
	}
	select {
	case <-ready:
		return nil
	case <-p.Done():
		return errExited
	case <-timer.C:
		return errNotReady
	case <-e.ctx.Done():
		return e.ctx.Err()
	}
}

// waitClient waits until r's client endpoint accepts connections (the
// readiness of replicas that do not register).
func (e *execution) waitClient(r *replica, p *osproc.Proc, timeout <-chan time.Time) error {
	host := strings.TrimPrefix(strings.TrimPrefix(r.client, "http://"), "https://")
	host, _, _ = strings.Cut(host, "/")
	for {
		c, err := net.DialTimeout("tcp", host, 100*time.Millisecond)
		if err == nil {
			_ = c.Close()
			return nil
		}
		select {
		case <-p.Done():
			return errExited
		case <-timeout:
			return errNotReady
		case <-e.ctx.Done():
			return e.ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// exited handles the end of an incarnation: if the fuzzer did not kill it,
// it is a failure of the system (the replica crashed by itself).
func (e *execution) exited(r *replica, p *osproc.Proc) {
	if _, killed := p.Exited(); killed {
		return
	}
	status := p.ExitStatus()
	e.mu.Lock()
	defer e.mu.Unlock()
	if r.proc != p || e.over {
		return
	}
	r.proc, r.addr, r.inbox = nil, "", nil
	e.activity = time.Now()
	if e.startup {
		return // begin reports it
	}
	e.record(schedule.EvExit, r.index, -1, 0, schedule.EvExit, []schedule.Arg{schedule.S(argStatus, status)})
	sig := "exit: " + status
	if first := panicLine(r.out.Stderr.String()); first != "" {
		sig = "exit: " + first
	}
	e.failLocked(schedule.FailureExit, sig, fmt.Sprintf("n%d exited by itself (%s)", r.index+1, status))
}

// panicLine finds the first line of a Go panic or fatal error in a log,
// without the numbers that vary between runs (addresses, goroutine ids).
func panicLine(log string) string {
	for _, line := range strings.Split(log, "\n") {
		if strings.HasPrefix(line, "panic: ") || strings.HasPrefix(line, "fatal error: ") {
			if len(line) > 120 {
				line = line[:120]
			}
			return strings.Map(func(c rune) rune {
				if c >= '0' && c <= '9' {
					return 'N'
				}
				return c
			}, line)
		}
	}
	return ""
}

// normalizeStart orders what the replicas sent while they were starting
// (concurrently) by replica, keeping each replica's order, and numbers the
// messages in that order, so that the start looks the same every time.
func (e *execution) normalizeStart() {
	sort.SliceStable(e.trace, func(i, j int) bool { return e.trace[i].Node < e.trace[j].Node })
	renum := map[int]int{}
	n := 0
	for i := range e.trace {
		if ev := &e.trace[i]; ev.Kind == schedule.EvSend {
			n++
			renum[ev.Msg] = n
			ev.Msg = n
		}
	}
	for _, r := range e.reps {
		for k := range r.inbox {
			r.inbox[k].id = renum[r.inbox[k].id]
		}
		slices.SortStableFunc(r.inbox, func(a, b envelope) int { return a.id - b.id })
	}
}

// runStep runs one step; the events that arrive until the step is quiet
// belong to it.
func (e *execution) runStep(i int, st schedule.Step) {
	e.mu.Lock()
	e.step = i
	e.merge = -1
	r := e.reps[st.Process]
	e.mu.Unlock()
	switch st.Action {
	case schedule.Deliver:
		e.deliver(r, st.Messages)
	case schedule.Crash:
		e.crash(r)
	case schedule.Restart:
		e.restart(r)
	case schedule.Timeout:
		e.timeout(r)
	case schedule.Request:
		e.request(r, st.Value)
	}
	e.mu.Lock()
	e.merge = -1
	e.mu.Unlock()
}

// skipLocked records a step that cannot run in the state it meets.
func (e *execution) skipLocked(r *replica, why string) {
	e.skipped++
	e.record(schedule.EvSkip, r.index, -1, 0, why, nil)
}

func (e *execution) deliver(r *replica, n int) {
	delivered := false
	for k := 0; k < n && e.ctx.Err() == nil; k++ {
		e.mu.Lock()
		if r.proc == nil {
			if k == 0 {
				e.skipLocked(r, "deliver to a crashed process")
			}
			e.mu.Unlock()
			break
		}
		if len(r.inbox) == 0 {
			e.mu.Unlock()
			break
		}
		m := r.inbox[0]
		r.inbox = r.inbox[1:]
		e.record(schedule.EvRecv, r.index, m.from, m.id, m.typ, m.args)
		addr := r.addr
		e.mu.Unlock()
		status, _ := e.call(r, addr, "/message", m.body)
		delivered = status != 0 // else a failure was recorded, or the replica is gone
	}
	if delivered {
		e.settle(r)
	}
}

func (e *execution) crash(r *replica) {
	e.mu.Lock()
	p := r.proc
	if p == nil {
		e.skipLocked(r, "crash of a crashed process")
		e.mu.Unlock()
		return
	}
	e.record(schedule.EvCrash, r.index, -1, 0, schedule.EvCrash, nil)
	r.proc, r.addr, r.inbox, r.isReady = nil, "", nil, false
	e.mu.Unlock()
	p.Kill()
}

func (e *execution) restart(r *replica) {
	e.mu.Lock()
	if r.proc != nil {
		e.skipLocked(r, "restart of a live process")
		e.mu.Unlock()
		return
	}
	e.own(schedule.EvRestart, r.index, nil)
	e.mu.Unlock()
	r.out.Mark("restart")
	if err := e.startReplica(r); err != nil {
		e.fail(schedule.FailureRestart, "restart: cannot start", err.Error())
		return
	}
	err := e.waitReady(r, time.Now().Add(e.cl.readyTimeout))
	switch {
	case err == nil:
	case errors.Is(err, errNotReady):
		e.fail(schedule.FailureRestart, "restart: not ready", fmt.Sprintf("n%d did not become ready within %v of its restart", r.index+1, e.cl.readyTimeout))
		e.mu.Lock()
		p := r.proc
		r.proc, r.addr, r.inbox = nil, "", nil
		e.mu.Unlock()
		if p != nil {
			p.Kill()
		}
	default: // exited (a failure already) or interrupted
		return
	}
	e.settle(r)
}

func (e *execution) timeout(r *replica) {
	e.mu.Lock()
	if r.proc == nil {
		e.skipLocked(r, "timeout at a crashed process")
		e.mu.Unlock()
		return
	}
	e.own(schedule.EvTimeout, r.index, nil)
	addr := r.addr
	e.mu.Unlock()
	if status, _ := e.call(r, addr, "/timeout", []byte("{}")); status != 0 {
		e.settle(r)
	}
}

func (e *execution) request(r *replica, v int) {
	e.mu.Lock()
	if r.proc == nil {
		e.skipLocked(r, "request at a crashed process")
		e.mu.Unlock()
		return
	}
	o := e.newOp(r, v)
	kind := schedule.EvRequest // a put: a proposal
	if !o.Put {
		kind = schedule.EvRead // not an EvRequest, which a raft mapper takes for a proposal
	}
	e.own(kind, r.index, []schedule.Arg{schedule.I(schedule.ArgValue, int64(v)), schedule.S(argKey, o.Key)})
	e.mu.Unlock()
	written := e.issue(r, o)
	timer := time.NewTimer(e.cl.callTimeout)
	select {
	case ok := <-written:
		if ok {
			e.mu.Lock()
			if r.proc != nil {
				r.requests++
			}
			e.mu.Unlock()
		}
	case <-timer.C:
	case <-e.ctx.Done():
	}
	timer.Stop()
	e.settle(r)
}

// own records the step's own event (restart, timeout, request), which the
// replica's report of the same kind in this step completes.
func (e *execution) own(kind string, node int, args []schedule.Arg) {
	e.merge = len(e.trace)
	e.record(kind, node, -1, 0, kind, args)
}

// call posts body to a replica's endpoint and waits for its answer: the
// replica answers when it has handed over everything the call caused.
func (e *execution) call(r *replica, addr, path string, body []byte) (status int, answer []byte) {
	if addr == "" {
		return 0, nil
	}
	url := addr
	if !strings.HasPrefix(url, "http://") && !strings.HasPrefix(url, "https://") {
		url = "http://" + url
	}
	ctx, cancel := context.WithTimeout(e.ctx, e.cl.callTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+path, bytes.NewReader(body))
	if err != nil {
		e.s.log.Warn("bad replica address", "replica", r.index+1, "addr", addr, "error", err)
		return 0, nil
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := e.http.Do(req)
	if err != nil {
		e.mu.Lock()
		p := r.proc
		e.mu.Unlock()
		if p != nil && e.ctx.Err() == nil && ctx.Err() == nil {
			// The connection broke: if the replica is dying, its exit
			// belongs to this step.
			select {
			case <-p.Done():
				e.exited(r, p)
			case <-time.After(exitGrace):
			}
		}
		e.mu.Lock()
		gone := r.proc == nil
		e.mu.Unlock()
		switch {
		case e.ctx.Err() != nil, gone:
		case ctx.Err() != nil:
			e.fail(schedule.FailureUnresponsive, "unresponsive: "+strings.TrimPrefix(path, "/"),
				fmt.Sprintf("n%d did not answer POST %s within %v", r.index+1, path, e.cl.callTimeout))
		default:
			e.s.log.Warn("replica call failed", "replica", r.index+1, "path", path, "error", err)
		}
		return 0, nil
	}
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	_ = resp.Body.Close()
	if resp.StatusCode/100 != 2 && !(path == "/idle" && resp.StatusCode == http.StatusNotFound) {
		e.s.log.Warn("replica refused a call", "replica", r.index+1, "path", path, "status", resp.StatusCode, "answer", string(msg))
	}
	return resp.StatusCode, msg
}

// settle ends a step at r: it asks r (POST <addr>/idle) to answer once it
// has taken in every client request written to it and handed over
// everything they and the step caused, and then waits for the client
// answers r says it gave, so that what happens next (and the step an
// answer is recorded in) is decided by the schedule, not by how long the
// step waited. A replica without the endpoint (404), or that does not
// register, is waited for until nothing arrived for the quiet period.
func (e *execution) settle(r *replica) {
	e.mu.Lock()
	addr, n := r.addr, r.requests
	e.mu.Unlock()
	// addr is empty for replicas that do not register: they cannot be
	// asked.
	if addr != "" && !e.s.noIdle.Load() {
		status, answer := e.call(r, addr, "/idle", fmt.Appendf(nil, `{"requests":%d}`, n))
		switch status {
		case http.StatusOK:
			var a struct {
				Answered *int `json:"answered"`
			}
			if json.Unmarshal(answer, &a) != nil || a.Answered == nil {
				e.fail(schedule.FailureProtocol, "protocol: idle", fmt.Sprintf("n%d answered POST /idle with %q, not {\"answered\": N}", r.index+1, answer))
				return
			}
			e.awaitAnswers(r, *a.Answered)
			return
		case http.StatusNotFound:
			e.s.noIdle.Store(true)
			e.s.log.Info("the replicas do not acknowledge idleness (POST /idle); steps end after a quiet period", "quiet", e.cl.quiet)
		default:
			return // a failure (unresponsive, exited) was recorded
		}
	}
	e.waitQuiet(time.Now())
}

// awaitAnswers waits until the client answers of r's current incarnation
// read number n (at most call_timeout: an answer lost on the way is
// logged).
func (e *execution) awaitAnswers(r *replica, n int) {
	timer := time.NewTimer(e.cl.callTimeout)
	defer timer.Stop()
	for {
		e.mu.Lock()
		got, more := r.answers, e.answered
		e.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-more:
		case <-timer.C:
			e.s.log.Warn("client answers missing", "replica", r.index+1, "answered", n, "read", got)
			return
		case <-e.ctx.Done():
			return
		}
	}
}

// waitQuiet waits until nothing arrived for the quiet period, counted from
// from at the earliest.
func (e *execution) waitQuiet(from time.Time) {
	q := e.cl.quiet
	if q <= 0 {
		return
	}
	for {
		e.mu.Lock()
		last := e.activity
		e.mu.Unlock()
		if last.Before(from) {
			last = from
		}
		d := q - time.Since(last)
		if d <= 0 {
			return
		}
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-e.ctx.Done():
			t.Stop()
			return
		}
	}
}

// record appends an event of the current step.
func (e *execution) record(kind string, node, peer, msg int, typ string, args []schedule.Arg) {
	e.trace = append(e.trace, schedule.Event{Step: e.step, Kind: kind, Node: node, Peer: peer, Msg: msg, Type: typ, Args: args})
}

func (e *execution) fail(kind schedule.FailureKind, sig, msg string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.failLocked(kind, sig, msg)
}

// failLocked records a failure, once per signature and execution.
func (e *execution) failLocked(kind schedule.FailureKind, sig, msg string) {
	for _, f := range e.failures {
		if f.Signature == sig {
			return
		}
	}
	e.failures = append(e.failures, schedule.Failure{Kind: kind, Signature: sig, Message: msg, Step: e.step})
}

// finish ends the execution: outstanding client requests get the drain
// period to answer, then everything is stopped and checked.
func (e *execution) finish(steps int) *schedule.Execution {
	if e.ctx.Err() == nil && len(e.ops) > 0 {
		done := make(chan struct{})
		go func() { e.opsWG.Wait(); close(done) }()
		t := time.NewTimer(e.cl.drain)
		select {
		case <-done:
		case <-t.C:
		case <-e.ctx.Done():
		}
		t.Stop()
	}
	e.teardown()
	e.mu.Lock()
	if e.ctx.Err() == nil {
		e.recordResponses(steps) // after the last step
	} else {
		e.recordResponses(e.step) // interrupted: where it stopped
	}
	e.mu.Unlock()

	outs := make([]Output, len(e.reps))
	for i, r := range e.reps {
		outs[i] = r.output()
	}
	h := e.history()
	e.s.history, e.s.outputs = h, outs
	if f := linearize.Check(h, steps); f != nil {
		f.Detail = linearize.Detail(h) + "\n" + outputDetail(outs)
		e.failures = append(e.failures, *f)
	}
	for i := range e.failures {
		if e.failures[i].Detail == "" {
			e.failures[i].Detail = outputDetail(outs)
		}
	}
	return &schedule.Execution{Trace: e.trace, Failures: e.failures, Skipped: e.skipped}
}

// teardown stops the client requests and every process, shuts the
// interception server down and removes the execution's directory.
func (e *execution) teardown() {
	e.opsCancel()
	e.opsWG.Wait()
	e.mu.Lock()
	e.over = true
	var procs []*osproc.Proc
	for _, r := range e.reps {
		if r.proc != nil {
			procs = append(procs, r.proc)
			r.proc = nil
		}
	}
	e.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Add(1)
		go func() { defer wg.Done(); p.Kill() }()
	}
	wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	if err := e.srv.Shutdown(ctx); err != nil {
		_ = e.srv.Close()
	}
	cancel()
	e.http.CloseIdleConnections()
	e.reqHTTP.CloseIdleConnections()
	if err := os.RemoveAll(e.dir); err != nil {
		e.s.log.Warn("cannot remove the execution's directory", "dir", e.dir, "error", err)
	}
}

// up reports whether r runs (or is being started).
func (r *replica) up() bool { return r.proc != nil || r.starting }

func (r *replica) output() Output {
	return Output{Process: r.index, Stdout: r.out.Stdout.String(), Stderr: r.out.Stderr.String()}
}

func outputDetail(outs []Output) string {
	return "process output:\n" + formatOutputs(outs)
}
