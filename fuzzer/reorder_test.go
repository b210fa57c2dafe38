package fuzzer_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/adapters/etcdraft"
	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/guidance"
	"github.com/modelfuzz/modelfuzz/mutate"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// reordering runs a trace-guided campaign on etcd raft (every action)
// whose pool's mutants are a third ordering mutants (OrderMutants), and
// returns its summary and the corpus's inputs with their parents.
func reordering(t *testing.T, energy string, parallel int) (*fuzzer.Summary, []*schedule.Input, []uint64, error) {
	fac, err := etcdraft.NewFactory(etcdraft.ClassicConfig())
	require.NoError(t, err)
	shape := schedule.Shape{Steps: 60, MaxMessages: 5, CrashQuota: 2, Requests: 3}
	gen, err := schedule.NewGenerator(fac.Spec(), shape)
	require.NoError(t, err)
	opt := fuzzer.Options{Strategy: guidance.StrategyModelReorder, Measures: []fuzzer.Measure{guidance.TraceMeasure{}}, Guide: guidance.TraceMeasure{},
		OrderMutants: true,
		Params:       fuzzer.Params{Seed: 5, SeedPopulation: 20, ReseedEvery: 200, Mutations: 5, Energy: energy, FreshShare: 0.1, Pipeline: 4},
		Limits:       fuzzer.Limits{Iterations: 300, Parallel: parallel}}
	return runKept(t, opt, fac, gen)
}

// With OrderMutants, kept mutants include ordering mutants (a deliver-one
// past --max-messages is made by nothing else), and the campaign is the
// same for every Parallel. The fixed schedule, which has no pool, is
// refused.
func TestOrderingMutantsAreRunAndKept(t *testing.T) {
	for _, energy := range []string{fuzzer.EnergyRare, fuzzer.EnergyBandit} {
		t.Run(energy, func(t *testing.T) {
			sum, ins, parents, err := reordering(t, energy, 1)
			require.NoError(t, err)
			deep := 0
			for i, in := range ins {
				for _, s := range in.Steps {
					if s.Action == schedule.DeliverOne && s.K > 5 {
						require.NotZero(t, parents[i], "only a mutant has a deep deliver-one")
						require.LessOrEqual(t, s.K, mutate.DeepK)
						deep++
						break
					}
				}
			}
			t.Logf("corpus %d, kept inputs with a deep deliver-one %d", sum.CorpusSize, deep)
			require.Positive(t, deep, "ordering mutants reach new traces and are kept")
			sum2, ins2, _, err := reordering(t, energy, 2)
			require.NoError(t, err)
			require.Equal(t, sum.Coverage, sum2.Coverage)
			require.Equal(t, len(ins), len(ins2))
			for i := range ins {
				require.Equal(t, schedule.EncodeInput(ins[i]), schedule.EncodeInput(ins2[i]), "the same campaign with two workers")
			}
		})
	}
	_, _, _, err := reordering(t, fuzzer.EnergyFixed, 1)
	require.ErrorContains(t, err, "needs --energy rare or bandit")
}
