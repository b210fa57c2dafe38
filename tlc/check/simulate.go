package check

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelfuzz/modelfuzz/tlc/eval"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// SimOptions configure a simulation: random behaviours of the spec, as
// TLC's -simulate generates them.
type SimOptions struct {
	// Seed makes the behaviours reproducible: one worker with one seed
	// generates the same behaviours every time.
	Seed    int64
	Workers int // 0: one per CPU
	// Depth is the length of a behaviour, in states (TLC's -depth; 0:
	// TLC's default, 100).
	Depth int
	// Traces is the number of behaviours each worker generates (TLC's
	// num=, which counts per worker; 0: until Stop is closed).
	Traces int64
	Stop   <-chan struct{}
	// Progress, when set, is called about every ProgressEvery.
	Progress      func(SimProgress)
	ProgressEvery time.Duration
	// Branches, when set, is called before the initial states with the
	// number of problems the liveness check of each behaviour solves,
	// when there are temporal properties (see Properties.Branches).
	Branches func(int)
	// InitStart, when set, is called when the initial states are about to
	// be computed.
	InitStart func()
}

// SimProgress reports a running simulation.
type SimProgress struct {
	States, Traces int64
}

// SimResult is the outcome of a simulation: Result (Generated counts the
// states of all behaviours, Depth the longest), and the behaviours
// generated.
type SimResult struct {
	Result
	Traces int64
	// MeanLength and VarLength are the mean and the variance of the
	// behaviours' lengths, in states.
	MeanLength, VarLength float64
}

// Simulate generates random behaviours of m: each starts in a random
// initial state and takes, at each step, a random successor of a random
// enabled action (TLC's split, eval.Model.NextActions), for up to Depth
// states, checking the invariants, the constraints and deadlock in every
// state. It stops at the first violation or error.
//
// The PROPERTIES are checked as TLC's simulation checks them: their
// safety parts on every state and step of a behaviour, their liveness
// parts on each behaviour once generated, as a graph of its states and
// steps in which every state may also stutter (the fairness of the
// SPECIFICATION rules stuttering out where an action is enabled), so that
// a violation is a lasso of that behaviour. Those that cannot be checked
// make the result "not-checked".
func Simulate(m *eval.Model, opt SimOptions) *SimResult {
	start := time.Now()
	if opt.Workers <= 0 {
		opt.Workers = runtime.NumCPU()
	}
	if opt.Depth <= 0 {
		opt.Depth = 100
	}
	if opt.ProgressEvery <= 0 {
		opt.ProgressEvery = time.Minute
	}
	s := &simulator{m: m, opt: opt, c: &checker{m: m, opt: Options{Workers: opt.Workers}}, ps: NewProperties(m)}
	if n := s.ps.Branches(); n > 0 && opt.Branches != nil {
		opt.Branches(n)
	}
	if opt.InitStart != nil {
		opt.InitStart()
	}
	res := s.run()
	res.NotChecked(s.ps.Unchecked)
	out := &SimResult{Result: *res, Traces: s.traces.Load()}
	if n := float64(out.Traces); n > 0 {
		out.MeanLength = float64(s.sumLen.Load()) / n
		out.VarLength = float64(s.sumSq.Load())/n - out.MeanLength*out.MeanLength
	}
	out.Generated, out.Depth = s.states.Load(), int(s.longest.Load())
	out.Duration = time.Since(start)
	return out
}

type simulator struct {
	m   *eval.Model
	opt SimOptions
	ps  *Properties
	c   *checker // its fail and result record the first violation

	inits                   [][]value.Value
	states, traces, longest atomic.Int64
	sumLen, sumSq           atomic.Int64 // of the behaviours' lengths
}

