package report

import (
	"bytes"
	"image"
	"image/png"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/vg"
)

// decodePNG decodes b and checks that it is width×height points at DPI.
func decodePNG(t *testing.T, b []byte, width, height vg.Length) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	require.NoError(t, err)
	wantW := int(math.Ceil(width.Dots(DPI)))
	wantH := int(math.Ceil(height.Dots(DPI)))
	require.Equal(t, image.Rect(0, 0, wantW, wantH), img.Bounds())
	return img
}

func TestCoveragePlot(t *testing.T) {
	for _, n := range []int{1, 4} {
		c := syntheticComparison(n, 5, 10000)
		for _, m := range []string{"model", "traces"} {
			b, err := CoveragePlot(c, m, 6*vg.Inch, 4*vg.Inch)
			require.NoError(t, err, "%d strategies, %s", n, m)
			decodePNG(t, b, 6*vg.Inch, 4*vg.Inch)
		}
	}
}

func TestCoveragePlotIrregularRuns(t *testing.T) {
	// Runs of different lengths, one with a single point, one unsorted, one
	// without the measure, and no budget set: the plot spans the longest run.
	c := &Comparison{Strategies: []Strategy{
		{Name: "model", Runs: []Run{
			{Coverage: map[string][]Point{"model": {{0, 0}, {500, 40}, {1000, 55}}}},
			{Coverage: map[string][]Point{"model": {{300, 20}}}},
		}},
		{Name: "random", Runs: []Run{
			{Coverage: map[string][]Point{"model": {{800, 30}, {100, 10}, {400, 20}}}},
			{Coverage: map[string][]Point{"lines": {{100, 10}}}},
		}},
	}}
	b, err := CoveragePlot(c, "model", DefaultWidth, DefaultHeight)
	require.NoError(t, err)
	decodePNG(t, b, DefaultWidth, DefaultHeight)
}

func TestCoveragePlotErrors(t *testing.T) {
	c := syntheticComparison(2, 3, 1000)
	_, err := CoveragePlot(c, "bogus", DefaultWidth, DefaultHeight)
	require.ErrorContains(t, err, `no run has coverage of measure "bogus"`)
	_, err = CoveragePlot(&Comparison{}, "model", DefaultWidth, DefaultHeight)
	require.Error(t, err)
	_, err = CoveragePlot(c, "model", 0, DefaultHeight)
	require.ErrorContains(t, err, "must be positive and at most")
	_, err = CoveragePlot(c, "model", DefaultWidth, 1000*vg.Inch)
	require.ErrorContains(t, err, "must be positive and at most")
	_, err = CoveragePlot(c, "model", vg.Inch, vg.Inch)
	require.ErrorContains(t, err, "too little room")
}

func TestPlotsAreDeterministic(t *testing.T) {
	render := func() [][]byte {
		c := syntheticComparison(4, 3, 2000)
		cov, err := CoveragePlot(c, "model", 5*vg.Inch, 4*vg.Inch)
		require.NoError(t, err)
		bug, err := FirstBugPlot(c, 5*vg.Inch, 4*vg.Inch)
		require.NoError(t, err)
		return [][]byte{cov, bug}
	}
	require.Equal(t, render(), render())
}

func TestResample(t *testing.T) {
	pts := []Point{{10, 5}, {20, 7}}
	require.Equal(t, []float64{0, 0, 5, 5, 7, 7}, resample(pts, []float64{0, 5, 10, 15, 20, 25}))
	unsorted := []Point{{20, 7}, {10, 5}}
	require.Equal(t, []float64{0, 5, 7}, resample(unsorted, []float64{0, 10, 20}))
	require.Equal(t, []Point{{20, 7}, {10, 5}}, unsorted, "the run's points are not reordered")
}

func TestFirstBugPlot(t *testing.T) {
	for _, n := range []int{1, 4} {
		c := syntheticComparison(n, 5, 10000)
		b, err := FirstBugPlot(c, 8*vg.Inch, 5*vg.Inch)
		require.NoError(t, err)
		decodePNG(t, b, 8*vg.Inch, 5*vg.Inch)
	}
	// No run found a bug, and strategies with a single run or none.
	c := &Comparison{Iterations: 100, Strategies: []Strategy{
		{Name: "model", Runs: []Run{{}}},
		{Name: "random"},
	}}
	b, err := FirstBugPlot(c, DefaultWidth, DefaultHeight)
	require.NoError(t, err)
	decodePNG(t, b, DefaultWidth, DefaultHeight)

	_, err = FirstBugPlot(&Comparison{Strategies: []Strategy{{Name: "model"}}}, DefaultWidth, DefaultHeight)
	require.ErrorContains(t, err, "no runs")
}

func TestCampaignPlot(t *testing.T) {
	b, err := CampaignPlot(map[string][]XY{
		"model":  {{0, 0}, {10, 5}, {20, 9}},
		"lines":  {{20, 30}, {0, 0}, {10, 22}},
		"custom": {{5, 1}},
		"empty":  nil,
	}, "seconds", "coverage", "Coverage over time")
	require.NoError(t, err)
	decodePNG(t, b, DefaultWidth, DefaultHeight)

	_, err = CampaignPlot(map[string][]XY{"model": nil}, "x", "y", "t")
	require.ErrorContains(t, err, "no series")
	_, err = CampaignPlot(map[string][]XY{"model": {{0, math.NaN()}}}, "x", "y", "t")
	require.ErrorContains(t, err, `series "model"`)
}

func TestStyleIndex(t *testing.T) {
	require.Equal(t, map[string]int{"random": 3, "model": 0}, styleIndex([]string{"random", "model"}))
	require.Equal(t, map[string]int{"x": 1, "model": 0, "y": 2}, styleIndex([]string{"x", "model", "y"}))
	many := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}
	idx := styleIndex(many)
	require.Len(t, idx, len(many))
	for _, i := range idx {
		require.True(t, i >= 0 && i < len(palette))
	}
}

func TestTicks(t *testing.T) {
	require.Equal(t, "1,234,567", groupDigits(1234567))
	require.Equal(t, "-1,000", groupDigits(-1000))
	require.Equal(t, "999", groupDigits(999))
	require.Equal(t, "0", groupDigits(0))

	var labels []string
	for _, tk := range (niceTicks{}).Ticks(0, 20000) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	require.Equal(t, []string{"0", "5,000", "10,000", "15,000", "20,000"}, labels)
	labels = nil
	for _, tk := range (niceTicks{max: 1}).Ticks(0, 2.2) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	require.Equal(t, []string{"0.0", "0.5", "1.0"}, labels)
	require.Equal(t, 1000.0, niceCeil(812))
	require.Equal(t, 20000.0, niceCeil(20000))
	require.Nil(t, (niceTicks{}).Ticks(1, 1))
}
