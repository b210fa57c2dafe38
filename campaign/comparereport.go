package campaign

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/modelfuzz/modelfuzz/guidance"
	"github.com/modelfuzz/modelfuzz/report"
)

// WriteComparisonSummary writes what compare leaves in dir (as
// WriteComparison) and returns what compare prints then: the comparison,
// which took took, as a summary table and where its files are.
func WriteComparisonSummary(c *report.Comparison, dir string, took time.Duration) (string, error) {
	pngs, err := WriteComparison(c, dir)
	if err != nil {
		return "", err
	}
	var w strings.Builder
	fmt.Fprintf(&w, "compared %d strategies x %d runs of %d iterations in %s\n", len(c.Strategies), len(c.Seeds), c.Iterations, took.Round(time.Second))
	for _, line := range ComparisonLines(c) {
		fmt.Fprintf(&w, "  %s\n", line)
	}
	fmt.Fprintf(&w, "wrote %s, %s and the plots %s (each .png and .svg)\n", filepath.Join(dir, "results.json"), filepath.Join(dir, "report.html"), strings.Join(pngs, ", "))
	return w.String(), nil
}

// WriteComparison writes what compare leaves in dir: results.json, the
// plots (each as .png and .svg) and report.html. It returns the plots'
// names, without their extension.
func WriteComparison(c *report.Comparison, dir string) ([]string, error) {
	js, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "results.json"), append(js, '\n'), 0o644); err != nil {
		return nil, err
	}
	figs, err := report.CompareFigures(c, report.DefaultWidth, report.DefaultHeight)
	if err != nil {
		return nil, fmt.Errorf("plots: %v", err)
	}
	var pngs []string
	for _, fg := range figs {
		name := fg.Name
		if err := os.WriteFile(filepath.Join(dir, name), fg.PNG, 0o644); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, strings.TrimSuffix(name, ".png")+".svg"), fg.SVG, 0o644); err != nil {
			return nil, err
		}
		pngs = append(pngs, strings.TrimSuffix(name, ".png"))
	}
	var page bytes.Buffer
	if err := report.WriteCompareHTML(&page, c, figs); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "report.html"), page.Bytes(), 0o644); err != nil {
		return nil, err
	}
	return pngs, nil
}

// ComparisonLines are compare's results in a few lines: one per strategy
// (its final coverage and bugs), then the statistical tests, sorted.
func ComparisonLines(c *report.Comparison) []string {
	var lines []string
	for _, s := range report.Summarize(c) {
		lines = append(lines, summaryLine(s))
	}
	var tests []string
	for _, t := range c.Tests {
		tests = append(tests, fmt.Sprintf("%s: %s vs %s: p=%.3g, A12=%.2f (%s)", t.Measure, t.A, t.B, t.P, t.A12, t.Magnitude))
	}
	sort.Strings(tests)
	return append(lines, tests...)
}

func summaryLine(s report.Summary) string {
	var parts []string
	measures := []string{"model", "lines", "traces"}
	for _, m := range slices.Sorted(maps.Keys(s.Final)) {
		if strings.HasPrefix(m, guidance.MeasureView) {
			measures = append(measures, m)
		}
	}
	for _, m := range measures {
		if sp, ok := s.Final[m]; ok {
			parts = append(parts, fmt.Sprintf("%s median %.0f", m, sp.Median))
		}
	}
	bug := fmt.Sprintf("bug in %d/%d runs", s.RunsWithBug, s.Runs)
	if s.RunsWithBug > 0 {
		bug += fmt.Sprintf(" (median first iteration %.0f", s.MedianFirstBug)
		bug += fmt.Sprintf("; after the shared first %d inputs: %d/%d runs", SeedPopulation, s.RunsWithGuidedBug, s.Runs)
		if s.RunsWithGuidedBug > 0 {
			bug += fmt.Sprintf(", median %.0f", s.MedianFirstGuidedBug)
		}
		if s.MedianFirstBugCPU > 0 {
			bug += fmt.Sprintf("; median CPU to it %.1f s", s.MedianFirstBugCPU)
		}
		bug += "; spent per find " + report.PerFindText(s.IterationsPerFind, s.IterationsPerFindLow, s.IterationsPerFindHigh, "%.0f") + " iterations"
		if s.CPUPerFind > 0 {
			bug += ", " + report.PerFindText(s.CPUPerFind, s.CPUPerFindLow, s.CPUPerFindHigh, "%.1f") + " CPU s"
		}
		bug += ")"
	}
	if s.MedianCPUSeconds > 0 {
		parts = append(parts, fmt.Sprintf("median CPU %.1f s", s.MedianCPUSeconds))
	}
	return fmt.Sprintf("%-7s %s; %s", s.Strategy, strings.Join(parts, ", "), bug)
}

// RunText is one campaign of a comparison as its progress line shows it:
// its final coverage, the iteration of its first bug, and whether it was
// continued after its process failed.
func RunText(r *report.Run) string {
	var parts []string
	for _, k := range []string{"model", "lines", "traces"} {
		if v, ok := r.Final[k]; ok {
			parts = append(parts, fmt.Sprintf("%s %.0f", k, v))
		}
	}
	text := fmt.Sprintf("%s in %.0fs", strings.Join(parts, ", "), r.Seconds)
	if r.CPUSeconds > 0 {
		text += fmt.Sprintf(" (%.1f CPU s)", r.CPUSeconds)
	}
	if r.FirstBug != nil {
		text += fmt.Sprintf(", first bug at iteration %d", *r.FirstBug)
	}
	if r.Resumed != "" {
		text += " (continued from its corpus after its process failed: " + r.Resumed + ")"
	}
	return text
}
