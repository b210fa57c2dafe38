package stats

import (
	"math"
	"math/rand/v2"
	"slices"
)

// PerFind is what a set of runs spent per find: the sum of spent over the
// number of runs that found (spent[i] is what run i spent up to its find
// when found[i], and in all otherwise). It uses the runs that found
// nothing, which a median over the runs that found leaves out, and is the
// maximum-likelihood estimate of the mean time to a find when finds come
// at a constant rate and each run is cut off at its end. +Inf when no run
// found; NaN when there are no runs or spent and found differ in length.
func PerFind(spent []float64, found []bool) float64 {
	if len(spent) == 0 || len(spent) != len(found) {
		return math.NaN()
	}
	var sum float64
	finds := 0
	for i, x := range spent {
		sum += x
		if found[i] {
			finds++
		}
	}
	if finds == 0 {
		return math.Inf(1)
	}
	return sum / float64(finds)
}

// PerFindInterval is the bootstrap percentile interval of PerFind at the
// given level (e.g. 0.95): the runs resampled with replacement resamples
// times, from a generator seeded with seed, so that a report is the same
// every time it is made. hi is +Inf when at least the upper tail's share
// of the resamples has no find.
func PerFindInterval(spent []float64, found []bool, level float64, resamples int, seed uint64) (lo, hi float64) {
	n := len(spent)
	if n == 0 || n != len(found) || resamples <= 0 || !(level > 0 && level < 1) {
		return math.NaN(), math.NaN()
	}
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	est := make([]float64, resamples)
	s, f := make([]float64, n), make([]bool, n)
	for k := range est {
		for i := range n {
			j := r.IntN(n)
			s[i], f[i] = spent[j], found[j]
		}
		est[k] = PerFind(s, f)
	}
	slices.Sort(est)
	tail := (1 - level) / 2
	at := func(q float64) float64 {
		i := int(math.Round(q * float64(resamples-1)))
		return est[i]
	}
	return at(tail), at(1 - tail)
}
