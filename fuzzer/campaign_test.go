package fuzzer_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/adapters/microbench"
	"github.com/modelfuzz/modelfuzz/corpus"
	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/guidance"
	"github.com/modelfuzz/modelfuzz/schedule"
)

type campaignSetup struct {
	workers, tasks int
	inject         string
	strategy       string
	seed           uint64
	iterations     int64
	steps          int
	energy         string
	stack          int
	queueMax       int
	progress       func(fuzzer.Stats)
	learner        fuzzer.Learner
	memoryLimit    int64
}

func newCampaign(t testing.TB, dir string, c campaignSetup) (*fuzzer.Fuzzer, *corpus.Store) {
	fac, err := microbench.NewFactory(microbench.Config{Workers: c.workers, Tasks: c.tasks, Inject: c.inject})
	require.NoError(t, err)
	if c.steps == 0 {
		c.steps = 50
	}
	gen, err := schedule.NewGenerator(fac.Spec(), schedule.Shape{Steps: c.steps, MaxMessages: 5, Requests: 2})
	require.NoError(t, err)
	st, err := corpus.Open(dir, corpus.Options{})
	require.NoError(t, err)
	opt := fuzzer.Options{Strategy: c.strategy, Measures: []fuzzer.Measure{guidance.TraceMeasure{}},
		Params: fuzzer.Params{Seed: c.seed, SeedPopulation: 20, ReseedEvery: 200, Mutations: 5, Energy: c.energy, FreshShare: 0.1, Stack: c.stack},
		Limits: fuzzer.Limits{Iterations: c.iterations, QueueMax: c.queueMax, MemoryLimit: c.memoryLimit}}
	if c.strategy == "trace" {
		opt.Guide = guidance.TraceMeasure{}
	}
	opt.Progress = c.progress
	opt.Learner = c.learner
	f, err := fuzzer.New(opt, fac, gen, st)
	require.NoError(t, err)
	return f, st
}

// BenchmarkCampaign measures what users feel: whole fuzz-loop iterations per
// second (generate or mutate, execute, hash the trace, commit to the corpus)
// on the micro-benchmark with 3 workers, 5 tasks and 50-step inputs.
func BenchmarkCampaign(b *testing.B) {
	for _, strategy := range []string{"random", "trace"} {
		b.Run(strategy, func(b *testing.B) {
			f, st := newCampaign(b, b.TempDir(), campaignSetup{workers: 3, tasks: 5, strategy: strategy, seed: 1, iterations: int64(b.N)})
			defer st.Close()
			b.ResetTimer()
			sum, err := f.Run(context.Background())
			require.NoError(b, err)
			b.ReportMetric(float64(sum.Session)/b.Elapsed().Seconds(), "execs/s")
		})
	}
}

func runCampaign(t *testing.T, dir string, c campaignSetup) *fuzzer.Summary {
	f, st := newCampaign(t, dir, c)
	defer st.Close()
	sum, err := f.Run(context.Background())
	require.NoError(t, err)
	return sum
}

func TestTraceGuidanceFindsTheInjectedBug(t *testing.T) {
	dir := t.TempDir()
	setup := campaignSetup{workers: 3, tasks: 5, inject: microbench.InjectFlushBeforeLast, strategy: "trace", seed: 1, iterations: 5000}
	sum := runCampaign(t, dir, setup)
	require.Len(t, sum.Bugs, 1)
	require.Equal(t, 1, sum.NewBugs, "found in this session")
	b := sum.Bugs[0]
	require.Equal(t, "panic", b.Kind)
	require.Contains(t, b.Signature, "flush processed right before the last execute")
	require.Greater(t, sum.CorpusSize, 10)
	require.Equal(t, int64(5000), sum.Iterations)

	// Continued, the campaign still holds the bug; this session found it
	// again but not for the first time.
	setup.iterations = 5200
	again := runCampaign(t, dir, setup)
	require.Len(t, again.Bugs, 1)
	require.Zero(t, again.NewBugs)

	// The stored input reproduces the bug.
	fac, _ := microbench.NewFactory(microbench.Config{Workers: 3, Tasks: 5, Inject: microbench.InjectFlushBeforeLast})
	sys, _ := fac.New()
	ex, err := sys.Execute(b.Input)
	require.NoError(t, err)
	require.Len(t, ex.Failures, 1)
	require.Equal(t, b.Signature, ex.Failures[0].Signature)
}

func TestCorrectSystemHasNoBugs(t *testing.T) {
	for _, s := range []string{"random", "trace"} {
		sum := runCampaign(t, t.TempDir(), campaignSetup{workers: 3, tasks: 5, strategy: s, seed: 1, iterations: 5000})
		require.Empty(t, sum.Bugs, s)
	}
}

func TestRandomNeverKeepsInputs(t *testing.T) {
	sum := runCampaign(t, t.TempDir(), campaignSetup{workers: 3, tasks: 5, strategy: "random", seed: 1, iterations: 500})
	require.Zero(t, sum.CorpusSize)
	require.Greater(t, sum.Coverage[guidance.MeasureTraces], 100, "traces are measured for every strategy")
}

func TestCampaignsAreReproducible(t *testing.T) {
	c := campaignSetup{workers: 3, tasks: 5, inject: microbench.InjectFlushBeforeLast, strategy: "trace", seed: 7, iterations: 3000}
	a := runCampaign(t, t.TempDir(), c)
	b := runCampaign(t, t.TempDir(), c)
	require.Equal(t, a.Coverage, b.Coverage)
	require.Equal(t, a.CorpusSize, b.CorpusSize)
	require.Equal(t, len(a.Bugs), len(b.Bugs))
	for i := range a.Bugs {
		require.Equal(t, a.Bugs[i].FirstIteration, b.Bugs[i].FirstIteration)
		require.Equal(t, schedule.EncodeInput(a.Bugs[i].Input), schedule.EncodeInput(b.Bugs[i].Input))
	}
	c.seed = 8
	d := runCampaign(t, t.TempDir(), c)
	require.NotEqual(t, a.Coverage, d.Coverage, "another seed explores differently")
}

func TestContinuedCampaignKeepsEverything(t *testing.T) {
	dir := t.TempDir()
	c := campaignSetup{workers: 3, tasks: 5, inject: microbench.InjectFlushBeforeLast, strategy: "trace", seed: 1, iterations: 2000}
	first := runCampaign(t, dir, c)
	c.iterations = 4000
	second := runCampaign(t, dir, c)
	require.Equal(t, int64(4000), second.Iterations)
	require.Equal(t, int64(2000), second.Session)
	require.GreaterOrEqual(t, second.CorpusSize, first.CorpusSize)
	require.GreaterOrEqual(t, second.Coverage[guidance.MeasureTraces], first.Coverage[guidance.MeasureTraces])
	require.GreaterOrEqual(t, len(second.Bugs), len(first.Bugs))
	// Already reached: nothing more to do.
	third := runCampaign(t, dir, c)
	require.Zero(t, third.Session)
	require.Equal(t, second.Coverage, third.Coverage)
}

func TestCancelStopsAfterTheExecutionInFlight(t *testing.T) {
	f, st := newCampaign(t, t.TempDir(), campaignSetup{workers: 3, tasks: 5, strategy: "trace", seed: 1})
	defer st.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sum, err := f.Run(ctx)
	require.NoError(t, err)
	require.True(t, sum.Interrupted)
	require.Zero(t, sum.Session)
}
