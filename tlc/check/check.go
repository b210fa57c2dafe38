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
	ExitLiveness   = 13 // a PROPERTY violated: temporal, action or initial
	ExitFailure    = 75 // an evaluation error
	ExitParse      = 150
	ExitConfig     = 151
	ExitSystem     = 153
)

// Options configure a check.
type Options struct {
	Workers int // 0: one per CPU
	// InitStart, when set, is called when the search starts computing the
	// initial states (not when it recovers from a checkpoint).
	InitStart func()
	// InitDone, when set, is called once the initial states are computed
	// (TLC prints "Finished computing initial states").
	InitDone func(Progress)
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
	// MemStates is how many states of a BFS level stay in memory; the
	// others wait in files of QueueDir (0: a default; -1: none).
	MemStates int
	// QueueDir is where the queue's files go ("": the system's temporary
	// directory).
	QueueDir string
	// Observer, when set, sees the state graph as the search builds it
	// (the PROPERTIES: see props.go).
	Observer Observer
	// Checkpoint configures checkpoints (see checkpoint.go); Recover, when
	// set, is a checkpoint (its directory or file) to go on from instead
	// of the initial states, and Recovered is then called once it is read.
	Checkpoint Checkpointing
	Recover    string
	Recovered  func(Recovery)
	// Ordered expands one state at a time, in the order of the queue, as
	// TLC's single worker does: what the spec reads of the running search
	// (TLCGet("queue")) is then TLC's.
	Ordered bool
	// Live, when set, is told of the check of the temporal properties
	// (CheckWithProperties), for the lines TLC prints of it.
	Live LiveReporter
}

// LiveReporter is told of the phases of the check of the temporal
// properties, as TLC prints them.
type LiveReporter interface {
	// Branches is called before the search with the number of problems
	// the check solves (TLC's "satisfiability problem has N branches").
	Branches(n int)
	// Checking is called after a complete search, before the properties
	// are checked on its state graph: branches problems on a graph of
	// nodes states each, the search's counts in p.
	Checking(branches int, nodes int64, p Progress)
}

// Observer sees the state graph as the search builds it, from several
// goroutines at once, each with its own evaluator. An error it returns
// stops the search: a *PropertyViolation is reported with the trace to
// the state or step, any other error as an evaluation failure.
type Observer interface {
	// State is called once for every new distinct state s (with its
	// fingerprint after VIEW and SYMMETRY), after the invariants held in
	// it and before its successors are computed; initial says whether it
	// is an initial state.
	State(ev *eval.Evaluator, fp uint64, s []value.Value, initial bool) error
	// Step is called for every successor t of s the next-state relation
	// generates, new or not, after t's invariants were checked when it is
	// new. inModel is false when t is excluded by a CONSTRAINT or an
	// ACTION_CONSTRAINT (tfp is then 0): TLC checks action properties on
	// such steps too, but they are not part of the state graph.
	Step(ev *eval.Evaluator, sfp uint64, s []value.Value, tfp uint64, t []value.Value, inModel bool) error
}

// ExpansionObserver is an Observer that also sees each initial state once
// it is queued, and each state once all its successors are generated and
// the new ones queued: TLC evaluates the predicates of temporal
// properties then (see safety.go). Expanded is given the successors
// within the constraints, new or not, in the order generated, and the
// search, to revisit states it expanded before.
type ExpansionObserver interface {
	Observer
	Initial(ev *eval.Evaluator, id, fp uint64, s []value.Value) error
	Expanded(ev *eval.Evaluator, id, fp uint64, s []value.Value, succ []Successor, search Search) error
}

// Search gives an ExpansionObserver the states of the search: the values
// of the state recorded at id (rebuilt from the trace of fingerprints),
// and the successors of a state within the constraints, generated as the
// search generates them.
type Search interface {
	Values(id uint64) ([]value.Value, error)
	Successors(ev *eval.Evaluator, s []value.Value) ([]Successor, error)
}

// Successor is a successor of an expanded state: its fingerprint after
// VIEW and SYMMETRY, its values, and whether it is new (its trace record
// is then ID).
type Successor struct {
	FP    uint64
	Vals  []value.Value
	Fresh bool
	ID    uint64
}

