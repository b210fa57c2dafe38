package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/modelfuzz/modelfuzz/stats"
)

// Analyze fills c.Tests with the comparison of strategy base against every
// other strategy:
//
//   - for every measure in the runs' Final, the final coverage (higher is
//     better; runs without the measure are left out);
//   - the iteration of the first bug (lower is better), where a run that
//     found no bug counts as Budget()+1: it needed more than the whole
//     budget. This test is made only when one of the two strategies found a
//     bug at all;
//   - when every run's CPU seconds were measured (Run.CPUSeconds), the same
//     per CPU second: each measure's final coverage per CPU second (higher
//     is better) and the CPU seconds to the first bug (lower is better),
//     where a run without a bug counts as more than any run spent. A
//     strategy twice as slow must then be twice as good per iteration to
//     break even.
//
// A12 > 0.5 thus means base tends to reach more coverage, and for the first
// bug that base tends to need more iterations, i.e. that it is worse.
// It is an error when base is not one of c's strategies.
func Analyze(c *Comparison, base string) error {
	bi := slices.IndexFunc(c.Strategies, func(s Strategy) bool { return s.Name == base })
	if bi < 0 {
		names := make([]string, len(c.Strategies))
		for i, s := range c.Strategies {
			names[i] = s.Name
		}
		return fmt.Errorf("report: base strategy %q is not among the strategies compared %q", base, names)
	}
	a := &c.Strategies[bi]
	c.Tests = nil
	for _, m := range c.Measures() {
		for i := range c.Strategies {
			b := &c.Strategies[i]
			if i == bi {
				continue
			}
			if t, ok := compare(FinalMeasure(m), a, b, finalValues(*a, m), finalValues(*b, m)); ok {
				c.Tests = append(c.Tests, t)
			}
		}
	}
	budget := c.Budget()
	for i := range c.Strategies {
		b := &c.Strategies[i]
		if i == bi || (bugRuns(*a) == 0 && bugRuns(*b) == 0) {
			continue
		}
		if t, ok := compare(MeasureFirstBug, a, b, firstBugValues(*a, budget), firstBugValues(*b, budget)); ok {
			c.Tests = append(c.Tests, t)
		}
	}
	if cpuMeasured(c) {
		for _, m := range c.Measures() {
			for i := range c.Strategies {
				b := &c.Strategies[i]
				if i == bi {
					continue
				}
				if t, ok := compare(PerCPUMeasure(m), a, b, perCPUValues(*a, m), perCPUValues(*b, m)); ok {
					c.Tests = append(c.Tests, t)
				}
			}
		}
		never := neverCPU(c)
		for i := range c.Strategies {
			b := &c.Strategies[i]
			if i == bi || (bugRuns(*a) == 0 && bugRuns(*b) == 0) {
				continue
			}
			if t, ok := compare(MeasureFirstBugCPU, a, b, firstBugCPUValues(*a, never), firstBugCPUValues(*b, never)); ok {
				c.Tests = append(c.Tests, t)
			}
		}
	}
	if c.SeedPopulation > 0 {
		for i := range c.Strategies {
			b := &c.Strategies[i]
			if i == bi || (guidedBugRuns(*a) == 0 && guidedBugRuns(*b) == 0) {
				continue
			}
			if t, ok := compare(MeasureFirstGuidedBug, a, b, firstGuidedBugValues(*a, budget), firstGuidedBugValues(*b, budget)); ok {
				c.Tests = append(c.Tests, t)
			}
		}
	}
	c.Summaries = Summarize(c)
	return nil
}

func compare(measure string, a, b *Strategy, xs, ys []float64) (Test, bool) {
	u, p, err := stats.MannWhitneyU(xs, ys)
	if err != nil { // a strategy without values for this measure
		return Test{}, false
	}
	a12 := stats.A12(xs, ys)
	return Test{
		Measure: measure, A: a.Name, B: b.Name,
		U: u, P: p, A12: a12, Magnitude: stats.A12Magnitude(a12),
		MedianA: stats.Median(xs), MedianB: stats.Median(ys),
		NA: len(xs), NB: len(ys),
	}, true
}

// finalValues is the final coverage of measure in every run that has it.
func finalValues(s Strategy, measure string) []float64 {
	var xs []float64
	for _, r := range s.Runs {
		if v, ok := r.Final[measure]; ok {
			xs = append(xs, v)
		}
	}
	return xs
}

// firstBugValues is the iteration of the first bug of every run, budget+1
// for a run without a bug.
func firstBugValues(s Strategy, budget int64) []float64 {
	xs := make([]float64, len(s.Runs))
	for i, r := range s.Runs {
		xs[i] = float64(budget + 1)
		if r.FirstBug != nil {
			xs[i] = float64(*r.FirstBug)
		}
	}
	return xs
}

// cpuMeasured reports whether every run of c has its CPU seconds.
func cpuMeasured(c *Comparison) bool {
	n := 0
	for _, s := range c.Strategies {
		for _, r := range s.Runs {
			if r.CPUSeconds <= 0 {
				return false
			}
			n++
		}
	}
	return n > 0
}

