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

// knownMeasure is the trace measure that also reports a known
// disagreement for every execution whose input starts at process 0.
type knownMeasure struct{ guidance.TraceMeasure }

func (m knownMeasure) Measure(in *schedule.Input, ex *schedule.Execution) (fuzzer.Observation, error) {
	obs, err := m.TraceMeasure.Measure(in, ex)
	if in.Len() > 0 && in.Steps[0].Process == 0 {
		obs.Failures = append(obs.Failures, schedule.Failure{Kind: schedule.FailureSpecDivergence, Signature: "known: first-step",
			Message: "the model disagrees, as it is known to", Known: "first-step"})
	}
	return obs, err
}

// A known disagreement is counted and listed apart: it is not a bug, is
// never minimized, and does not stop a campaign with StopOnBug, which goes
// on to the first new bug.
func TestKnownDisagreementIsNotABug(t *testing.T) {
	fac, err := microbench.NewFactory(microbench.Config{Workers: 3, Tasks: 5, Inject: microbench.InjectFlushBeforeLast})
	require.NoError(t, err)
	gen, err := schedule.NewGenerator(fac.Spec(), schedule.Shape{Steps: 50, MaxMessages: 5, Requests: 2})
	require.NoError(t, err)
	st, err := corpus.Open(t.TempDir(), corpus.Options{})
	require.NoError(t, err)
	defer st.Close()
	m := knownMeasure{}
	f, err := fuzzer.New(fuzzer.Options{Strategy: "trace", Measures: []fuzzer.Measure{m}, Guide: m,
		Params: fuzzer.Params{Seed: 1, SeedPopulation: 20, ReseedEvery: 200, Mutations: 5},
		Limits: fuzzer.Limits{Iterations: 5000, StopOnBug: true, Minimize: true, MinimizeBudget: schedule.MinimizeOptions{MaxTries: 200}}}, fac, gen, st)
	require.NoError(t, err)
	sum, err := f.Run(context.Background())
	require.NoError(t, err)

	require.Len(t, sum.Bugs, 1, "the injected bug")
	require.Equal(t, "B1", sum.Bugs[0].ID)
	require.Equal(t, "found a bug (--stop-on-bug)", sum.StoppedEarly)
	require.Len(t, sum.Known, 1)
	k := sum.Known[0]
	require.Equal(t, "K1", k.ID)
	require.Equal(t, "first-step", k.Known)
	require.Less(t, k.FirstIteration, sum.Bugs[0].FirstIteration, "the campaign went on past the known disagreement")
	require.Greater(t, k.Hits, int64(1))
	require.Equal(t, k.Hits, sum.KnownExecutions)
	require.Nil(t, k.Minimized, "a known disagreement is not minimized")
	require.Zero(t, k.MinimizeTries)

	// The store keeps it apart too.
	bugs, err := st.Bugs()
	require.NoError(t, err)
	require.Len(t, bugs, 2)
}
