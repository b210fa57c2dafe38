package stats

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPerFindCountsTheRunsThatFoundNothing(t *testing.T) {
	// Two finds at 100 and 300, one run of 1,000 without: 1,400 spent, 2 finds.
	assert.Equal(t, 700.0, PerFind([]float64{100, 1000, 300}, []bool{true, false, true}))
	assert.True(t, math.IsInf(PerFind([]float64{5, 5}, []bool{false, false}), 1))
	assert.True(t, math.IsNaN(PerFind(nil, nil)))
	assert.True(t, math.IsNaN(PerFind([]float64{1}, []bool{true, false})))
}

func TestPerFindIntervalHoldsTheEstimateAndIsRepeatable(t *testing.T) {
	spent := []float64{120, 80, 3000, 450, 60, 900, 3000, 210, 75, 1300}
	found := []bool{true, true, false, true, true, true, false, true, true, true}
	est := PerFind(spent, found)
	lo, hi := PerFindInterval(spent, found, 0.95, 2000, 1)
	require.False(t, math.IsNaN(lo) || math.IsNaN(hi))
	assert.Less(t, lo, est)
	assert.Greater(t, hi, est)
	lo2, hi2 := PerFindInterval(spent, found, 0.95, 2000, 1)
	assert.Equal(t, lo, lo2)
	assert.Equal(t, hi, hi2)
	// A narrower level gives a narrower interval.
	lo50, hi50 := PerFindInterval(spent, found, 0.5, 2000, 1)
	assert.GreaterOrEqual(t, lo50, lo)
	assert.LessOrEqual(t, hi50, hi)
}

func TestPerFindIntervalIsUnboundedWhenFindsAreRare(t *testing.T) {
	// One find in ten runs: a good share of resamples hold no find.
	spent := []float64{3000, 3000, 3000, 3000, 500, 3000, 3000, 3000, 3000, 3000}
	found := make([]bool, len(spent))
	found[4] = true
	lo, hi := PerFindInterval(spent, found, 0.95, 2000, 7)
	assert.False(t, math.IsInf(lo, 1))
	assert.True(t, math.IsInf(hi, 1))
	lo, hi = PerFindInterval(spent, found, 1.5, 2000, 7)
	assert.True(t, math.IsNaN(lo) && math.IsNaN(hi))
}
