// Package fuzzer is the fuzz loop of the ModelFuzz algorithm (Algorithm 5
// of the ModelFuzz chapter): the queue and its energy, batches executed on
// parallel system instances, the coverage sets, bug deduplication and
// background minimization, the campaign's counters and stats. What it
// writes are package record's records, committed to a record.Store (the
// corpus implements it); what it mutates, and how, package mutate decides.
//
// Two energy schedules decide what runs next (Params.Energy, energy.go):
// the chapter's fixed multiple of mutants per new item in a first-in
// first-out queue, and an AFLFast-style schedule that mutates the inputs
// whose new items the campaign has visited least. Both start from the same
// SeedPopulation random inputs, so strategies compared with one seed share
// their first iterations.
//
// It must not know any concrete adapter, model or measure: systems plug in
// through schedule.Factory, coverage notions through Measure (package
// guidance implements them), storage through record.Store. What a measure needs
// around an execution comes with the systems (guidance.LineCoverage wraps
// the factory), not through the loop. The loop computes; the edges
// (adapters, the corpus, the terminal) do I/O.
package fuzzer
