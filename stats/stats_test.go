package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMannWhitneyUSeparatedSamples(t *testing.T) {
	// All 20 ways to choose which 3 of 6 ranks belong to x are equally likely;
	// U = 0 only when x holds the 3 smallest: P(U ≤ 0) = 1/20, two-sided 2/20.
	u, p, err := MannWhitneyU([]float64{1, 2, 3}, []float64{4, 5, 6})
	require.NoError(t, err)
	require.Equal(t, 0.0, u)
	require.InDelta(t, 0.1, p, 1e-12)

	u, p, err = MannWhitneyU([]float64{4, 5, 6}, []float64{1, 2, 3})
	require.NoError(t, err)
	require.Equal(t, 9.0, u)
	require.InDelta(t, 0.1, p, 1e-12)
}

func TestUDistributionSmallTable(t *testing.T) {
	// n = m = 3: the number of the 20 arrangements with U = k, by hand.
	counts := []float64{1, 1, 2, 3, 3, 3, 3, 2, 1, 1}
	d := uDistribution(3, 3)
	require.Len(t, d, len(counts))
	for k, c := range counts {
		require.InDelta(t, c/20, d[k], 1e-15, "U = %d", k)
	}
}

func TestUDistributionMatchesEnumeration(t *testing.T) {
	// The definition: every choice of which of the n+m ordered positions
	// belong to x is equally likely, and U counts (x, y) pairs with the x
	// position above the y position.
	for _, size := range [][2]int{{1, 1}, {1, 4}, {4, 5}, {5, 4}, {6, 6}} {
		n, m := size[0], size[1]
		counts := make([]float64, n*m+1)
		var total float64
		for mask := 0; mask < 1<<(n+m); mask++ {
			if popcount(mask) != n {
				continue
			}
			u, ysBelow := 0, 0
			for pos := 0; pos < n+m; pos++ {
				if mask&(1<<pos) != 0 {
					u += ysBelow
				} else {
					ysBelow++
				}
			}
			counts[u]++
			total++
		}
		d := uDistribution(n, m)
		require.Len(t, d, len(counts))
		for k := range counts {
			require.InDelta(t, counts[k]/total, d[k], 1e-14, "n=%d m=%d U=%d", n, m, k)
		}
	}
}

func popcount(x int) int {
	c := 0
	for ; x != 0; x &= x - 1 {
		c++
	}
	return c
}

func TestMannWhitneyUSymmetry(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 50; trial++ {
		x := sample(rng, 1+rng.IntN(40), 0)
		y := sample(rng, 1+rng.IntN(40), rng.Float64())
		if trial%3 == 0 { // force ties through rounding
			for i := range x {
				x[i] = math.Round(x[i] * 3)
			}
			for i := range y {
				y[i] = math.Round(y[i] * 3)
			}
		}
		ux, px, err := MannWhitneyU(x, y)
		require.NoError(t, err)
		uy, py, err := MannWhitneyU(y, x)
		require.NoError(t, err)
		require.InDelta(t, float64(len(x)*len(y)), ux+uy, 1e-9)
		require.InDelta(t, px, py, 1e-12)
		require.True(t, px > 0 && px <= 1, "p = %v", px)
		require.InDelta(t, ux/float64(len(x)*len(y)), A12(x, y), 1e-12)
	}
}

func sample(rng *rand.Rand, n int, shift float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = rng.NormFloat64() + shift
	}
	return xs
}

func TestMannWhitneyUTies(t *testing.T) {
	// Pairs with x > y: (3,2); ties: (2,2) twice and (3,3): U = 1 + 3/2.
	x := []float64{1, 2, 2, 3}
	y := []float64{2, 3, 4, 4}
	u, p, err := MannWhitneyU(x, y)
	require.NoError(t, err)
	require.Equal(t, 2.5, u)
	// Small samples with ties: the exact permutation distribution, by
	// enumerating the C(8, 4) = 70 ways to pick x among the pooled values.
	require.InDelta(t, enumeratedP(x, y), p, 1e-12)
}

// With 3 runs a side, tied or not, no p-value falls below the exact
// minimum 2/C(6,3) = 0.1 (the normal approximation gave 0.072).
func TestMannWhitneyUSmallSamplesExact(t *testing.T) {
	for _, tc := range [][2][]float64{
		{{1, 2, 3}, {4, 5, 6}},
		{{1, 2, 2}, {3, 4, 5}},
		{{5, 5, 6}, {1, 1, 2}},
	} {
		_, p, err := MannWhitneyU(tc[0], tc[1])
		require.NoError(t, err)
		require.GreaterOrEqual(t, p, 0.1-1e-12, "%v", tc)
		require.InDelta(t, enumeratedP(tc[0], tc[1]), p, 1e-12, "%v", tc)
	}
}

