// Package microbench is the micro-benchmark system of the ModelFuzz chapter:
// a master, a terminator and M workers exchanging messages through FIFO
// inboxes, driven step by step by the schedule. It has one concurrency bug
// that can be switched on (--inject flush-before-last) and is otherwise
// correct under every schedule, which makes it the fuzzer's test bed.
//
// Processes: 0 is the master, 1 the terminator, 2..M+1 the workers.
//
//   - A worker or the terminator starts the first time it is scheduled and
//     then registers with the master.
//   - A client request goes to the master. The master serves it only when
//     every registration arrived before it (otherwise it rejects it): it picks
//     a worker round-robin, sends it execute(r, 1) and sends terminate(r) to
//     the terminator. The worker buffers each execute(r, k) and passes the
//     chain on: it sends execute(r, k+1) to itself until k = N, then done(r)
//     to the master, which responds to the client. One deliver(t) step of the
//     worker runs up to t links of the chain.
//   - The terminator answers terminate(r) with flush(r) to the request's
//     worker; a flush empties the worker's buffer.
//   - With the injected bug, a worker crashes when it processes a flush right
//     before the last execute of a request.
//
// There is no clock, goroutine or map iteration in the execution path: the
// same input always yields the same trace.
package microbench

import (
	"encoding/json"
	"fmt"
	"github.com/modelfuzz/modelfuzz/internal/jsonerr"
	"runtime"
	"strconv"
	"sync/atomic"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// Config configures the system.
type Config struct {
	Workers int    `json:"workers"`
	Tasks   int    `json:"tasks"`
	Inject  string `json:"inject,omitempty"` // "" or "flush-before-last"
}

// Seeded bugs: InjectFlushBeforeLast crashes the worker that processes a
// flush right before the last execute of a request; InjectHangOnFlush
// makes it loop forever instead (a hang, for --exec-timeout).
const (
	InjectFlushBeforeLast = "flush-before-last"
	InjectHangOnFlush     = "hang-on-flush-before-last"
)

// The limits of the configuration: a request makes Tasks messages at once.
const (
	MaxWorkers = 1000
	MaxTasks   = 10000
)

// Validate checks the configuration.
func (c Config) Validate() error {
	if c.Workers < 1 {
		return fmt.Errorf("microbench: --workers must be at least 1, got %d", c.Workers)
	}
	if c.Workers > MaxWorkers {
		return fmt.Errorf("microbench: --workers %d: at most %d (microbench.MaxWorkers)", c.Workers, MaxWorkers)
	}
	if c.Tasks < 1 {
		return fmt.Errorf("microbench: --tasks must be at least 1, got %d", c.Tasks)
	}
	if c.Tasks > MaxTasks {
		return fmt.Errorf("microbench: --tasks %d: at most %d execute messages a request (microbench.MaxTasks)", c.Tasks, MaxTasks)
	}
	if c.Inject != "" && c.Inject != InjectFlushBeforeLast && c.Inject != InjectHangOnFlush {
		return fmt.Errorf("microbench: unknown --inject %q (known: %s, %s)", c.Inject, InjectFlushBeforeLast, InjectHangOnFlush)
	}
	return nil
}

// Factory makes microbench systems.
type Factory struct {
	cfg  Config
	spec *schedule.SystemSpec
}

// NewFactory validates cfg and returns a factory.
func NewFactory(cfg Config) (*Factory, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	n := cfg.Workers + 2
	names := []string{"master", "terminator"}
	for w := 1; w <= cfg.Workers; w++ {
		names = append(names, "worker-"+strconv.Itoa(w))
	}
	return &Factory{cfg: cfg, spec: &schedule.SystemSpec{
		Name:           "microbench",
		Processes:      n,
		Actions:        []schedule.Action{schedule.Deliver, schedule.Request},
		RequestTargets: []int{master},
		ProcessNames:   names,
	}}, nil
}

// FactoryFromConfig decodes a stored configuration.
func FactoryFromConfig(raw json.RawMessage) (*Factory, error) {
	var c Config
	if err := jsonerr.Decode(raw, &c); err != nil {
		return nil, fmt.Errorf("microbench: bad configuration %s: %v", jsonerr.Compact(raw), err)
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
	return &System{cfg: f.cfg, spec: f.spec}, nil
}

const (
	master     = 0
	terminator = 1
	client     = -1
)

// Message types.
const (
	mRegister  = "register"
	mRequest   = "request"
	mExecute   = "execute"
	mDone      = "done"
	mTerminate = "terminate"
	mFlush     = "flush"
)

type message struct {
	id       int
	from, to int
	typ      string
	req, k   int // request number, task number
	value    int // client request value
	worker   int // terminate: the request's worker
}

type request struct {
	value  int
	worker int
}

// System is one microbench cluster.
type System struct {
	cfg  Config
	spec *schedule.SystemSpec
	// interrupted is set by Interrupt, from another goroutine.
	interrupted atomic.Bool

	// Execution state, reset by Execute.
	inbox      [][]message // per process, arrival order
	started    []bool
	registered []bool // master's view: who registered
	nregs      int
	requests   []request // served requests, by number-1
	buffer     [][]int   // per worker: buffered task numbers
	lastFlush  []bool    // per worker: the last message processed was a flush
	nextMsg    int
	step       int
	steps      int                 // steps run by Step
	ended      bool                // a panic ended the execution
	ex         *schedule.Execution // the execution under way (Begin to End)
	trace      schedule.Trace
	args       []schedule.Arg // backing store of the events' args, reused
}

// Spec implements schedule.System.
func (s *System) Spec() *schedule.SystemSpec { return s.spec }

// Interrupt implements schedule.Interruptible: a hung execution stops.
func (s *System) Interrupt() { s.interrupted.Store(true) }

func (s *System) reset() {
	n := s.spec.Processes
	if s.inbox == nil {
		s.inbox = make([][]message, n)
		s.started = make([]bool, n)
		s.registered = make([]bool, n)
		s.buffer = make([][]int, n)
		s.lastFlush = make([]bool, n)
	}
	for i := 0; i < n; i++ {
		s.inbox[i] = s.inbox[i][:0]
		s.started[i] = i == master
		s.registered[i] = false
		s.buffer[i] = s.buffer[i][:0]
		s.lastFlush[i] = false
	}
	s.nregs = 0
	s.requests = s.requests[:0]
	s.nextMsg = 0
	s.trace = s.trace[:0]
	s.args = s.args[:0]
}

// Execute implements schedule.System: Begin, Step for every step, End.
func (s *System) Execute(in *schedule.Input) (*schedule.Execution, error) {
	if err := in.Validate(s.spec); err != nil {
		return nil, err
	}
	return schedule.RunSteps(s, in), nil
}

// Begin implements schedule.Stepper.
func (s *System) Begin() {
	s.reset()
	s.interrupted.Store(false)
	s.ex = &schedule.Execution{}
	s.steps, s.ended = 0, false
}

// Step implements schedule.Stepper. A panic ends the execution: the
// crashed process takes the whole in-process system with it.
func (s *System) Step(st schedule.Step) bool {
	if s.ended {
		return false
	}
	s.step = s.steps
	s.steps++
	if f := schedule.Guard(&s.step, func() { s.run(st, s.ex) }); f != nil {
		s.ended = true
		if !s.interrupted.Load() { // interrupted: the executor reports the hang
			s.ex.Failures = append(s.ex.Failures, *f)
		}
	}
	return !s.ended
}

// Trace implements schedule.Stepper.
func (s *System) Trace() schedule.Trace { return s.trace }

// End implements schedule.Stepper.
func (s *System) End() *schedule.Execution {
	ex := s.ex
	ex.Trace = s.trace
	s.ex = nil
	return ex
}

// Pending implements schedule.Stepper: the first message of every started
// process's inbox (inboxes are FIFO), and the start of every process not
// started yet.
func (s *System) Pending(dst []schedule.Enabled) []schedule.Enabled {
	for p := range s.inbox {
		st := schedule.Step{Process: p, Action: schedule.Deliver, Messages: 1}
		if !s.started[p] {
			dst = append(dst, schedule.Enabled{ID: -(1 << 20) - p, Kind: schedule.KindStart, Process: p, From: -1, Type: "start", Step: st})
			continue
		}
		if len(s.inbox[p]) > 0 {
			m := &s.inbox[p][0]
			dst = append(dst, schedule.Enabled{ID: m.id, Kind: schedule.KindRecv, Process: p, From: m.from, Type: m.typ, K: 1, Step: st})
		}
	}
	return dst
}

func (s *System) run(st schedule.Step, ex *schedule.Execution) {
	p := st.Process
	switch st.Action {
	case schedule.Request:
		if p != master {
			s.skip(p, ex, "requests go to the master")
			return
		}
		s.event(schedule.EvRequest, p, client, 0, mRequest, schedule.I("value", int64(st.Value)))
		s.send(message{from: client, to: master, typ: mRequest, value: st.Value})
	case schedule.Deliver:
		if !s.started[p] {
			s.started[p] = true
			s.event("start", p, -1, 0, "start")
			s.send(message{from: p, to: master, typ: mRegister})
			return
		}
		n := st.Messages
		for n > 0 && len(s.inbox[p]) > 0 {
			m := s.inbox[p][0]
			s.inbox[p] = s.inbox[p][1:]
			n--
			s.msgEvent(schedule.EvRecv, p, m.from, &m)
			s.handle(p, m)
		}
	default:
		s.skip(p, ex, "microbench does not support "+string(st.Action))
	}
}

func (s *System) skip(p int, ex *schedule.Execution, why string) {
	ex.Skipped++
	s.event(schedule.EvSkip, p, -1, 0, why)
}

// msgEvent records the send or recv of m, with the message's fields as args.
func (s *System) msgEvent(kind string, node, peer int, m *message) {
	start := len(s.args)
	switch m.typ {
	case mRequest:
		s.args = append(s.args, schedule.I("value", int64(m.value)))
	case mExecute:
		s.args = append(s.args, schedule.I("req", int64(m.req)), schedule.I("task", int64(m.k)))
	case mDone:
		s.args = append(s.args, schedule.I("req", int64(m.req)))
	case mTerminate:
		s.args = append(s.args, schedule.I("req", int64(m.req)), schedule.I("worker", int64(m.worker-1)))
	case mFlush:
		s.args = append(s.args, schedule.I("req", int64(m.req)))
	}
	s.record(kind, node, peer, m.id, m.typ, start)
}

func (s *System) event(kind string, node, peer, msg int, typ string, args ...schedule.Arg) {
	start := len(s.args)
	s.args = append(s.args, args...)
	s.record(kind, node, peer, msg, typ, start)
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

func (s *System) send(m message) {
	s.nextMsg++
	m.id = s.nextMsg
	if m.from != client {
		s.msgEvent(schedule.EvSend, m.from, m.to, &m)
	}
	s.inbox[m.to] = append(s.inbox[m.to], m)
}

func (s *System) handle(p int, m message) {
	switch {
	case p == master:
		s.handleMaster(m)
	case p == terminator:
		if m.typ == mTerminate {
			s.send(message{from: terminator, to: m.worker, typ: mFlush, req: m.req})
		}
	default:
		s.handleWorker(p, m)
	}
}

func (s *System) handleMaster(m message) {
	switch m.typ {
	case mRegister:
		if !s.registered[m.from] {
			s.registered[m.from] = true
			s.nregs++
		}
	case mRequest:
		if s.nregs < s.cfg.Workers+1 {
			s.event(schedule.EvResponse, master, client, 0, "rejected", schedule.I("value", int64(m.value)),
				schedule.I("registered", int64(s.nregs)))
			return
		}
		r := len(s.requests) + 1
		w := 2 + (r-1)%s.cfg.Workers
		s.requests = append(s.requests, request{value: m.value, worker: w})
		s.send(message{from: master, to: w, typ: mExecute, req: r, k: 1})
		s.send(message{from: master, to: terminator, typ: mTerminate, req: r, worker: w})
	case mDone:
		rq := &s.requests[m.req-1]
		s.event(schedule.EvResponse, master, client, 0, "done", schedule.I("value", int64(rq.value)), schedule.I("req", int64(m.req)))
	}
}

func (s *System) handleWorker(w int, m message) {
	switch m.typ {
	case mExecute:
		if s.lastFlush[w] && m.k == s.cfg.Tasks {
			switch s.cfg.Inject {
			case InjectFlushBeforeLast:
				panic(fmt.Sprintf("worker-%d: flush processed right before the last execute (request %d, task %d)", w-1, m.req, m.k))
			case InjectHangOnFlush:
				for !s.interrupted.Load() {
					runtime.Gosched()
				}
				panic("interrupted")
			}
		}
		s.lastFlush[w] = false
		s.buffer[w] = append(s.buffer[w], m.k)
		if m.k < s.cfg.Tasks {
			s.send(message{from: w, to: w, typ: mExecute, req: m.req, k: m.k + 1})
			return
		}
		s.send(message{from: w, to: master, typ: mDone, req: m.req})
	case mFlush:
		s.buffer[w] = s.buffer[w][:0]
		s.lastFlush[w] = true
	}
}
