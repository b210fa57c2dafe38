package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestResultsJSONRoundTrip(t *testing.T) {
	c := syntheticComparison(4, 5, 5000)
	require.NoError(t, Analyze(c, "model"))
	b, err := json.MarshalIndent(c, "", "  ")
	require.NoError(t, err)
	for _, key := range []string{`"first_bug"`, `"first_iteration"`, `"median_a"`, `"n_b"`, `"a12"`, `"coverage"`, `"iterations"`} {
		require.Contains(t, string(b), key)
	}
	var back Comparison
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, c, &back)
}

func ints(v int64) *int64 { return &v }

// twoStrategies has final model coverage {1,2,3} for "model" and {4,5,6}
// for "random"; model finds a bug at 10 and 20 and misses once, random never
// finds one; the budget is 100.
func twoStrategies() *Comparison {
	run := func(final float64, firstBug *int64) Run {
		return Run{Final: map[string]float64{"model": final}, FirstBug: firstBug, Iterations: 100}
	}
	return &Comparison{
		Iterations: 100,
		Strategies: []Strategy{
			{Name: "model", Runs: []Run{run(1, ints(10)), run(2, ints(20)), run(3, nil)}},
			{Name: "random", Runs: []Run{run(4, nil), run(5, nil), run(6, nil)}},
		},
	}
}

func TestAnalyze(t *testing.T) {
	c := twoStrategies()
	require.NoError(t, Analyze(c, "model"))
	require.Len(t, c.Tests, 2)

	final := c.Tests[0]
	require.Equal(t, Test{
		Measure: "final model", A: "model", B: "random",
		U: 0, P: final.P, A12: 0, Magnitude: "large", MedianA: 2, MedianB: 5, NA: 3, NB: 3,
	}, final)
	require.InDelta(t, 0.1, final.P, 1e-12) // exact: 2 of the 20 arrangements

	// Runs without a bug count as 101: {10, 20, 101} against {101, 101, 101}.
	// No pair is won, the 3 pairs (101, 101) tie: U = 1.5, A12 = 1.5/9.
	bug := c.Tests[1]
	require.Equal(t, MeasureFirstBug, bug.Measure)
	require.Equal(t, 1.5, bug.U)
	require.InDelta(t, 1.5/9, bug.A12, 1e-12)
	require.Equal(t, 20.0, bug.MedianA)
	require.Equal(t, 101.0, bug.MedianB)
	// Exact with ties (mid-ranks 1, 2, 4.5 x4): 4 of the 20 choices of x's
	// three values have a rank sum as low as 7.5; two-sided, 0.4 (the
	// normal approximation said 0.197).
	require.InDelta(t, 0.4, bug.P, 1e-12)

	// Analyze replaces earlier tests rather than appending.
	require.NoError(t, Analyze(c, "model"))
	require.Len(t, c.Tests, 2)
}

func TestAnalyzeOtherBaseAndNoBugs(t *testing.T) {
	c := twoStrategies()
	for i := range c.Strategies[0].Runs {
		c.Strategies[0].Runs[i].FirstBug = nil
	}
	require.NoError(t, Analyze(c, "random"))
	require.Len(t, c.Tests, 1, "no first-bug test when neither strategy found a bug")
	require.Equal(t, "random", c.Tests[0].A)
	require.Equal(t, 1.0, c.Tests[0].A12)

	err := Analyze(c, "trace")
	require.ErrorContains(t, err, `base strategy "trace" is not among the strategies compared ["model" "random"]`)
}

func TestMeasuresOrder(t *testing.T) {
	c := &Comparison{Strategies: []Strategy{{Name: "a", Runs: []Run{
		{Final: map[string]float64{"zeta": 1, "lines": 2}},
		{Coverage: map[string][]Point{"model": {{Iteration: 1, Value: 1}}, "alpha": {{Iteration: 1, Value: 1}}, "empty": nil}},
		{Final: map[string]float64{"traces": 3}},
	}}}}
	require.Equal(t, []string{"model", "traces", "lines", "alpha", "zeta"}, c.Measures())
}

func TestBudget(t *testing.T) {
	c := &Comparison{Strategies: []Strategy{{Runs: []Run{
		{Iterations: 40},
		{Coverage: map[string][]Point{"model": {{Iteration: 70, Value: 1}}}},
	}}}}
	require.Equal(t, int64(70), c.Budget(), "without Iterations, the longest run")
	c.Iterations = 50
	require.Equal(t, int64(50), c.Budget())
}

