package fuzzer

import "github.com/modelfuzz/modelfuzz/schedule"

// Measure is one notion of coverage: it maps an execution to coverage items
// (64-bit keys). The loop keeps the set of items seen for every measure; a
// strategy's guiding measure decides which executions are interesting.
//
// Items must be stable across runs and machines (they are stored in the
// corpus), and deterministic for a given input. A measure may also observe
// failures (the model measure reports divergences from the model and
// violated model invariants).
type Measure interface {
	Name() string
	Measure(in *schedule.Input, ex *schedule.Execution) (Observation, error)
}

// BatchMeasure is a Measure that is cheaper over several executions at
// once (a model engine in another process: one round trip). The loop uses
// it for the inputs it executes ahead.
type BatchMeasure interface {
	Measure
	MeasureBatch(ins []*schedule.Input, exs []*schedule.Execution) ([]Observation, []error)
}

// Observation is what a measure saw in one execution.
type Observation struct {
	Items []uint64
	// Steps, when the measure knows them, are parallel to Items: the index
	// of the input step after which the execution reached the item (-1:
	// before the first step).
	Steps    []int
	Failures []schedule.Failure
}

// itemSteps returns the step at which obs first reached each of items (-1
// when unknown or before the first step), or nil when obs has no steps.
func itemSteps(obs Observation, items []uint64) []int {
	if len(obs.Steps) != len(obs.Items) {
		return nil
	}
	out := make([]int, len(items))
	for k, x := range items {
		out[k] = -1
		for i, y := range obs.Items {
			if y == x {
				out[k] = obs.Steps[i]
				break
			}
		}
	}
	return out
}
