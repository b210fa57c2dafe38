package check

import "math"

// outDegreeBuckets is the size of TLC's histogram of out-degrees
// (tlc2.tool.Worker: a FixedSizedBucketStatistics of 32 buckets, the last
// counting every out-degree from 31 on).
const outDegreeBuckets = 32

// OutDegree is TLC's summary of the state graph's out-degree: for each
// expanded state, the number of new distinct states among its successors
// (states a CONSTRAINT excludes and states seen before not counted), read
// from a histogram whose last bucket holds 31 and more, as TLC's. Mean
// and P95 are rounded as TLC rounds them (Math.round).
type OutDegree struct {
	Min, Mean, P95, Max int
}

// outDegreeOf summarizes a histogram; nil when it is empty.
func outDegreeOf(hist [outDegreeBuckets]int64) *OutDegree {
	var n, sum int64
	minB, maxB := -1, -1
	for i, c := range hist {
		if c == 0 {
			continue
		}
		if minB < 0 {
			minB = i
		}
		maxB = i
		n += c
		sum += c * int64(i)
	}
	if n == 0 {
		return nil
	}
	// TLC's percentile: the first bucket at which the running count
	// exceeds floor(n * 0.95).
	pos := int64(float64(n) * 0.95)
	p95 := maxB
	var cnt int64
	for i, c := range hist {
		cnt += c
		if c > 0 && cnt > pos {
			p95 = i
			break
		}
	}
	mean := int(math.Floor(float64(sum)/float64(n) + 0.5))
	return &OutDegree{Min: minB, Mean: mean, P95: p95, Max: maxB}
}