func TestSummarize(t *testing.T) {
	c := twoStrategies()
	c.Strategies[0].Runs[0].Bugs = []BugHit{{Signature: "s1", Kind: "crash", FirstIteration: 10}, {Signature: "s2", Kind: "invariant", FirstIteration: 40}}
	c.Strategies[0].Runs[1].Bugs = []BugHit{{Signature: "s2", Kind: "invariant", FirstIteration: 20}}
	c.Strategies = append(c.Strategies, Strategy{Name: "empty"})
	sums := Summarize(c)
	require.Len(t, sums, 3)
	m := sums[0]
	require.Equal(t, "model", m.Strategy)
	require.Equal(t, 2, m.RunsWithBug)
	require.Equal(t, 20.0, m.MedianFirstBug)
	require.Equal(t, Spread{N: 3, Median: 2, Mean: 2, Min: 1, Max: 3}, m.Final["model"])
	require.Equal(t, []BugSummary{
		{Signature: "s2", Kind: "invariant", Runs: 2, FirstIteration: 20},
		{Signature: "s1", Kind: "crash", Runs: 1, FirstIteration: 10},
	}, m.Bugs)
	require.Equal(t, 101.0, sums[1].MedianFirstBug)

	// A strategy without runs has zeros rather than NaN, so it encodes.
	require.Equal(t, Summary{Strategy: "empty", Final: map[string]Spread{}}, sums[2])
	_, err := json.Marshal(sums)
	require.NoError(t, err)
}

// With a shared initial population, bugs found in it are told apart: the
// first-bug test after it leaves them out, and the summary counts them.
func TestGuidedBugsLeaveTheInitialPopulationOut(t *testing.T) {
	run := func(bugs ...BugHit) Run {
		r := Run{Final: map[string]float64{"model": 1}, Bugs: bugs, Iterations: 100}
		r.FirstBug, r.FirstGuidedBug = FirstBugAfter(bugs, 0), FirstBugAfter(bugs, 20)
		return r
	}
	early := BugHit{Signature: "safety: a", Kind: "safety", FirstIteration: 3}
	late := func(it int64) BugHit { return BugHit{Signature: "safety: b", Kind: "safety", FirstIteration: it} }
	div := BugHit{Signature: "divergence: x", Kind: "divergence", FirstIteration: 30}
	c := &Comparison{Iterations: 100, SeedPopulation: 20, Strategies: []Strategy{
		{Name: "model", Runs: []Run{run(early, late(40)), run(early, late(50)), run(early, div)}},
		{Name: "random", Runs: []Run{run(early), run(early), run(early, div)}},
	}}
	require.Equal(t, ints(3), c.Strategies[0].Runs[0].FirstBug)
	require.Equal(t, ints(40), c.Strategies[0].Runs[0].FirstGuidedBug)
	require.Nil(t, c.Strategies[0].Runs[2].FirstGuidedBug, "a divergence is not a bug of the system")
	require.NoError(t, Analyze(c, "model"))
	var plain, guided *Test
	for i := range c.Tests {
		switch c.Tests[i].Measure {
		case MeasureFirstBug:
			plain = &c.Tests[i]
		case MeasureFirstGuidedBug:
			guided = &c.Tests[i]
		}
	}
	require.NotNil(t, plain)
	require.NotNil(t, guided)
	require.Equal(t, 0.5, plain.A12, "every run found the shared bug at 3: no difference")
	require.Equal(t, 50.0, guided.MedianA)
	require.Equal(t, 101.0, guided.MedianB)
	require.Less(t, guided.A12, 0.5, "model finds bugs sooner once the shared inputs are left out")
	require.True(t, LowerIsBetter(guided.Measure))

	sums := Summarize(c)
	require.Equal(t, 3, sums[0].RunsWithBug)
	require.Equal(t, 2, sums[0].RunsWithGuidedBug)
	require.Equal(t, 50.0, sums[0].MedianFirstGuidedBug)
	require.Zero(t, sums[1].RunsWithGuidedBug)
	for _, b := range sums[0].Bugs {
		switch b.Signature {
		case "safety: a":
			require.Equal(t, 3, b.InitialRuns)
		case "safety: b":
			require.Equal(t, 0, b.InitialRuns)
		}
	}
	var page strings.Builder
	require.NoError(t, WriteCompareHTML(&page, c, nil))
	require.Contains(t, page.String(), "runs with a bug after the initial population")
	require.Contains(t, page.String(), "of which in the initial population")
}

