package main

import (
	"bytes"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/modelfuzz/modelfuzz/report"
)

func newReportCmd() *cobra.Command {
	var (
		dir     string
		out     string
		timeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "report --corpus DIR --out FILE.html",
		Short: "Write a self-contained HTML report of one campaign: coverage over time and its bugs",
		Long: `Write one campaign as a self-contained HTML page (no network needed to open
it): its settings and totals, its coverage over fuzzing time from the stats
snapshots stored every --stats-every (across restarts), and every distinct
bug with its minimized reproducer replayed as a timeline and, when the
campaign has a model, the model states it visits.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return fmt.Errorf("--out FILE.html is required")
			}
			env, err := openCampaign(dir)
			if err != nil {
				return err
			}
			defer env.close()
			cp, err := campaignReport(env, timeout)
			if err != nil {
				return err
			}
			var page bytes.Buffer
			if err := report.WriteCampaignHTML(&page, cp); err != nil {
				return err
			}
			if err := os.WriteFile(out, page.Bytes(), 0o644); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %d figure(s), %d bug(s)\n", out, len(cp.Plots), len(cp.Bugs))
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "corpus", "", "campaign directory (required)")
	cmd.Flags().StringVar(&out, "out", "", "the HTML file to write (required)")
	cmd.Flags().DurationVar(&timeout, "exec-timeout", 10*time.Second, "stop a replay that runs longer (a hang)")
	return cmd
}

// campaignReport gathers what the HTML report of a campaign shows.
func campaignReport(env *campaignEnv, timeout time.Duration) (*report.Campaign, error) {
	c := env.camp
	snap, err := env.store.Load(0)
	if err != nil {
		return nil, err
	}
	stats, err := env.store.Stats()
	if err != nil {
		return nil, err
	}
	bugs, err := env.store.Bugs()
	if err != nil {
		return nil, err
	}
	cnt := snap.Counters
	cp := &report.Campaign{Title: fmt.Sprintf("modelfuzz campaign: %s, strategy %s", c.Adapter, c.Strategy)}
	set := func(k, v string) { cp.Settings = append(cp.Settings, [2]string{k, v}) }
	set("corpus", env.dir)
	set("adapter", c.Adapter+" "+string(compactJSON(c.AdapterConfig)))
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
	for _, m := range sortedCoverage(snap.Coverage) {
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
		var ms []string
		for m := range series {
			ms = append(ms, m)
		}
		sort.Strings(ms)
		for _, m := range ms {
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
		sec.Timeline, sec.ModelView, err = replayBug(env, b, b.Reproducer(), timeout)
		if err != nil {
			return nil, err
		}
		cp.Bugs = append(cp.Bugs, sec)
	}
	return cp, nil
}
