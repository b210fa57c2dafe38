package mutate

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// Tail mutants cut an input right after the step that reached its
// least-visited item; without steps, at random.
func TestCutFollowsTheRarestItem(t *testing.T) {
	hits := map[uint64]uint32{10: 5, 20: 1, 30: 3}
	visits := func(x uint64) uint32 { return hits[x] }
	items, steps := []uint64{10, 20, 30}, []int{4, 17, 9}
	require.Equal(t, 18, Cut(items, steps, visits), "item 20 is the rarest, reached at step 17")
	hits[20] += 2
	require.Equal(t, 18, Cut(items, steps, visits), "a tie keeps the first rarest")
	hits[20]++
	require.Equal(t, 10, Cut(items, steps, visits), "now item 30 is")
	require.Equal(t, 0, Cut([]uint64{10}, nil, visits), "no steps: a random cut")
	require.Equal(t, 0, Cut([]uint64{10}, []int{-1}, visits), "the initial state: a random cut")
}

// An input's energy grows with the times it was chosen, shrinks with the
// visits of its rarest item, and stays within 1 and 16 times the base.
func TestEnergyFollowsTheFastSchedule(t *testing.T) {
	require.Equal(t, 5, Energy(5, Rarity{Visits: 1}))
	require.Equal(t, 20, Energy(5, Rarity{Visits: 2, Chosen: 3}))
	require.Equal(t, 80, Energy(5, Rarity{Visits: 1, Chosen: 9}), "2^MaxPower at most, and 16 times the base")
	require.Equal(t, 1, Energy(5, Rarity{Visits: 1000}))
	require.Equal(t, 1, Energy(0, Rarity{}), "a base of at least 1, visits of at least 1")
}

// The rarest of a tournament has the fewest visits, then the fewest
// choices; the commonest the most.
func TestTournamentsPickByRarity(t *testing.T) {
	pool := []Rarity{{Visits: 9}, {Visits: 1, Chosen: 4}, {Visits: 1, Chosen: 2}, {Visits: 30}}
	rarity := func(i int) Rarity { return pool[i] }
	r := rand.New(rand.NewPCG(1, 2))
	picked := map[int]int{}
	for k := 0; k < 200; k++ {
		picked[Rarest(r, len(pool), rarity)]++
	}
	require.Greater(t, picked[2], 150, "%v", picked)
	picked = map[int]int{}
	for k := 0; k < 200; k++ {
		picked[Commonest(r, len(pool), rarity)]++
	}
	require.Greater(t, picked[3], 150, "%v", picked)
}