// A strategy that finds the bug in fewer iterations but at three times
// the CPU per iteration loses per CPU second: both tests are made, and
// they disagree.
func TestAnalyzePerCPUSecond(t *testing.T) {
	run := func(final float64, first int64, cpu float64) Run {
		r := Run{Final: map[string]float64{"model": final}, FirstBug: ints(first), Iterations: first, CPUSeconds: cpu}
		r.SetFirstBugCPU(true)
		return r
	}
	c := &Comparison{Iterations: 1000, Strategies: []Strategy{
		// slow: 3 CPU s per 100 iterations; fast: 1.
		{Name: "slow", Runs: []Run{run(30, 100, 3), run(60, 200, 6), run(90, 300, 9)}},
		{Name: "fast", Runs: []Run{run(40, 400, 4), run(50, 500, 5), run(60, 600, 6)}},
	}}
	require.NoError(t, Analyze(c, "slow"))
	byMeasure := map[string]Test{}
	for _, x := range c.Tests {
		byMeasure[x.Measure] = x
	}
	require.Equal(t, 0.0, byMeasure[MeasureFirstBug].A12) // slow needs fewer iterations in every pair
	cpu := byMeasure[MeasureFirstBugCPU]
	// {3, 6, 9} against {4, 5, 6}: slow needs more CPU in 5 pairs and ties
	// in one, A12 = 5.5/9: worse per CPU second, better per iteration.
	require.Equal(t, 6.0, cpu.MedianA)
	require.Equal(t, 5.0, cpu.MedianB)
	require.InDelta(t, 5.5/9, cpu.A12, 1e-12)
	per := byMeasure[PerCPUMeasure("model")]
	require.Equal(t, 10.0, per.MedianA) // 10 states per CPU s in every run
	require.Equal(t, 10.0, per.MedianB)
	require.Equal(t, 0.5, per.A12)
	require.True(t, LowerIsBetter(MeasureFirstBugCPU))

	sums := Summarize(c)
	require.Equal(t, 6.0, sums[0].MedianCPUSeconds)
	require.Equal(t, 6.0, sums[0].MedianFirstBugCPU)
	require.Equal(t, 5.0, sums[1].MedianFirstBugCPU)

	// Without the CPU of every run, no per-CPU test is made.
	c.Strategies[1].Runs[0].CPUSeconds = 0
	require.NoError(t, Analyze(c, "slow"))
	for _, x := range c.Tests {
		require.NotContains(t, x.Measure, "CPU")
	}
}

func TestFirstBugCPUProRata(t *testing.T) {
	r := Run{FirstBug: ints(250), Iterations: 1000, CPUSeconds: 8}
	r.SetFirstBugCPU(false)
	require.Equal(t, 2.0, *r.FirstBugCPU)
	require.True(t, r.CPUProRata)
	r.FirstBug = nil
	r.SetFirstBugCPU(true)
	require.Nil(t, r.FirstBugCPU)
}

// Spent per find counts the runs without a bug: three finds at 100, 200
// and 300 iterations and one run of the whole 1,000 without a find spent
// 1,600 iterations for three finds, where the median over the finds says
// 200. Without a find, nothing is set; a run of unknown CPU leaves the
// CPU figures out.
func TestSummarizeSpentPerFind(t *testing.T) {
	run := func(first int64, cpu float64) Run {
		r := Run{Final: map[string]float64{"model": 1}, Iterations: 1000, CPUSeconds: cpu}
		if first > 0 {
			r.FirstBug, r.Iterations = ints(first), first
		}
		r.SetFirstBugCPU(true)
		return r
	}
	c := &Comparison{Iterations: 1000, Strategies: []Strategy{
		{Name: "some", Runs: []Run{run(100, 1), run(200, 2), run(0, 10), run(300, 3)}},
		{Name: "none", Runs: []Run{run(0, 10), run(0, 10)}},
	}}
	sums := Summarize(c)
	require.InDelta(t, 1600.0/3, sums[0].IterationsPerFind, 1e-9)
	require.InDelta(t, 16.0/3, sums[0].CPUPerFind, 1e-9)
	require.Less(t, sums[0].IterationsPerFindLow, sums[0].IterationsPerFind)
	require.True(t, sums[0].IterationsPerFindHigh == 0 || sums[0].IterationsPerFindHigh > sums[0].IterationsPerFind)
	require.Zero(t, sums[1].IterationsPerFind)
	require.Zero(t, sums[1].CPUPerFind)
	again := Summarize(c)
	require.Equal(t, sums[0], again[0], "the interval is the same every time")
	require.NoError(t, Analyze(c, "some"))
	js, err := json.Marshal(c)
	require.NoError(t, err, "no Inf or NaN reaches results.json")
	require.Contains(t, string(js), `"iterations_per_find":533.3`)
	require.Contains(t, string(js), `"cpu_seconds_per_find":5.33`)

	var page strings.Builder
	require.NoError(t, WriteCompareHTML(&page, c, nil))
	require.Contains(t, page.String(), "spent per find")
	require.Contains(t, page.String(), PerFindText(sums[0].CPUPerFind, sums[0].CPUPerFindLow, sums[0].CPUPerFindHigh, "%.1f")+" CPU s")

	c.Strategies[0].Runs[2].CPUSeconds = 0
	sums = Summarize(c)
	require.InDelta(t, 1600.0/3, sums[0].IterationsPerFind, 1e-9)
	require.Zero(t, sums[0].CPUPerFind)
	require.Equal(t, "5.3 (95 % 2.0-unbounded)", PerFindText(5.33, 2, 0, "%.1f"))
}
