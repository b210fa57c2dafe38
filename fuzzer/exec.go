package fuzzer

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// interruptGrace is how long an interrupted system has to return before it
// is abandoned (and its hang is said to be at an unknown step): long
// enough for a loaded machine to schedule it.
const interruptGrace = 3 * time.Second

// executor runs inputs on one system instance, with a timeout: an
// execution that hangs becomes a hang failure, and the system is
// interrupted or replaced so that the next execution runs.
type executor struct {
	fac     schedule.Factory
	sys     schedule.System
	timeout time.Duration // 0: none
	// Abandoned counts systems left hanging (not interruptible, or not
	// returning after Interrupt).
	abandoned int
	// running is the system while it executes, for interrupt (another
	// goroutine).
	mu      sync.Mutex
	running schedule.System
}

// interrupt stops the execution under way, if there is one and its
// system can be interrupted (schedule.Interruptible); it is called from
// another goroutine than run's.
func (e *executor) interrupt() {
	e.mu.Lock()
	sys := e.running
	e.mu.Unlock()
	if is, ok := sys.(schedule.Interruptible); ok {
		is.Interrupt()
	}
}

func (e *executor) setRunning(sys schedule.System) {
	e.mu.Lock()
	e.running = sys
	e.mu.Unlock()
}

func newExecutor(fac schedule.Factory, timeout time.Duration) *executor {
	return &executor{fac: fac, timeout: timeout}
}

type execResult struct {
	in  *schedule.Input
	ex  *schedule.Execution
	err error
}

// run executes in. The Execution may share the system's buffers (valid
// until the next run).
func (e *executor) run(in *schedule.Input) (*schedule.Execution, error) {
	_, ex, err := e.runWith(in, nil, nil)
	return ex, err
}

// runWith executes in or, with online set, the input online builds with
// the random choices of r, and returns the input that ran. An online
// execution abandoned in a hang returns what is known of its input: none.
//
// A hang of an input is confirmed by running it a second time (as AFL
// does with its timeouts): executions are deterministic, so a real hang
// hangs again, while an execution that missed its deadline because the
// machine was busy finishes the second time, and is no bug.
func (e *executor) runWith(in *schedule.Input, online Online, r *rand.Rand) (*schedule.Input, *schedule.Execution, error) {
	ran, ex, err := e.runOnce(in, online, r)
	if err != nil || online != nil || !hung(ex) {
		return ran, ex, err
	}
	ran2, ex2, err2 := e.runOnce(in, nil, nil)
	switch {
	case err2 != nil:
		return ran, ex, nil
	case !hung(ex2):
		return ran2, ex2, nil
	case hangStep(ex) < 0 && hangStep(ex2) >= 0:
		return ran2, ex2, nil // the second one knows where it hung
	}
	return ran, ex, nil
}

// hung reports whether ex was stopped by the execution timeout.
func hung(ex *schedule.Execution) bool { return hangStep(ex) != -2 }

// hangStep is the step a hung execution hung in (-1: unknown), -2 when ex
// did not hang.
func hangStep(ex *schedule.Execution) int {
	if ex == nil {
		return -2
	}
	for _, f := range ex.Failures {
		if f.Kind == schedule.FailureHang {
			return f.Step
		}
	}
	return -2
}

