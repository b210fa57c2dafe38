package campaign

import (
	"context"
	"fmt"
	"time"

	"github.com/modelfuzz/modelfuzz/record"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// Minimization is the outcome of Env.Minimize.
type Minimization struct {
	Bug   *record.BugRecord // with its new minimized input, stored
	Stats schedule.MinimizeStats
	// Stopped says why the search stopped before a fixpoint (the budget,
	// a cancellation, a failed execution); nil when it reached one.
	Stopped error
}

// Minimize shrinks the input of bug id while it still shows the bug (the
// same signature), replaying every candidate as the campaign ran it, and
// stores the result with the bug. It starts from the bug's minimized
// input when there is one (original: from the input that found it), so a
// minimization stopped by its budget goes on from where it was.
func (e *Env) Minimize(ctx context.Context, id string, original bool, budget schedule.MinimizeOptions, timeout time.Duration) (*Minimization, error) {
	b, err := e.Store.Bug(id)
	if err != nil {
		return nil, err
	}
	start := b.Reproducer()
	if original {
		start = b.Input
	}
	chk, err := e.Checker(timeout)
	if err != nil {
		return nil, err
	}
	keep := func(in *schedule.Input) (bool, error) { return chk.Reproduces(in, b.Signature) }
	res, st, err := schedule.Minimize(ctx, start, keep, budget)
	if res == nil {
		return nil, fmt.Errorf("minimize %s: %v", b.ID, err)
	}
	b.Minimized, b.MinimizeTries, b.MinimizeNote = res, b.MinimizeTries+st.Tries, ""
	b.MinimizeDone = st.Complete && err == nil
	if err := e.Store.Commit(&record.Batch{Bugs: []*record.BugRecord{b}}); err != nil {
		return nil, err
	}
	return &Minimization{Bug: b, Stats: st, Stopped: err}, nil
}

// Text is what "minimize" prints of m, which took took on the campaign in
// dir: the steps before and after, the executions spent, whether it
// reached a fixpoint, and how to replay the result.
func (m *Minimization) Text(dir string, took time.Duration) string {
	state := "a fixpoint: no single step can be removed or simplified"
	if !m.Bug.MinimizeDone {
		state = "stopped early (budget or Ctrl-C); run again to go on"
	}
	return fmt.Sprintf("%s: %d steps -> %d steps in %d executions (%.1fs), %s\n", m.Bug.ID, m.Stats.Before, m.Stats.After, m.Stats.Tries, took.Seconds(), state) +
		fmt.Sprintf("stored with the bug; replay: modelfuzz replay --corpus %s %s\n", dir, m.Bug.ID)
}
