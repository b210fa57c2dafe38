package fuzzer_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/adapters/microbench"
	"github.com/modelfuzz/modelfuzz/corpus"
	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/guidance"
	"github.com/modelfuzz/modelfuzz/record"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// builtBy is an online strategy that remembers the inputs it built.
type builtBy struct {
	on   *guidance.Online
	mu   sync.Mutex
	runs int
	ins  map[string]bool
}

func (b *builtBy) Run(sys schedule.System, r *rand.Rand) (*schedule.Input, *schedule.Execution, error) {
	in, ex, err := b.on.Run(sys, r)
	if err == nil {
		b.mu.Lock()
		b.runs++
		b.ins[string(schedule.EncodeInput(in))] = true
		b.mu.Unlock()
	}
	return in, ex, err
}

// onlineSeeded runs a trace-guided campaign whose fresh inputs PCTCP
// builds, and returns its summary, the strategy and the corpus's inputs.
func onlineSeeded(t *testing.T, energy string, parallel int) (*fuzzer.Summary, *builtBy, []string, []uint64) {
	fac, gen, on := microbenchOnline(t, "model-pctcp")
	b := &builtBy{on: on, ins: map[string]bool{}}
	opt := fuzzer.Options{Strategy: "model-pctcp", Measures: []fuzzer.Measure{guidance.TraceMeasure{}}, Guide: guidance.TraceMeasure{},
		Online: b, OnlineSeeds: true,
		Params: fuzzer.Params{Seed: 3, SeedPopulation: 20, ReseedEvery: 200, Mutations: 5, Energy: energy, FreshShare: 0.1, Pipeline: 4},
		Limits: fuzzer.Limits{Iterations: 600, Parallel: parallel}}
	sum, ins, parents, err := runKept(t, opt, fac, gen)
	require.NoError(t, err)
	return sum, b, encoded(ins), parents
}

// runKept runs a campaign with opt on a fresh corpus and returns its
// summary and the inputs it kept with their parents; an error is
// fuzzer.New's (a refused setting).
func runKept(t *testing.T, opt fuzzer.Options, fac schedule.Factory, gen *schedule.Generator) (*fuzzer.Summary, []*schedule.Input, []uint64, error) {
	t.Helper()
	sum, recs, err := runStored(t, opt, fac, gen)
	if err != nil {
		return nil, nil, nil, err
	}
	var ins []*schedule.Input
	var parents []uint64
	for _, rec := range recs {
		ins = append(ins, rec.Input)
		parents = append(parents, rec.Parent)
	}
	return sum, ins, parents, nil
}

// runStored runs a campaign with opt on a fresh corpus and returns its
// summary and the records of the inputs it kept; an error is
// fuzzer.New's (a refused setting).
func runStored(t *testing.T, opt fuzzer.Options, fac schedule.Factory, gen *schedule.Generator) (*fuzzer.Summary, []*record.InputRecord, error) {
	t.Helper()
	st, err := corpus.Open(t.TempDir(), corpus.Options{})
	require.NoError(t, err)
	defer st.Close()
	f, err := fuzzer.New(opt, fac, gen, st)
	if err != nil {
		return nil, nil, err
	}
	sum, err := f.Run(context.Background())
	require.NoError(t, err)
	snap, err := st.Load(100000)
	require.NoError(t, err)
	return sum, snap.Inputs, nil
}

// microbenchOnline is the micro-benchmark (3 workers, 5 tasks, inputs of
// 50 steps) with its generator and the online strategy of that name.
func microbenchOnline(t *testing.T, strategy string) (schedule.Factory, *schedule.Generator, *guidance.Online) {
	t.Helper()
	fac, err := microbench.NewFactory(microbench.Config{Workers: 3, Tasks: 5})
	require.NoError(t, err)
	shape := schedule.Shape{Steps: 50, MaxMessages: 5, Requests: 2}
	gen, err := schedule.NewGenerator(fac.Spec(), shape)
	require.NoError(t, err)
	p := guidance.OnlineParams{}
	require.NoError(t, p.Defaults(strategy, fac.Spec()))
	on, err := guidance.NewOnline(strategy, p, schedule.Harness{Shape: shape}, fac, 3)
	require.NoError(t, err)
	return fac, gen, on
}

// encoded is each input's JSON.
func encoded(ins []*schedule.Input) []string {
	var out []string
	for _, in := range ins {
		out = append(out, string(schedule.EncodeInput(in)))
	}
	return out
}

// With OnlineSeeds, the online strategy builds the fresh inputs only:
// every kept input without a parent is one it built, and the guide keeps
// mutants of them too; the campaign is the same for every Parallel.
func TestOnlineSeedsAreKeptAndMutated(t *testing.T) {
	for _, energy := range []string{fuzzer.EnergyFixed, fuzzer.EnergyRare} {
		t.Run(energy, func(t *testing.T) {
			sum, b, ins, parents := onlineSeeded(t, energy, 1)
			require.Greater(t, sum.CorpusSize, 0)
			require.GreaterOrEqual(t, b.runs, 20, "the first population is built online")
			require.Less(t, b.runs, 600, "the other iterations run mutants")
			fresh, mutants := 0, 0
			for i, in := range ins {
				if parents[i] == 0 {
					fresh++
					require.True(t, b.ins[in], "a kept input without a parent was built by the online strategy")
				} else {
					mutants++
				}
			}
			t.Logf("runs %d, corpus %d, fresh %d, mutants %d", b.runs, sum.CorpusSize, fresh, mutants)
			require.Greater(t, fresh, 0)
			require.Greater(t, mutants, 0, "kept online inputs are mutated")

			sum2, _, ins2, _ := onlineSeeded(t, energy, 2)
			require.Equal(t, sum.Coverage, sum2.Coverage)
			require.Equal(t, ins, ins2, "the same campaign with two workers")
		})
	}
}

