package guidance

// Measure names: the keys of a campaign's coverage (fuzzer.Measure.Name),
// stored in the corpus and printed in summaries.
const (
	MeasureTraces = "traces" // Mazurkiewicz trace classes (happens-before)
	MeasureModel  = "model"  // abstract model states
	MeasureLines  = "lines"  // covered statements of the system under test
)
