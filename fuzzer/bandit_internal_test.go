package fuzzer

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBanditTriesEachSourceThenFollowsTheYield(t *testing.T) {
	var b bandit
	r := rand.New(rand.NewPCG(1, 2))
	// Untried sources first, and the pool's mutants only with a pool.
	require.Equal(t, armRandom, b.choose(r, true, false))
	b.observe(armRandom, false, 100)
	require.Equal(t, armOnline, b.choose(r, true, false))
	b.observe(armOnline, true, 100)
	require.Equal(t, armMutant, b.choose(r, true, true))
	b.observe(armMutant, false, 100)
	// Online executions reach new states, the others never: online gets
	// nearly everything, the others their floor.
	count := [arms]int{}
	for i := 0; i < 4000; i++ {
		a := b.choose(r, true, true)
		count[a]++
		b.observe(a, a == armOnline, 100)
	}
	require.Greater(t, count[armOnline], 3300)
	require.Greater(t, count[armRandom], 100, "a source keeps its floor")
	require.Greater(t, count[armMutant], 100, "a source keeps its floor")
	// Without online seeds and without a pool, only random inputs.
	var c bandit
	for i := 0; i < 50; i++ {
		a := c.choose(r, false, false)
		require.Equal(t, armRandom, a)
		c.observe(a, i%2 == 0, 10)
	}
}

func TestBanditJudgesYieldPerStep(t *testing.T) {
	var b bandit
	r := rand.New(rand.NewPCG(3, 4))
	// The same yield, mutants four times cheaper: they get most iterations.
	b.observe(armRandom, true, 400)
	b.observe(armMutant, true, 100)
	count := [arms]int{}
	for i := 0; i < 4000; i++ {
		a := b.choose(r, false, true)
		count[a]++
		b.observe(a, i%2 == 0, map[uint8]int{armRandom: 400, armMutant: 100}[a])
	}
	require.Greater(t, count[armMutant], 2*count[armRandom])
}

func TestBanditIgnoresImportedInputs(t *testing.T) {
	var b bandit
	b.observe(armNone, true, 10)
	require.Equal(t, [arms]int64{}, b.runs)
}