// StepViolation is an error of an ExpansionObserver: a property violated
// by the behaviour that leads to the state recorded at At, followed by
// Then when not nil (a state without a record of its own).
type StepViolation struct {
	PropertyViolation
	At   uint64
	Then []value.Value
}

// PropertyViolation is a property that an Observer found violated in the
// state or step it was shown.
type PropertyViolation struct {
	Property string
	Message  string // TLC's words: "Action property P is violated."
	// Invariant is set for a []P property, which TLC checks and reports
	// as an invariant; Initial for a property violated by an initial
	// state; Temporal for a temporal property whose violation is a
	// behaviour up to a state (TLC's exit code is then 12).
	Invariant, Initial, Temporal bool
}

func (v *PropertyViolation) Error() string { return v.Message }

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
	Result    string // "success", "invariant", "deadlock", "error", "assumption", "property", "property-initial", "liveness", "temporal" (a temporal property violated by a finite behaviour), "not-checked"
	Distinct  int64
	Generated int64
	Depth     int
	// Queue is the number of states left on the queue when the search
	// stopped: 0 after a complete search, those found and not yet
	// expanded after a violation (TLC's "N states left on queue").
	Queue    int64
	Duration time.Duration
	ExitCode int
	// Error describes a violation or failure; Trace leads to it from an
	// initial state (for a deadlock, to the deadlocked state).
	Error string
	Trace []State
	// A liveness violation's Trace is a lasso: after its last state the
	// behaviour goes back to state LoopBack (1-based), or, when
	// Stuttering, stays in the last state forever.
	LoopBack   int
	Stuttering bool
	// NoFairness: a stuttering counterexample of a spec without fairness
	// conditions (or any other temporal conjunct), for a property whose
	// negation has conditions a fairness condition could contradict (TLC's
	// "possible error model" is not empty, or its promises hold a []):
	// TLC then warns that a fairness condition may be missing.
	NoFairness bool
	// OutDegree summarizes how many new states each expanded state led to
	// (nil when no state was expanded).
	OutDegree *OutDegree
	// Invariant names the violated invariant, Property the violated
	// PROPERTY.
	Invariant, Property string
	// Unchecked lists the properties the check did not check (see
	// NotChecked).
	Unchecked []Unchecked
	// LiveChecked: the temporal properties were checked on the complete
	// state graph, in LiveDuration (TLC prints when that ends, after the
	// counterexample if there is one).
	LiveChecked  bool
	LiveDuration time.Duration
}

// checker is one run.
type checker struct {
	m         *eval.Model
	opt       Options
	seen      *fpSet
	log       traceLog
	q         queue
	distinct  atomic.Int64
	generated atomic.Int64
	depth     atomic.Int64
	queue     atomic.Int64
	// outDegree counts the expanded states by their number of new
	// successors, the last bucket holding every number from its index on.
	outDegree [outDegreeBuckets]atomic.Int64
	// grew: the level being expanded has found a new state (TLC's depth
	// then counts the next level).
	grew atomic.Bool

	stopMu sync.Mutex
	stop   atomic.Bool
	result *Result // the first violation or failure
	// resultAt is the record of the state result's trace leads to
	// (noParent: none).
	resultAt uint64

	// evs holds one evaluator per worker, kept from level to level: an
	// evaluator remembers where the invariants held.
	evs  []*eval.Evaluator
	decs []*value.Decoder
}

// fingerprint of a state, after VIEW and SYMMETRY.
func (c *checker) fingerprint(ev *eval.Evaluator, s []value.Value) (uint64, error) {
	return Fingerprint(c.m, ev, s)
}

// Fingerprint is the fingerprint the search keeps for state s of m, after
// VIEW and SYMMETRY.
func Fingerprint(m *eval.Model, ev *eval.Evaluator, s []value.Value) (uint64, error) {
	if m.HasView() {
		// As TLC: symmetry applies to the view, not to the state.
		v, err := ev.ViewOf(s)
		if err != nil {
			return 0, err
		}
		if m.Symmetry != nil {
			return m.Symmetry.Fingerprint([]value.Value{v}), nil
		}
		return value.Fingerprint(v), nil
	}
	if m.Symmetry != nil {
		return m.Symmetry.Fingerprint(s), nil
	}
	return value.FingerprintState(s), nil
}

