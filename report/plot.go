package report

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"
	"sort"
	"strconv"

	"github.com/modelfuzz/modelfuzz/stats"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// DPI is the resolution of the PNG figures: a figure w points wide is
// w·DPI/72 pixels wide. The HTML pages show figures at their physical size
// (w·96/72 CSS pixels), so they stay sharp on screens with 1.5 device pixels
// per CSS pixel.
const DPI = 144

// Default figure size: fits a page column of the HTML reports and a paper.
const (
	DefaultWidth  = 7.5 * vg.Inch
	DefaultHeight = 4.5 * vg.Inch
)

// maxSize bounds a figure's sides (7,200 pixels at DPI).
const maxSize = 50 * vg.Inch

// gridPoints is the number of intervals of the common iteration grid on which
// CoveragePlot resamples the runs.
const gridPoints = 100

// The Okabe-Ito palette: distinguishable with the common color-vision
// deficiencies. Yellow is left out, it is unreadable on white.
var palette = []color.NRGBA{
	{0x00, 0x72, 0xB2, 0xFF}, // blue
	{0xD5, 0x5E, 0x00, 0xFF}, // vermillion
	{0x00, 0x9E, 0x73, 0xFF}, // bluish green
	{0xCC, 0x79, 0xA7, 0xFF}, // reddish purple
	{0xE6, 0x9F, 0x00, 0xFF}, // orange
	{0x56, 0xB4, 0xE9, 0xFF}, // sky blue
	{0x00, 0x00, 0x00, 0xFF}, // black
	{0x88, 0x88, 0x88, 0xFF}, // grey
}

// Dash patterns, in the order of the palette, so that lines stay apart in
// greyscale print too.
var dashes = [][]vg.Length{
	nil,
	{vg.Points(7), vg.Points(3)},
	{vg.Points(2), vg.Points(2)},
	{vg.Points(7), vg.Points(2), vg.Points(2), vg.Points(2)},
	{vg.Points(12), vg.Points(3)},
	{vg.Points(4), vg.Points(4)},
	{vg.Points(1), vg.Points(3)},
	{vg.Points(10), vg.Points(2), vg.Points(2), vg.Points(2), vg.Points(2), vg.Points(2)},
}

// knownStrategies fixes the style of the strategies modelfuzz has, so that a
// strategy looks the same in every figure whichever others it is shown with.
var knownStrategies = map[string]int{
	"model": 0, "line": 1, "lines": 1, "trace": 2, "traces": 2, "random": 3,
}

// styleIndex assigns every name an index into palette and dashes: the fixed
// one of a known strategy, then the unused ones in the order of names.
func styleIndex(names []string) map[string]int {
	idx := map[string]int{}
	used := map[int]bool{}
	for _, n := range names {
		if i, ok := knownStrategies[n]; ok && !used[i] {
			idx[n] = i
			used[i] = true
		}
	}
	next := 0
	for _, n := range names {
		if _, ok := idx[n]; ok {
			continue
		}
		for used[next%len(palette)] && len(used) < len(palette) {
			next++
		}
		idx[n] = next % len(palette)
		used[next%len(palette)] = true
		next++
	}
	return idx
}

func withAlpha(c color.NRGBA, a uint8) color.NRGBA {
	c.A = a
	return c
}

// sans is the font of all text in the figures.
func sans(points float64) font.Font {
	return font.Font{Typeface: "Liberation", Variant: "Sans", Size: vg.Points(points)}
}

// newPlot is a plot with the house style: sans-serif text in readable sizes,
// round-numbered ticks, a light grid.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = sans(13)
	p.Title.Padding = vg.Points(10)
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = sans(12)
		a.Tick.Label.Font = sans(10.5)
		a.Tick.Length = vg.Points(5)
		a.Padding = vg.Points(3)
		a.Tick.Marker = niceTicks{}
	}
	p.X.Label.Padding = vg.Points(4)
	p.Y.Label.Padding = vg.Points(6)
	grid := plotter.NewGrid()
	grid.Vertical.Color = color.Gray{0xE0}
	grid.Vertical.Width = vg.Points(0.5)
	grid.Horizontal = grid.Vertical
	p.Add(grid)
	return p
}

