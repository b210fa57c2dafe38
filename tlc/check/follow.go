package check

import (
	"errors"
	"fmt"
	"time"

	"github.com/modelfuzz/modelfuzz/tlc/eval"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// FollowTrace validates a trace as ValidateTrace does, without the model
// checker: it follows the set of the spec's states event by event, the
// breadth-first search TLC makes on a trace spec (each level the states
// that consumed one more event, or that took a step that consumes none),
// with one evaluator, in TLC's order. Nothing is written, no trace of
// fingerprints is kept beyond the states themselves (a trace spec has
// about one state per event), and the evaluator may have been bound to
// the trace (eval.Evaluator.Bind) in a model loaded once for many traces.
//
// The outcome is ValidateTrace's: matched when a state consumed every
// event; otherwise how far it got, the path to the first state that got
// that far, and how the spec's actions fared from it; or the search's
// stop (an invariant violated, an evaluation error) with the path to the
// state where it stopped.
func FollowTrace(ev *eval.Evaluator, ts TraceSpec, opt FollowOptions) (*TraceResult, error) {
	start := time.Now()
	m := ev.Model()
	idx := -1
	for i, v := range m.Vars {
		if v == ts.Index {
			idx = i
		}
	}
	if idx < 0 {
		return nil, fmt.Errorf("the trace spec has no variable %s (the index of the next event)", ts.Index)
	}
	logv, err := ev.Definition(ts.Log, nil)
	if err != nil {
		return nil, fmt.Errorf("reading the trace (%s): %w", ts.Log, err)
	}
	logf, ok := logv.(*value.Func)
	if !ok || !logf.IsSeq() && logf.Len() > 0 {
		return nil, fmt.Errorf("%s is not a sequence of events", ts.Log)
	}
	f := &follower{ev: ev, m: m, opt: opt, idx: idx, seen: map[uint64]struct{}{}, best: -1, queueStop: -1}
	f.tr = &TraceResult{Log: logf.Values(), Check: &Result{}}
	f.run()
	f.finish(start)
	return f.tr, nil
}

// FollowOptions configure FollowTrace.
type FollowOptions struct {
	// Visit, when set, sees every new distinct state whose invariants
	// hold, in the order the search finds them.
	Visit func(s []value.Value)
	// MaxStates stops the search after this many distinct states (0: no
	// bound): a spec that branches on every event would otherwise grow
	// without end. The outcome is then an error, ExitSystem.
	MaxStates int
	// NoProbe leaves out the diagnosis of a trace not matched (TraceResult's
	// Probes and Successors), which evaluates the stuck state's actions
	// again.
	NoProbe bool
}

// follower is one FollowTrace.
type follower struct {
	ev   *eval.Evaluator
	m    *eval.Model
	opt  FollowOptions
	idx  int
	tr   *TraceResult
	seen map[uint64]struct{}
	// states are the distinct states found, each with the index of the
	// state it was found from (-1 for an initial state).
	states []followed
	// best is the largest event index a state reached, bestAt the first
	// state that reached it, reaching how many did.
	best     int64
	bestAt   int
	reaching int
	// stopAt is the state the search stopped at (-1: none), stopped
	// whether it stopped.
	stopAt  int
	stopped bool
	// queueStop is the first state at which TLC's TraceMatched fails
	// (-1: none; see TraceResult.QueueStop).
	queueStop int
}

type followed struct {
	vals   []value.Value
	parent int
}

func (f *follower) res() *Result { return f.tr.Check }

// stop records the outcome r, found at state at (the path's last state;
// extra, when not nil, is a state after it that has no record).
func (f *follower) stop(r *Result, at int, extra []value.Value) {
	if f.stopped {
		return
	}
	f.stopped = true
	res := f.res()
	res.Result, res.ExitCode, res.Error, res.Invariant = r.Result, r.ExitCode, r.Error, r.Invariant
	f.stopAt = at
	if at >= 0 {
		res.Trace = f.path(at)
	}
	if extra != nil {
		res.Trace = append(res.Trace, State{Vars: f.m.Vars, Values: extra})
	}
}

// path is the trace from an initial state to state i.
func (f *follower) path(i int) []State {
	var out []State
	for ; i >= 0; i = f.states[i].parent {
		out = append(out, State{Vars: f.m.Vars, Values: f.states[i].vals})
	}
	for a, b := 0, len(out)-1; a < b; a, b = a+1, b-1 {
		out[a], out[b] = out[b], out[a]
	}
	return out
}

// add handles a state generated from state parent (-1 for an initial
// state) on level depth (an initial state's is 1): it returns the new
// state's index, or -1 when the state was seen before, or the search
// stops.
func (f *follower) add(s []value.Value, parent, depth int) int {
	ev := f.ev
	res := f.res()
	res.Generated++
	ev.SetLevel(depth)
	ok, err := ev.InConstraints(s)
	if err == nil && ok && parent >= 0 && len(f.m.ActionConstraints) > 0 {
		ev.SetLevel(depth - 1)
		ok, err = ev.InActionConstraints(f.states[parent].vals, s)
		ev.SetLevel(depth)
	}
	if err != nil {
		f.evalStop(err, parent, s, "computing the successors of a state", ExitFailure)
		return -1
	}
	if !ok {
		return -1
	}
	fp, err := Fingerprint(f.m, ev, s)
	if err != nil {
		f.evalStop(err, parent, s, "computing the successors of a state", ExitFailure)
		return -1
	}
	if _, dup := f.seen[fp]; dup {
		return -1
	}
	f.seen[fp] = struct{}{}
	res.Distinct++
	res.Depth = max(res.Depth, depth)
	id := len(f.states)
	f.states = append(f.states, followed{vals: s, parent: parent})
	for i, inv := range f.m.Invariants {
		ok, err := ev.Invariant(i, s)
		if err != nil {
			f.evalStop(err, id, nil, "evaluating invariant "+inv.Name, ExitSafetyEval)
			return -1
		}
		if !ok {
			f.stop(&Result{Result: "invariant", ExitCode: ExitSafety, Invariant: inv.Name,
				Error: fmt.Sprintf("Invariant %s is violated.", inv.Name)}, id, nil)
			return -1
		}
	}
	if l, ok := s[f.idx].(value.Int); ok {
		switch {
		case int64(l) > f.best:
			f.best, f.bestAt, f.reaching = int64(l), id, 1
		case int64(l) == f.best:
			f.reaching++
		}
	}
	if f.opt.Visit != nil {
		f.opt.Visit(s)
	}
	if f.opt.MaxStates > 0 && int(res.Distinct) >= f.opt.MaxStates {
		f.stop(&Result{Result: "error", ExitCode: ExitSystem,
			Error: fmt.Sprintf("stopped after %d distinct states (the bound of the trace validation)", res.Distinct)}, id, nil)
		return -1
	}
	return id
}

// evalStop stops the search on an evaluation error in state at (or in
// state extra, found from it).
func (f *follower) evalStop(err error, at int, extra []value.Value, what string, code int) {
	var inc *eval.IncompleteError
	msg := err.Error()
	if errors.As(err, &inc) {
		pos := f.m.NextPos()
		if inc.Init {
			pos = f.m.InitPos()
		}
		msg = inc.Error()
		if pos.Line > 0 {
			msg = pos.String() + ": " + msg
		}
	}
	f.stop(&Result{Result: "error", ExitCode: failureCode(err, code), Error: what + ": " + msg}, at, extra)
}

func (f *follower) run() {
	ev := f.ev
	var level []int
	err := ev.Init(func(s []value.Value) error {
		if id := f.add(s, -1, 1); id >= 0 {
			level = append(level, id)
		}
		if f.stopped {
			return errStop
		}
		return nil
	})
	if err != nil && err != errStop {
		f.evalStop(err, -1, nil, "computing the initial states", ExitFailure)
	}
	n := int64(len(f.tr.Log))
	// TLC queues the initial states one by one and evaluates TraceMatched
	// on each as it is queued: from the second on, two are queued.
	queuedAtStart := map[int]bool{}
	for i, id := range level {
		if i > 0 && f.lOf(id) <= n {
			queuedAtStart[id] = true
		}
	}
	for depth := 1; len(level) > 0 && !f.stopped; depth++ {
		var next []int
		for i, id := range level {
			any := false
			// TLCGet("level") is the state's level in Next, its
			// successor's in the successor's constraints and invariants.
			ev.SetLevel(depth)
			err := ev.Next(f.states[id].vals, func(t []value.Value) error {
				any = true
				nid := f.add(t, id, depth+1)
				ev.SetLevel(depth)
				if nid >= 0 {
					next = append(next, nid)
				}
				if f.stopped {
					return errStop
				}
				return nil
			})
			composed := ev.TakeComposed()
			f.res().Generated += composed
			if err != nil {
				if err != errStop {
					f.evalStop(err, id, nil, "computing the successors of a state", ExitFailure)
				}
				return
			}
			if !any && composed == 0 && f.m.CheckDeadlock {
				f.stop(&Result{Result: "deadlock", ExitCode: ExitDeadlock, Error: "Deadlock reached."}, id, nil)
				return
			}
			// TLC evaluates TraceMatched on the state's stuttering step
			// once its successors are queued: the states after it in this
			// level and the new ones of the next.
			if queued := len(level) - i - 1 + len(next); f.queueStop < 0 && f.lOf(id) <= n && (queued != 1 || queuedAtStart[id]) {
				f.queueStop = id
			}
		}
		level = next
	}
}

// lOf is the event index of state id (0 when it is not an integer).
func (f *follower) lOf(id int) int64 {
	if l, ok := f.states[id].vals[f.idx].(value.Int); ok {
		return int64(l)
	}
	return 0
}

// finish fills in the outcome.
func (f *follower) finish(start time.Time) {
	tr, res := f.tr, f.res()
	n := int64(len(tr.Log))
	if !f.stopped {
		res.Result, res.ExitCode = "success", ExitSuccess
	}
	best := f.best
	if f.stopped && f.stopAt >= 0 {
		// The events the state where the search stopped had consumed:
		// an invariant violated there was violated after its last one,
		// as TLC's trace shows (its l is one past that event).
		if l, ok := f.states[f.stopAt].vals[f.idx].(value.Int); ok && int64(l) > best {
			best = int64(l)
		}
	}
	best = min(best, n+1)
	tr.Consumed = max(int(best)-1, 0)
	tr.Matched = !f.stopped && f.best >= n+1
	if f.stopped && len(res.Trace) > 0 {
		tr.Stuck, tr.Reaching = res.Trace, 1
	}
	if f.queueStop >= 0 {
		tr.QueueStop = f.path(f.queueStop)
	}
	if !tr.Matched && !f.stopped && f.best >= 0 {
		tr.Stuck, tr.Reaching = f.path(f.bestAt), f.reaching
		if !f.opt.NoProbe {
			tr.Probes, tr.Successors, tr.ProbeError = f.ev.ProbeNext(f.states[f.bestAt].vals)
		}
	}
	res.Duration = time.Since(start)
}