// observerFailure stops the search for an error of the Observer in the
// state recorded at id on level depth, or in the step from it to t (a new
// state when fresh).
func (c *checker) observerFailure(err error, id uint64, depth int, t []value.Value, fresh bool) {
	var pv *PropertyViolation
	if !errors.As(err, &pv) {
		c.evalFailureCode(err, id, "checking the properties", ExitLivenessEval)
		return
	}
	if fresh {
		depth++
	}
	// The state is on level depth of the search, as in TLC (which records
	// a new state before it checks it).
	for d := c.depth.Load(); d < int64(depth) && !c.depth.CompareAndSwap(d, int64(depth)); d = c.depth.Load() {
	}
	res := &Result{Result: "property", ExitCode: ExitLiveness, Property: pv.Property, Error: pv.Message}
	switch {
	case pv.Invariant:
		res.Result, res.ExitCode, res.Invariant, res.Property = "invariant", ExitSafety, pv.Property, ""
	case pv.Initial:
		res.Result = "property-initial"
	case pv.Temporal:
		res.Result, res.ExitCode = "temporal", ExitSafety
	}
	if t != nil {
		// A step: the trace to its first state, then t (which may have no
		// record of its own).
		tr, err := c.rebuild(id)
		if err != nil {
			res.Error += " (" + err.Error() + ")"
		}
		res.Trace = append(tr, State{Vars: c.m.Vars, Values: t})
	}
	c.fail(res, id)
}

// fail records r, whose trace leads to the state recorded at id, as the
// outcome unless another failure came first, and stops the search.
func (c *checker) fail(r *Result, id uint64) {
	c.stopMu.Lock()
	defer c.stopMu.Unlock()
	if c.result == nil {
		c.result, c.resultAt = r, id
		r.Queue = c.queue.Load()
	}
	c.stop.Store(true)
}

// violated records an invariant violation, whose trace leads to the
// state recorded at id, when the search continues past it
// (Options.Continue).
func (c *checker) violated(r *Result, id uint64) {
	if c.opt.Violation != nil {
		tr, err := c.rebuild(id)
		r.Trace = tr
		if err != nil {
			r.Error += " (" + err.Error() + ")"
		}
	}
	c.stopMu.Lock()
	defer c.stopMu.Unlock()
	if c.result == nil {
		c.result, c.resultAt = r, id
	}
	if c.opt.Violation != nil {
		c.opt.Violation(r)
	}
}

// evalFailure records an evaluation error while handling the state
// recorded at id.
func (c *checker) evalFailure(err error, id uint64, what string) {
	c.evalFailureCode(err, id, what, ExitFailure)
}

// evalFailureCode is evalFailure with TLC's exit code for the kind of
// evaluation (an invariant's differs); a failed Assert has its own.
func (c *checker) evalFailureCode(err error, id uint64, what string, code int) {
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
	c.fail(&Result{Result: "error", ExitCode: failureCode(err, code), Error: what + ": " + msg}, id)
}

