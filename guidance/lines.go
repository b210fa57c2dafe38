package guidance

import (
	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// UnitsMeasure covers the source lines of the system under test: the items
// the loop records in Execution.Units (fuzzer.Options.Units).
type UnitsMeasure struct{}

// Name implements fuzzer.Measure.
func (UnitsMeasure) Name() string { return MeasureLines }

// Measure implements fuzzer.Measure.
func (UnitsMeasure) Measure(_ *schedule.Input, ex *schedule.Execution) (fuzzer.Observation, error) {
	return fuzzer.Observation{Items: ex.Units}, nil
}
