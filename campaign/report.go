package campaign

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

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
	set("bugs", fmt.Sprintf("%d distinct, %d executions with a failure, %d divergences from the model", len(bugs), cnt.Failures, cnt.Divergences))

	if len(stats) > 0 {
		// One figure per measure (their scales differ), over fuzzing time.
		series := map[string][]report.XY{}
		for _, r := range stats {
			for m, v := range r.Coverage {
				series[m] = append(series[m], report.XY{X: r.RunSeconds / 60, Y: float64(v)})
			}
		}
		for _, m := range slices.Sorted(maps.Keys(series)) {
			png, err := report.CampaignPlot(map[string][]report.XY{m: series[m]}, "fuzzing time (minutes, over all sessions)",
				fmt.Sprintf("%s coverage (%s)", m, report.MeasureUnit(m)), fmt.Sprintf("%s coverage over time", m))
			if err != nil {
				return nil, fmt.Errorf("plot of %s: %v", m, err)
			}
			cp.Plots = append(cp.Plots, report.Figure{Name: "coverage-" + m + ".png", Title: m + " coverage over time",
				Caption: fmt.Sprintf("%s coverage after each stats snapshot (%d snapshots).", m, len(stats)), PNG: png})
		}
		var speed []report.XY
		for _, r := range stats {
			speed = append(speed, report.XY{X: r.RunSeconds / 60, Y: r.ExecsPerSec})
		}
		png, err := report.CampaignPlot(map[string][]report.XY{"executions per second": speed}, "fuzzing time (minutes, over all sessions)",
			"executions per second (session average)", "throughput")
		if err != nil {
			return nil, fmt.Errorf("plot of throughput: %v", err)
		}
		cp.Plots = append(cp.Plots, report.Figure{Name: "throughput.png", Title: "throughput",
			Caption: "Executions per second, averaged over the session so far, at each snapshot.", PNG: png})
	}
	for _, b := range bugs {
		sec := report.BugSection{ID: b.ID, Kind: b.Kind, Signature: b.Signature, Message: b.Message, Hits: b.Hits,
			FirstIteration: b.FirstIteration, LastIteration: b.LastIteration, OriginalSteps: b.Input.Len(), MinimizedSteps: b.Reproducer().Len()}
		r, err := env.ReplayBug(b, b.Reproducer(), timeout)
		if err != nil {
			return nil, err
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
		cp.Bugs = append(cp.Bugs, sec)
	}
	return cp, nil
}