// Under EnergyBandit the seed population is random and the online
// strategy's executions, random inputs and mutants then share the
// iterations by what each found lately: each source runs, and the
// campaign is the same for every Parallel.
func TestBanditSharesOnlineRandomAndMutants(t *testing.T) {
	sum, b, ins, parents := onlineSeeded(t, fuzzer.EnergyBandit, 1)
	require.Greater(t, sum.CorpusSize, 0)
	require.Positive(t, b.runs, "the online strategy builds some inputs")
	require.Less(t, b.runs, 600-20, "the seed population is random, and mutants run")
	online, random, mutants := 0, 0, 0
	for i, in := range ins {
		switch {
		case parents[i] != 0:
			mutants++
		case b.ins[in]:
			online++
		default:
			random++
		}
	}
	t.Logf("online runs %d, corpus %d: online %d, random %d, mutants %d", b.runs, sum.CorpusSize, online, random, mutants)
	require.Positive(t, random, "the random seed population is kept")
	require.Positive(t, mutants)
	sum2, _, ins2, _ := onlineSeeded(t, fuzzer.EnergyBandit, 2)
	require.Equal(t, sum.Coverage, sum2.Coverage)
	require.Equal(t, ins, ins2, "the same campaign with two workers")
}

// tailsBy is an online strategy that remembers the tails it built.
type tailsBy struct {
	builtBy
	tails int
	short int // tails whose input does not begin with their prefix
}

func (b *tailsBy) RunFrom(sys schedule.System, prefix []schedule.Step, r *rand.Rand) (*schedule.Input, *schedule.Execution, error) {
	in, ex, err := b.on.RunFrom(sys, prefix, r)
	if err == nil {
		b.mu.Lock()
		b.tails++
		if len(in.Steps) < len(prefix) || !slices.Equal(in.Steps[:len(prefix)], prefix) {
			b.short++
		}
		b.ins[string(schedule.EncodeInput(in))] = true
		b.mu.Unlock()
	}
	return in, ex, err
}

// onlineTails runs a trace-guided campaign whose online strategy builds
// the tails of some mutants (OnlineTails).
func onlineTails(t *testing.T, energy string, parallel int) (*fuzzer.Summary, *tailsBy, []string, []uint64, error) {
	fac, gen, on := microbenchOnline(t, "model-dpos-tails")
	b := &tailsBy{builtBy: builtBy{on: on, ins: map[string]bool{}}}
	opt := fuzzer.Options{Strategy: "model-dpos-tails", Measures: []fuzzer.Measure{guidance.TraceMeasure{}}, Guide: guidance.TraceMeasure{},
		Online: b, OnlineTails: true,
		Params: fuzzer.Params{Seed: 3, SeedPopulation: 20, ReseedEvery: 200, Mutations: 5, Energy: energy, FreshShare: 0.1, Pipeline: 4},
		Limits: fuzzer.Limits{Iterations: 600, Parallel: parallel}}
	sum, ins, parents, err := runKept(t, opt, fac, gen)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	return sum, b, encoded(ins), parents, nil
}

// With OnlineTails, the fresh inputs are random and the online strategy
// builds the tails of some of the pool's mutants, each beginning with its
// parent's prefix; tails it built are kept as mutants of their parent;
// the campaign is the same for every Parallel. The fixed schedule, which
// has no pool, is refused.
func TestOnlineTailsContinueThePoolsInputs(t *testing.T) {
	for _, energy := range []string{fuzzer.EnergyRare, fuzzer.EnergyBandit} {
		t.Run(energy, func(t *testing.T) {
			sum, b, ins, parents, err := onlineTails(t, energy, 1)
			require.NoError(t, err)
			require.Zero(t, b.runs, "no fresh input is built online")
			require.Positive(t, b.tails)
			require.Less(t, b.tails, 600-20, "the seed population is random, and other mutants run")
			require.Zero(t, b.short, "every tail begins with its prefix")
			tails := 0
			for i, in := range ins {
				if b.ins[in] {
					tails++
					require.NotZero(t, parents[i], "a kept tail is a mutant of its parent")
				}
			}
			t.Logf("tails %d, corpus %d, kept tails %d", b.tails, sum.CorpusSize, tails)
			require.Positive(t, tails)
			sum2, _, ins2, _, err := onlineTails(t, energy, 2)
			require.NoError(t, err)
			require.Equal(t, sum.Coverage, sum2.Coverage)
			require.Equal(t, ins, ins2, "the same campaign with two workers")
		})
	}
	_, _, _, _, err := onlineTails(t, fuzzer.EnergyFixed, 1)
	require.ErrorContains(t, err, "needs --energy rare or bandit")
}