func newLegend() *plot.Legend {
	l := plot.NewLegend()
	l.TextStyle.Font = sans(11)
	l.ThumbnailWidth = vg.Points(30)
	l.Padding = vg.Points(6)
	l.Top, l.Left = true, true
	l.YPosition = draw.PosCenter
	return &l
}

// padded draws a legend thumbnail narrower than the thumbnail area, leaving
// room between it and the entry's text.
type padded struct{ plot.Thumbnailer }

func (t padded) Thumbnail(c *draw.Canvas) {
	inner := *c
	inner.Max.X -= vg.Points(6)
	t.Thumbnailer.Thumbnail(&inner)
}

// niceTicks labels about five round values (1, 2, 2.5 or 5 times a power of
// ten) with thousands separators, with an unlabelled tick between labels,
// none above max when max is set.
type niceTicks struct {
	max float64 // 0: no limit
}

func (n niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return nil
	}
	step := niceStep(hi - lo)
	prec := 0
	for prec < 6 && math.Abs(step*math.Pow10(prec)-math.Round(step*math.Pow10(prec))) > 1e-9 {
		prec++
	}
	var ticks []plot.Tick
	for k := math.Ceil(lo/step*2 - 1e-9); k <= hi/step*2+1e-9; k++ {
		v := k*step/2 + 0 // + 0 turns -0 into 0
		if n.max != 0 && v > n.max*(1+1e-12) {
			break
		}
		t := plot.Tick{Value: v}
		if math.Mod(k, 2) == 0 {
			t.Label = formatTick(v, prec)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// niceStep is the distance between labelled ticks for a range of span: the
// smallest of 1, 2, 2.5, 5, 10 times a power of ten that gives at most five
// intervals.
func niceStep(span float64) float64 {
	raw := span / 5
	mag := math.Pow10(int(math.Floor(math.Log10(raw))))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw*(1-1e-9) {
			return m * mag
		}
	}
	return 10 * mag
}

// niceCeil is v rounded up to the next labelled tick of the range [0, v], so
// that the top of an axis is labelled and data never touch it.
func niceCeil(v float64) float64 {
	if !(v > 0) || math.IsInf(v, 0) {
		return v
	}
	step := niceStep(v)
	return math.Ceil(v/step-1e-9) * step
}

func formatTick(v float64, prec int) string {
	if prec == 0 && math.Abs(v) < 1e15 {
		return groupDigits(int64(math.Round(v)))
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

// groupDigits writes n with a comma every three digits.
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	sign := ""
	if n < 0 {
		sign, s = "-", s[1:]
	}
	var b []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, s[i])
	}
	return sign + string(b)
}

// chart is a plot with its legend and size, to be drawn as a PNG (for
// the pages) and as an SVG (for papers).
type chart struct {
	p             *plot.Plot
	leg           *plot.Legend
	width, height vg.Length
}

func newChart(p *plot.Plot, leg *plot.Legend, width, height vg.Length) (*chart, error) {
	if !(width > 0 && height > 0 && width <= maxSize && height <= maxSize) {
		return nil, fmt.Errorf("report: figure size %v×%v: both must be positive and at most %v", width, height, maxSize)
	}
	return &chart{p, leg, width, height}, nil
}

// draw draws the plot with its legend beside its data area (on the right,
// or below when the legend would take more than 40% of the width), so that
// the legend never hides data.
func (c *chart) draw(dc draw.Canvas) error {
	p, leg := c.p, c.leg
	area := draw.Crop(dc, vg.Points(4), -vg.Points(6), vg.Points(2), -vg.Points(6)) // margins
	if leg != nil {
		gap := vg.Points(12)
		r := leg.Rectangle(area).Size()
		if r.X+gap <= 0.4*area.Size().X {
			plotArea := draw.Crop(area, 0, -(r.X + gap), 0, 0)
			data := p.DataCanvas(plotArea)
			legArea := area
			legArea.Min.X = plotArea.Max.X + gap
			legArea.Max.Y = data.Max.Y
			leg.Draw(legArea)
			area = plotArea
		} else {
			legArea := area
			legArea.Max.Y = area.Min.Y + r.Y
			legArea.Min.X += area.Size().X / 8
			leg.Draw(legArea)
			area = draw.Crop(area, 0, 0, r.Y+gap, 0)
		}
	}
	if area.Size().X < 2*vg.Inch || area.Size().Y < 1.5*vg.Inch {
		return fmt.Errorf("report: figure size %v×%v leaves too little room for the data", c.width, c.height)
	}
	p.Draw(area)
	return nil
}

