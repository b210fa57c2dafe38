package fuzzer_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/adapters/microbench"
	"github.com/modelfuzz/modelfuzz/corpus"
	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/guidance"
	"github.com/modelfuzz/modelfuzz/schedule"
)

func rareSetup(seed uint64, iterations int64) campaignSetup {
	return campaignSetup{workers: 3, tasks: 5, inject: microbench.InjectFlushBeforeLast, strategy: "trace",
		seed: seed, iterations: iterations, energy: fuzzer.EnergyRare}
}

func TestRareCampaignsAreReproducible(t *testing.T) {
	a := runCampaign(t, t.TempDir(), rareSetup(7, 3000))
	b := runCampaign(t, t.TempDir(), rareSetup(7, 3000))
	require.Equal(t, a.Coverage, b.Coverage)
	require.Equal(t, a.CorpusSize, b.CorpusSize)
	require.Equal(t, len(a.Bugs), len(b.Bugs))
	for i := range a.Bugs {
		require.Equal(t, a.Bugs[i].FirstIteration, b.Bugs[i].FirstIteration)
		require.Equal(t, schedule.EncodeInput(a.Bugs[i].Input), schedule.EncodeInput(b.Bugs[i].Input))
	}
	require.Greater(t, a.CorpusSize, 10)
}

// storedInputs returns the inputs a finished campaign kept, by iteration.
func storedInputs(t *testing.T, dir string) map[int64]string {
	st, err := corpus.Open(dir, corpus.Options{})
	require.NoError(t, err)
	defer st.Close()
	snap, err := st.Load(-1)
	require.NoError(t, err)
	out := map[int64]string{}
	for _, rec := range snap.Inputs {
		out[rec.Iteration] = string(schedule.EncodeInput(rec.Input))
	}
	return out
}

// Both schedules start from the same random inputs: the first
// SeedPopulation iterations are the shared initial population that
// compare tells apart from what guidance found.
func TestSchedulesShareTheInitialPopulation(t *testing.T) {
	fixedDir, rareDir := t.TempDir(), t.TempDir()
	c := rareSetup(3, 400)
	runCampaign(t, rareDir, c)
	c.energy = fuzzer.EnergyFixed
	runCampaign(t, fixedDir, c)
	fixed, rare := storedInputs(t, fixedDir), storedInputs(t, rareDir)
	shared := 0
	for it := int64(1); it <= 20; it++ {
		require.Equal(t, fixed[it], rare[it], "iteration %d", it)
		if fixed[it] != "" {
			shared++
		}
	}
	require.Positive(t, shared)
	differ := false
	for it := int64(21); it <= 400; it++ {
		differ = differ || fixed[it] != rare[it]
	}
	require.True(t, differ, "the schedules choose differently after the initial population")
}

func TestRarePoolIsCappedAndDropsAreCounted(t *testing.T) {
	c := rareSetup(1, 1500)
	c.inject = ""
	c.queueMax = 25
	var last fuzzer.Stats
	c.progress = func(s fuzzer.Stats) { last = s }
	sum := runCampaign(t, t.TempDir(), c)
	require.Greater(t, sum.CorpusSize, 25)
	require.LessOrEqual(t, last.Pool, 25)
	require.Equal(t, int64(sum.CorpusSize-last.Pool), sum.Dropped, "every input beyond the cap replaced one in the pool")
}

func TestFixedQueueCountsEveryDroppedMutant(t *testing.T) {
	c := rareSetup(1, 600)
	c.energy, c.queueMax = fuzzer.EnergyFixed, 30
	sum := runCampaign(t, t.TempDir(), c)
	require.Positive(t, sum.Dropped)
}

