package check

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestOutDegreeOf checks the summary of a histogram of out-degrees as
// TLC computes it (AbstractBucketStatistics): the percentile is the first
// out-degree at which the running count exceeds floor(0.95 n), the mean
// is rounded half up.
func TestOutDegreeOf(t *testing.T) {
	var h [outDegreeBuckets]int64
	assert.Nil(t, outDegreeOf(h), "no state expanded")

	h = [outDegreeBuckets]int64{}
	h[0], h[1], h[2] = 10, 9, 1 // n 20, pos 19: the 20th sample is 2
	assert.Equal(t, &OutDegree{Min: 0, Mean: 1, P95: 2, Max: 2}, outDegreeOf(h))

	h = [outDegreeBuckets]int64{}
	h[1], h[2] = 1, 1 // mean 1.5 rounds to 2
	assert.Equal(t, &OutDegree{Min: 1, Mean: 2, P95: 2, Max: 2}, outDegreeOf(h))

	h = [outDegreeBuckets]int64{}
	h[3], h[outDegreeBuckets-1] = 99, 1 // n 100, pos 95: 3; 40 successors count as 31
	assert.Equal(t, &OutDegree{Min: 3, Mean: 3, P95: 3, Max: 31}, outDegreeOf(h))
}
