package campaign

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/modelfuzz/modelfuzz/hub"
	"github.com/modelfuzz/modelfuzz/report"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// hubSettings are the settings of the hub's campaign (nil before a worker
// joined).
func hubSettings(cl *hub.Client) (*Settings, error) {
	raw, err := cl.Settings()
	if err != nil || raw == nil {
		return nil, err
	}
	var s Settings
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("hub %s: its campaign's settings cannot be read: %v", cl.URL(), err)
	}
	return &s, nil
}

// HubBugsText lists the bugs of the hub's campaign, one row a signature,
// with the hits of each worker and who minimized it; asJSON gives the
// records as a JSON array.
func HubBugsText(cl *hub.Client, asJSON bool) (string, error) {
	bugs, err := cl.Bugs()
	if err != nil {
		return "", err
	}
	if asJSON {
		if bugs == nil {
			bugs = []*hub.Bug{}
		}
		b, err := json.MarshalIndent(bugs, "", "  ")
		return string(b) + "\n", err
	}
	if len(bugs) == 0 {
		return fmt.Sprintf("no bugs at the hub %s\n", cl.URL()), nil
	}
	var sb strings.Builder
	tw := tabwriter.NewWriter(&sb, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKIND\tHITS\tBY WORKER\tFOUND BY\tSTEPS\tMINIMIZED\tSIGNATURE")
	for _, b := range bugs {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%d\t%s\t%s\n", b.ID, b.Kind, b.TotalHits(), hitsText(b.Hits),
			b.FirstWorker, b.Input.Len(), hubMinimizedText(b), b.Signature)
	}
	tw.Flush()
	return sb.String(), nil
}

func hitsText(hits map[string]int64) string {
	var parts []string
	for _, w := range slices.Sorted(maps.Keys(hits)) {
		parts = append(parts, fmt.Sprintf("%s:%d", w, hits[w]))
	}
	return strings.Join(parts, ",")
}

func hubMinimizedText(b *hub.Bug) string {
	switch {
	case b.Known != "":
		return "-"
	case b.Minimized == nil && b.MinimizeNote != "":
		return "no (" + b.MinimizeNote + ")"
	case b.Minimized == nil:
		return "not yet (" + b.Owner + ")"
	case b.MinimizeDone:
		return fmt.Sprintf("%d steps (%s)", b.Minimized.Len(), b.MinimizedBy)
	}
	return fmt.Sprintf("%d steps so far (%s)", b.Minimized.Len(), b.MinimizedBy)
}

// HubExport writes the hub's campaign as "corpus export" writes a corpus:
// campaign.json, inputs/WORKER-ID.json (every input a worker published),
// bugs/ID.json, bugs/ID.min.json and bugs/ID.meta.json.
func HubExport(cl *hub.Client, out string) (inputs, bugs int, err error) {
	s, err := hubSettings(cl)
	if err != nil {
		return 0, 0, err
	}
	for _, d := range []string{"inputs", "bugs"} {
		if err := os.MkdirAll(filepath.Join(out, d), 0o755); err != nil {
			return 0, 0, err
		}
	}
	var sys *schedule.InputSystem
	if s != nil {
		if err := writeJSON(filepath.Join(out, "campaign.json"), s); err != nil {
			return 0, 0, err
		}
		sys = s.InputSystem()
	}
	err = cl.Scan("input", func(data []byte, _ time.Time) error {
		var in hub.Input
		if json.Unmarshal(data, &in) != nil || in.Input == nil {
			return nil
		}
		inputs++
		name := in.Worker + "-" + strconv.FormatUint(in.ID, 10) + ".json"
		return os.WriteFile(filepath.Join(out, "inputs", name), schedule.EncodeInputFor(in.Input, sys), 0o644)
	})
	if err != nil {
		return inputs, 0, err
	}
	all, err := cl.Bugs()
	if err != nil {
		return inputs, 0, err
	}
	for _, b := range all {
		if b.Input == nil {
			continue
		}
		if err := os.WriteFile(filepath.Join(out, "bugs", b.ID+".json"), schedule.EncodeInputFor(b.Input, sys), 0o644); err != nil {
			return inputs, bugs, err
		}
		if b.Minimized != nil {
			if err := os.WriteFile(filepath.Join(out, "bugs", b.ID+".min.json"), schedule.EncodeInputFor(b.Minimized, sys), 0o644); err != nil {
				return inputs, bugs, err
			}
		}
		meta := *b
		meta.Input, meta.Minimized = nil, nil
		if err := writeJSON(filepath.Join(out, "bugs", b.ID+".meta.json"), meta); err != nil {
			return inputs, bugs, err
		}
		bugs++
	}
	return inputs, bugs, nil
}

