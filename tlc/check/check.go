// Package check is the exhaustive model checker: a breadth-first search of
// a model's state graph with TLC's counting (distinct states after VIEW and
// SYMMETRY, states generated, depth), invariants, deadlock detection and
// constraints, and error traces. It must not know about the fuzzer.
package check

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelfuzz/modelfuzz/tlc/eval"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// Exit codes, as TLC's.
const (
	ExitSuccess    = 0
	ExitAssumption = 10
	ExitDeadlock   = 11
	ExitSafety     = 12
	ExitFailure    = 75 // an evaluation error
	ExitParse      = 150
	ExitConfig     = 151
	ExitSystem     = 153
)

// Options configure a check.
type Options struct {
	Workers int // 0: one per CPU
	// Progress, when set, is called about every ProgressEvery.
	Progress      func(Progress)
	ProgressEvery time.Duration
	// MaxStates stops the search after this many distinct states (0: none).
	MaxStates int64
	// MaxDepth stops the search once the states within this many steps of
	// an initial state are found (an initial state is at depth 1, as in
	// TLC; 0: none). Searches bounded so can be compared, unlike those
	// stopped by MaxStates, which stop at different depths.
	MaxDepth int
	// Visit, when set, is called with every new distinct state that
	// satisfies the invariants, from several goroutines at once; path
	// returns the states from an initial state to it.
	Visit func(s []value.Value, path func() []State)
	// Step, when set, is called for every state generated (see
	// Transition), from several goroutines at once. The search then
	// generates successors action by action, as TLC does (TLC's -coverage
	// and -dump dot need it).
	Step func(Transition)
	// Continue keeps searching after an invariant is violated (TLC's
	// -continue): each violation is passed to Violation, and the result is
	// the first one.
	Continue  bool
	Violation func(*Result)
}

// Transition is a state generated: To, from From (nil for an initial
// state) by the sub-action Action of the next-state relation
// (eval.Model.NextActions; -1 for an initial state). Fresh is true for a
// new distinct state, Cut for a state outside the CONSTRAINTs or the
// ACTION_CONSTRAINTs (TLC counts it as generated, and goes no further).
type Transition struct {
	From, To   []value.Value
	Action     int
	Fresh, Cut bool
}

// Progress reports a running check.
type Progress struct {
	Distinct, Generated int64
	Depth               int
	Queue               int
}

// State is one state of an error trace.
type State struct {
	Vars   []string
	Values []value.Value
}

// Result is the outcome of a check.
type Result struct {
	Result    string // "success", "invariant", "deadlock", "error", "assumption", "not-checked"
	Distinct  int64
	Generated int64
	Depth     int
	Duration  time.Duration
	ExitCode  int
	// Error describes a violation or failure; Trace leads to it from an
	// initial state (for a deadlock, to the deadlocked state).
	Error string
	Trace []State
	// Invariant names the violated invariant.
	Invariant string
	// Unchecked lists the properties the check did not check (see
	// NotChecked).
	Unchecked []Unchecked
}

type rec struct {
	vals   []value.Value
	parent *rec
}

type fpSet struct {
	shards [256]struct {
		mu sync.Mutex
		m  map[uint64]struct{}
	}
}

func newFPSet() *fpSet {
	s := &fpSet{}
	for i := range s.shards {
		s.shards[i].m = make(map[uint64]struct{})
	}
	return s
}

// add reports whether fp was new.
func (s *fpSet) add(fp uint64) bool {
	sh := &s.shards[(fp>>56)^(fp&0xff)]
	sh.mu.Lock()
	_, ok := sh.m[fp]
	if !ok {
		sh.m[fp] = struct{}{}
	}
	sh.mu.Unlock()
	return !ok
}

// checker is one run.
type checker struct {
	m         *eval.Model
	opt       Options
	seen      *fpSet
	distinct  atomic.Int64
	generated atomic.Int64
	depth     atomic.Int64
	queue     atomic.Int64

	stopMu sync.Mutex
	stop   atomic.Bool
	result *Result // the first violation or failure

	// evs holds one evaluator per worker, kept from level to level: an
	// evaluator remembers where the invariants held.
	evs []*eval.Evaluator
}

// fingerprint of a state, after VIEW and SYMMETRY.
func (c *checker) fingerprint(ev *eval.Evaluator, s []value.Value) (uint64, error) {
	if c.m.HasView() {
		// As TLC: symmetry applies to the view, not to the state.
		v, err := ev.ViewOf(s)
		if err != nil {
			return 0, err
		}
		if c.m.Symmetry != nil {
			return c.m.Symmetry.Fingerprint([]value.Value{v}), nil
		}
		return value.Fingerprint(v), nil
	}
	if c.m.Symmetry != nil {
		return c.m.Symmetry.Fingerprint(s), nil
	}
	return value.FingerprintState(s), nil
}

