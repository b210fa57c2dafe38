package stats

import (
	"fmt"
	"math"
	"sort"
)

// ExactMaxN is the largest sample size for which MannWhitneyU computes the
// exact distribution of U: beyond it the normal approximation is within a
// few thousandths of the exact p-value and far cheaper.
const ExactMaxN = 30

// MannWhitneyU is the two-sided Mann-Whitney U test (Wilcoxon rank-sum test)
// of x against y. u is the statistic for x: the number of pairs (x_i, y_j)
// with x_i > y_j plus half the number of ties, so that U_x + U_y = len(x)·len(y)
// and u/(len(x)·len(y)) is A12(x, y). p is the probability, if x and y come
// from the same distribution, of a U at least as far from len(x)·len(y)/2.
//
// p is exact when both samples have at most ExactMaxN values: the
// distribution of U enumerated by dynamic programming, over the pooled
// sample's mid-ranks when it has ties (the permutation distribution), so
// that small samples never get an approximate p-value below the exact
// minimum. Otherwise it comes from the normal approximation, with the
// variance corrected for ties and a continuity correction of 1/2. When all
// values are equal, p is 1.
//
// It is an error when x or y is empty or holds a NaN.
func MannWhitneyU(x, y []float64) (u, p float64, err error) {
	if len(x) == 0 || len(y) == 0 {
		return 0, 0, fmt.Errorf("stats: Mann-Whitney U needs two non-empty samples (got %d and %d values)", len(x), len(y))
	}
	r, err := rankSum(x, y)
	if err != nil {
		return 0, 0, err
	}
	n, m := float64(len(x)), float64(len(y))
	u = r.sumX - n*(n+1)/2
	if len(x) <= ExactMaxN && len(y) <= ExactMaxN {
		if r.tieTerm == 0 {
			return u, exactP(len(x), len(y), int(math.Round(u))), nil
		}
		return u, exactTiesP(r.ranks2, len(x), int(math.Round(2*r.sumX))), nil
	}
	return u, normalP(u, n, m, r.tieTerm), nil
}

// ranking is the outcome of ranking the pooled samples.
type ranking struct {
	sumX    float64 // sum of the (mid-)ranks of x, ranks starting at 1
	tieTerm float64 // Σ (t³ - t) over groups of t tied values; 0 without ties
	ranks2  []int   // twice the mid-rank of every pooled value (integers)
}

// rankSum ranks x and y together, giving tied values the mean of the ranks
// they span.
func rankSum(x, y []float64) (ranking, error) {
	type obs struct {
		v   float64
		inX bool
	}
	all := make([]obs, 0, len(x)+len(y))
	for i, v := range x {
		if math.IsNaN(v) {
			return ranking{}, fmt.Errorf("stats: NaN in the first sample at index %d", i)
		}
		all = append(all, obs{v, true})
	}
	for i, v := range y {
		if math.IsNaN(v) {
			return ranking{}, fmt.Errorf("stats: NaN in the second sample at index %d", i)
		}
		all = append(all, obs{v, false})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v < all[j].v })
	var r ranking
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		// Positions i..j-1 hold equal values: ranks i+1..j, mean (i+1+j)/2.
		mid := float64(i+1+j) / 2
		for k := i; k < j; k++ {
			r.ranks2 = append(r.ranks2, i+1+j)
			if all[k].inX {
				r.sumX += mid
			}
		}
		if t := float64(j - i); t > 1 {
			r.tieTerm += t*t*t - t
		}
		i = j
	}
	return r, nil
}

// exactP is the two-sided p-value of U = u for samples of sizes n and m
// without ties: twice the smaller tail, at most 1.
func exactP(n, m, u int) float64 {
	dist := uDistribution(n, m)
	var lower, upper float64 // P(U ≤ u), P(U ≥ u)
	for k, pk := range dist {
		if k <= u {
			lower += pk
		}
		if k >= u {
			upper += pk
		}
	}
	return math.Min(1, 2*math.Min(lower, upper))
}

// uDistribution is the null distribution of U for samples of sizes n and m
// without ties: element k is P(U = k), k = 0..n·m.
//
// The largest of the n+m values is from x with probability n/(n+m), and then
// it beats all m values of y; otherwise it is from y and beats nothing. So
// P_{n,m}(k) = n/(n+m)·P_{n-1,m}(k-m) + m/(n+m)·P_{n,m-1}(k). Working with
// probabilities rather than counts of arrangements keeps every number in
// [0, 1] (the counts reach C(60, 30) ≈ 1.2e17 for n = m = 30).
func uDistribution(n, m int) []float64 {
	// prev[j] is the distribution for sizes (i-1, j), cur[j] for (i, j).
	prev := make([][]float64, m+1)
	for j := range prev {
		prev[j] = []float64{1} // no x values: U = 0
	}
	for i := 1; i <= n; i++ {
		cur := make([][]float64, m+1)
		cur[0] = []float64{1} // no y values: U = 0
		for j := 1; j <= m; j++ {
			d := make([]float64, i*j+1)
			px := float64(i) / float64(i+j)
			for k, pk := range prev[j] { // largest value from x
				d[k+j] += px * pk
			}
			for k, pk := range cur[j-1] { // largest value from y
				d[k] += (1 - px) * pk
			}
			cur[j] = d
		}
		prev = cur
	}
	return prev[m]
}

// normalP is the two-sided p-value of U = u from the normal approximation:
// mean n·m/2, variance n·m/12·((N+1) - Σ(t³-t)/(N(N-1))) with N = n+m,
// and |U - mean| reduced by 1/2 for continuity.
func normalP(u, n, m, tieTerm float64) float64 {
	total := n + m
	variance := n * m / 12 * ((total + 1) - tieTerm/(total*(total-1)))
	if variance <= 0 { // every value tied: no evidence of a difference
		return 1
	}
	z := math.Max(0, math.Abs(u-n*m/2)-0.5) / math.Sqrt(variance)
	return math.Min(1, math.Erfc(z/math.Sqrt2))
}

// exactTiesP is the two-sided p-value of a rank sum of x (twice it:
// sum2) under the permutation distribution: every choice of n of the pooled
// values (twice their mid-ranks: ranks2) as x is equally likely. Twice the
// smaller tail, at most 1, as exactP.
func exactTiesP(ranks2 []int, n, sum2 int) float64 {
	total := 0
	for _, r := range ranks2 {
		total += r
	}
	// ways[k][s]: the share of the choices of k values among those seen so
	// far whose doubled ranks sum to s, scaled by 1/C(seen, k) as it goes
	// so that every number stays a probability.
	ways := make([][]float64, n+1)
	for k := range ways {
		ways[k] = make([]float64, total+1)
	}
	ways[0][0] = 1
	for i, r := range ranks2 {
		seen := i + 1
		for k := min(n, seen); k >= 1; k-- {
			// C(seen, k) = C(seen-1, k) + C(seen-1, k-1): with the new
			// value left out (weight (seen-k)/seen) or taken (k/seen).
			out, in := float64(seen-k)/float64(seen), float64(k)/float64(seen)
			for s := total; s >= 0; s-- {
				v := out * ways[k][s]
				if s >= r {
					v += in * ways[k-1][s-r]
				}
				ways[k][s] = v
			}
		}
	}
	var lower, upper float64
	for s, p := range ways[n] {
		if s <= sum2 {
			lower += p
		}
		if s >= sum2 {
			upper += p
		}
	}
	return math.Min(1, 2*math.Min(lower, upper))
}
