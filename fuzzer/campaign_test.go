package fuzzer_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/adapters/microbench"
	"github.com/modelfuzz/modelfuzz/corpus"
	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/mutate"
)

type campaignSetup struct {
	workers, tasks int
	inject         string
	strategy       string
	seed           uint64
	iterations     int64
	steps          int
}

func newCampaign(t testing.TB, dir string, c campaignSetup) (*fuzzer.Fuzzer, *corpus.Store) {
	fac, err := microbench.NewFactory(microbench.Config{Workers: c.workers, Tasks: c.tasks, Inject: c.inject})
	require.NoError(t, err)
	if c.steps == 0 {
		c.steps = 50
	}
	gen, err := mutate.NewGenerator(fac.Spec(), mutate.Params{Steps: c.steps, MaxMessages: 5, Requests: 2})
	require.NoError(t, err)
	st, err := corpus.Open(dir, corpus.Options{})
	require.NoError(t, err)
	sys, err := fac.New()
	require.NoError(t, err)
	opt := fuzzer.Options{Strategy: c.strategy, Measures: []fuzzer.Measure{fuzzer.TraceMeasure{}}, Seed: c.seed,
		SeedPopulation: 20, ReseedEvery: 200, Mutations: 5, Iterations: c.iterations}
	if c.strategy == "trace" {
		opt.Guide = fuzzer.TraceMeasure{}
	}
	f, err := fuzzer.New(opt, sys, gen, st)
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
