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

// silent is a guide that never sees anything new after its first item.
type silent struct{}

func (silent) Name() string { return "silent" }
func (silent) Measure(*schedule.Input, *schedule.Execution) (fuzzer.Observation, error) {
	return fuzzer.Observation{Items: []uint64{1}}, nil
}

func keeping(t *testing.T, energy string, parallel int) (*fuzzer.Summary, []uint64, error) {
	fac, err := microbench.NewFactory(microbench.Config{Workers: 3, Tasks: 5})
	require.NoError(t, err)
	gen, err := schedule.NewGenerator(fac.Spec(), schedule.Shape{Steps: 50, MaxMessages: 5, Requests: 2})
	require.NoError(t, err)
	st, err := corpus.Open(t.TempDir(), corpus.Options{})
	require.NoError(t, err)
	defer st.Close()
	opt := fuzzer.Options{Strategy: "keep", Guide: silent{}, Keep: guidance.TraceMeasure{},
		Params: fuzzer.Params{Seed: 4, SeedPopulation: 20, ReseedEvery: 200, Mutations: 5, Energy: energy, FreshShare: 0.1, Pipeline: 4},
		Limits: fuzzer.Limits{Iterations: 400, Parallel: parallel}}
	f, err := fuzzer.New(opt, fac, gen, st)
	if err != nil {
		return nil, nil, err
	}
	sum, err := f.Run(context.Background())
	require.NoError(t, err)
	snap, err := st.Load(100000)
	require.NoError(t, err)
	var parents []uint64
	for _, rec := range snap.Inputs {
		parents = append(parents, rec.Parent)
	}
	return sum, parents, nil
}

// With Options.Keep, an input whose execution reached new items of the
// second measure is kept and mutated though the guide saw nothing new; the
// second measure's coverage is reported under its name, the guide's is
// its own; the campaign is the same for any Parallel; the fixed schedule
// is refused.
func TestKeepMeasureKeepsInputsTheGuideDoesNot(t *testing.T) {
	sum, parents, err := keeping(t, fuzzer.EnergyRare, 1)
	require.NoError(t, err)
	require.Equal(t, 1, sum.Coverage["silent"])
	require.Positive(t, sum.Coverage[guidance.MeasureTraces])
	require.Greater(t, sum.CorpusSize, 1, "inputs kept for new traces alone")
	mutants := 0
	for _, p := range parents {
		if p != 0 {
			mutants++
		}
	}
	require.Positive(t, mutants, "inputs kept for the second measure are mutated")
	sum2, parents2, err := keeping(t, fuzzer.EnergyRare, 2)
	require.NoError(t, err)
	require.Equal(t, sum.Coverage, sum2.Coverage)
	require.Equal(t, parents, parents2)
	_, _, err = keeping(t, fuzzer.EnergyFixed, 1)
	require.ErrorContains(t, err, "needs --energy rare or bandit")
}
