package fuzzer_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/guidance"
	"github.com/modelfuzz/modelfuzz/record"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// genomeCampaign runs a trace-guided campaign over the genomes of PCTCP's
// executions (OnlineGenomes) and returns its summary and kept inputs.
func genomeCampaign(t *testing.T, energy string, parallel int) (*fuzzer.Summary, []*record.InputRecord, *guidance.Online, schedule.Factory, error) {
	fac, gen, on := microbenchOnline(t, "model-pctcp-genome")
	opt := fuzzer.Options{Strategy: "model-pctcp-genome", Measures: []fuzzer.Measure{guidance.TraceMeasure{}}, Guide: guidance.TraceMeasure{},
		Online: on, OnlineGenomes: true,
		Params: fuzzer.Params{Seed: 3, SeedPopulation: 20, ReseedEvery: 200, Mutations: 5, Energy: energy, FreshShare: 0.1, Pipeline: 4},
		Limits: fuzzer.Limits{Iterations: 600, Parallel: parallel}}
	sum, recs, err := runStored(t, opt, fac, gen)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	return sum, recs, on, fac, nil
}

// Under OnlineGenomes every kept input is an online execution stored with
// its genome, and the genome makes the same input again; mutants of kept
// genomes are kept too; the campaign is the same for every Parallel; the
// fixed schedule, which has no pool, is refused.
func TestOnlineGenomesAreKeptAndMutated(t *testing.T) {
	sum, recs, on, fac, err := genomeCampaign(t, fuzzer.EnergyRare, 1)
	require.NoError(t, err)
	require.Positive(t, sum.CorpusSize)
	sys, err := fac.New()
	require.NoError(t, err)
	mutants := 0
	for _, rec := range recs {
		require.NotEmpty(t, rec.Genome, "input %d is stored with its genome", rec.ID)
		in, _, again, err := on.RunGenome(sys, rec.Genome)
		require.NoError(t, err)
		require.Equal(t, string(schedule.EncodeInput(rec.Input)), string(schedule.EncodeInput(in)), "input %d: its genome makes it again", rec.ID)
		require.JSONEq(t, string(rec.Genome), string(again), "input %d: and writes the same genome", rec.ID)
		if rec.Parent != 0 {
			mutants++
		}
	}
	t.Logf("corpus %d, mutants %d", len(recs), mutants)
	require.Positive(t, mutants, "mutants of kept genomes are kept")

	sum2, recs2, _, _, err := genomeCampaign(t, fuzzer.EnergyRare, 2)
	require.NoError(t, err)
	require.Equal(t, sum.Coverage, sum2.Coverage)
	require.Equal(t, len(recs), len(recs2))
	for i := range recs {
		require.Equal(t, string(schedule.EncodeInput(recs[i].Input)), string(schedule.EncodeInput(recs2[i].Input)), "the same campaign with two workers")
		require.Equal(t, string(recs[i].Genome), string(recs2[i].Genome))
	}

	_, _, _, _, err = genomeCampaign(t, fuzzer.EnergyFixed, 1)
	require.ErrorContains(t, err, "needs --energy rare")
}
