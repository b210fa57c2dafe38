package guidance

// Measure names: the keys of a campaign's coverage (fuzzer.Measure.Name),
// stored in the corpus and printed in summaries.
const (
	MeasureTraces = "traces" // Mazurkiewicz trace classes (happens-before)
	MeasureModel  = "model"  // abstract model states
	// MeasureView prefixes a reference abstraction's measure ("view:ShapeView"):
	// the model's states by another VIEW, measured for comparison.
	MeasureView  = "view:"
	MeasureLines = "lines" // covered statements of the system under test
)
