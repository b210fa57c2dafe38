package campaign

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/record"
	"github.com/modelfuzz/modelfuzz/report"
)

// Live serves the status page of a running campaign (run --http): rates,
// coverage over time, the queue, and the bugs with their reproducers and
// timelines, rebuilt at each request from the loop's latest progress and
// the campaign's own corpus (badger serves reads while the loop commits).
// It only reads; a bug's timeline is a replay, on a system of its own,
// done once per reproducer.
type Live struct {
	c       *Campaign
	logger  hclog.Logger
	started time.Time
	prior   float64 // fuzzing seconds of the sessions before this one

	mu      sync.Mutex
	latest  *fuzzer.Stats
	samples []liveSample // this session's progress, at most one a second

	replayMu sync.Mutex // one replay at a time, on env
	env      *Env
	replays  map[string]*BugReplay // by bug id and reproducer
}

type liveSample struct {
	seconds  float64 // fuzzing time over all sessions
	coverage map[string]int
	iter     int64
}

// liveSamples bounds the samples kept: older ones are thinned out.
const liveSamples = 2000

// NewLive makes the status page of c, before c runs.
func NewLive(c *Campaign, logger hclog.Logger) (*Live, error) {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	snap, err := c.Store.Load(0)
	if err != nil {
		return nil, err
	}
	return &Live{c: c, logger: logger, started: time.Now(), prior: snap.Counters.RunSeconds, replays: map[string]*BugReplay{}}, nil
}

// Progress records the loop's progress (a campaign.Hooks.Progress).
func (l *Live) Progress(s fuzzer.Stats) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.latest = &s
	sec := l.prior + s.Elapsed.Seconds()
	// The last sample moves until it is a second past the one before.
	if n := len(l.samples); n > 1 && sec-l.samples[n-2].seconds < 1 {
		l.samples[n-1] = liveSample{sec, maps.Clone(s.Coverage), s.Iterations}
		return
	}
	l.samples = append(l.samples, liveSample{sec, maps.Clone(s.Coverage), s.Iterations})
	if len(l.samples) > liveSamples {
		kept := l.samples[:0]
		for i, x := range l.samples {
			if i%2 == 0 || i == len(l.samples)-1 {
				kept = append(kept, x)
			}
		}
		l.samples = kept
	}
}

// Close stops the system the timelines are replayed on.
func (l *Live) Close() {
	l.replayMu.Lock()
	defer l.replayMu.Unlock()
	if l.env != nil {
		l.env.closeSystem()
		l.env = nil
	}
}

// ServeHTTP serves / (the status page), /bug/ID (a bug's page) and
// /status.json (the rates and bugs, for scripts).
func (l *Live) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "read-only: GET only", http.StatusMethodNotAllowed)
		return
	}
	var page bytes.Buffer
	var err error
	switch {
	case r.URL.Path == "/":
		err = l.writeStatus(&page)
	case r.URL.Path == "/status.json":
		err = l.writeJSON(&page)
		w.Header().Set("Content-Type", "application/json")
	case strings.HasPrefix(r.URL.Path, "/bug/"):
		b, berr := l.c.Store.Bug(strings.TrimPrefix(r.URL.Path, "/bug/"))
		if berr != nil {
			http.Error(w, berr.Error(), http.StatusNotFound)
			return
		}
		err = l.writeBug(&page, b)
	default:
		http.NotFound(w, r)
		return
	}
	if err != nil {
		l.logger.Warn("live view", "path", r.URL.Path, "error", err)
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Write(page.Bytes())
}

// snapshot returns the latest progress and a copy of the samples.
func (l *Live) snapshot() (*fuzzer.Stats, []liveSample) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.latest, slices.Clone(l.samples)
}

// rate is the executions per second over the last ten seconds of samples
// (0 without two samples).
func rate(samples []liveSample) float64 {
	n := len(samples)
	if n < 2 {
		return 0
	}
	last := samples[n-1]
	i := n - 2
	for i > 0 && last.seconds-samples[i].seconds < 10 {
		i--
	}
	if dt := last.seconds - samples[i].seconds; dt > 0 {
		return float64(last.iter-samples[i].iter) / dt
	}
	return 0
}