func (c *chart) png() ([]byte, error) {
	img := vgimg.NewWith(vgimg.UseWH(c.width, c.height), vgimg.UseDPI(DPI))
	if err := c.draw(draw.New(img)); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("report: encoding PNG: %w", err)
	}
	return buf.Bytes(), nil
}

func (c *chart) svg() ([]byte, error) {
	cv := vgsvg.New(c.width, c.height)
	if err := c.draw(draw.New(cv)); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := cv.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("report: encoding SVG: %w", err)
	}
	return buf.Bytes(), nil
}

// figure draws c in both formats.
func (c *chart) figure(f Figure) (Figure, error) {
	var err error
	if f.PNG, err = c.png(); err != nil {
		return f, err
	}
	f.SVG, err = c.svg()
	return f, err
}

// pngOf draws a chart (or passes on its error) as a PNG.
func pngOf(c *chart, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	return c.png()
}

// CoveragePlot draws the coverage of measure over iterations for every
// strategy that has it: the mean over the strategy's runs as a line and their
// minimum to maximum as a shaded band. The runs are resampled on a common
// grid of 101 iterations from 0 to the budget; between recorded points a
// run's coverage is the value of the last point at or before the grid
// iteration (0 before its first point; held after its last). It is an error
// when no run has coverage of measure.
func CoveragePlot(c *Comparison, measure string, width, height vg.Length) ([]byte, error) {
	return pngOf(coverageChart(c, measure, false, width, height))
}

// CoverageOverTimePlot is CoveragePlot against the fuzzing time (seconds)
// instead of iterations: the grid spans the longest run, and a run that
// ended earlier keeps its final value. Runs without recorded times (a
// results.json from before they were recorded) are left out; it is an
// error when no run has them.
func CoverageOverTimePlot(c *Comparison, measure string, width, height vg.Length) ([]byte, error) {
	return pngOf(coverageChart(c, measure, true, width, height))
}

// hasTimes reports whether a run's coverage series of measure carries the
// fuzzing time of its points.
func hasTimes(pts []Point) bool {
	return slices.ContainsFunc(pts, func(p Point) bool { return p.Seconds > 0 })
}

