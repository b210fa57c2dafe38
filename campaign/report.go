package campaign

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelfuzz/modelfuzz/record"
	"github.com/modelfuzz/modelfuzz/report"
)

// Report gathers what the HTML report of a campaign shows: its settings
// and totals, coverage and throughput over fuzzing time from the stats
// snapshots, and every bug with its reproducer replayed.
func (env *Env) Report(timeout time.Duration) (*report.Campaign, error) {
	c := env.Settings
	snap, err := env.Store.Load(0)
	if err != nil {
		return nil, err
	}
	stats, err := env.Store.Stats()
	if err != nil {
		return nil, err
	}
	all, err := env.Store.Bugs()
	if err != nil {
		return nil, err
	}
	bugs, known := SplitKnown(all)
	cnt := snap.Counters
	cp := &report.Campaign{Title: fmt.Sprintf("modelfuzz campaign: %s, strategy %s", c.Adapter, c.Strategy)}
	set := func(k, v string) { cp.Settings = append(cp.Settings, [2]string{k, v}) }
	set("corpus", env.Dir)
	set("adapter", c.Adapter+" "+CompactJSON(c.AdapterConfig))
	if c.Model != "" {
		set("model", c.Model)
	}
	set("strategy", c.Strategy)
	set("seed", strconv.FormatUint(c.Seed, 10))
	set("inputs", fmt.Sprintf("%d steps, at most %d messages a delivery, crash quota %d, %d requests", c.Steps, c.MaxMessages, c.CrashQuota, c.Requests))
	set("created", c.Created)
	set("iterations", fmt.Sprintf("%d over %d session(s), %s of fuzzing", cnt.Iterations, cnt.Sessions, (time.Duration(cnt.RunSeconds)*time.Second).String()))
	set("corpus size", fmt.Sprintf("%d inputs", cnt.Interesting))
	var covText []string
	for _, m := range slices.Sorted(maps.Keys(snap.Coverage)) {
		covText = append(covText, fmt.Sprintf("%s %d", m, len(snap.Coverage[m])))
	}
	set("coverage", strings.Join(covText, ", "))
	set("bugs", BugsByKindText(bugs))
	failures := FailuresText(cnt.Failures, bugs)
	if c.Model != "" {
		failures += fmt.Sprintf("; %d execution(s) diverged from the model", cnt.Divergences)
	}
	set("failures", failures)
	if len(known) > 0 {
		set("known disagreements", KnownByKindText(known, cnt.Known))
	}

	if len(stats) < 2 {
		// A plot of one point (or none) says nothing: an axis around it.
		set("plots", fmt.Sprintf("none: %d stats snapshot(s), a plot needs two (--stats-every sets how often they are taken)", len(stats)))
	} else if err := reportPlots(cp, stats); err != nil {
		return nil, err
	}
	for _, b := range known {
		cp.Known = append(cp.Known, report.KnownRow{ID: b.ID, Kind: b.Kind, Known: b.Known, What: KnownTitle(b),
			Hits: b.Hits, FirstIteration: b.FirstIteration, LastIteration: b.LastIteration})
	}
	for _, b := range bugs {
		sec, err := env.bugSection(b, timeout)
		if err != nil {
			return nil, err
		}
		cp.Bugs = append(cp.Bugs, sec)
	}
	return cp, nil
}

// BugsByKindText counts distinct bugs by kind, the most frequent first:
// "11 distinct: 7 divergence, 3 safety, 1 panic".
func BugsByKindText(bugs []*record.BugRecord) string {
	n := map[string]int64{}
	for _, b := range bugs {
		n[b.Kind]++
	}
	if len(bugs) == 0 {
		return "none"
	}
	return fmt.Sprintf("%d distinct: %s", len(bugs), byKind(n))
}

// KnownByKindText says how many known disagreements a campaign met, in
// how many executions, and the hits of each: "2 distinct, in 9
// execution(s) (not bugs): 7 duplicate-delivery, 2 joint-configuration-change".
func KnownByKindText(known []*record.BugRecord, executions int64) string {
	hits := map[string]int64{}
	for _, b := range known {
		hits[b.Known] += b.Hits
	}
	return fmt.Sprintf("%d distinct, in %d execution(s) (not bugs): %s", len(known), executions, byKind(hits))
}

// FailuresText says how many executions failed and how the failures
// split by kind: the hits of the bugs of each kind, where an execution
// that showed bugs of two kinds counts once in each.
func FailuresText(failed int64, bugs []*record.BugRecord) string {
	if failed == 0 && len(bugs) == 0 {
		return "no execution failed"
	}
	hits := map[string]int64{}
	for _, b := range bugs {
		hits[b.Kind] += b.Hits
	}
	return fmt.Sprintf("%d execution(s) with a failure; by kind: %s (an execution that failed in two ways counts in both)", failed, byKind(hits))
}

