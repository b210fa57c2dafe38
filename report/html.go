package report

import (
	"bytes"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"image/png"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot/vg"
)

//go:embed page.html.tmpl
var pageTemplate string

var pages = template.Must(template.New("page").Funcs(template.FuncMap{"num": num}).Parse(pageTemplate))

// num writes an integer with thousands separators.
func num(v any) string {
	switch n := v.(type) {
	case int:
		return groupDigits(int64(n))
	case int64:
		return groupDigits(n)
	default:
		return fmt.Sprint(v)
	}
}

// ContentSecurityPolicy is the policy every page declares: images only from
// data: URIs, inline styles, nothing else (no scripts, no fetches).
const ContentSecurityPolicy = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"

// Figure is a figure of a page: a PNG (which the pages show) and, when
// drawn for files too, an SVG of the same drawing.
type Figure struct {
	// Name is a file name for the figure, for commands that also write it
	// next to the page ("coverage-model.png"; its SVG is the same name
	// ending in .svg).
	Name    string
	Title   string // also the image's alt text
	Caption string
	PNG     []byte
	SVG     []byte
}

// CompareFigures renders the figures of a comparison: the coverage over
// iterations of every measure that runs recorded, then the iterations to the
// first bug when any run found one.
func CompareFigures(c *Comparison, width, height vg.Length) ([]Figure, error) {
	var figs []Figure
	add := func(ch *chart, err error, f Figure) error {
		if err != nil {
			return err
		}
		f, err = ch.figure(f)
		figs = append(figs, f)
		return err
	}
	for _, m := range c.Measures() {
		if !hasCoverage(c, m) {
			continue
		}
		ch, err := coverageChart(c, m, false, width, height)
		if err := add(ch, err, Figure{
			Name:  "coverage-" + fileSafe(m) + ".png",
			Title: fmt.Sprintf("%s coverage over iterations", capitalize(m)),
			Caption: fmt.Sprintf("Coverage of the %s measure, counted in %s, after each number of iterations. "+
				"Line: mean over the runs of a strategy; shaded band: minimum to maximum over the runs. "+
				"Runs are compared at 101 evenly spaced iterations up to the budget, each taking its last recorded value; "+
				"a run that stopped early keeps its final value.", m, measureLong(m)),
		}); err != nil {
			return nil, err
		}
		if timed, all := timedRuns(c, m); timed > 0 {
			left := ""
			if timed < all {
				left = fmt.Sprintf(" %d of the %d runs recorded no times and are left out.", all-timed, all)
			}
			ch, err := coverageChart(c, m, true, width, height)
			if err := add(ch, err, Figure{
				Name:  "coverage-" + fileSafe(m) + "-time.png",
				Title: fmt.Sprintf("%s coverage over fuzzing time", capitalize(m)),
				Caption: fmt.Sprintf("Coverage of the %s measure, counted in %s, against the fuzzing time of each run (seconds). "+
					"Line: mean over the runs of a strategy; shaded band: minimum to maximum over the runs. "+
					"Runs are compared at 101 evenly spaced times up to the longest run, each taking its last recorded value; "+
					"a run that ended earlier keeps its final value. Times are each campaign's own, on a machine that may have been shared.%s",
					m, measureLong(m), left),
			}); err != nil {
				return nil, err
			}
		}
	}
	if anyBug(c) {
		ch, err := firstBugChart(c, width, height)
		if err := add(ch, err, Figure{
			Name:  "first-bug.png",
			Title: "Iterations to the first bug",
			Caption: fmt.Sprintf("Iterations until each run found its first bug, one point per run (spread sideways only to keep equal values apart). "+
				"Triangles above the dashed budget line are runs that found no bug within %s iterations. "+
				"Black bar: median, counting a run without a bug as %s iterations; "+
				"a bar at the triangles means that fewer than half of the runs found a bug.",
				groupDigits(c.Budget()), groupDigits(c.Budget()+1)),
		}); err != nil {
			return nil, err
		}
	}
	return figs, nil
}