// HubReport is what the page of a hub's campaign shows: its settings,
// every worker's figures, the union coverage over time, and the bugs with
// their reproducers (not replayed: the hub runs no system; "bugs show"
// on a worker's corpus replays one).
func HubReport(cl *hub.Client) (*report.Campaign, error) {
	s, err := hubSettings(cl)
	if err != nil {
		return nil, err
	}
	workers, err := cl.Workers()
	if err != nil {
		return nil, err
	}
	cov, series, byWorker, err := cl.Coverage()
	if err != nil {
		return nil, err
	}
	all, err := cl.Bugs()
	if err != nil {
		return nil, err
	}
	cp := &report.Campaign{Title: "modelfuzz campaign at the hub " + cl.URL()}
	set := func(k, v string) { cp.Settings = append(cp.Settings, [2]string{k, v}) }
	if s == nil {
		set("campaign", "none yet: no worker has joined")
	} else {
		set("adapter", s.Adapter+" "+CompactJSON(s.AdapterConfig))
		if s.Model != "" {
			set("model", s.Model)
		}
		set("strategy", s.Strategy)
		set("seed", strconv.FormatUint(s.Seed, 10))
		set("created", s.Created)
	}
	set("union coverage", CoverageText(cov))
	var iters int64
	var rate float64
	for _, w := range workers {
		line := fmt.Sprintf("on %s (pid %d), joined %s, last seen %s", w.Host, w.PID, w.Joined, w.Updated)
		if st := w.Stats; st != nil {
			iters += st.Iterations
			rate += st.ExecsPerSec
			line = fmt.Sprintf("%d iterations, %.1f exec/s, corpus %d, %d bug(s), first to reach %d coverage item(s); ",
				st.Iterations, st.ExecsPerSec, st.Corpus, st.Bugs, byWorker[w.Name]) + line
		}
		set("worker "+w.Name, line)
	}
	set("total", fmt.Sprintf("%d worker(s), %d iterations, %.1f exec/s (sum of the workers' last snapshots)", len(workers), iters, rate))
	if err := hubPlots(cp, series); err != nil {
		return nil, err
	}
	for _, b := range all {
		if b.Known != "" {
			cp.Known = append(cp.Known, report.KnownRow{ID: b.ID, Kind: b.Kind, Known: b.Known, What: b.Message,
				Hits: b.TotalHits(), FirstIteration: b.FirstIteration, LastIteration: b.FirstIteration})
			continue
		}
		sec := report.BugSection{ID: b.ID, Kind: b.Kind, Signature: b.Signature, Message: b.Message, Hits: b.TotalHits(),
			FirstIteration: b.FirstIteration, LastIteration: b.FirstIteration, OriginalSteps: b.Input.Len()}
		repro := b.Input
		if b.Minimized != nil {
			repro = b.Minimized
		}
		sec.MinimizedSteps = repro.Len()
		sec.Timeline = string(schedule.EncodeInputFor(repro, nil))
		sec.Header = [][2]string{{"hits by worker", hitsText(b.Hits)}, {"found by", fmt.Sprintf("%s at its iteration %d", b.FirstWorker, b.FirstIteration)},
			{"minimized", hubMinimizedText(b)}}
		cp.Bugs = append(cp.Bugs, sec)
	}
	return cp, nil
}

// hubPlots adds the union coverage of every measure over wall-clock time.
func hubPlots(cp *report.Campaign, series []hub.Point) error {
	if len(series) < 2 {
		return nil
	}
	t0 := series[0].Time
	pts := map[string][]report.XY{}
	// At most about maxPoints points a plot, the last always.
	const maxPoints = 1000
	step := max(1, len(series)/maxPoints)
	for i, p := range series {
		if i%step != 0 && i != len(series)-1 {
			continue
		}
		for m, v := range p.Coverage {
			pts[m] = append(pts[m], report.XY{X: p.Time.Sub(t0).Minutes(), Y: float64(v)})
		}
	}
	for _, m := range slices.Sorted(maps.Keys(pts)) {
		f, err := report.CampaignFigure(report.Figure{Name: "coverage-" + m + ".png", Title: m + " union coverage over time",
			Caption: fmt.Sprintf("%s items reached by any worker, over wall-clock time since the first was published.", m)},
			map[string][]report.XY{m: pts[m]}, "minutes since the first coverage", m+" (union of the workers)", nil)
		if err != nil {
			return err
		}
		cp.Plots = append(cp.Plots, f)
	}
	return nil
}

// HubPage serves the page of a hub's campaign (HubReport) at /, built
// afresh for every request.
type HubPage struct {
	Client *hub.Client
}

func (p *HubPage) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/" {
		http.NotFound(w, r)
		return
	}
	cp, err := HubReport(p.Client)
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	var page bytes.Buffer
	if err := report.WriteCampaignHTML(&page, cp); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(page.Bytes())
}

// Close closes the page's connection to the hub.
func (p *HubPage) Close() { p.Client.Close() }

// HubSummaryText says what the hub's campaign reached: its union coverage,
// its workers' iterations and its bugs.
func HubSummaryText(cl *hub.Client) (string, error) {
	cov, _, _, err := cl.Coverage()
	if err != nil {
		return "", err
	}
	workers, err := cl.Workers()
	if err != nil {
		return "", err
	}
	bugs, err := cl.Bugs()
	if err != nil {
		return "", err
	}
	var iters int64
	var names []string
	for _, w := range workers {
		if w.Stats != nil {
			iters += w.Stats.Iterations
			names = append(names, fmt.Sprintf("%s %d", w.Name, w.Stats.Iterations))
		}
	}
	n := 0
	for _, b := range bugs {
		if b.Known == "" {
			n++
		}
	}
	return fmt.Sprintf("union coverage: %s\nworkers: %d, %d iterations (%s)\nbugs: %d, known disagreements: %d\n",
		CoverageText(cov), len(workers), iters, strings.Join(names, ", "), n, len(bugs)-n), nil
}
