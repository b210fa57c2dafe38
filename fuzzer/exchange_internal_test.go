package fuzzer

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/adapters/microbench"
	"github.com/modelfuzz/modelfuzz/record"
	"github.com/modelfuzz/modelfuzz/schedule"
)

type sharedOnce struct{ s Shared }

func (x *sharedOnce) Incoming() Shared   { s := x.s; x.s = Shared{}; return s }
func (x *sharedOnce) Claim(string) bool  { return true }
func (x *sharedOnce) ShareVisits(Visits) {}

// What the others visited counts as visited here, their choices of an
// input as chosen here, and an input of theirs
// joins the pool with the steps at which it reached its items (its tail is
// cut where its finder cuts it); steps that do not match its items are
// not taken.
func TestAbsorbTakesVisitsAndSteps(t *testing.T) {
	fac, err := microbench.NewFactory(microbench.Config{Workers: 3, Tasks: 5})
	require.NoError(t, err)
	in := &schedule.Input{Steps: []schedule.Step{{Process: 0, Action: schedule.Deliver, Messages: 1}}}
	require.NoError(t, in.Validate(fac.Spec()))
	x := &sharedOnce{s: Shared{
		Visits: Visits{Items: map[uint64]uint32{7: 3, 8: 1}, Chosen: map[uint64]uint32{7: 2}},
		Inputs: []*record.InputRecord{
			{ID: 1, Source: "hub", GuideItems: []uint64{7, 8}, GuideSteps: []int{0, 0}, Input: in},
			{ID: 2, Source: "hub", GuideItems: []uint64{9}, GuideSteps: []int{0, 0}, Input: in},
		}}}
	f := &Fuzzer{opt: Options{Params: Params{Energy: EnergyRare}, Limits: Limits{QueueMax: 10}, Exchange: x}, fac: fac, hits: NewHits(),
		chosenElse: map[uint64]uint32{}}
	f.hits.Inc(7)
	f.absorb()
	require.Equal(t, uint32(4), f.hits.Get(7))
	require.Equal(t, uint32(1), f.hits.Get(8))
	require.Len(t, f.pool, 2)
	require.Equal(t, []int{0, 0}, f.pool[0].steps)
	require.Nil(t, f.pool[1].steps, "steps that do not match the items taken")
	require.Equal(t, uint32(2), f.rarity(f.pool[0]).Chosen, "the others' choices of an input not counted")
	require.Equal(t, uint32(0), f.rarity(f.pool[1]).Chosen)
}

func TestHitsAddSaturates(t *testing.T) {
	h := NewHits()
	h.Add(5, 3)
	h.Add(5, 0)
	h.Inc(5)
	require.Equal(t, uint32(4), h.Get(5))
	h.Add(5, ^uint32(0)-1)
	require.Equal(t, ^uint32(0), h.Get(5))
	h.Add(0, 2)
	require.Equal(t, uint32(2), h.Get(0))
	for x := uint64(1); x < 5000; x++ {
		h.Add(x+100, uint32(x))
	}
	require.Equal(t, uint32(4999), h.Get(5099))
}
