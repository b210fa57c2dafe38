package report

import (
	"cmp"
	"slices"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// Point is a coverage value after an iteration of a campaign, and the
// fuzzing time it took to get there (0: not recorded).
type Point struct {
	Iteration int64   `json:"iteration"`
	Value     float64 `json:"value"`
	Seconds   float64 `json:"seconds,omitempty"`
}

// BugHit is a distinct bug found by a run, by its deduplication signature.
type BugHit struct {
	Signature      string `json:"signature"`
	Kind           string `json:"kind"`
	FirstIteration int64  `json:"first_iteration"`
}

// Run is the outcome of one campaign of one strategy with one seed.
type Run struct {
	Seed uint64 `json:"seed"`
	// Coverage maps a measure ("model", "traces", "lines") to its coverage
	// over the campaign, by increasing iteration.
	Coverage map[string][]Point `json:"coverage"`
	// Final maps a measure to its coverage at the end of the campaign.
	Final map[string]float64 `json:"final"`
	Bugs  []BugHit           `json:"bugs"`
	// FirstBug is the iteration of the first bug, nil when none was found.
	FirstBug *int64 `json:"first_bug"`
	// FirstGuidedBug is the iteration of the first bug found after the
	// shared initial population (Comparison.SeedPopulation), nil when none.
	FirstGuidedBug *int64  `json:"first_guided_bug,omitempty"`
	Iterations     int64   `json:"iterations"`
	Seconds        float64 `json:"seconds"`
	// CPUSeconds is the CPU time (user + system) of the campaign's
	// process, as the operating system accounts it (rusage); 0: not
	// measured.
	CPUSeconds float64 `json:"cpu_seconds,omitempty"`
	// FirstBugCPU is the CPU seconds to the first bug (nil: no bug, or no
	// CPU measured): CPUSeconds itself when the campaign stopped at that
	// bug (--stop-on-bug), else CPUSeconds pro rata of the iterations
	// (CPUProRata), which assumes an even cost per iteration.
	FirstBugCPU *float64 `json:"first_bug_cpu_seconds,omitempty"`
	CPUProRata  bool     `json:"cpu_pro_rata,omitempty"`
	// Resumed says why the campaign was continued from its corpus after
	// its process failed ("" when it ran in one go): a continued campaign
	// refills its queue from its corpus, so it is not the same run as an
	// uninterrupted one of the same seed.
	Resumed string `json:"resumed,omitempty"`
}

// Strategy is the runs of one fuzzing strategy, one per seed.
type Strategy struct {
	Name string `json:"name"`
	Runs []Run  `json:"runs"`
}

// Comparison is the outcome of running every strategy with the same seeds.
type Comparison struct {
	Adapter string `json:"adapter"`
	// SystemFlags are the adapter's flags every campaign ran with
	// (--inject, --workers, --tasks, ...).
	SystemFlags []string `json:"system_flags,omitempty"`
	Model       string   `json:"model"`
	// Iterations is the budget of every run.
	Iterations int64 `json:"iterations"`
	// SeedPopulation is how many first iterations run the same random
	// inputs in every strategy's run of one seed: a bug found there says
	// nothing about a strategy (0: unknown).
	SeedPopulation int64      `json:"seed_population,omitempty"`
	Seeds          []uint64   `json:"seeds"`
	Strategies     []Strategy `json:"strategies"`
	Created        string     `json:"created"`
	// Tool is the modelfuzz that ran the comparison (version, commit, Go).
	Tool string `json:"tool,omitempty"`
	// Tests are the statistical comparisons, filled by Analyze.
	Tests []Test `json:"tests"`
	// Summaries describe every strategy (Summarize), filled by Analyze:
	// runs with a bug, medians, and what each spent per find.
	Summaries []Summary `json:"summaries,omitempty"`
}

// Test is one statistical comparison of strategy A against strategy B on one
// measure: the two-sided Mann-Whitney U test and the Vargha-Delaney A12
// effect size of A's values against B's (the probability that a run of A
// gives a larger value than a run of B, ties counting half).
type Test struct {
	// Measure is "final <measure>" (coverage at the end of the runs, higher
	// is better) or MeasureFirstBug (iteration of the first bug, lower is
	// better).
	Measure string `json:"measure"`
	A       string `json:"a"`
	B       string `json:"b"`
	// U is the Mann-Whitney statistic of A, P its two-sided p-value.
	U float64 `json:"u"`
	P float64 `json:"p"`
	// A12 is P(value of A > value of B) + P(equal)/2; Magnitude names it
	// (negligible, small, medium, large).
	A12       float64 `json:"a12"`
	Magnitude string  `json:"magnitude"`
	MedianA   float64 `json:"median_a"`
	MedianB   float64 `json:"median_b"`
	// NA and NB are the numbers of runs compared.
	NA int `json:"n_a"`
	NB int `json:"n_b"`
}

// MeasureFirstBug is the Test.Measure of the comparison of the iterations to
// the first bug.
const MeasureFirstBug = "first bug"

// MeasureFirstBugCPU is the Test.Measure of the comparison of the CPU
// seconds to the first bug (Run.FirstBugCPU).
const MeasureFirstBugCPU = "first bug (CPU s)"

// PerCPUMeasure is the Test.Measure of the comparison of a measure's final
// coverage per CPU second of the campaign.
func PerCPUMeasure(measure string) string { return "final " + measure + " per CPU s" }

// MeasureFirstGuidedBug is the Test.Measure of the comparison of the
// iterations to the first bug found after the shared initial population.
const MeasureFirstGuidedBug = "first bug after the initial population"

// FirstBugAfter is the earliest iteration after `after` of a bug in bugs,
// nil when there is none. Divergences are left out: the model and the
// system disagree, which is not a bug of the system by itself.
func FirstBugAfter(bugs []BugHit, after int64) *int64 {
	var first *int64
	for _, b := range bugs {
		if b.Kind == string(schedule.FailureDivergence) || b.FirstIteration <= after {
			continue
		}
		if first == nil || b.FirstIteration < *first {
			it := b.FirstIteration
			first = &it
		}
	}
	return first
}

// FinalMeasure is the Test.Measure of the comparison of the final coverage of
// a measure.
func FinalMeasure(measure string) string { return "final " + measure }

// LowerIsBetter reports whether smaller values of a Test's measure are
// better: true for MeasureFirstBug, false for coverage.
func LowerIsBetter(testMeasure string) bool {
	return testMeasure == MeasureFirstBug || testMeasure == MeasureFirstGuidedBug || testMeasure == MeasureFirstBugCPU
}

// SetFirstBugCPU sets r.FirstBugCPU from its CPUSeconds and first bug;
// stopped says the campaign stopped at its first bug.
func (r *Run) SetFirstBugCPU(stopped bool) {
	r.FirstBugCPU, r.CPUProRata = nil, false
	if r.FirstBug == nil || r.CPUSeconds <= 0 || r.Iterations <= 0 {
		return
	}
	v := r.CPUSeconds
	if !stopped {
		v = r.CPUSeconds * float64(*r.FirstBug) / float64(r.Iterations)
		r.CPUProRata = true
	}
	r.FirstBugCPU = &v
}

// Budget is the iteration budget of a run: c.Iterations, or when it is not
// set the largest number of iterations any run made.
func (c *Comparison) Budget() int64 {
	if c.Iterations > 0 {
		return c.Iterations
	}
	var b int64
	for _, s := range c.Strategies {
		for _, r := range s.Runs {
			b = max(b, r.Iterations, lastIteration(r.Coverage))
		}
	}
	return b
}

func lastIteration(cov map[string][]Point) int64 {
	var last int64
	for _, pts := range cov {
		for _, p := range pts {
			last = max(last, p.Iteration)
		}
	}
	return last
}

// Measures lists the coverage measures any run has in Final or Coverage:
// "model", "traces" and "lines" first in that order, then any others by
// name.
func (c *Comparison) Measures() []string {
	seen := map[string]bool{}
	for _, s := range c.Strategies {
		for _, r := range s.Runs {
			for m := range r.Final {
				seen[m] = true
			}
			for m, pts := range r.Coverage {
				if len(pts) > 0 {
					seen[m] = true
				}
			}
		}
	}
	var ms []string
	for m := range seen {
		ms = append(ms, m)
	}
	slices.SortFunc(ms, func(a, b string) int {
		return cmp.Or(cmp.Compare(measureRank(a), measureRank(b)), cmp.Compare(a, b))
	})
	return ms
}

// Measure names as the fuzzer writes them (guidance.MeasureModel, ...), with
// what one item of coverage is.
var measureUnits = []struct{ name, unit, long string }{
	{"model", "abstract model states", "abstract states of the TLA+ model"},
	{"traces", "unique traces", "Mazurkiewicz trace classes (executions up to reordering of independent events)"},
	{"lines", "covered statements", "statements of the system under test"},
}

func measureRank(m string) int {
	for i, u := range measureUnits {
		if u.name == m {
			return i
		}
	}
	return len(measureUnits)
}

// MeasureUnit is what one item of a coverage measure counts, for axis labels:
// "abstract model states", "unique traces", "covered statements"; "items" for
// an unknown measure.
func MeasureUnit(measure string) string {
	if i := measureRank(measure); i < len(measureUnits) {
		return measureUnits[i].unit
	}
	return "items"
}

func measureLong(measure string) string {
	if i := measureRank(measure); i < len(measureUnits) {
		return measureUnits[i].long
	}
	return "coverage items"
}