func (s *simulator) run() *Result {
	ev := s.m.NewEvaluator()
	ev.SetLevel(1)
	err := ev.Init(func(st []value.Value) error {
		s.states.Add(1)
		ok, err := ev.InConstraints(st)
		if err != nil || !ok {
			return err
		}
		if !s.checkInvariants(ev, [][]value.Value{st}) {
			return errStop
		}
		s.inits = append(s.inits, st)
		return nil
	})
	if err != nil && err != errStop {
		s.c.evalFailure(err, noParent, "computing the initial states")
	}
	if s.c.stop.Load() {
		return s.c.result
	}
	if len(s.inits) == 0 || !ev.HasNext() {
		return &Result{Result: "success", ExitCode: ExitSuccess}
	}
	stopProgress := s.progressLoop()
	defer stopProgress()
	var wg sync.WaitGroup
	for w := 0; w < s.opt.Workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			s.worker(w)
		}(w)
	}
	wg.Wait()
	if s.c.result != nil {
		return s.c.result
	}
	return &Result{Result: "success", ExitCode: ExitSuccess}
}

// stopped reports whether the simulation must end.
func (s *simulator) stopped() bool {
	if s.c.stop.Load() {
		return true
	}
	select {
	case <-s.opt.Stop:
		return true
	default:
		return false
	}
}

func (s *simulator) worker(w int) {
	rng := rand.New(rand.NewPCG(uint64(s.opt.Seed), uint64(w)))
	ev := s.m.NewEvaluator()
	actions := len(s.m.NextActions())
	props := s.newTraceProps()
	for n := int64(0); !s.stopped() && (s.opt.Traces == 0 || n < s.opt.Traces); n++ {
		trace := [][]value.Value{s.inits[rng.IntN(len(s.inits))]}
		props.reset()
		if !props.state(s, ev, trace) {
			return
		}
		for len(trace) < s.opt.Depth && !s.stopped() {
			cur := trace[len(trace)-1]
			ev.SetLevel(len(trace))
			next, err := s.successor(ev, rng, cur, actions, len(trace))
			if err != nil {
				s.fail(&Result{Result: "error", ExitCode: failureCode(err, ExitFailure),
					Error: "computing the successors of a state: " + err.Error(), Trace: states(s.m, trace)})
				return
			}
			if next == nil {
				if s.m.CheckDeadlock {
					s.fail(&Result{Result: "deadlock", ExitCode: ExitDeadlock, Error: "Deadlock reached.", Trace: states(s.m, trace)})
				}
				break
			}
			trace = append(trace, next)
			s.states.Add(1)
			ev.SetLevel(len(trace))
			if !s.checkInvariants(ev, trace) || !props.step(s, ev, trace) {
				return
			}
		}
		if !props.liveness(s, trace) {
			return
		}
		s.traces.Add(1)
		s.sumLen.Add(int64(len(trace)))
		s.sumSq.Add(int64(len(trace)) * int64(len(trace)))
		for l := s.longest.Load(); int64(len(trace)) > l && !s.longest.CompareAndSwap(l, int64(len(trace))); l = s.longest.Load() {
		}
	}
}