func coverageChart(c *Comparison, measure string, overTime bool, width, height vg.Length) (*chart, error) {
	type curve struct {
		name            string
		runs            int
		mean, low, high plotter.XYs
	}
	x := func(p Point) float64 { return float64(p.Iteration) }
	xmax := float64(c.Budget())
	if overTime {
		x = func(p Point) float64 { return p.Seconds }
		xmax = 0
	}
	use := func(pts []Point) bool { return len(pts) > 0 && (!overTime || hasTimes(pts)) }
	names := make([]string, len(c.Strategies))
	for i, s := range c.Strategies {
		names[i] = s.Name
		for _, r := range s.Runs {
			if pts := r.Coverage[measure]; use(pts) {
				for _, p := range pts {
					xmax = max(xmax, x(p))
				}
			}
		}
	}
	grid := make([]float64, gridPoints+1)
	for k := range grid {
		grid[k] = xmax * float64(k) / gridPoints
	}
	var curves []curve
	for _, s := range c.Strategies {
		var series [][]float64 // per run, the value at every grid point
		for _, r := range s.Runs {
			if pts := r.Coverage[measure]; use(pts) {
				series = append(series, resampleBy(pts, grid, x))
			}
		}
		if len(series) == 0 {
			continue
		}
		cv := curve{name: s.Name, runs: len(series)}
		cv.mean = make(plotter.XYs, len(grid))
		cv.low = make(plotter.XYs, len(grid))
		cv.high = make(plotter.XYs, len(grid))
		for k, x := range grid {
			var sum float64
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, v := range series {
				sum += v[k]
				lo, hi = min(lo, v[k]), max(hi, v[k])
			}
			cv.mean[k] = plotter.XY{X: x, Y: sum / float64(len(series))}
			cv.low[k] = plotter.XY{X: x, Y: lo}
			cv.high[k] = plotter.XY{X: x, Y: hi}
		}
		curves = append(curves, cv)
	}
	if len(curves) == 0 {
		if overTime {
			return nil, fmt.Errorf("report: no run has coverage of measure %q with its fuzzing times", measure)
		}
		return nil, fmt.Errorf("report: no run has coverage of measure %q", measure)
	}
	if xmax <= 0 {
		return nil, fmt.Errorf("report: coverage of measure %q spans no time", measure)
	}

	title, xLabel := fmt.Sprintf("%s coverage over iterations", capitalize(measure)), "iterations"
	if overTime {
		title, xLabel = fmt.Sprintf("%s coverage over fuzzing time", capitalize(measure)), "fuzzing time (seconds)"
	}
	p := newPlot(title, xLabel, fmt.Sprintf("%s coverage (%s)", measure, MeasureUnit(measure)))
	p.X.Min, p.X.Max = 0, xmax
	p.Y.Min = 0
	leg := newLegend()
	styles := styleIndex(names)
	var lines []plot.Plotter
	for _, cv := range curves {
		i := styles[cv.name]
		band := make(plotter.XYs, 0, 2*len(grid))
		band = append(band, cv.low...)
		for k := len(cv.high) - 1; k >= 0; k-- {
			band = append(band, cv.high[k])
		}
		poly, err := plotter.NewPolygon(band)
		if err != nil {
			return nil, fmt.Errorf("report: coverage band of %s: %w", cv.name, err)
		}
		poly.Color = withAlpha(palette[i], 0x38)
		poly.LineStyle.Width = 0
		p.Add(poly) // every band below every line
		line, err := plotter.NewLine(cv.mean)
		if err != nil {
			return nil, fmt.Errorf("report: coverage of %s: %w", cv.name, err)
		}
		line.Color = palette[i]
		line.Width = vg.Points(2)
		line.Dashes = dashes[i]
		lines = append(lines, line)
		label := fmt.Sprintf("%s (%d runs)", cv.name, cv.runs)
		if cv.runs == 1 {
			label = cv.name + " (1 run)"
		}
		leg.Add(label, poly, padded{line})
	}
	p.Add(lines...)
	p.Y.Max = niceCeil(p.Y.Max)

	// How to read the lines and bands, with neutral thumbnails.
	grey := color.NRGBA{0x55, 0x55, 0x55, 0xFF}
	meanThumb, _ := plotter.NewLine(plotter.XYs{{}, {X: 1}})
	meanThumb.Color, meanThumb.Width = grey, vg.Points(2)
	bandThumb, _ := plotter.NewPolygon(plotter.XYs{{}, {X: 1}, {X: 1, Y: 1}})
	bandThumb.Color, bandThumb.LineStyle.Width = withAlpha(grey, 0x40), 0
	leg.Add("")
	leg.Add("mean over runs", padded{meanThumb})
	leg.Add("min to max over runs", bandThumb)
	return newChart(p, leg, width, height)
}

// resample is the value of the coverage series pts at every grid iteration:
// the value of the last point at or before it, 0 before the first point.
func resample(pts []Point, grid []float64) []float64 {
	return resampleBy(pts, grid, func(p Point) float64 { return float64(p.Iteration) })
}

// resampleBy is resample along the axis x (iterations, or seconds).
func resampleBy(pts []Point, grid []float64, x func(Point) float64) []float64 {
	byX := func(a, b Point) int { return cmp.Compare(x(a), x(b)) }
	if !slices.IsSortedFunc(pts, byX) {
		pts = slices.Clone(pts)
		slices.SortStableFunc(pts, byX)
	}
	out := make([]float64, len(grid))
	for k, g := range grid {
		// Index of the first point after g.
		j := sort.Search(len(pts), func(j int) bool { return x(pts[j]) > g })
		if j > 0 {
			out[k] = pts[j-1].Value
		}
	}
	return out
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	b := []byte(s)
	if b[0] >= 'a' && b[0] <= 'z' {
		b[0] -= 'a' - 'A'
	}
	return string(b)
}

// FirstBugPlot draws, per strategy, the iteration of the first bug of every
// run as a point (spread horizontally by run, deterministically, so that
// equal values stay visible), the median as a black bar, and the runs that
// found no bug as triangles above the dashed budget line. The median counts
// a run without a bug as budget+1, as Analyze does; when that is above the
// budget (fewer than half of the runs found a bug) no bar is drawn. Under
// each strategy's name, how many of its runs found a bug. It is an error when c has
// no runs.
func FirstBugPlot(c *Comparison, width, height vg.Length) ([]byte, error) {
	return pngOf(firstBugChart(c, width, height))
}

