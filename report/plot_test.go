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
			{Coverage: map[string][]Point{"model": {{Iteration: 0, Value: 0}, {Iteration: 500, Value: 40}, {Iteration: 1000, Value: 55}}}},
			{Coverage: map[string][]Point{"model": {{Iteration: 300, Value: 20}}}},
		}},
		{Name: "random", Runs: []Run{
			{Coverage: map[string][]Point{"model": {{Iteration: 800, Value: 30}, {Iteration: 100, Value: 10}, {Iteration: 400, Value: 20}}}},
			{Coverage: map[string][]Point{"lines": {{Iteration: 100, Value: 10}}}},
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
		figs, err := CompareFigures(c, 5*vg.Inch, 4*vg.Inch)
		require.NoError(t, err)
		out := [][]byte{cov, bug}
		for _, f := range figs {
			out = append(out, f.PNG, f.SVG)
		}
		return out
	}
	require.Equal(t, render(), render())
}

func TestResample(t *testing.T) {
	pts := []Point{{Iteration: 10, Value: 5}, {Iteration: 20, Value: 7}}
	require.Equal(t, []float64{0, 0, 5, 5, 7, 7}, resample(pts, []float64{0, 5, 10, 15, 20, 25}))
	unsorted := []Point{{Iteration: 20, Value: 7}, {Iteration: 10, Value: 5}}
	require.Equal(t, []float64{0, 5, 7}, resample(unsorted, []float64{0, 10, 20}))
	require.Equal(t, []Point{{Iteration: 20, Value: 7}, {Iteration: 10, Value: 5}}, unsorted, "the run's points are not reordered")
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
	}, "seconds", "coverage", "Coverage over time", nil)
	require.NoError(t, err)
	decodePNG(t, b, DefaultWidth, DefaultHeight)

	_, err = CampaignPlot(map[string][]XY{"model": nil}, "x", "y", "t", nil)
	require.ErrorContains(t, err, "no series")
	_, err = CampaignPlot(map[string][]XY{"model": {{0, math.NaN()}}}, "x", "y", "t", nil)
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

// Coverage over fuzzing time: the runs that recorded their times, on a
// grid up to the longest run; none with times is an error, not an empty
// plot.
func TestCoverageOverTimePlot(t *testing.T) {
	c := &Comparison{Strategies: []Strategy{
		{Name: "model", Runs: []Run{
			{Coverage: map[string][]Point{"model": {{Iteration: 0, Value: 0}, {Iteration: 500, Value: 40, Seconds: 12.5}, {Iteration: 1000, Value: 55, Seconds: 30}}}},
			{Coverage: map[string][]Point{"model": {{Iteration: 0, Value: 0}, {Iteration: 1000, Value: 50}}}}, // no times: left out
		}},
		{Name: "random", Runs: []Run{
			{Coverage: map[string][]Point{"model": {{Iteration: 800, Value: 30, Seconds: 9}, {Iteration: 100, Value: 10, Seconds: 1}}}},
		}},
	}}
	b, err := CoverageOverTimePlot(c, "model", DefaultWidth, DefaultHeight)
	require.NoError(t, err)
	decodePNG(t, b, DefaultWidth, DefaultHeight)
	timed, all := timedRuns(c, "model")
	require.Equal(t, [2]int{2, 3}, [2]int{timed, all})

	untimed := syntheticComparison(2, 2, 1000)
	for _, s := range untimed.Strategies {
		for _, r := range s.Runs {
			for m := range r.Coverage {
				for i := range r.Coverage[m] {
					r.Coverage[m][i].Seconds = 0
				}
			}
		}
	}
	_, err = CoverageOverTimePlot(untimed, "model", DefaultWidth, DefaultHeight)
	require.ErrorContains(t, err, `no run has coverage of measure "model" with its fuzzing times`)
	figs, err := CompareFigures(untimed, DefaultWidth, DefaultHeight)
	require.NoError(t, err)
	for _, f := range figs {
		require.NotContains(t, f.Name, "-time", "no time plot without times")
	}

	x := func(p Point) float64 { return p.Seconds }
	require.Equal(t, []float64{0, 10, 10, 30}, resampleBy([]Point{{Value: 30, Seconds: 9}, {Value: 10, Seconds: 1}}, []float64{0, 1, 5, 10}, x))
}

// A resumed campaign's plots mark where it started again.
func TestCampaignPlotMarksResumes(t *testing.T) {
	series := map[string][]XY{"model": {{0, 0}, {10, 5}, {20, 9}, {30, 12}}}
	with, err := CampaignFigure(Figure{Title: "t"}, series, "minutes", "states", []float64{10, 20})
	require.NoError(t, err)
	without, err := CampaignFigure(Figure{Title: "t"}, series, "minutes", "states", nil)
	require.NoError(t, err)
	require.Contains(t, string(with.SVG), "resumed here")
	require.NotContains(t, string(without.SVG), "resumed here")
	require.NotEqual(t, with.PNG, without.PNG)
	decodePNG(t, with.PNG, DefaultWidth, DefaultHeight)
	_, err = CampaignPlot(series, "x", "y", "t", []float64{math.Inf(1)})
	require.ErrorContains(t, err, "resume mark")
}