// successor picks a random successor of cur: the actions are tried in a
// random order, and the first that has successors within the constraints
// gives one of them at random; nil when no action has one.
func (s *simulator) successor(ev *eval.Evaluator, rng *rand.Rand, cur []value.Value, actions, level int) ([]value.Value, error) {
	var succ [][]value.Value
	for _, a := range rng.Perm(actions) {
		succ = succ[:0]
		err := ev.NextAction(a, cur, func(t []value.Value) error {
			ok, err := ev.InConstraints(t)
			if err != nil || !ok {
				return err
			}
			if len(s.m.ActionConstraints) > 0 {
				ev.SetLevel(level)
				defer ev.SetLevel(level + 1)
				if ok, err = ev.InActionConstraints(cur, t); err != nil || !ok {
					return err
				}
			}
			succ = append(succ, t)
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(succ) > 0 {
			return succ[rng.IntN(len(succ))], nil
		}
	}
	return nil, nil
}

// checkInvariants checks the last state of trace.
func (s *simulator) checkInvariants(ev *eval.Evaluator, trace [][]value.Value) bool {
	st := trace[len(trace)-1]
	for i, inv := range s.m.Invariants {
		ok, err := ev.Invariant(i, st)
		if err != nil {
			s.fail(&Result{Result: "error", ExitCode: failureCode(err, ExitSafetyEval),
				Error: "evaluating invariant " + inv.Name + ": " + err.Error(), Trace: states(s.m, trace)})
			return false
		}
		if !ok {
			s.fail(&Result{Result: "invariant", ExitCode: ExitSafety, Invariant: inv.Name,
				Error: fmt.Sprintf("Invariant %s is violated.", inv.Name), Trace: states(s.m, trace)})
			return false
		}
	}
	return true
}

func (s *simulator) fail(r *Result) { s.c.fail(r, noParent) }

func states(m *eval.Model, trace [][]value.Value) []State {
	out := make([]State, len(trace))
	for i, t := range trace {
		out[i] = State{Vars: m.Vars, Values: t}
	}
	return out
}

func (s *simulator) progressLoop() func() {
	if s.opt.Progress == nil {
		return func() {}
	}
	return every(s.opt.ProgressEvery, func() {
		s.opt.Progress(SimProgress{States: s.states.Load(), Traces: s.traces.Load()})
	})
}

// traceProps checks the PROPERTIES on one behaviour at a time: a worker's
// observer, whose state graph is the behaviour's.
type traceProps struct {
	ps  Properties // the simulator's, with a graph of its own
	obs *propObserver
	fps []uint64 // of the behaviour's states
}

func (s *simulator) newTraceProps() *traceProps {
	if len(s.ps.inits)+len(s.ps.invs)+len(s.ps.actions) == 0 && !s.ps.Liveness() {
		return nil
	}
	tp := &traceProps{ps: *s.ps}
	tp.ps.graph = nil
	tp.obs = &propObserver{ps: &tp.ps, raw: !s.m.HasView() && s.m.Symmetry == nil, done: make([]atomic.Uint64, doneSlots)}
	return tp
}

// reset starts a new behaviour.
func (tp *traceProps) reset() {
	if tp == nil {
		return
	}
	if tp.ps.Liveness() {
		tp.ps.graph = newGraph(&tp.ps)
	}
	for i := range tp.obs.done {
		tp.obs.done[i].Store(0)
	}
	tp.fps = tp.fps[:0]
}

// state checks the last state of trace, and the step to it when there is
// one.
func (tp *traceProps) state(s *simulator, ev *eval.Evaluator, trace [][]value.Value) bool {
	if tp == nil {
		return true
	}
	t := trace[len(trace)-1]
	fp, err := Fingerprint(s.m, ev, t)
	if err == nil && len(trace) > 1 {
		err = tp.obs.Step(ev, tp.fps[len(tp.fps)-1], trace[len(trace)-2], fp, t, true)
	}
	if err == nil {
		err = tp.obs.State(ev, fp, t, len(trace) == 1)
	}
	if err != nil {
		s.propertyFailure(err, trace)
		return false
	}
	tp.fps = append(tp.fps, fp)
	return true
}

func (tp *traceProps) step(s *simulator, ev *eval.Evaluator, trace [][]value.Value) bool {
	return tp.state(s, ev, trace)
}

// liveness checks the liveness properties on the behaviour.
func (tp *traceProps) liveness(s *simulator, trace [][]value.Value) bool {
	if tp == nil || !tp.ps.Liveness() {
		return true
	}
	res := &Result{Result: "success"}
	tp.ps.checkLiveness(res, Options{})
	if res.Result == "success" {
		return true
	}
	s.fail(res)
	return false
}

// propertyFailure reports a property violated, or that could not be
// evaluated, in the last state or step of trace.
func (s *simulator) propertyFailure(err error, trace [][]value.Value) {
	var pv *PropertyViolation
	if !errors.As(err, &pv) {
		s.fail(&Result{Result: "error", ExitCode: failureCode(err, ExitLivenessEval),
			Error: "checking the properties: " + err.Error(), Trace: states(s.m, trace)})
		return
	}
	res := &Result{Result: "property", ExitCode: ExitLiveness, Property: pv.Property, Error: pv.Message, Trace: states(s.m, trace)}
	switch {
	case pv.Invariant:
		res.Result, res.ExitCode, res.Invariant, res.Property = "invariant", ExitSafety, pv.Property, ""
	case pv.Initial:
		res.Result = "property-initial"
	}
	s.fail(res)
}
