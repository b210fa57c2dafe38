package stats

import (
	"math"
	"slices"
)

// Mean is the arithmetic mean of xs, NaN when xs is empty.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// Median is Quantile(xs, 0.5): the middle value, or the mean of the two
// middle values of an even-sized sample. NaN when xs is empty.
func Median(xs []float64) float64 {
	return Quantile(xs, 0.5)
}

// Quantile is the q-quantile (0 ≤ q ≤ 1) of xs by linear interpolation
// between order statistics: the value at position q·(n-1) of the sorted
// sample (Hyndman and Fan's type 7, the default of R and NumPy). It is NaN
// when xs is empty or q is outside [0, 1].
func Quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 || !(q >= 0 && q <= 1) {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	pos := q * float64(len(s)-1)
	lo := int(math.Floor(pos))
	if lo >= len(s)-1 {
		return s[len(s)-1]
	}
	frac := pos - float64(lo)
	return s[lo] + frac*(s[lo+1]-s[lo])
}

// Min is the smallest value of xs, NaN when xs is empty.
func Min(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return slices.Min(xs)
}

// Max is the largest value of xs, NaN when xs is empty.
func Max(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return slices.Max(xs)
}