// timedRuns counts the runs with coverage of measure that recorded the
// fuzzing times of their points, and all runs with coverage of it.
func timedRuns(c *Comparison, measure string) (timed, all int) {
	for _, s := range c.Strategies {
		for _, r := range s.Runs {
			if pts := r.Coverage[measure]; len(pts) > 0 {
				all++
				if hasTimes(pts) {
					timed++
				}
			}
		}
	}
	return timed, all
}

func hasCoverage(c *Comparison, measure string) bool {
	for _, s := range c.Strategies {
		for _, r := range s.Runs {
			if len(r.Coverage[measure]) > 0 {
				return true
			}
		}
	}
	return false
}

func anyBug(c *Comparison) bool {
	for _, s := range c.Strategies {
		if bugRuns(s) > 0 {
			return true
		}
	}
	return false
}

func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, s)
}

// figureView is a Figure ready for the template.
type figureView struct {
	Title, Caption string
	Src            template.URL
	Width, Height  int // CSS pixels
}

func figureViews(figs []Figure) ([]figureView, error) {
	views := make([]figureView, len(figs))
	for i, f := range figs {
		cfg, err := png.DecodeConfig(bytes.NewReader(f.PNG))
		if err != nil {
			return nil, fmt.Errorf("report: figure %q is not a PNG: %w", f.Title, err)
		}
		views[i] = figureView{
			Title:   f.Title,
			Caption: f.Caption,
			// A data: URI of a PNG we decoded above: safe to put in src.
			Src:    template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(f.PNG)),
			Width:  cfg.Width * 96 / DPI,
			Height: cfg.Height * 96 / DPI,
		}
	}
	return views, nil
}

// comparePage is what the "compare" template shows.
type comparePage struct {
	CSP          string
	Title        string
	Settings     [][2]string
	Measures     []string
	Units        []string
	Summary      []summaryRow
	Budget       string
	BudgetPlus1  string
	TestGroups   []testGroup
	Figures      []figureView
	StrategyBugs []strategyBugs
	// Guided is the size of the shared initial population (0: unknown):
	// the bug columns after it are shown.
	Guided int64
}

type summaryRow struct {
	Name, Color    string
	Runs           int
	Final          []string // per measure of comparePage.Measures
	RunsWithBug    string
	MedianFirstBug string
	// The same after the shared initial population (comparePage.Guided).
	RunsWithGuidedBug    string
	MedianFirstGuidedBug string
	// PerFind is what the runs spent per find (Summary.CPUPerFind, or
	// IterationsPerFind when the CPU was not measured), with its interval.
	PerFind string
	Seconds string
}

type testGroup struct {
	Title         string
	LowerIsBetter bool
	Rows          []testRow
}

type testRow struct {
	A, B                 string
	N                    string
	MedianA, MedianB     string
	U, P, A12, Magnitude string
	Verdict              string
	Significant          bool
}

type strategyBugs struct {
	Name string
	Runs int
	Bugs []BugSummary
}

// Significance is the p-value below which the pages call a difference
// significant.
const Significance = 0.05

