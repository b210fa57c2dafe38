package fuzzer

import (
	"fmt"

	"github.com/modelfuzz/modelfuzz/record"
)

// StoreError stops a campaign whose store failed: the store's error, and
// what the campaign had not stored.
type StoreError struct {
	Err       error
	Committed int64 // the campaign's iterations as of the last successful commit
	Unstored  int64 // executions since then (finished or in flight) whose results were not stored
}

func (e *StoreError) Error() string {
	return fmt.Sprintf("%v; the campaign stopped: %d execution(s) since its last commit (iteration %d) were not stored",
		e.Err, e.Unstored, e.Committed)
}

func (e *StoreError) Unwrap() error { return e.Err }

// Learner is a strategy that learns across executions (the RL strategies):
// what it learned is committed with every batch, and given back when the
// campaign continues, so that a resumed campaign goes on from its Q-values
// rather than from scratch.
type Learner interface {
	// Learned returns the entries changed since the last call.
	Learned() []record.Learned
	// Restore loads the entries a stored campaign holds, before its first
	// execution.
	Restore([]record.Learned) error
}