// neverCPU is the CPU seconds a run without a bug counts as: more than
// any run of c spent, as budget+1 is for iterations.
func neverCPU(c *Comparison) float64 {
	most := 0.0
	for _, s := range c.Strategies {
		for _, r := range s.Runs {
			most = max(most, r.CPUSeconds)
		}
	}
	return math.Ceil(most) + 1
}

// firstBugCPUValues is the CPU seconds to the first bug of every run,
// never for a run without a bug.
func firstBugCPUValues(s Strategy, never float64) []float64 {
	xs := make([]float64, len(s.Runs))
	for i, r := range s.Runs {
		xs[i] = never
		if r.FirstBugCPU != nil {
			xs[i] = *r.FirstBugCPU
		}
	}
	return xs
}

// perCPUValues is the final coverage of measure per CPU second in every
// run that has both.
func perCPUValues(s Strategy, measure string) []float64 {
	var xs []float64
	for _, r := range s.Runs {
		if v, ok := r.Final[measure]; ok && r.CPUSeconds > 0 {
			xs = append(xs, v/r.CPUSeconds)
		}
	}
	return xs
}

// firstGuidedBugValues is firstBugValues for the bugs found after the
// initial population.
func firstGuidedBugValues(s Strategy, budget int64) []float64 {
	xs := make([]float64, len(s.Runs))
	for i, r := range s.Runs {
		xs[i] = float64(budget + 1)
		if r.FirstGuidedBug != nil {
			xs[i] = float64(*r.FirstGuidedBug)
		}
	}
	return xs
}

func guidedBugRuns(s Strategy) int {
	n := 0
	for _, r := range s.Runs {
		if r.FirstGuidedBug != nil {
			n++
		}
	}
	return n
}

func bugRuns(s Strategy) int {
	n := 0
	for _, r := range s.Runs {
		if r.FirstBug != nil {
			n++
		}
	}
	return n
}

// Summary describes the runs of one strategy.
type Summary struct {
	Strategy string `json:"strategy"`
	Runs     int    `json:"runs"`
	// Final is the spread of the final coverage per measure.
	Final map[string]Spread `json:"final"`
	// RunsWithBug is the number of runs that found at least one bug.
	RunsWithBug int `json:"runs_with_bug"`
	// MedianFirstBug is the median iteration of the first bug, counting a
	// run without a bug as budget+1 (so it exceeds the budget when fewer
	// than half of the runs found a bug). It and MedianSeconds are 0 when
	// there are no runs.
	MedianFirstBug float64 `json:"median_first_bug"`
	// RunsWithGuidedBug and MedianFirstGuidedBug are the same for the bugs
	// found after the shared initial population (Comparison.SeedPopulation;
	// both 0 when it is unknown).
	RunsWithGuidedBug    int     `json:"runs_with_guided_bug"`
	MedianFirstGuidedBug float64 `json:"median_first_guided_bug"`
	// Bugs are the distinct bug signatures of all runs.
	Bugs          []BugSummary `json:"bugs"`
	MedianSeconds float64      `json:"median_seconds"`
	// MedianCPUSeconds is the median CPU seconds of a run, and
	// MedianFirstBugCPU the median CPU seconds to the first bug, counting a
	// run without a bug as more than any run spent (both 0 when the CPU
	// was not measured).
	MedianCPUSeconds  float64 `json:"median_cpu_seconds,omitempty"`
	MedianFirstBugCPU float64 `json:"median_first_bug_cpu_seconds,omitempty"`
	// IterationsPerFind is what the runs spent per run that found a bug:
	// every run's iterations (to its first bug, or all of them) over the
	// runs with a bug (stats.PerFind), with the 95 % bootstrap interval
	// over the runs; CPUPerFind the same in CPU seconds (CPU to the first
	// bug, or the run's whole CPU). All 0 when no run found a bug (the CPU
	// ones also when the CPU was not measured); a High of 0 is unbounded
	// (at least 2.5 % of the resamples hold no find).
	IterationsPerFind     float64 `json:"iterations_per_find,omitempty"`
	IterationsPerFindLow  float64 `json:"iterations_per_find_low,omitempty"`
	IterationsPerFindHigh float64 `json:"iterations_per_find_high,omitempty"`
	CPUPerFind            float64 `json:"cpu_seconds_per_find,omitempty"`
	CPUPerFindLow         float64 `json:"cpu_seconds_per_find_low,omitempty"`
	CPUPerFindHigh        float64 `json:"cpu_seconds_per_find_high,omitempty"`
}

