package check

import (
	"fmt"
	"sync"
	"time"

	"github.com/modelfuzz/modelfuzz/tlc/eval"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// Trace validation, as etcd raft's validate.sh does it with TLC: a trace
// spec reads a log (TraceLog, a sequence of events) and its next-state
// relation consumes one event per step, advancing the variable l; the log
// is matched when some behaviour of the spec consumes it entirely, that
// is, when a reachable state has l > Len(TraceLog). TLC states this as the
// temporal property TraceMatched and needs one worker and breadth-first
// search; here the search is the checker's (a strict breadth-first search
// whatever the number of workers), and the spec's invariants are checked
// on the way as TLC does.

// TraceSpec names what the validation reads from the trace spec.
type TraceSpec struct {
	Log   string // the definition holding the events ("TraceLog")
	Index string // the variable indexing the next event ("l")
}

// DefaultTraceSpec is the convention of the tlaplus trace validation
// examples, which etcd raft's Traceetcdraft.tla follows.
var DefaultTraceSpec = TraceSpec{Log: "TraceLog", Index: "l"}

// TraceResult is the outcome of one trace validation.
type TraceResult struct {
	Matched bool
	// Log is the trace as the spec read it; Consumed is how many of its
	// events the furthest behaviour took (Len(Log) when matched).
	Log      []value.Value
	Consumed int
	// Check is the underlying search (states, time, and any invariant
	// violation or evaluation error, which make the trace not matched).
	Check *Result
	// When not matched: Stuck leads from an initial state to a state that
	// consumed Consumed events and could take no further step that
	// consumes the next one (Reaching is how many distinct states did);
	// Probes say how far the spec's actions got from it, and Successors
	// how many successors it has all the same (steps that do not consume
	// an event, if the spec has them).
	Stuck      []State
	Reaching   int
	Probes     []eval.ActionProbe
	Successors int
	ProbeError error
	// QueueStop is where TLC's TraceMatched stops the search (FollowTrace
	// only; nil when it does not): the tlaplus trace validation idiom
	// [](l <= Len(TraceLog) => [](TLCGet("queue") = 1 \/ l > Len(TraceLog)))
	// fails at the first state TLC expands, short of the log's end, with
	// nothing queued after it (the trace is not matched there), or with
	// more than one state queued: when two behaviours are followed at
	// once, TLC (and validate.sh) fails a trace that a behaviour matches
	// (see safety.go). It leads from an initial state to that state.
	QueueStop []State
}

// ValidateTrace checks whether the spec of m consumes its whole log.
// opt.Visit, when set, sees every distinct state the search reaches (the
// fuzzer's coverage of the spec).
func ValidateTrace(m *eval.Model, ts TraceSpec, opt Options) (*TraceResult, error) {
	idx := -1
	for i, v := range m.Vars {
		if v == ts.Index {
			idx = i
		}
	}
	if idx < 0 {
		return nil, fmt.Errorf("the trace spec has no variable %s (the index of the next event)", ts.Index)
	}
	ev := m.NewEvaluator()
	logv, err := ev.Definition(ts.Log, nil)
	if err != nil {
		return nil, fmt.Errorf("reading the trace (%s): %w", ts.Log, err)
	}
	logf, ok := logv.(*value.Func)
	if !ok || !logf.IsSeq() && logf.Len() > 0 {
		return nil, fmt.Errorf("%s is not a sequence of events", ts.Log)
	}
	events := logf.Values()
	n := int64(len(events))

	var mu sync.Mutex
	best := int64(-1)
	reaching := 0
	var bestState []value.Value
	var bestPath func() []State
	visit := opt.Visit // the caller's, called first
	opt.Visit = func(s []value.Value, path func() []State) {
		if visit != nil {
			visit(s, path)
		}
		l, ok := s[idx].(value.Int)
		if !ok {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		switch {
		case int64(l) > best:
			best, reaching, bestState, bestPath = int64(l), 1, s, path
		case int64(l) == best:
			reaching++
		}
	}
	start := time.Now()
	res := Check(m, opt)
	tr := &TraceResult{Log: events, Check: res}
	if k := len(res.Trace); res.ExitCode != ExitSuccess && k > 0 {
		// The events the state where the search stopped had consumed:
		// an invariant violated there was violated after its last one,
		// as TLC's trace shows (its l is one past that event).
		if l, ok := res.Trace[k-1].Values[idx].(value.Int); ok && int64(l) > best {
			best = int64(l)
		}
	}
	if best > n {
		best = n + 1
	}
	tr.Consumed = max(int(best)-1, 0)
	tr.Matched = best == n+1 && res.ExitCode == ExitSuccess
	if res.ExitCode != ExitSuccess && len(res.Trace) > 0 {
		// Where the search stopped.
		tr.Stuck, tr.Reaching = res.Trace, 1
		res.Duration = time.Since(start)
		return tr, nil
	}
	if tr.Matched || bestState == nil {
		res.Duration = time.Since(start)
		return tr, nil
	}
	tr.Stuck, tr.Reaching = bestPath(), reaching
	tr.Probes, tr.Successors, tr.ProbeError = m.NewEvaluator().ProbeNext(bestState)
	res.Duration = time.Since(start)
	return tr, nil
}
