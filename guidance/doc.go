// Package guidance owns every coverage measure of a campaign and what the
// measures need: the Mazurkiewicz trace class of an execution's event
// trace (TraceMeasure); the abstract states of a TLA+ model it reaches,
// through a mapper and the model engine (ModelMeasure); the source lines
// of the system under test it runs, from Go's coverage counters
// (LineCoverage wraps a factory so that its executions record them,
// UnitsMeasure reads them); the strategies built on these measures
// (Strategies); and the online strategies of the randomized-testing papers
// (Online: PCT, PCTCP, POS, d-POS, taPCT, lossy-synchronous rounds), which
// build each input from the events the system has enabled, through
// schedule.OnlineRun. The loop sees a measure as a fuzzer.Measure and an
// online strategy as a fuzzer.Online.
//
// It must not run the loop: it keeps no coverage sets, queue or corpus and
// does not decide what a campaign keeps. A measure turns one execution
// into items and failures; its items must be the same for the same
// execution and stable across runs and machines, since the corpus stores
// them.
package guidance