func (c *checker) fail(r *Result) {
	c.stopMu.Lock()
	defer c.stopMu.Unlock()
	if c.result == nil {
		c.result = r
	}
	c.stop.Store(true)
}

// violated records an invariant violation when the search continues past
// it (Options.Continue).
func (c *checker) violated(r *Result) {
	c.stopMu.Lock()
	defer c.stopMu.Unlock()
	if c.result == nil {
		c.result = r
	}
	if c.opt.Violation != nil {
		c.opt.Violation(r)
	}
}

func (c *checker) trace(r *rec) []State {
	var out []State
	for ; r != nil; r = r.parent {
		out = append(out, State{Vars: c.m.Vars, Values: r.vals})
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// evalFailure records an evaluation error while handling state r.
func (c *checker) evalFailure(err error, r *rec, what string) {
	c.evalFailureCode(err, r, what, ExitFailure)
}

// evalFailureCode is evalFailure with TLC's exit code for the kind of
// evaluation (an invariant's differs); a failed Assert has its own.
func (c *checker) evalFailureCode(err error, r *rec, what string, code int) {
	var inc *eval.IncompleteError
	msg := err.Error()
	if errors.As(err, &inc) {
		// The error concerns the whole relation: locate it at its definition.
		pos := c.m.NextPos()
		if inc.Init {
			pos = c.m.InitPos()
		}
		msg = inc.Error()
		if pos.Line > 0 {
			msg = pos.String() + ": " + msg
		}
	}
	c.fail(&Result{Result: "error", ExitCode: failureCode(err, code), Error: what + ": " + msg, Trace: c.trace(r)})
}

// checkInvariants evaluates the invariants in a new state.
func (c *checker) checkInvariants(ev *eval.Evaluator, r *rec) bool {
	for i, inv := range c.m.Invariants {
		ok, err := ev.Invariant(i, r.vals)
		if err != nil {
			c.evalFailureCode(err, r, "evaluating invariant "+inv.Name, ExitSafetyEval)
			return false
		}
		if !ok {
			tr := c.trace(r)
			// The violating state is on level len(tr) of the search, as in
			// TLC, which records a new state before checking it.
			for d := c.depth.Load(); d < int64(len(tr)) && !c.depth.CompareAndSwap(d, int64(len(tr))); d = c.depth.Load() {
			}
			res := &Result{Result: "invariant", ExitCode: ExitSafety, Invariant: inv.Name,
				Error: fmt.Sprintf("Invariant %s is violated.", inv.Name), Trace: tr}
			if c.opt.Continue {
				c.violated(res)
				return true
			}
			c.fail(res)
			return false
		}
	}
	return true
}

// Check explores the state graph of m.
func Check(m *eval.Model, opt Options) *Result {
	start := time.Now()
	if opt.Workers <= 0 {
		opt.Workers = runtime.NumCPU()
	}
	if opt.ProgressEvery <= 0 {
		opt.ProgressEvery = 5 * time.Second
	}
	// The search keeps every state it found (for traces) and allocates many
	// short-lived values: collecting less often trades memory, which the
	// machines have, for a large share of the run time.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	c := &checker{m: m, opt: opt, seen: newFPSet()}
	m.Stats = func() map[string]int64 {
		return map[string]int64{"distinct": c.distinct.Load(), "generated": c.generated.Load(),
			"diameter": c.depth.Load(), "queue": c.queue.Load()}
	}
	defer func() { m.Stats = nil }()
	res := c.run()
	res.Distinct, res.Generated, res.Depth = c.distinct.Load(), c.generated.Load(), int(c.depth.Load())
	res.Duration = time.Since(start)
	return res
}

func (c *checker) run() *Result {
	ev := c.m.NewEvaluator()
	ev.SetLevel(1)
	var level []*rec
	err := ev.Init(func(s []value.Value) error {
		c.generated.Add(1)
		ok, err := ev.InConstraints(s)
		if err != nil {
			return err
		}
		if !ok {
			if c.opt.Step != nil {
				c.opt.Step(Transition{To: s, Action: -1, Cut: true})
			}
			return nil
		}
		fp, err := c.fingerprint(ev, s)
		if err != nil {
			return err
		}
		fresh := c.seen.add(fp)
		if c.opt.Step != nil {
			c.opt.Step(Transition{To: s, Action: -1, Fresh: fresh})
		}
		if !fresh {
			return nil
		}
		c.distinct.Add(1)
		r := &rec{vals: s}
		if !c.checkInvariants(ev, r) {
			return errStop
		}
		c.visit(r)
		level = append(level, r)
		return nil
	})
	if err != nil && err != errStop {
		c.evalFailure(err, nil, "computing the initial states")
	}
	if c.stop.Load() {
		return c.result
	}
	if len(level) > 0 {
		c.depth.Store(1)
	}
	if !ev.HasNext() {
		if c.result != nil {
			return c.result // a violation with Options.Continue
		}
		return &Result{Result: "success", ExitCode: ExitSuccess}
	}
	stopProgress := c.progressLoop()
	defer stopProgress()
	for depth := 1; len(level) > 0 && !c.stop.Load(); depth++ {
		if c.opt.MaxDepth > 0 && depth >= c.opt.MaxDepth {
			return &Result{Result: "error", ExitCode: ExitSystem, Error: fmt.Sprintf("stopped at depth %d (--max-depth)", depth)}
		}
		c.queue.Store(int64(len(level)))
		next := c.expand(level, depth)
		if c.stop.Load() {
			break
		}
		if len(next) > 0 {
			c.depth.Store(int64(depth + 1))
		}
		level = next
		if c.opt.MaxStates > 0 && c.distinct.Load() >= c.opt.MaxStates {
			return &Result{Result: "error", ExitCode: ExitSystem, Error: fmt.Sprintf("stopped after %d distinct states (--max-states)", c.distinct.Load())}
		}
	}
	if c.result != nil {
		return c.result
	}
	return &Result{Result: "success", ExitCode: ExitSuccess}
}

var errStop = errors.New("stop")

// expand computes the next BFS level from this one, in parallel.
func (c *checker) expand(level []*rec, depth int) []*rec {
	workers := c.opt.Workers
	if len(level) < 64 {
		workers = 1
	}
	var idx atomic.Int64
	outs := make([][]*rec, workers)
	for len(c.evs) < workers {
		c.evs = append(c.evs, c.m.NewEvaluator())
	}
	work := func(w int) {
		ev := c.evs[w]
		ev.SetLevel(depth)
		var out []*rec
		for !c.stop.Load() {
			i := int(idx.Add(1) - 1)
			if i >= len(level) {
				break
			}
			out = c.successors(ev, level[i], depth, out)
		}
		outs[w] = out
	}
	if workers == 1 {
		// On this goroutine: its stack, grown by the deep recursion of
		// enumeration, is kept from level to level, where a new goroutine
		// would grow one again (a trace spec has thousands of levels of
		// one state).
		work(0)
	} else {
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				work(w)
			}(w)
		}
		wg.Wait()
	}
	var next []*rec
	for _, o := range outs {
		next = append(next, o...)
	}
	return next
}