// Spread is the median, mean and range of a sample.
type Spread struct {
	N      int     `json:"n"`
	Median float64 `json:"median"`
	Mean   float64 `json:"mean"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

// BugSummary is one distinct bug signature over the runs of a strategy.
type BugSummary struct {
	Signature string `json:"signature"`
	Kind      string `json:"kind"`
	// Runs is the number of runs that found it.
	Runs int `json:"runs"`
	// FirstIteration is the earliest iteration any run found it at.
	FirstIteration int64 `json:"first_iteration"`
	// InitialRuns is the number of runs that found it within the shared
	// initial population: every strategy's run of that seed found it too.
	InitialRuns int `json:"initial_runs"`
}

// Summarize describes every strategy of c, in c's order.
func Summarize(c *Comparison) []Summary {
	budget := c.Budget()
	measures := c.Measures()
	cpu, never := cpuMeasured(c), neverCPU(c)
	out := make([]Summary, len(c.Strategies))
	for i, s := range c.Strategies {
		sum := Summary{Strategy: s.Name, Runs: len(s.Runs), Final: map[string]Spread{}}
		if len(s.Runs) == 0 { // no medians: zeros rather than NaN, which JSON cannot encode
			out[i] = sum
			continue
		}
		sum.RunsWithBug = bugRuns(s)
		sum.MedianFirstBug = stats.Median(firstBugValues(s, budget))
		if c.SeedPopulation > 0 {
			sum.RunsWithGuidedBug = guidedBugRuns(s)
			sum.MedianFirstGuidedBug = stats.Median(firstGuidedBugValues(s, budget))
		}
		for _, m := range measures {
			if xs := finalValues(s, m); len(xs) > 0 {
				sum.Final[m] = spread(xs)
			}
		}
		bugs := map[string]*BugSummary{}
		seconds := make([]float64, len(s.Runs))
		for j, r := range s.Runs {
			seconds[j] = r.Seconds
			inRun := map[string]bool{}
			for _, h := range r.Bugs {
				b := bugs[h.Signature]
				if b == nil {
					b = &BugSummary{Signature: h.Signature, Kind: h.Kind, FirstIteration: h.FirstIteration}
					bugs[h.Signature] = b
				}
				b.FirstIteration = min(b.FirstIteration, h.FirstIteration)
				if !inRun[h.Signature] {
					inRun[h.Signature] = true
					b.Runs++
					if h.FirstIteration <= c.SeedPopulation {
						b.InitialRuns++
					}
				}
			}
		}
		for _, b := range bugs {
			sum.Bugs = append(sum.Bugs, *b)
		}
		slices.SortFunc(sum.Bugs, func(a, b BugSummary) int {
			return cmp.Or(cmp.Compare(b.Runs, a.Runs), cmp.Compare(a.FirstIteration, b.FirstIteration), cmp.Compare(a.Signature, b.Signature))
		})
		sum.MedianSeconds = stats.Median(seconds)
		if cpu {
			cs := make([]float64, len(s.Runs))
			for j, r := range s.Runs {
				cs[j] = r.CPUSeconds
			}
			sum.MedianCPUSeconds = stats.Median(cs)
			sum.MedianFirstBugCPU = stats.Median(firstBugCPUValues(s, never))
		}
		setPerFind(&sum, s, budget)
		out[i] = sum
	}
	return out
}

func spread(xs []float64) Spread {
	return Spread{N: len(xs), Median: stats.Median(xs), Mean: stats.Mean(xs), Min: stats.Min(xs), Max: stats.Max(xs)}
}

// perFindResamples and perFindSeed make the intervals of Summary's per
// find figures: the same for the same runs every time.
const (
	perFindResamples = 2000
	perFindSeed      = 1
)

// setPerFind sets sum's per find figures from the runs of s.
func setPerFind(sum *Summary, s Strategy, budget int64) {
	if sum.RunsWithBug == 0 {
		return
	}
	n := len(s.Runs)
	its, cpu, found := make([]float64, n), make([]float64, n), make([]bool, n)
	cpuKnown := true
	for i, r := range s.Runs {
		found[i] = r.FirstBug != nil
		switch {
		case found[i]:
			its[i] = float64(*r.FirstBug)
		case r.Iterations > 0:
			its[i] = float64(r.Iterations)
		default:
			its[i] = float64(budget)
		}
		switch {
		case found[i] && r.FirstBugCPU != nil:
			cpu[i] = *r.FirstBugCPU
		case !found[i] && r.CPUSeconds > 0:
			cpu[i] = r.CPUSeconds
		default:
			cpuKnown = false
		}
	}
	bounded := func(x float64) float64 {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return 0
		}
		return x
	}
	sum.IterationsPerFind = stats.PerFind(its, found)
	lo, hi := stats.PerFindInterval(its, found, 0.95, perFindResamples, perFindSeed)
	sum.IterationsPerFindLow, sum.IterationsPerFindHigh = bounded(lo), bounded(hi)
	if cpuKnown {
		sum.CPUPerFind = stats.PerFind(cpu, found)
		lo, hi := stats.PerFindInterval(cpu, found, 0.95, perFindResamples, perFindSeed)
		sum.CPUPerFindLow, sum.CPUPerFindHigh = bounded(lo), bounded(hi)
	}
}
