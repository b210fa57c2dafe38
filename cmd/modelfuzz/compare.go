package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/modelfuzz/modelfuzz/guidance"
	"github.com/modelfuzz/modelfuzz/linecov"
	"github.com/modelfuzz/modelfuzz/report"
)

type compareFlags struct {
	adapter    adapterFlags
	model      string
	strategies string
	runs       int
	iterations int64
	parallel   int
	out        string
	seed       uint64
	base       string
	points     int
	steps      int
	keep       bool
	stopOnBug  bool
	mutations  int
}

func newCompareCmd() *cobra.Command {
	var f compareFlags
	cmd := &cobra.Command{
		Use:   "compare --adapter A --model M --strategies model,line,trace,random --runs R --iterations N --out DIR",
		Short: "Compare coverage guidance strategies on one system: statistics, plots and an HTML report",
		Long: `Run --runs campaigns of every strategy, each of --iterations iterations,
with the seeds --seed, --seed+1, ... (the same seeds for every strategy),
--parallel campaigns at once, each in its own modelfuzz process (so line
coverage counters never mix). Every campaign measures every notion of
coverage the build supports (model states with --model, unique traces,
lines in a coverage build), whatever guides it.

Writes to --out: results.json (per strategy and run: coverage over
iterations, final coverage, bugs with the iteration that found them first),
report.html (self-contained), and PNG plots: coverage over iterations
(mean over runs with a min-max band) for each measure, and the iterations to
the first bug. The report compares --base (default model) against every
other strategy: Mann-Whitney U (p-value) on final coverage, Vargha-Delaney
A12 on final coverage and on the first-bug iteration (a run without a bug
counts as budget + 1). Divergences from the model are not counted as bugs.

Line guidance needs the coverage build (make cover; run ./modelfuzz-cover
compare ...).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runCompare(cmd, &f) },
	}
	fs := cmd.Flags()
	f.adapter.register(fs)
	fs.StringVar(&f.model, "model", "", "the TLA+ model measured in every campaign (model states), e.g. raft.tla")
	fs.StringVar(&f.strategies, "strategies", "model,trace,random", "comma-separated strategies: model, line, trace, random")
	fs.IntVar(&f.runs, "runs", 5, "campaigns per strategy")
	fs.Int64Var(&f.iterations, "iterations", 2000, "iterations of every campaign")
	fs.IntVar(&f.parallel, "parallel", 2, "campaigns run at once")
	fs.StringVar(&f.out, "out", "", "directory for results.json, report.html and the plots (required)")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the first run; run k uses seed+k")
	fs.StringVar(&f.base, "base", "model", "the strategy compared against every other one")
	fs.IntVar(&f.points, "points", 200, "coverage samples recorded per campaign")
	fs.IntVar(&f.steps, "steps", 0, "steps of a random input (default: the adapter's)")
	fs.IntVar(&f.mutations, "mutations", 0, "mutants queued per new coverage item in every campaign (default: run's)")
	fs.BoolVar(&f.stopOnBug, "stop-on-bug", false, "end each campaign at its first bug (bug-finding experiments; coverage curves then end there)")
	fs.BoolVar(&f.keep, "keep", false, "keep every campaign's corpus under DIR/runs (default: only the series and summaries)")
	return cmd
}

// compareJob is one campaign of a comparison.
type compareJob struct {
	strategy string
	seed     uint64
	dir      string
	args     []string
}

func runCompare(cmd *cobra.Command, f *compareFlags) error {
	if f.out == "" {
		return fmt.Errorf("--out DIR is required")
	}
	if f.runs < 1 || f.iterations < 1 || f.parallel < 1 || f.points < 1 {
		return fmt.Errorf("--runs, --iterations, --parallel and --points must be at least 1")
	}
	info, err := lookupAdapter(f.adapter.name)
	if err != nil {
		return err
	}
	if _, _, err := f.adapter.factory(); err != nil { // the adapter flags are valid
		return err
	}
	var names []string
	seen := map[string]bool{}
	for _, s := range strings.Split(f.strategies, ",") {
		s = strings.TrimSpace(s)
		if s == "" || seen[s] {
			continue
		}
		if _, err := guidance.LookupStrategy(s); err != nil {
			return fmt.Errorf("unknown strategy %q in --strategies (known: %s)", s, guidance.StrategyNames())
		}
		seen[s] = true
		names = append(names, s)
	}
	if len(names) < 2 {
		return fmt.Errorf("--strategies needs at least two strategies to compare, got %q", f.strategies)
	}
	if !seen[f.base] {
		return fmt.Errorf("--base %s is not one of --strategies %s", f.base, strings.Join(names, ","))
	}
	if seen["model"] && f.model == "" {
		return fmt.Errorf("strategy model needs --model (for this adapter: --model %s)", modelHint(f.adapter.name))
	}
	if seen["line"] {
		if !info.lineCoverage {
			return fmt.Errorf("strategy line: adapter %s has no line coverage (etcdraft has)", f.adapter.name)
		}
		if err := linecov.Available(); err != nil {
			return fmt.Errorf("strategy line needs the coverage build: make cover, then ./modelfuzz-cover compare ... (%v)", err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cannot find the modelfuzz executable to run campaigns: %v", err)
	}
	runsDir := filepath.Join(f.out, "runs")
	if err := os.MkdirAll(runsDir, 0o755); err != nil {
		return err
	}
	// The campaigns' shared arguments: the adapter flags as given, the model.
	var common []string
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		if isAdapterFlag(fl.Name) {
			common = append(common, "--"+fl.Name+"="+fl.Value.String())
		}
	})
	common = append(common, "--adapter", f.adapter.name)
	if f.model != "" {
		common = append(common, "--model", f.model, "--tlc", "inproc")
	}
	if f.steps > 0 {
		common = append(common, "--steps", strconv.Itoa(f.steps))
	}
	if f.mutations > 0 {
		common = append(common, "--mutations", strconv.Itoa(f.mutations))
	}
	every := max(1, f.iterations/int64(f.points))
	var jobs []compareJob
	var seeds []uint64
	for k := 0; k < f.runs; k++ {
		seeds = append(seeds, f.seed+uint64(k))
	}
	for _, s := range names {
		for _, seed := range seeds {
			dir := filepath.Join(runsDir, fmt.Sprintf("%s-%d", s, seed))
			args := append([]string{"run"}, common...)
			args = append(args, "--strategy", s, "--seed", strconv.FormatUint(seed, 10),
				"--iterations", strconv.FormatInt(f.iterations, 10), "--corpus", filepath.Join(dir, "corpus"), "--fresh",
				"--series", filepath.Join(dir, "series.jsonl"), "--series-every", strconv.FormatInt(every, 10),
				"--parallel", "1", "--minimize=false", "--json", "--log-level", "error")
			if f.stopOnBug {
				args = append(args, "--stop-on-bug")
			}
			jobs = append(jobs, compareJob{strategy: s, seed: seed, dir: dir, args: args})
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	w := cmd.ErrOrStderr()
	fmt.Fprintf(w, "compare: %d campaigns (%s x %d seeds), %d iterations each, %d at once\n",
		len(jobs), strings.Join(names, ", "), f.runs, f.iterations, f.parallel)
	results := make([]*report.Run, len(jobs))
	errs := make([]error, len(jobs))
	var mu sync.Mutex
	done := 0
	start := time.Now()
	sem := make(chan struct{}, f.parallel)
	var wg sync.WaitGroup
	for i := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if ctx.Err() != nil {
				errs[i] = ctx.Err()
				return
			}
			results[i], errs[i] = runCompareJob(ctx, exe, &jobs[i], f.keep)
			mu.Lock()
			done++
			j := &jobs[i]
			if errs[i] != nil {
				fmt.Fprintf(w, "  [%d/%d] %s seed %d: FAILED: %v\n", done, len(jobs), j.strategy, j.seed, errs[i])
			} else {
				fmt.Fprintf(w, "  [%d/%d] %s seed %d: %s in %.0fs%s\n", done, len(jobs), j.strategy, j.seed,
					finalText(results[i].Final), results[i].Seconds, firstBugText(results[i].FirstBug))
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("compare interrupted; the finished campaigns are in %s", runsDir)
			}
			return fmt.Errorf("campaign %s seed %d failed: %v (its output is in %s)", jobs[i].strategy, jobs[i].seed, err, jobs[i].dir)
		}
	}
	c := &report.Comparison{Adapter: f.adapter.name, Model: f.model, Iterations: f.iterations, Seeds: seeds,
		Created: time.Now().UTC().Format(time.RFC3339)}
	for _, s := range names {
		st := report.Strategy{Name: s}
		for i := range jobs {
			if jobs[i].strategy == s {
				st.Runs = append(st.Runs, *results[i])
			}
		}
		c.Strategies = append(c.Strategies, st)
	}
	if err := report.Analyze(c, f.base); err != nil {
		return err
	}
	return writeComparison(cmd.OutOrStdout(), c, f.out, time.Since(start))
}

// adapterFlagNames are the flags of adapterFlags.register passed on to
// every campaign.
var adapterFlagNames = map[string]bool{"workers": true, "tasks": true, "nodes": true, "snapshot-every": true,
	"prevote": true, "checkquorum": true, "inject": true, "cluster": true}

func isAdapterFlag(name string) bool { return adapterFlagNames[name] }

// runCompareJob runs one campaign as a modelfuzz process and reads its
// summary and coverage series.
func runCompareJob(ctx context.Context, exe string, j *compareJob, keep bool) (*report.Run, error) {
	if err := os.MkdirAll(j.dir, 0o755); err != nil {
		return nil, err
	}
	c := exec.CommandContext(ctx, exe, j.args...)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	c.Env = append(os.Environ(), "GOCOVERDIR="+os.TempDir()) // a coverage build would warn without it
	err := c.Run()
	os.WriteFile(filepath.Join(j.dir, "stderr.txt"), errb.Bytes(), 0o644)
	os.WriteFile(filepath.Join(j.dir, "summary.json"), out.Bytes(), 0o644)
	if err != nil {
		return nil, fmt.Errorf("%v: %s", err, lastLine(errb.String()))
	}
	var sum struct {
		Iterations   int64   `json:"iterations"`
		DurationS    float64 `json:"duration_s"`
		UniqueTraces int     `json:"unique_traces"`
		ModelStates  *int    `json:"model_states"`
		LinesCovered *int    `json:"lines_covered"`
		Bugs         []struct {
			Signature      string `json:"signature"`
			Kind           string `json:"kind"`
			FirstIteration int64  `json:"first_iteration"`
		} `json:"bugs"`
	}
	if err := json.Unmarshal([]byte(lastLine(out.String())), &sum); err != nil {
		return nil, fmt.Errorf("reading its summary: %v", err)
	}
	r := &report.Run{Seed: j.seed, Iterations: sum.Iterations, Seconds: sum.DurationS,
		Final: map[string]float64{"traces": float64(sum.UniqueTraces)}, Coverage: map[string][]report.Point{}}
	if sum.ModelStates != nil {
		r.Final["model"] = float64(*sum.ModelStates)
	}
	if sum.LinesCovered != nil {
		r.Final["lines"] = float64(*sum.LinesCovered)
	}
	for _, b := range sum.Bugs {
		r.Bugs = append(r.Bugs, report.BugHit{Signature: b.Signature, Kind: b.Kind, FirstIteration: b.FirstIteration})
		if b.Kind == "divergence" {
			continue // the model and the system disagree: not a bug of the system by itself
		}
		if r.FirstBug == nil || b.FirstIteration < *r.FirstBug {
			it := b.FirstIteration
			r.FirstBug = &it
		}
	}
	if err := readSeries(filepath.Join(j.dir, "series.jsonl"), r); err != nil {
		return nil, err
	}
	if !keep {
		os.RemoveAll(filepath.Join(j.dir, "corpus"))
	}
	return r, nil
}

// readSeries reads a campaign's --series file into r.Coverage, starting
// every measure at (0, 0).
func readSeries(path string, r *report.Run) error {
	fh, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("reading its coverage series: %v", err)
	}
	defer fh.Close()
	for m := range r.Final {
		r.Coverage[m] = []report.Point{{Iteration: 0, Value: 0}}
	}
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		var p seriesPoint
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		for m, v := range p.Coverage {
			if _, ok := r.Final[m]; ok {
				r.Coverage[m] = append(r.Coverage[m], report.Point{Iteration: p.Iteration, Value: float64(v)})
			}
		}
	}
	return sc.Err()
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

func finalText(m map[string]float64) string {
	var parts []string
	for _, k := range []string{"model", "lines", "traces"} {
		if v, ok := m[k]; ok {
			parts = append(parts, fmt.Sprintf("%s %.0f", k, v))
		}
	}
	return strings.Join(parts, ", ")
}

func firstBugText(it *int64) string {
	if it == nil {
		return ""
	}
	return fmt.Sprintf(", first bug at iteration %d", *it)
}

// writeComparison writes results.json, the plots and report.html, and
// prints where they are with a summary table.
func writeComparison(w io.Writer, c *report.Comparison, dir string, took time.Duration) error {
	js, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "results.json"), append(js, '\n'), 0o644); err != nil {
		return err
	}
	figs, err := report.CompareFigures(c, report.DefaultWidth, report.DefaultHeight)
	if err != nil {
		return fmt.Errorf("plots: %v", err)
	}
	var pngs []string
	for _, fg := range figs {
		name := fg.Name
		if err := os.WriteFile(filepath.Join(dir, name), fg.PNG, 0o644); err != nil {
			return err
		}
		pngs = append(pngs, name)
	}
	var page bytes.Buffer
	if err := report.WriteCompareHTML(&page, c, figs); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "report.html"), page.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(w, "compared %d strategies x %d runs of %d iterations in %s\n", len(c.Strategies), len(c.Seeds), c.Iterations, took.Round(time.Second))
	for _, s := range report.Summarize(c) {
		fmt.Fprintf(w, "  %s\n", summaryLine(s))
	}
	var tests []string
	for _, t := range c.Tests {
		tests = append(tests, fmt.Sprintf("  %s: %s vs %s: p=%.3g, A12=%.2f (%s)", t.Measure, t.A, t.B, t.P, t.A12, t.Magnitude))
	}
	sort.Strings(tests)
	for _, t := range tests {
		fmt.Fprintln(w, t)
	}
	fmt.Fprintf(w, "wrote %s, %s and %s\n", filepath.Join(dir, "results.json"), filepath.Join(dir, "report.html"), strings.Join(pngs, ", "))
	return nil
}

func summaryLine(s report.Summary) string {
	var parts []string
	for _, m := range []string{"model", "lines", "traces"} {
		if sp, ok := s.Final[m]; ok {
			parts = append(parts, fmt.Sprintf("%s median %.0f", m, sp.Median))
		}
	}
	bug := fmt.Sprintf("bug in %d/%d runs", s.RunsWithBug, s.Runs)
	if s.RunsWithBug > 0 {
		bug += fmt.Sprintf(" (median first iteration %.0f)", s.MedianFirstBug)
	}
	return fmt.Sprintf("%-7s %s; %s", s.Strategy, strings.Join(parts, ", "), bug)
}