// checkInvariants evaluates the invariants in a new state s, recorded at
// id, on level depth.
func (c *checker) checkInvariants(ev *eval.Evaluator, s []value.Value, id uint64, depth int) bool {
	for i, inv := range c.m.Invariants {
		ok, err := ev.Invariant(i, s)
		if err != nil || !ok {
			// The state is on level depth of the search, as in TLC,
			// which records a new state before checking it.
			for d := c.depth.Load(); d < int64(depth) && !c.depth.CompareAndSwap(d, int64(depth)); d = c.depth.Load() {
			}
		}
		if err != nil {
			c.evalFailureCode(err, id, "evaluating invariant "+inv.Name, ExitSafetyEval)
			return false
		}
		if !ok {
			res := &Result{Result: "invariant", ExitCode: ExitSafety, Invariant: inv.Name,
				Error: fmt.Sprintf("Invariant %s is violated.", inv.Name)}
			if c.opt.Continue {
				c.violated(res, id)
				return true
			}
			c.fail(res, id)
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
	if opt.MemStates == 0 {
		opt.MemStates = defaultMemStates
	}
	// The search allocates many short-lived values and keeps few (the
	// fingerprints, the trace records, a bounded part of a level):
	// collecting less often trades memory for a large share of the run
	// time.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	c := &checker{m: m, opt: opt, seen: newFPSet(), resultAt: noParent}
	c.q = queue{memStates: int64(max(opt.MemStates, 0)), base: opt.QueueDir}
	m.Stats = func() map[string]int64 {
		return map[string]int64{"distinct": c.distinct.Load(), "generated": c.generated.Load(),
			"diameter": c.depth.Load(), "queue": c.queue.Load()}
	}
	defer func() { m.Stats = nil }()
	res := c.run()
	if res == c.result && c.resultAt != noParent && res.Trace == nil {
		tr, err := c.rebuild(c.resultAt)
		res.Trace = tr
		if err != nil {
			res.Error += " (" + err.Error() + ")"
		}
	}
	res.Distinct, res.Generated, res.Depth = c.distinct.Load(), c.generated.Load(), int(c.depth.Load())
	var hist [outDegreeBuckets]int64
	for i := range hist {
		hist[i] = c.outDegree[i].Load()
	}
	res.OutDegree = outDegreeOf(hist)
	res.Duration = time.Since(start)
	return res
}

// defaultMemStates is how many states of a level stay in memory: levels
// of trace specs and small models never reach the disk, and large states
// (MultiPaxos_MC_small's, tens of KB with the collector's slack) do not
// fill the memory: 16,384 of them took 1.15 GB of resident memory at
// depth 18, 4,096 took 0.56 GB, in the same CPU time.
const defaultMemStates = 1 << 12

func (c *checker) run() *Result {
	for len(c.evs) < c.opt.Workers {
		c.evs = append(c.evs, c.m.NewEvaluator())
		c.decs = append(c.decs, value.NewDecoder())
	}
	var level *level
	first := 1
	if c.opt.Recover != "" {
		var err error
		if level, first, err = c.recoverFrom(c.opt.Recover); err != nil {
			return &Result{Result: "error", ExitCode: ExitSystem, Error: err.Error()}
		}
		if c.opt.Recovered != nil {
			c.opt.Recovered(Recovery{Path: c.opt.Recover, Distinct: c.distinct.Load(), Generated: c.generated.Load(),
				Queue: level.len(), Depth: int(c.depth.Load())})
		}
	} else {
		if c.opt.InitStart != nil {
			c.opt.InitStart()
		}
		level = c.initial()
		if c.stop.Load() {
			level.done()
			return c.result
		}
		if level.len() > 0 {
			c.depth.Store(1)
		}
		if c.opt.InitDone != nil {
			c.opt.InitDone(Progress{Distinct: c.distinct.Load(), Generated: c.generated.Load(), Depth: int(c.depth.Load()), Queue: int(level.len())})
		}
	}
	if !c.m.NewEvaluator().HasNext() {
		level.done()
		if c.result != nil {
			return c.result // a violation with Options.Continue
		}
		return &Result{Result: "success", ExitCode: ExitSuccess}
	}
	stopProgress := c.progressLoop()
	defer stopProgress()
	lastCheckpoint := time.Now()
	for depth := first; level.len() > 0 && !c.stop.Load(); depth++ {
		if c.opt.MaxDepth > 0 && depth >= c.opt.MaxDepth {
			level.done()
			return &Result{Result: "error", ExitCode: ExitSystem, Error: fmt.Sprintf("stopped at depth %d (--max-depth)", depth)}
		}
		if c.checkpointDue(depth, first, lastCheckpoint) {
			if err := c.checkpoint(level, depth); err != nil {
				level.done()
				return &Result{Result: "error", ExitCode: ExitSystem, Error: err.Error()}
			}
			lastCheckpoint = time.Now()
		}
		c.queue.Store(level.len())
		c.grew.Store(false)
		next := c.expand(level, depth)
		level.done()
		level = next
		if c.stop.Load() {
			break
		}
		if level.len() > 0 {
			c.depth.Store(int64(depth + 1))
		}
		if c.opt.MaxStates > 0 && c.distinct.Load() >= c.opt.MaxStates {
			level.done()
			return &Result{Result: "error", ExitCode: ExitSystem, Error: fmt.Sprintf("stopped after %d distinct states (--max-states)", c.distinct.Load())}
		}
	}
	level.done()
	if c.result != nil {
		return c.result
	}
	return &Result{Result: "success", ExitCode: ExitSuccess}
}

var errStop = errors.New("stop")

// initial computes the first level. One goroutine enumerates the initial
// predicate; with several workers, they check the states it finds
// (constraints, fingerprints, invariants) in batches.
func (c *checker) initial() *level {
	l := &level{}
	workers := c.opt.Workers
	writers := make([]writer, workers)
	for w := range writers {
		writers[w] = writer{l: l, q: &c.q}
	}
	gen := c.m.NewEvaluator()
	gen.SetLevel(1)
	var err error
	if workers == 1 || c.opt.Ordered {
		// In order, on this goroutine: what the spec prints comes out as
		// when the enumeration and the checks alternate.
		err = gen.Init(func(s []value.Value) error {
			if c.stop.Load() {
				return errStop
			}
			c.generated.Add(1)
			c.initialState(gen, s, &writers[0])
			return nil
		})
		writers[0].flush()
	} else {
		batches := make(chan [][]value.Value, 2*workers)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ev := c.evs[w]
				ev.SetLevel(1)
				for b := range batches {
					for _, s := range b {
						if !c.stop.Load() {
							c.generated.Add(1)
							c.initialState(ev, s, &writers[w])
						}
					}
				}
				writers[w].flush()
			}()
		}
		const batchLen = 64
		batch := make([][]value.Value, 0, batchLen)
		err = gen.Init(func(s []value.Value) error {
			if c.stop.Load() {
				return errStop
			}
			batch = append(batch, s)
			if len(batch) == batchLen {
				batches <- batch
				batch = make([][]value.Value, 0, batchLen)
			}
			return nil
		})
		if len(batch) > 0 {
			batches <- batch
		}
		close(batches)
		wg.Wait()
	}
	if err != nil && err != errStop {
		c.evalFailure(err, noParent, "computing the initial states")
	}
	c.collect(l, writers)
	return l
}

