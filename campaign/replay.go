package campaign

import (
	"bytes"
	"fmt"
	"os"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// Run replays the target once.
func (t *Target) Run() (*schedule.Execution, error) {
	ex, _, err := t.Checker.Run(t.Input)
	if err != nil {
		return nil, fmt.Errorf("replay %s: %v", t.What, err)
	}
	return ex, nil
}

// Repeated is what replaying a target again and again showed.
type Repeated struct {
	Runs  int // in all, the first included
	Same  int // runs whose trace was byte-identical to the first one's
	Shows int // runs that showed the target bug's signature
	// Failing counts the runs that showed a failure (any), the first
	// included.
	Failing int
	// Failed are the failures of the first run that failed (nil: none
	// did), FailedRun that run's number (1 is the first run).
	Failed    []schedule.Failure
	FailedRun int
	// Signatures counts the failing runs by the signature of each one's
	// first failure, so that a flaky bug that fails another way now and
	// then is told apart from one that fails its own way.
	Signatures map[string]int
}

// Repeat replays the target until it ran n times in all, first being the
// execution of its first run, and counts how often the trace was
// byte-identical to the first one's and, for a bug, how often its
// signature showed.
func (t *Target) Repeat(first *schedule.Execution, n int) (*Repeated, error) {
	want := schedule.EncodeTrace(first.Trace)
	rep := &Repeated{Runs: n, Same: 1, Signatures: map[string]int{}}
	has := func(ex *schedule.Execution) bool {
		for _, f := range ex.Failures {
			if f.Signature == t.Signature {
				return true
			}
		}
		return false
	}
	count := func(run int, ex *schedule.Execution) {
		if has(ex) {
			rep.Shows++
		}
		if len(ex.Failures) == 0 {
			return
		}
		rep.Failing++
		rep.Signatures[ex.Failures[0].Signature]++
		if rep.Failed == nil {
			rep.Failed, rep.FailedRun = ex.Failures, run
		}
	}
	count(1, first)
	for i := 1; i < n; i++ {
		ex, _, err := t.Checker.Run(t.Input)
		if err != nil {
			return nil, fmt.Errorf("replay %s (run %d): %v", t.What, i+1, err)
		}
		if bytes.Equal(schedule.EncodeTrace(ex.Trace), want) {
			rep.Same++
		}
		count(i+1, ex)
	}
	return rep, nil
}

// WriteSpecTrace writes the system's own trace of an execution to path,
// as etcd raft's tla/validate.sh reads it (SpecTraceFile); it returns the
// number of events written.
func WriteSpecTrace(path string, ex *schedule.Execution) (int, error) {
	if len(ex.Spec) == 0 {
		return 0, fmt.Errorf("--spec-trace: the execution recorded no trace of its own (only a campaign with --model etcdraft.tla records the library's trace)")
	}
	b, err := SpecTraceFile(ex.Spec)
	if err != nil {
		return 0, fmt.Errorf("--spec-trace: %v", err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return 0, fmt.Errorf("--spec-trace: %v", err)
	}
	return len(ex.Spec), nil
}