// runOnce is one execution of runWith.
func (e *executor) runOnce(in *schedule.Input, online Online, r *rand.Rand) (*schedule.Input, *schedule.Execution, error) {
	if e.sys == nil {
		sys, err := e.fac.New()
		if err != nil {
			return in, nil, err
		}
		e.sys = sys
	}
	e.setRunning(e.sys)
	defer e.setRunning(nil)
	sys := e.sys
	exec := func() execResult {
		if online != nil {
			in, ex, err := online.Run(sys, r)
			return execResult{in, ex, err}
		}
		ex, err := sys.Execute(in)
		if err == nil && ex != nil && ex.Limit != nil {
			// Stopped at a limit of ours: nothing to measure or report.
			return execResult{in, nil, ex.Limit}
		}
		return execResult{in, ex, err}
	}
	if e.timeout <= 0 {
		res := exec()
		return res.in, res.ex, res.err
	}
	done := make(chan execResult, 1)
	go func() { done <- exec() }()
	timer := time.NewTimer(e.timeout)
	defer timer.Stop()
	select {
	case res := <-done:
		return res.in, res.ex, res.err
	case <-timer.C:
	}
	// Hung: interrupt it if it can be, else (or if it does not return)
	// abandon it and take a new instance.
	if is, ok := sys.(schedule.Interruptible); ok {
		is.Interrupt()
		select {
		case res := <-done:
			if res.err != nil {
				return res.in, nil, res.err
			}
			ex := &schedule.Execution{Trace: res.ex.Trace, Skipped: res.ex.Skipped, Units: res.ex.Units}
			ex.Failures = append(ex.Failures, hangFailure(res.in, ex.Trace, e.timeout))
			return res.in, ex, nil
		case <-time.After(interruptGrace):
		}
	}
	e.abandoned++
	e.sys = nil
	if in == nil {
		in = &schedule.Input{}
	}
	return in, &schedule.Execution{Failures: []schedule.Failure{hangFailure(in, nil, e.timeout)}}, nil
}

// hangFailure describes an execution stopped by the timeout. The step it
// hung in is the step of the last event (the partial trace of an
// interrupted system); without a trace it is unknown (-1).
func hangFailure(in *schedule.Input, t schedule.Trace, timeout time.Duration) schedule.Failure {
	step := -1
	if len(t) > 0 {
		step = t[len(t)-1].Step
	}
	where := "at an unknown step (the system could not be interrupted)"
	sig := "hang: unknown step"
	if step >= 0 && step < len(in.Steps) {
		where = fmt.Sprintf("in step %d (%s)", step, in.Steps[step])
		sig = "hang: in a " + string(in.Steps[step].Action) + " step"
	}
	return schedule.Failure{Kind: schedule.FailureHang, Signature: sig, Step: step,
		Message: fmt.Sprintf("the execution did not finish within %v; it hung %s", timeout, where)}
}

// Checker runs inputs and gathers every failure they show: the system's
// own, the oracles' and the measures' (a model's divergences and violated
// invariants). It is what minimization and triage replay inputs with. A
// Checker is used by one goroutine at a time.
type Checker struct {
	exec     *executor
	measures []Measure
}

// NewChecker makes a checker with its own system instance from fac.
func NewChecker(fac schedule.Factory, measures []Measure, timeout time.Duration) *Checker {
	return &Checker{exec: newExecutor(fac, timeout), measures: measures}
}

// Run executes in and returns its execution (trace copied) with all
// failures, the measures' observations in the order of the measures.
func (c *Checker) Run(in *schedule.Input) (*schedule.Execution, []Observation, error) {
	ex, err := c.exec.run(in)
	if err != nil {
		return nil, nil, err
	}
	out := &schedule.Execution{Trace: ex.Trace.Clone(), Skipped: ex.Skipped, Failures: append([]schedule.Failure(nil), ex.Failures...), Units: ex.Units, Spec: ex.Spec}
	obs := make([]Observation, len(c.measures))
	for i, m := range c.measures {
		o, err := m.Measure(in, out)
		if err != nil {
			return nil, nil, fmt.Errorf("measure %s: %w", m.Name(), err)
		}
		obs[i] = o
		out.Failures = append(out.Failures, o.Failures...)
	}
	return out, obs, nil
}

// Reproduces reports whether in shows a failure with the given signature.
func (c *Checker) Reproduces(in *schedule.Input, signature string) (bool, error) {
	ex, _, err := c.Run(in)
	if err != nil {
		return false, err
	}
	for _, f := range ex.Failures {
		if f.Signature == signature {
			return true, nil
		}
	}
	return false, nil
}

// heapBytes is the memory of the Go heap's objects, live or not yet
// collected.
func heapBytes() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// rssBytes is the resident set size of this process (Linux; 0 elsewhere).
func rssBytes() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}
