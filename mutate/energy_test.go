package mutate

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/schedule"
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

// An online tail's prefix is its parent's first Keep steps, a copy; with
// Keep 0 a random prefix of at least one step; the draw gives online
// tails and random tails a third of the mutants each, both at the cut.
func TestOnlinePrefixCutsTheParent(t *testing.T) {
	parent := &schedule.Input{}
	for i := 0; i < 10; i++ {
		parent.Steps = append(parent.Steps, schedule.Step{Process: i % 3, Action: schedule.Timeout})
	}
	p := OnlinePrefix(parent, 7, Mutant{Seed: 1, Online: true, Keep: 4})
	require.Equal(t, parent.Steps[:4], p)
	p[0].Process = 2
	require.Equal(t, 0, parent.Steps[0].Process, "the prefix is a copy")
	require.Len(t, OnlinePrefix(parent, 7, Mutant{Seed: 1, Online: true, Keep: 40}), 10, "at most the whole parent")
	lens := map[int]bool{}
	for s := uint64(0); s < 200; s++ {
		n := len(OnlinePrefix(parent, 7, Mutant{Seed: s, Online: true}))
		require.True(t, n >= 1 && n <= 10)
		lens[n] = true
	}
	require.Greater(t, len(lens), 5, "a random cut varies")
	r := rand.New(rand.NewPCG(1, 2))
	online, tails := 0, 0
	for k := 0; k < 1200; k++ {
		mu := RareMutantOnline(r, 6)
		require.False(t, mu.Online && mu.Tail)
		if mu.Online || mu.Tail {
			require.Equal(t, 6, mu.Keep, "tails are cut at keep")
		}
		if mu.Online {
			online++
		}
		if mu.Tail {
			tails++
		}
	}
	require.InDelta(t, 400, online, 80)
	require.InDelta(t, 400, tails, 80)
}
