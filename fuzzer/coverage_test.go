package fuzzer

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCoverageNewAndAdd(t *testing.T) {
	c := NewCoverage()
	require.Equal(t, []uint64{1, 2}, c.New([]uint64{1, 2, 1}))
	c.Add([]uint64{1})
	require.Equal(t, []uint64{2}, c.New([]uint64{1, 2}))
	require.Equal(t, 1, c.Len())
}

func TestCoverageSet(t *testing.T) {
	c := NewCoverage()
	ref := map[uint64]bool{}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		x := r.Uint64() % 30000 // repeats, small values and 0
		require.Equal(t, ref[x], c.Has(x))
		fresh := c.New([]uint64{x, x})
		if ref[x] {
			require.Empty(t, fresh)
		} else {
			require.Equal(t, []uint64{x}, fresh)
		}
		c.Add(fresh)
		ref[x] = true
		require.Equal(t, len(ref), c.Len())
	}
	require.True(t, c.Has(0) == ref[0])
	require.LessOrEqual(t, c.Bytes(), 8*4*len(ref)) // at most 3/4 full after growing
}