// byKind lists counts by kind, the largest first: "7 divergence, 3 safety".
func byKind(n map[string]int64) string {
	kinds := slices.Collect(maps.Keys(n))
	slices.SortFunc(kinds, func(a, b string) int {
		if n[a] != n[b] {
			return cmp.Compare(n[b], n[a])
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%d %s", n[k], k)
	}
	return strings.Join(parts, ", ")
}

// reportPlots adds the report's plots over fuzzing time, from the stats
// snapshots (at least two): every measure's coverage, throughput, bugs
// and corpus size.
func reportPlots(cp *report.Campaign, stats []*record.StatsRecord) error {
	const xLabel = "fuzzing time (minutes, over all sessions)"
	// Where a resumed campaign started again: a dashed line in every
	// plot, and the captions say when.
	resumes := resumedAt(stats)
	var resumed []string
	for i := range resumes {
		resumes[i] /= 60
		resumed = append(resumed, fmt.Sprintf("%.1f", resumes[i]))
	}
	sessions := ""
	if len(resumed) > 0 {
		sessions = fmt.Sprintf(" The campaign was resumed at %s minute(s) of fuzzing (dashed vertical lines).", strings.Join(resumed, ", "))
	}
	plot := func(name, title, yLabel, caption string, pts []report.XY) error {
		f, err := report.CampaignFigure(report.Figure{Name: name, Title: title, Caption: caption + sessions},
			map[string][]report.XY{title: pts}, xLabel, yLabel, resumes)
		if err != nil {
			return fmt.Errorf("plot of %s: %v", title, err)
		}
		cp.Plots = append(cp.Plots, f)
		return nil
	}
	// One figure per measure (their scales differ), over fuzzing
	// time, from nothing at time 0.
	series := map[string][]report.XY{}
	for _, r := range stats {
		for m, v := range r.Coverage {
			if series[m] == nil {
				series[m] = []report.XY{{X: 0, Y: 0}}
			}
			series[m] = append(series[m], report.XY{X: r.RunSeconds / 60, Y: float64(v)})
		}
	}
	for _, m := range slices.Sorted(maps.Keys(series)) {
		if err := plot("coverage-"+m+".png", m+" coverage over time", fmt.Sprintf("%s coverage (%s)", m, report.MeasureUnit(m)),
			fmt.Sprintf("%s coverage after each stats snapshot (%d snapshots).", m, len(stats)), series[m]); err != nil {
			return err
		}
	}
	speed := []report.XY{}
	bugsAt := []report.XY{{X: 0, Y: 0}}
	corpusAt := []report.XY{{X: 0, Y: 0}}
	for _, r := range stats {
		x := r.RunSeconds / 60
		speed = append(speed, report.XY{X: x, Y: r.ExecsPerSec})
		bugsAt = append(bugsAt, report.XY{X: x, Y: float64(r.Bugs)})
		corpusAt = append(corpusAt, report.XY{X: x, Y: float64(r.Corpus)})
	}
	if err := plot("throughput.png", "throughput", "executions per second (session average)",
		"Executions per second, averaged over the session so far, at each snapshot.", speed); err != nil {
		return err
	}
	if err := plot("bugs.png", "bugs over time", "distinct bugs", "Distinct bugs found, at each snapshot.", bugsAt); err != nil {
		return err
	}
	if err := plot("corpus.png", "corpus size over time", "inputs kept", "Inputs kept in the corpus, at each snapshot.", corpusAt); err != nil {
		return err
	}
	return nil
}

// bugSection is a bug as the report shows it: its reproducer replayed,
// with its report header.
func (env *Env) bugSection(b *record.BugRecord, timeout time.Duration) (report.BugSection, error) {
	sec := report.BugSection{ID: b.ID, Kind: b.Kind, Signature: b.Signature, Message: b.Message, Hits: b.Hits,
		FirstIteration: b.FirstIteration, LastIteration: b.LastIteration, OriginalSteps: b.Input.Len(), MinimizedSteps: b.Reproducer().Len()}
	r, err := env.ReplayBug(b, b.Reproducer(), timeout)
	if err != nil {
		return sec, err
	}
	sec.Timeline, sec.ModelView = r.Timeline, r.ModelView
	which := "minimized"
	if b.Minimized == nil {
		which = "original (not minimized)"
	}
	for _, h := range env.ReportHeader(b, b.Reproducer(), which) {
		if h.Key != "bug" {
			sec.Header = append(sec.Header, [2]string{h.Key, h.Value})
		}
	}
	return sec, nil
}

// resumedAt is the fuzzing time (seconds, over all sessions) at which each
// later session of a campaign started: the time of the last snapshot of
// the session before it (a session ends with a snapshot; after a kill -9
// the campaign continues from the counters of its last one).
func resumedAt(stats []*record.StatsRecord) []float64 {
	var at []float64
	for i := 1; i < len(stats); i++ {
		if stats[i].Session != stats[i-1].Session {
			at = append(at, stats[i-1].RunSeconds)
		}
	}
	return at
}