// WriteCompareHTML writes a self-contained HTML page for the comparison c:
// its settings, a summary per strategy, the statistical tests of c.Tests
// (see Analyze) with how to read them, the figures (see CompareFigures), and
// the distinct bugs of every strategy.
func WriteCompareHTML(w io.Writer, c *Comparison, figs []Figure) error {
	views, err := figureViews(figs)
	if err != nil {
		return err
	}
	budget := c.Budget()
	pg := comparePage{
		CSP:         ContentSecurityPolicy,
		Title:       "modelfuzz compare: " + c.Adapter + " / " + c.Model,
		Measures:    c.Measures(),
		Budget:      groupDigits(budget),
		BudgetPlus1: groupDigits(budget + 1),
		Figures:     views,
		Guided:      c.SeedPopulation,
	}
	names := make([]string, len(c.Strategies))
	runCounts := make([]int, len(c.Strategies))
	for i, s := range c.Strategies {
		names[i] = s.Name
		runCounts[i] = len(s.Runs)
	}
	seeds := make([]string, len(c.Seeds))
	for i, s := range c.Seeds {
		seeds[i] = strconv.FormatUint(s, 10)
	}
	pg.Settings = [][2]string{
		{"adapter", c.Adapter},
		{"model", c.Model},
		{"iterations per run", groupDigits(budget)},
		{"runs per strategy", countRange(runCounts)},
		{"seeds", strings.Join(seeds, ", ")},
		{"strategies", strings.Join(names, ", ")},
	}
	if len(c.Tests) > 0 {
		pg.Settings = append(pg.Settings, [2]string{"base of the tests", c.Tests[0].A})
	}
	if len(c.SystemFlags) > 0 {
		pg.Settings = append(pg.Settings, [2]string{"system flags", strings.Join(c.SystemFlags, " ")})
	}
	if c.Created != "" {
		pg.Settings = append(pg.Settings, [2]string{"created", c.Created})
	}
	if c.Tool != "" {
		pg.Settings = append(pg.Settings, [2]string{"modelfuzz", c.Tool})
	}
	for _, m := range pg.Measures {
		pg.Units = append(pg.Units, MeasureUnit(m))
	}
	styles := styleIndex(names)
	for _, s := range Summarize(c) {
		row := summaryRow{
			Name:        s.Strategy,
			Color:       cssColor(styles[s.Strategy]),
			Runs:        s.Runs,
			RunsWithBug: fmt.Sprintf("%d / %d", s.RunsWithBug, s.Runs),
			Seconds:     formatNumber(s.MedianSeconds),
		}
		for _, m := range pg.Measures {
			if sp, ok := s.Final[m]; ok {
				row.Final = append(row.Final, fmt.Sprintf("%s (%s)", formatNumber(sp.Median), formatNumber(sp.Mean)))
			} else {
				row.Final = append(row.Final, "–")
			}
		}
		row.MedianFirstBug = formatIterations(s.MedianFirstBug, budget)
		row.RunsWithGuidedBug = fmt.Sprintf("%d / %d", s.RunsWithGuidedBug, s.Runs)
		row.MedianFirstGuidedBug = formatIterations(s.MedianFirstGuidedBug, budget)
		switch {
		case s.CPUPerFind > 0:
			row.PerFind = PerFindText(s.CPUPerFind, s.CPUPerFindLow, s.CPUPerFindHigh, "%.1f") + " CPU s"
		case s.IterationsPerFind > 0:
			row.PerFind = PerFindText(s.IterationsPerFind, s.IterationsPerFindLow, s.IterationsPerFindHigh, "%.0f") + " iterations"
		default:
			row.PerFind = "–"
		}
		if s.Runs == 0 {
			row.MedianFirstBug, row.MedianFirstGuidedBug, row.Seconds = "–", "–", "–"
		}
		pg.Summary = append(pg.Summary, row)
		pg.StrategyBugs = append(pg.StrategyBugs, strategyBugs{Name: s.Strategy, Runs: s.Runs, Bugs: s.Bugs})
	}
	pg.TestGroups = testGroups(c.Tests, budget)
	return pages.ExecuteTemplate(w, "compare", pg)
}

