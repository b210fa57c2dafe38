package campaign

import (
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
	bugs, err := env.Store.Bugs()
	if err != nil {
		return nil, err
	}
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
	known := KnownDisagreements(bugs)
	set("bugs", fmt.Sprintf("%d distinct, %d executions with a failure, %d divergences from the model", len(bugs)-len(known), cnt.Failures, cnt.Divergences))
	if len(known) > 0 {
		set("known disagreements", fmt.Sprintf("%d distinct, in %d executions (not bugs)", len(known), cnt.Known))
	}

	if len(stats) < 2 {
		// A plot of one point (or none) says nothing: an axis around it.
		set("plots", fmt.Sprintf("none: %d stats snapshot(s), a plot needs two (--stats-every sets how often they are taken)", len(stats)))
	} else if err := reportPlots(cp, stats); err != nil {
		return nil, err
	}
	for _, b := range bugs {
		if b.Known != "" {
			cp.Known = append(cp.Known, report.KnownRow{ID: b.ID, Kind: b.Kind, Known: b.Known, What: KnownTitle(b),
				Hits: b.Hits, FirstIteration: b.FirstIteration, LastIteration: b.LastIteration})
			continue
		}
		sec, err := env.bugSection(b, timeout)
		if err != nil {
			return nil, err
		}
		cp.Bugs = append(cp.Bugs, sec)
	}
	return cp, nil
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