func (l *Live) writeStatus(w *bytes.Buffer) error {
	s := l.c.Settings
	st, samples := l.snapshot()
	bugs, err := l.c.Store.Bugs()
	if err != nil {
		return err
	}
	stats, err := l.c.Store.Stats()
	if err != nil {
		return err
	}
	p := &report.LivePage{Title: fmt.Sprintf("modelfuzz campaign: %s, strategy %s", s.Adapter, s.Strategy)}
	now := time.Now()
	p.State = fmt.Sprintf("Running since %s (%s); page built at %s.", l.started.Format("15:04:05"),
		now.Sub(l.started).Round(time.Second), now.Format("15:04:05"))
	l.rates(p, st, samples, bugs)
	set := func(k, v string) { p.Settings = append(p.Settings, [2]string{k, v}) }
	set("corpus", s.CorpusDir)
	set("adapter", s.Adapter+" "+CompactJSON(s.AdapterConfig))
	if s.Model != "" {
		set("model", s.Model)
	}
	set("strategy", s.Strategy)
	set("seed", fmt.Sprint(s.Seed))

	if err := l.plots(p, stats, samples); err != nil {
		return err
	}
	for _, b := range bugs {
		if b.Known != "" {
			row := l.bugRow(b)
			row.Message = KnownTitle(b)
			p.Known = append(p.Known, row)
			continue
		}
		p.Bugs = append(p.Bugs, l.bugRow(b))
	}
	return report.WriteLiveHTML(w, p)
}

// rates fills the live page's rates and queue from the campaign's stats
// (nil before its first progress), recent samples and its stored bugs.
func (l *Live) rates(p *report.LivePage, st *fuzzer.Stats, samples []liveSample, all []*record.BugRecord) {
	bugs, known := SplitKnown(all)
	s := l.c.Settings
	addRate := func(k, v string) { p.Rates = append(p.Rates, [2]string{k, v}) }
	queue := func(k, v string) { p.Queue = append(p.Queue, [2]string{k, v}) }
	if st == nil {
		addRate("iterations", "starting")
	} else {
		addRate("iterations", fmt.Sprintf("%d this session, %d over all sessions", st.Session, st.Iterations))
		addRate("executions per second", fmt.Sprintf("%.1f over the last 10 s, %.1f over the session", rate(samples), st.ExecsPerSec))
		addRate("fuzzing time", fmt.Sprintf("%s this session, %s over all sessions", st.Elapsed.Round(time.Second),
			time.Duration((l.prior+st.Elapsed.Seconds())*float64(time.Second)).Round(time.Second)))
		var cov []string
		for _, m := range slices.Sorted(maps.Keys(st.Coverage)) {
			cov = append(cov, fmt.Sprintf("%s %d", m, st.Coverage[m]))
		}
		addRate("coverage", strings.Join(cov, ", "))
		addRate("corpus", fmt.Sprintf("%d inputs", st.CorpusSize))
		addRate("bugs", BugsByKindText(bugs))
		addRate("failures", FailuresText(st.Failures, bugs))
		if len(known) > 0 {
			addRate("known disagreements", KnownByKindText(known, st.KnownExecutions))
		}
		queue("queue", fmt.Sprintf("%d inputs waiting to run (mutants of inputs that reached new coverage, and fresh random inputs)", st.Queue))
		if s.Energy == fuzzer.EnergyRare || s.Energy == fuzzer.EnergyBandit {
			queue("pool", fmt.Sprintf("%d inputs that may be chosen for mutation", st.Pool))
		}
		queue("dropped", fmt.Sprintf("%d entries dropped this session at --queue-max %d", st.Dropped, s.QueueMax))
		queue("minimizing", fmt.Sprintf("%d bug(s) waiting for or under minimization", st.Minimizing))
	}
}

