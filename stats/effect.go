package stats

import "math"

// A12 is the Vargha-Delaney effect size of x against y: the probability that
// a value drawn from x is larger than one drawn from y, ties counting half,
// estimated over all len(x)·len(y) pairs. 0.5 means no difference, 1 that
// every x is larger than every y, 0 that every x is smaller. It is NaN when
// x or y is empty or holds a NaN.
func A12(x, y []float64) float64 {
	if len(x) == 0 || len(y) == 0 {
		return math.NaN()
	}
	r, err := rankSum(x, y)
	if err != nil {
		return math.NaN()
	}
	n, m := float64(len(x)), float64(len(y))
	return (r.sumX - n*(n+1)/2) / (n * m)
}

// A12Magnitude names the size of an A12 effect with Vargha and Delaney's
// thresholds on max(a, 1-a): "negligible" below 0.56, "small" below 0.64,
// "medium" below 0.71, "large" otherwise. It is "undefined" for NaN.
func A12Magnitude(a float64) string {
	if math.IsNaN(a) {
		return "undefined"
	}
	d := math.Max(a, 1-a)
	switch {
	case d < 0.56:
		return "negligible"
	case d < 0.64:
		return "small"
	case d < 0.71:
		return "medium"
	default:
		return "large"
	}
}