// testGroups groups the tests by measure, in the order of their first test.
func testGroups(tests []Test, budget int64) []testGroup {
	var groups []testGroup
	for _, t := range tests {
		lower := LowerIsBetter(t.Measure)
		i := slices.IndexFunc(groups, func(g testGroup) bool { return g.Title == t.Measure })
		if i < 0 {
			groups = append(groups, testGroup{Title: t.Measure, LowerIsBetter: lower})
			i = len(groups) - 1
		}
		med := formatNumber
		if lower {
			med = func(v float64) string { return formatIterations(v, budget) }
		}
		row := testRow{
			A: t.A, B: t.B,
			N:       fmt.Sprintf("%d / %d", t.NA, t.NB),
			MedianA: med(t.MedianA), MedianB: med(t.MedianB),
			U: formatNumber(t.U), P: formatP(t.P),
			A12: strconv.FormatFloat(t.A12, 'f', 2, 64), Magnitude: t.Magnitude,
			Significant: t.P < Significance,
		}
		row.Verdict = "no significant difference"
		if row.Significant && t.A12 != 0.5 {
			better := t.A
			if (t.A12 > 0.5) == lower {
				better = t.B
			}
			row.Verdict = fmt.Sprintf("%s better (%s effect)", better, t.Magnitude)
		}
		groups[i].Rows = append(groups[i].Rows, row)
	}
	return groups
}

func countRange(ns []int) string {
	if len(ns) == 0 {
		return "0"
	}
	lo, hi := slices.Min(ns), slices.Max(ns)
	if lo == hi {
		return strconv.Itoa(lo)
	}
	return fmt.Sprintf("%d to %d", lo, hi)
}

func cssColor(i int) string {
	c := palette[i]
	return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
}

// formatNumber writes integers with thousands separators and other numbers
// with one decimal.
func formatNumber(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "–"
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return groupDigits(int64(v))
	default:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
}

// formatIterations writes an iteration count of the first bug, "not found"
// for a value above the budget (a run without a bug counts as budget+1).
func formatIterations(v float64, budget int64) string {
	if v > float64(budget) {
		return "not found"
	}
	return formatNumber(v)
}

func formatP(p float64) string {
	switch {
	case math.IsNaN(p):
		return "–"
	case p < 0.001:
		return "< 0.001"
	case p < 0.01:
		return strconv.FormatFloat(p, 'f', 4, 64)
	default:
		return strconv.FormatFloat(p, 'f', 3, 64)
	}
}

// Campaign is what the page of a single campaign shows.
type Campaign struct {
	Title string
	// Settings are label, value pairs shown as a table, in order.
	Settings [][2]string
	Plots    []Figure
	Bugs     []BugSection
	// Known are the known disagreements of the model with the system the
	// campaign met: not bugs, a row each.
	Known []KnownRow
}

// KnownRow is one known disagreement a campaign met.
type KnownRow struct {
	ID, Kind, Known, What         string
	Hits                          int64
	FirstIteration, LastIteration int64
}

// BugSection describes one distinct bug of a campaign.
type BugSection struct {
	ID, Kind, Signature, Message string
	// Hits is how many executions hit the bug.
	Hits                          int64
	FirstIteration, LastIteration int64
	// OriginalSteps and MinimizedSteps are the lengths of the first input
	// that hit the bug and of its minimized reproducer.
	OriginalSteps, MinimizedSteps int
	// Timeline and ModelView are preformatted text: the reproducer's events
	// and the model's view of it (states, violated invariant).
	Timeline  string
	ModelView string
	// Header is the bug's report header (versions, settings, input,
	// replay command), key and value.
	Header [][2]string
}

type campaignPage struct {
	CSP     string
	C       *Campaign
	Figures []figureView
}

// WriteCampaignHTML writes a self-contained HTML page for one campaign.
func WriteCampaignHTML(w io.Writer, cp *Campaign) error {
	views, err := figureViews(cp.Plots)
	if err != nil {
		return err
	}
	return pages.ExecuteTemplate(w, "campaign", campaignPage{CSP: ContentSecurityPolicy, C: cp, Figures: views})
}

// PerFindText shows a per find figure (Summary) with its 95 % interval,
// each number by format: "700 (95 % 300-1400)", the upper bound "unbounded"
// when it is 0.
func PerFindText(v, lo, hi float64, format string) string {
	h := "unbounded"
	if hi > 0 {
		h = fmt.Sprintf(format, hi)
	}
	return fmt.Sprintf(format+" (95 %% "+format+"-%s)", v, lo, h)
}