// plots adds the live page's coverage plots over fuzzing time.
func (l *Live) plots(p *report.LivePage, stats []*record.StatsRecord, samples []liveSample) error {
	// Coverage over fuzzing time: the stored snapshots of every session,
	// and this session's progress, from nothing at time 0 (as report's).
	series := map[string][]report.XY{}
	add := func(m string, pt report.XY) {
		if series[m] == nil {
			series[m] = []report.XY{{X: 0, Y: 0}}
		}
		series[m] = append(series[m], pt)
	}
	for _, r := range stats {
		for m, v := range r.Coverage {
			add(m, report.XY{X: r.RunSeconds, Y: float64(v)})
		}
	}
	for _, x := range samples {
		for m, v := range x.coverage {
			add(m, report.XY{X: x.seconds, Y: float64(v)})
		}
	}
	for _, m := range slices.Sorted(maps.Keys(series)) {
		pts := series[m]
		unit, scale := "seconds", 1.0
		if last := slices.MaxFunc(pts, func(a, b report.XY) int { return cmp.Compare(a.X, b.X) }); last.X > 180 {
			unit, scale = "minutes", 60
		}
		for i := range pts {
			pts[i].X /= scale
		}
		resumes := resumedAt(stats)
		// This session is a resume too, before it stored a snapshot.
		if n := len(resumes); l.prior > 0 && (n == 0 || math.Abs(resumes[n-1]-l.prior) > 0.01) {
			resumes = append(resumes, l.prior)
		}
		var at []string
		for i := range resumes {
			resumes[i] /= scale
			at = append(at, fmt.Sprintf("%.1f", resumes[i]))
		}
		caption := fmt.Sprintf("%s coverage over fuzzing time: %d stored snapshots and this session's progress.", m, len(stats))
		if len(at) > 0 {
			caption += fmt.Sprintf(" The campaign was resumed at %s %s of fuzzing (dashed vertical lines).", strings.Join(at, ", "), unit)
		}
		png, err := report.CampaignPlot(map[string][]report.XY{m: pts}, "fuzzing time ("+unit+", over all sessions)",
			fmt.Sprintf("%s coverage (%s)", m, report.MeasureUnit(m)), m+" coverage over time", resumes)
		if err != nil {
			return fmt.Errorf("plot of %s: %v", m, err)
		}
		p.Plots = append(p.Plots, report.Figure{Name: "coverage-" + m + ".png", Title: m + " coverage over time",
			Caption: caption, PNG: png})
	}
	return nil
}

func (l *Live) bugRow(b *record.BugRecord) report.LiveBug {
	repro := fmt.Sprintf("%d steps", b.Input.Len())
	if b.Minimized != nil {
		repro = fmt.Sprintf("%d steps, minimized from %d", b.Minimized.Len(), b.Input.Len())
	}
	return report.LiveBug{ID: b.ID, Kind: b.Kind, Signature: b.Signature, Message: b.Message, Known: b.Known, Link: "/bug/" + b.ID,
		Hits: b.Hits, FirstIteration: b.FirstIteration, LastIteration: b.LastIteration, Reproducer: repro,
		Replay: "modelfuzz replay --corpus " + l.c.Settings.CorpusDir + " " + b.ID}
}

func (l *Live) writeBug(w *bytes.Buffer, b *record.BugRecord) error {
	row := l.bugRow(b)
	in, err := json.MarshalIndent(b.Reproducer(), "", "  ")
	if err != nil {
		return err
	}
	row.Input = string(in)
	r, err := l.replay(b)
	if err != nil {
		row.TimelineNote = "The replay failed: " + err.Error()
	} else {
		row.Timeline, row.ModelView = r.Timeline, r.ModelView
	}
	return report.WriteLiveBugHTML(w, &row)
}

// replayTimeout bounds a bug page's replay.
const replayTimeout = 30 * time.Second

// replay replays b's reproducer once (the result is kept while the
// reproducer stays the same).
func (l *Live) replay(b *record.BugRecord) (*BugReplay, error) {
	key := fmt.Sprintf("%s/%d/%v", b.ID, b.Reproducer().Len(), b.Minimized != nil)
	l.replayMu.Lock()
	defer l.replayMu.Unlock()
	if r, ok := l.replays[key]; ok {
		return r, nil
	}
	if l.env == nil {
		env := &Env{Dir: l.c.Settings.CorpusDir, Store: l.c.Store}
		if err := env.load(hclog.NewNullLogger()); err != nil {
			return nil, err
		}
		l.env = env
	}
	r, err := l.env.ReplayBug(b, b.Reproducer(), replayTimeout)
	if err != nil {
		return nil, err
	}
	l.replays[key] = r
	return r, nil
}

// liveStatus is /status.json.
type liveStatus struct {
	Stats *fuzzer.Stats       `json:"stats"`
	Rate  float64             `json:"execs_per_sec_10s"`
	Bugs  []*record.BugRecord `json:"bugs"`
}

func (l *Live) writeJSON(w *bytes.Buffer) error {
	st, samples := l.snapshot()
	bugs, err := l.c.Store.Bugs()
	if err != nil {
		return err
	}
	return json.NewEncoder(w).Encode(liveStatus{Stats: st, Rate: rate(samples), Bugs: bugs})
}