// initialState checks an initial state s.
func (c *checker) initialState(ev *eval.Evaluator, s []value.Value, w *writer) {
	ok, err := ev.InConstraints(s)
	if err == nil && !ok && c.opt.Step != nil {
		c.opt.Step(Transition{To: s, Action: -1, Cut: true})
	}
	if err == nil && ok {
		var fp uint64
		if fp, err = c.fingerprint(ev, s); err == nil {
			fresh := c.seen.add(fp)
			if c.opt.Step != nil {
				c.opt.Step(Transition{To: s, Action: -1, Fresh: fresh})
			}
			if !fresh {
				return
			}
			c.distinct.Add(1)
			id := c.log.add(noParent, fp)
			if c.checkInvariants(ev, s, id, 1) {
				if obs := c.opt.Observer; obs != nil {
					if err := obs.State(ev, fp, s, true); err != nil {
						c.observerFailure(err, id, 1, nil, false)
						return
					}
				}
				c.visit(s, id)
				w.add(s, id)
				c.queue.Add(1)
				if eo, ok := c.opt.Observer.(ExpansionObserver); ok {
					if err := eo.Initial(ev, id, fp, s); err != nil {
						c.expansionFailure(err, id, 1)
					}
				}
			}
			return
		}
	}
	if err != nil {
		c.evalFailure(err, noParent, "computing the initial states")
	}
}