// enumeratedP is the exact two-sided p-value by brute force: every way of
// choosing len(x) of the pooled values as the first sample.
func enumeratedP(x, y []float64) float64 {
	pool := append(append([]float64(nil), x...), y...)
	uOf := func(a, b []float64) float64 {
		u := 0.0
		for _, v := range a {
			for _, w := range b {
				switch {
				case v > w:
					u++
				case v == w:
					u += 0.5
				}
			}
		}
		return u
	}
	u0 := uOf(x, y)
	var lower, upper, all float64
	for mask := 0; mask < 1<<len(pool); mask++ {
		if popcount(mask) != len(x) {
			continue
		}
		var a, b []float64
		for i, v := range pool {
			if mask&(1<<i) != 0 {
				a = append(a, v)
			} else {
				b = append(b, v)
			}
		}
		u := uOf(a, b)
		all++
		if u <= u0 {
			lower++
		}
		if u >= u0 {
			upper++
		}
	}
	return math.Min(1, 2*math.Min(lower, upper)/all)
}

func normalCDF(z float64) float64 { return 0.5 * (1 + math.Erf(z/math.Sqrt2)) }

func TestMannWhitneyUAllEqual(t *testing.T) {
	u, p, err := MannWhitneyU([]float64{7, 7, 7}, []float64{7, 7})
	require.NoError(t, err)
	require.Equal(t, 3.0, u)
	require.Equal(t, 1.0, p)

	_, p, err = MannWhitneyU([]float64{5}, []float64{5})
	require.NoError(t, err)
	require.Equal(t, 1.0, p)
}

func TestMannWhitneyUNormalCloseToExact(t *testing.T) {
	// n = m = 20 without ties: every U from the exact distribution and from
	// the approximation with continuity correction.
	dist := uDistribution(20, 20)
	for u := 0; u <= 400; u++ {
		exact := exactP(20, 20, u)
		approx := normalP(float64(u), 20, 20, 0)
		require.InDelta(t, exact, approx, 0.005, "U = %d", u)
	}
	require.InDelta(t, 1, sum(dist), 1e-12)

	// Beyond ExactMaxN MannWhitneyU switches to the approximation; it must
	// stay close to the exact value computed directly.
	n := ExactMaxN + 1
	x := make([]float64, n)
	y := make([]float64, n)
	for i := range x {
		x[i] = float64(2*i) + 7 // interleaves with y but shifted up
		y[i] = float64(2*i + 1)
	}
	u, p, err := MannWhitneyU(x, y)
	require.NoError(t, err)
	require.InDelta(t, exactP(n, n, int(u)), p, 0.005)
	require.Less(t, p, 1.0)
}

func sum(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s
}

func TestMannWhitneyUErrors(t *testing.T) {
	_, _, err := MannWhitneyU(nil, []float64{1})
	require.ErrorContains(t, err, "non-empty")
	_, _, err = MannWhitneyU([]float64{1}, []float64{})
	require.ErrorContains(t, err, "non-empty")
	_, _, err = MannWhitneyU([]float64{1, math.NaN()}, []float64{2})
	require.ErrorContains(t, err, "NaN in the first sample at index 1")
}

func TestA12(t *testing.T) {
	require.Equal(t, 0.0, A12([]float64{1, 2, 3}, []float64{4, 5, 6}))
	require.Equal(t, 1.0, A12([]float64{4, 5, 6}, []float64{1, 2, 3}))
	require.Equal(t, 0.5, A12([]float64{1, 2, 3}, []float64{1, 2, 3}))
	// Pairs (1,2) (1,3) (2,3) are lost, (2,2) tied: 0.5/4.
	require.Equal(t, 0.125, A12([]float64{1, 2}, []float64{2, 3}))
	require.True(t, math.IsNaN(A12(nil, []float64{1})))
}

func TestA12Magnitude(t *testing.T) {
	for a, want := range map[float64]string{
		0.5: "negligible", 0.55: "negligible", 0.45: "negligible",
		0.56: "small", 0.63: "small", 0.37: "small",
		0.64: "medium", 0.70: "medium", 0.32: "medium",
		0.71: "large", 1: "large", 0: "large", 0.2: "large",
		math.NaN(): "undefined",
	} {
		require.Equal(t, want, A12Magnitude(a), "a = %v", a)
	}
}

func TestDescriptive(t *testing.T) {
	xs := []float64{4, 1, 3, 2}
	require.Equal(t, 2.5, Median(xs))
	require.Equal(t, 2.5, Mean(xs))
	require.Equal(t, 1.0, Quantile(xs, 0))
	require.Equal(t, 4.0, Quantile(xs, 1))
	require.InDelta(t, 1.75, Quantile(xs, 0.25), 1e-12) // position 0.75 between 1 and 2
	require.Equal(t, []float64{4, 1, 3, 2}, xs, "arguments are not modified")
	require.Equal(t, 3.0, Median([]float64{5, 3, 1}))
	require.Equal(t, 1.0, Min(xs))
	require.Equal(t, 4.0, Max(xs))
	for _, v := range []float64{Mean(nil), Median(nil), Quantile(xs, 1.5), Min(nil), Max(nil)} {
		require.True(t, math.IsNaN(v))
	}
}