func firstBugChart(c *Comparison, width, height vg.Length) (*chart, error) {
	budget := c.Budget()
	top := float64(budget)
	var names, labels []string
	runs := 0
	for _, s := range c.Strategies {
		names = append(names, s.Name)
		labels = append(labels, fmt.Sprintf("%s\n%d/%d found", s.Name, bugRuns(s), len(s.Runs)))
		runs += len(s.Runs)
		for _, r := range s.Runs {
			if r.FirstBug != nil {
				top = max(top, float64(*r.FirstBug))
			}
		}
	}
	if runs == 0 {
		return nil, errors.New("report: no runs to plot the first bug of")
	}
	top = max(top, 1)
	notFoundY := top * 1.06

	p := newPlot("Iterations to the first bug (one point per run)", "", "iterations to the first bug")
	// Category labels shrink (to 7 points) rather than overlap when many
	// strategies share a narrow figure; the data area is roughly 55% of it.
	p.X.Tick.Label.Font = sans(11.5)
	perCategory := 0.55 * width / vg.Length(len(names))
	for p.X.Tick.Label.Font.Size > vg.Points(7) && slices.ContainsFunc(labels, func(l string) bool {
		return p.X.Tick.Label.Width(l) > perCategory
	}) {
		p.X.Tick.Label.Font.Size -= vg.Points(0.5)
	}
	p.NominalX(labels...)
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5
	p.Y.Min, p.Y.Max = 0, top*1.11
	p.Y.Tick.Marker = niceTicks{max: top}

	styles := styleIndex(names)
	budgetLine, err := plotter.NewLine(plotter.XYs{{X: p.X.Min, Y: float64(budget)}, {X: p.X.Max, Y: float64(budget)}})
	if err != nil {
		return nil, err
	}
	budgetLine.Color = color.Gray{0x66}
	budgetLine.Width = vg.Points(1.2)
	budgetLine.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	p.Add(budgetLine)

	foundStyle := func(col color.NRGBA) draw.GlyphStyle {
		return draw.GlyphStyle{Color: withAlpha(col, 0xC8), Radius: vg.Points(4.2), Shape: draw.CircleGlyph{}}
	}
	notFoundStyle := func(col color.NRGBA) draw.GlyphStyle {
		return draw.GlyphStyle{Color: col, Radius: vg.Points(4.5), Shape: hollowTriangle{}}
	}
	medianStyle := draw.LineStyle{Color: color.Black, Width: vg.Points(2.5)}
	const spreadWidth = 0.5 // of the 1 unit between categories
	for i, s := range c.Strategies {
		col := palette[styles[s.Name]]
		var found, notFound plotter.XYs
		for j, r := range s.Runs {
			x := float64(i)
			if len(s.Runs) > 1 {
				x += spreadWidth * (float64(j)/float64(len(s.Runs)-1) - 0.5)
			}
			if r.FirstBug != nil {
				found = append(found, plotter.XY{X: x, Y: float64(*r.FirstBug)})
			} else {
				notFound = append(notFound, plotter.XY{X: x, Y: notFoundY})
			}
		}
		if len(found) > 0 {
			sc, err := plotter.NewScatter(found)
			if err != nil {
				return nil, fmt.Errorf("report: first bugs of %s: %w", s.Name, err)
			}
			sc.GlyphStyle = foundStyle(col)
			p.Add(sc)
		}
		if len(notFound) > 0 {
			sc, err := plotter.NewScatter(notFound)
			if err != nil {
				return nil, fmt.Errorf("report: runs of %s without a bug: %w", s.Name, err)
			}
			sc.GlyphStyle = notFoundStyle(col)
			p.Add(sc)
		}
		if med := stats.Median(firstBugValues(s, budget)); med <= float64(budget) {
			bar, err := plotter.NewLine(plotter.XYs{{X: float64(i) - 0.34, Y: med}, {X: float64(i) + 0.34, Y: med}})
			if err != nil {
				return nil, fmt.Errorf("report: median first bug of %s: %w", s.Name, err)
			}
			bar.LineStyle = medianStyle
			p.Add(bar)
		}
	}

	leg := newLegend()
	grey := color.NRGBA{0x55, 0x55, 0x55, 0xFF}
	foundThumb, _ := plotter.NewScatter(plotter.XYs{{}})
	foundThumb.GlyphStyle = foundStyle(grey)
	notFoundThumb, _ := plotter.NewScatter(plotter.XYs{{}})
	notFoundThumb.GlyphStyle = notFoundStyle(grey)
	medianThumb, _ := plotter.NewLine(plotter.XYs{{}, {X: 1}})
	medianThumb.LineStyle = medianStyle
	leg.Add("first bug of a run", foundThumb)
	leg.Add("median of the runs", padded{medianThumb})
	leg.Add("no bug found", notFoundThumb)
	leg.Add(fmt.Sprintf("budget: %s iterations", groupDigits(budget)), padded{budgetLine})
	return newChart(p, leg, width, height)
}