// expansionFailure stops the search for an error of an
// ExpansionObserver about state id, on level depth.
func (c *checker) expansionFailure(err error, id uint64, depth int) {
	if c.grew.Load() {
		// TLC's depth is the deepest state it recorded.
		depth++
		for d := c.depth.Load(); d < int64(depth) && !c.depth.CompareAndSwap(d, int64(depth)); d = c.depth.Load() {
		}
	}
	var sv *StepViolation
	if errors.As(err, &sv) {
		c.observerFailure(&sv.PropertyViolation, sv.At, depth, sv.Then, false)
		return
	}
	c.observerFailure(err, id, depth, nil, false)
}

// checkerSearch is the checker as an ExpansionObserver's Search.
type checkerSearch struct{ c *checker }

// Values rebuilds the state recorded at id.
func (s checkerSearch) Values(id uint64) ([]value.Value, error) {
	tr, err := s.c.rebuild(id)
	if err != nil {
		return nil, err
	}
	return tr[len(tr)-1].Values, nil
}

// Successors generates the successors of s within the constraints, as
// the search does, without recording them.
func (s checkerSearch) Successors(ev *eval.Evaluator, st []value.Value) ([]Successor, error) {
	return s.c.successorsOf(ev, st)
}

func (c *checker) successorsOf(ev *eval.Evaluator, s []value.Value) ([]Successor, error) {
	var out []Successor
	err := ev.Next(s, func(t []value.Value) error {
		ok, err := ev.InConstraints(t)
		if err == nil && ok && len(c.m.ActionConstraints) > 0 {
			ok, err = ev.InActionConstraints(s, t)
		}
		if err != nil || !ok {
			return err
		}
		fp, err := c.fingerprint(ev, t)
		if err != nil {
			return err
		}
		out = append(out, Successor{FP: fp, Vals: t})
		return nil
	})
	ev.TakeComposed()
	return out, err
}

// collect gathers the writers' output into l.
func (c *checker) collect(l *level, writers []writer) {
	n := 0
	for _, w := range writers {
		n += len(w.mem)
	}
	l.mem = make([]item, 0, n)
	for _, w := range writers {
		l.mem = append(l.mem, w.mem...)
		if w.err != nil {
			c.fail(&Result{Result: "error", ExitCode: ExitSystem, Error: w.err.Error()}, noParent)
		}
	}
}

