package fuzzer

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Tail mutants cut an entry right after the step that reached its
// least-visited item; without steps, at random.
func TestRareCutFollowsTheRarestItem(t *testing.T) {
	f := &Fuzzer{hits: NewHits()}
	for i := 0; i < 5; i++ {
		f.hits.Inc(10)
	}
	f.hits.Inc(20)
	for i := 0; i < 3; i++ {
		f.hits.Inc(30)
	}
	e := &entry{items: []uint64{10, 20, 30}, steps: []int{4, 17, 9}}
	require.Equal(t, 18, f.rareCut(e), "item 20 is the rarest, reached at step 17")
	f.hits.Inc(20)
	f.hits.Inc(20)
	require.Equal(t, 18, f.rareCut(e), "a tie keeps the first rarest")
	f.hits.Inc(20)
	require.Equal(t, 10, f.rareCut(e), "now item 30 is")
	require.Equal(t, 0, f.rareCut(&entry{items: []uint64{10}}), "no steps: a random cut")
	require.Equal(t, 0, f.rareCut(&entry{items: []uint64{10}, steps: []int{-1}}), "the initial state: a random cut")
}

func TestItemStepsFindsTheFirstStep(t *testing.T) {
	obs := Observation{Items: []uint64{1, 2, 1, 3}, Steps: []int{-1, 4, 6, 8}}
	require.Equal(t, []int{8, -1, 4}, itemSteps(obs, []uint64{3, 1, 2}))
	require.Equal(t, []int{-1}, itemSteps(obs, []uint64{9}))
	require.Nil(t, itemSteps(Observation{Items: []uint64{1}}, []uint64{1}))
}