// hollowTriangle is an upward triangle outline drawn thicker than gonum's
// TriangleGlyph, to stay visible next to filled circles.
type hollowTriangle struct{}

func (hollowTriangle) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(1.5)})
	r := sty.Radius
	var path vg.Path
	path.Move(vg.Point{X: pt.X, Y: pt.Y + r})
	path.Line(vg.Point{X: pt.X - r*0.866, Y: pt.Y - r*0.5})
	path.Line(vg.Point{X: pt.X + r*0.866, Y: pt.Y - r*0.5})
	path.Close()
	c.Stroke(path)
}

// XY is a point of a series of CampaignPlot.
type XY struct{ X, Y float64 }

// CampaignPlot draws one line per series, e.g. the coverage of every measure
// of a campaign over fuzzing time from its stats snapshots, at
// DefaultWidth×DefaultHeight, with a dashed vertical line at each X of
// resumes (where a resumed campaign started again). Series are drawn in the
// order model, traces, lines, then the others by name, and points by
// increasing X. It is an error when no series has a point, or a point is
// not finite.
func CampaignPlot(series map[string][]XY, xLabel, yLabel, title string, resumes []float64) ([]byte, error) {
	return pngOf(campaignChart(series, xLabel, yLabel, title, resumes))
}

// CampaignFigure is CampaignPlot as a Figure, in both formats.
func CampaignFigure(f Figure, series map[string][]XY, xLabel, yLabel string, resumes []float64) (Figure, error) {
	c, err := campaignChart(series, xLabel, yLabel, f.Title, resumes)
	if err != nil {
		return f, err
	}
	return c.figure(f)
}

func campaignChart(series map[string][]XY, xLabel, yLabel, title string, resumes []float64) (*chart, error) {
	var names []string
	for name, pts := range series {
		if len(pts) > 0 {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil, errors.New("report: no series has a point to plot")
	}
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(measureRank(a), measureRank(b)), cmp.Compare(a, b))
	})
	p := newPlot(title, xLabel, yLabel)
	p.Y.Min = 0
	leg := newLegend()
	styles := styleIndex(names) // the measures' names style like the strategies named after them
	for _, name := range names {
		pts := slices.Clone(series[name])
		slices.SortStableFunc(pts, func(a, b XY) int { return cmp.Compare(a.X, b.X) })
		xys := make(plotter.XYs, len(pts))
		for k, pt := range pts {
			xys[k] = plotter.XY{X: pt.X, Y: pt.Y}
		}
		line, err := plotter.NewLine(xys)
		if err != nil {
			return nil, fmt.Errorf("report: series %q: %w", name, err)
		}
		line.Color = palette[styles[name]]
		line.Dashes = dashes[styles[name]]
		line.Width = vg.Points(2)
		p.Add(line)
		leg.Add(name, padded{line})
	}
	p.Y.Max = niceCeil(p.Y.Max)
	if len(resumes) > 0 {
		// After the data fixed the axes: the marks span the Y axis.
		style := draw.LineStyle{Color: color.Gray{0x55}, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
		var thumb *plotter.Line
		for _, x := range resumes {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("report: resume mark at %v", x)
			}
			mark, err := plotter.NewLine(plotter.XYs{{X: x, Y: p.Y.Min}, {X: x, Y: p.Y.Max}})
			if err != nil {
				return nil, fmt.Errorf("report: resume mark: %w", err)
			}
			mark.LineStyle = style
			p.Add(mark)
			thumb = mark
		}
		leg.Add("resumed here", padded{thumb})
	}
	return newChart(p, leg, DefaultWidth, DefaultHeight)
}