// expand computes the next BFS level from this one, in parallel.
func (c *checker) expand(l *level, depth int) *level {
	workers := c.opt.Workers
	if l.len() < 64 || c.opt.Ordered {
		workers = 1
	}
	next := &level{}
	writers := make([]writer, workers)
	var memIdx, blockIdx atomic.Int64
	work := func(w int) {
		ev := c.evs[w]
		ev.SetLevel(depth)
		out := &writers[w]
		out.l, out.q = next, &c.q
		for !c.stop.Load() {
			i := int(memIdx.Add(1) - 1)
			if i >= len(l.mem) {
				break
			}
			c.successors(ev, l.mem[i], depth, out)
			l.mem[i] = item{} // explored: its values may go
		}
		in := reader{l: l, dec: c.decs[w]}
		for !c.stop.Load() {
			b := int(blockIdx.Add(1) - 1)
			if b >= len(l.blocks) {
				break
			}
			err := in.readBlock(b, len(c.m.Vars), func(it item) {
				if !c.stop.Load() {
					c.successors(ev, it, depth, out)
				}
			})
			if err != nil {
				c.fail(&Result{Result: "error", ExitCode: ExitSystem, Error: err.Error()}, noParent)
			}
		}
		out.flush()
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
	c.collect(next, writers)
	return next
}

// successors expands it, a state on level depth.
func (c *checker) successors(ev *eval.Evaluator, it item, depth int, out *writer) {
	any := false
	var gen int64
	newSuccs := 0
	action := -1
	obs := c.opt.Observer
	c.queue.Add(-1) // dequeued
	eo, _ := obs.(ExpansionObserver)
	var succs []Successor
	var sfp uint64
	if obs != nil {
		var err error
		if sfp, err = c.fingerprint(ev, it.vals); err != nil {
			c.evalFailure(err, it.id, "computing the successors of a state")
			return
		}
	}
	handle := func(t []value.Value) error {
		any = true
		gen++
		// As in TLC, TLCGet("level") is the successor's level in its
		// constraints and invariants, and its predecessor's in Next and
		// the action constraints.
		ev.SetLevel(depth + 1)
		defer ev.SetLevel(depth)
		ok, err := ev.InConstraints(t)
		if err != nil {
			return err
		}
		if ok && len(c.m.ActionConstraints) > 0 {
			ev.SetLevel(depth)
			if ok, err = ev.InActionConstraints(it.vals, t); err != nil {
				return err
			}
			ev.SetLevel(depth + 1)
		}
		if !ok {
			if c.opt.Step != nil {
				c.opt.Step(Transition{From: it.vals, To: t, Action: action, Cut: true})
			}
			if obs != nil {
				if err := obs.Step(ev, sfp, it.vals, 0, t, false); err != nil {
					c.observerFailure(err, it.id, depth, t, false)
					return errStop
				}
			}
			return nil
		}
		fp, err := c.fingerprint(ev, t)
		if err != nil {
			return err
		}
		fresh := c.seen.add(fp)
		if c.opt.Step != nil {
			c.opt.Step(Transition{From: it.vals, To: t, Action: action, Fresh: fresh})
		}
		if !fresh {
			if obs != nil {
				if err := obs.Step(ev, sfp, it.vals, fp, t, true); err != nil {
					c.observerFailure(err, it.id, depth, t, false)
					return errStop
				}
			}
			if eo != nil {
				succs = append(succs, Successor{FP: fp, Vals: t})
			}
			return nil
		}
		c.distinct.Add(1)
		newSuccs++
		id := c.log.add(it.id, fp)
		if !c.checkInvariants(ev, t, id, depth+1) {
			return errStop
		}
		if obs != nil {
			if err := obs.Step(ev, sfp, it.vals, fp, t, true); err != nil {
				c.observerFailure(err, it.id, depth, t, true)
				return errStop
			}
			if err := obs.State(ev, fp, t, false); err != nil {
				c.observerFailure(err, id, depth+1, nil, false)
				return errStop
			}
		}
		c.visit(t, id)
		out.add(t, id)
		c.queue.Add(1)
		c.grew.Store(true)
		if eo != nil {
			succs = append(succs, Successor{FP: fp, Vals: t, Fresh: true, ID: id})
		}
		return nil
	}
	var err error
	if c.opt.Step == nil {
		err = ev.Next(it.vals, handle)
	} else {
		for action = range c.m.NextActions() {
			if err = ev.NextAction(action, it.vals, handle); err != nil {
				break
			}
		}
	}
	// TLC counts the intermediate states of A \cdot B as generated, and a
	// state with some is not deadlocked.
	composed := ev.TakeComposed()
	any = any || composed > 0
	c.generated.Add(gen + composed)
	if err != nil {
		if err != errStop {
			c.evalFailure(err, it.id, "computing the successors of a state")
		}
		return
	}
	if !any && c.m.CheckDeadlock {
		c.fail(&Result{Result: "deadlock", ExitCode: ExitDeadlock, Error: "Deadlock reached."}, it.id)
		return
	}
	c.outDegree[min(newSuccs, outDegreeBuckets-1)].Add(1)
	if eo != nil && !c.stop.Load() {
		if err := eo.Expanded(ev, it.id, sfp, it.vals, succs, checkerSearch{c}); err != nil {
			c.expansionFailure(err, it.id, depth)
		}
	}
}

func (c *checker) visit(s []value.Value, id uint64) {
	if c.opt.Visit != nil {
		c.opt.Visit(s, func() []State {
			tr, _ := c.rebuild(id)
			return tr
		})
	}
}

func (c *checker) progressLoop() func() {
	if c.opt.Progress == nil {
		return func() {}
	}
	return every(c.opt.ProgressEvery, func() {
		c.opt.Progress(Progress{Distinct: c.distinct.Load(), Generated: c.generated.Load(),
			Depth: int(c.depth.Load()), Queue: int(c.queue.Load())})
	})
}

// every calls f every d in a goroutine of its own until the returned stop
// is called.
func every(d time.Duration, f func()) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				f()
			}
		}
	}()
	return func() { close(done) }
}