func TestContinuedRareCampaignMutatesItsCorpus(t *testing.T) {
	dir := t.TempDir()
	c := rareSetup(2, 1000)
	c.inject = ""
	first := runCampaign(t, dir, c)
	c.iterations = 2000
	second := runCampaign(t, dir, c)
	require.Equal(t, int64(1000), second.Session)
	require.Greater(t, second.Coverage[guidance.MeasureTraces], first.Coverage[guidance.MeasureTraces])
	ins := storedInputs(t, dir)
	parents := 0
	st, err := corpus.Open(dir, corpus.Options{})
	require.NoError(t, err)
	defer st.Close()
	snap, err := st.Load(-1)
	require.NoError(t, err)
	for _, rec := range snap.Inputs {
		if rec.Iteration > 1000 && rec.Parent != 0 {
			parents++
		}
		if rec.Iteration <= 1000 {
			require.NotEmpty(t, rec.GuideItems, "input %d keeps the items it is judged by", rec.ID)
		}
	}
	require.Positive(t, parents, "the second session mutates inputs of the first")
	require.NotEmpty(t, ins)
}

func TestEnergySettingsAreChecked(t *testing.T) {
	fac, err := microbench.NewFactory(microbench.Config{Workers: 2, Tasks: 2})
	require.NoError(t, err)
	gen, err := schedule.NewGenerator(fac.Spec(), schedule.Shape{Steps: 10, MaxMessages: 2})
	require.NoError(t, err)
	st, err := corpus.Open(t.TempDir(), corpus.Options{})
	require.NoError(t, err)
	defer st.Close()
	for _, p := range []fuzzer.Params{
		{Seed: 1, SeedPopulation: 1, ReseedEvery: 1, Energy: "fast"},
		{Seed: 1, SeedPopulation: 1, ReseedEvery: 1, Energy: fuzzer.EnergyRare, FreshShare: 1},
		{Seed: 1, SeedPopulation: 1, ReseedEvery: 1, Energy: fuzzer.EnergyRare, FreshShare: -0.5},
		{Seed: 1, SeedPopulation: 1, ReseedEvery: 1, Energy: fuzzer.EnergyRare, Stack: -1},
	} {
		_, err := fuzzer.New(fuzzer.Options{Params: p}, fac, gen, st)
		require.Error(t, err, "%+v", p)
	}
}

// editDistance is the Levenshtein distance between two inputs' steps.
func editDistance(a, b []schedule.Step) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// farFromParent is the share of a campaign's kept mutants that differ
// from their parent by more than one round of mutation can (three
// operations of at most two edits each).
func farFromParent(t *testing.T, dir string) float64 {
	st, err := corpus.Open(dir, corpus.Options{})
	require.NoError(t, err)
	defer st.Close()
	snap, err := st.Load(-1)
	require.NoError(t, err)
	byID := map[uint64]*schedule.Input{}
	for _, rec := range snap.Inputs {
		byID[rec.ID] = rec.Input
	}
	far, all := 0, 0
	for _, rec := range snap.Inputs {
		if p := byID[rec.Parent]; p != nil {
			all++
			if editDistance(p.Steps, rec.Input.Steps) > 6 {
				far++
			}
		}
	}
	require.Greater(t, all, 50)
	return float64(far) / float64(all)
}

// With --stack, the rare schedule's ordinary mutants get several rounds
// of mutation: more of them move away from their parent than the tail
// mutants alone do, and a campaign stays reproducible.
func TestStackedMutantsMoveFurtherFromTheirParents(t *testing.T) {
	c := rareSetup(4, 700)
	c.inject = ""
	one, stacked := t.TempDir(), t.TempDir()
	runCampaign(t, one, c)
	c.stack = 8
	a := runCampaign(t, stacked, c)
	b := runCampaign(t, t.TempDir(), c)
	require.Equal(t, a.Coverage, b.Coverage)
	require.Equal(t, a.CorpusSize, b.CorpusSize)
	f1, f8 := farFromParent(t, one), farFromParent(t, stacked)
	t.Logf("mutants more than 6 edits from their parent: %.2f with one round, %.2f with up to 8", f1, f8)
	require.Greater(t, f8, f1+0.1)
}
