// Package stats holds the statistics used to compare fuzzing strategies over
// repeated campaigns: the Mann-Whitney U test (is one strategy's outcome
// stochastically larger than another's?), the Vargha-Delaney A12 effect size
// (by how much?), and the descriptive helpers the reports need.
//
// These are the tests recommended for randomized search algorithms (Arcuri
// and Briand, "A practical guide for using statistical tests to assess
// randomized algorithms in software engineering", ICSE 2011): they assume no
// distribution of the outcomes.
//
// The package is pure computation on float64 slices: it must not know about
// campaigns, runs or plots, and never modifies its arguments.
package stats