// successors expands r, a state on level depth.
func (c *checker) successors(ev *eval.Evaluator, r *rec, depth int, out []*rec) []*rec {
	any := false
	var gen int64
	action := -1
	handle := func(t []value.Value) error {
		any = true
		gen++
		// As in TLC, TLCGet("level") is the successor's level in its
		// constraints and invariants, and r's in Next and the action
		// constraints.
		ev.SetLevel(depth + 1)
		defer ev.SetLevel(depth)
		ok, err := ev.InConstraints(t)
		if err != nil {
			return err
		}
		if ok && len(c.m.ActionConstraints) > 0 {
			ev.SetLevel(depth)
			if ok, err = ev.InActionConstraints(r.vals, t); err != nil {
				return err
			}
			ev.SetLevel(depth + 1)
		}
		if !ok {
			if c.opt.Step != nil {
				c.opt.Step(Transition{From: r.vals, To: t, Action: action, Cut: true})
			}
			return nil
		}
		fp, err := c.fingerprint(ev, t)
		if err != nil {
			return err
		}
		fresh := c.seen.add(fp)
		if c.opt.Step != nil {
			c.opt.Step(Transition{From: r.vals, To: t, Action: action, Fresh: fresh})
		}
		if !fresh {
			return nil
		}
		c.distinct.Add(1)
		nr := &rec{vals: t, parent: r}
		if !c.checkInvariants(ev, nr) {
			return errStop
		}
		c.visit(nr)
		out = append(out, nr)
		return nil
	}
	var err error
	if c.opt.Step == nil {
		err = ev.Next(r.vals, handle)
	} else {
		for action = range c.m.NextActions() {
			if err = ev.NextAction(action, r.vals, handle); err != nil {
				break
			}
		}
	}
	c.generated.Add(gen)
	if err != nil {
		if err != errStop {
			c.evalFailure(err, r, "computing the successors of a state")
		}
		return out
	}
	if !any && c.m.CheckDeadlock {
		c.fail(&Result{Result: "deadlock", ExitCode: ExitDeadlock, Error: "Deadlock reached.", Trace: c.trace(r)})
	}
	return out
}

func (c *checker) visit(r *rec) {
	if c.opt.Visit != nil {
		c.opt.Visit(r.vals, func() []State { return c.trace(r) })
	}
}

func (c *checker) progressLoop() func() {
	if c.opt.Progress == nil {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(c.opt.ProgressEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				c.opt.Progress(Progress{Distinct: c.distinct.Load(), Generated: c.generated.Load(),
					Depth: int(c.depth.Load()), Queue: int(c.queue.Load())})
			}
		}
	}()
	return func() { close(done) }
}
