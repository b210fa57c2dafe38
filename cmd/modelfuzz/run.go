package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/modelfuzz/modelfuzz/corpus"
	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/guidance"
	"github.com/modelfuzz/modelfuzz/models"
	"github.com/modelfuzz/modelfuzz/schedule"
	"github.com/modelfuzz/modelfuzz/tlc/sidecar"
	"github.com/modelfuzz/modelfuzz/tlc/sim"
)

type runFlags struct {
	adapter        adapterFlags
	strategy       string
	corpusDir      string
	fresh          bool
	seed           uint64
	iterations     int64
	duration       time.Duration
	steps          int
	maxMessages    int
	crashQuota     int
	requests       int
	seedPopulation int
	reseedEvery    int
	mutations      int
	jsonOut        bool
	logLevel       string
	cpuProfile     string
	memProfile     string
	model          string
	modelConfig    string
	tlcMode        string
	tlcURL         string
	stopOnBug      bool
	pipeline       int
	parallel       int
	execTimeout    time.Duration
	statsEvery     time.Duration
	minimize       bool
	minimizeTries  int
	minimizeTime   time.Duration
	series         string
	seriesEvery    int64
	memoryLimit    int64
}

var strategies = map[string]string{
	"random": "no guidance: every input is random or a mutant of a random input",
	"trace":  "new classes of the happens-before partial order (Mazurkiewicz traces)",
	"model":  "new abstract states of the TLA+ model (the ModelFuzz algorithm)",
	"line":   "new source lines of the system under test (Go coverage counters; needs make cover)",
}

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run a fuzzing campaign (continues the one in --corpus, if any)",
		Long: `Run a fuzzing campaign on a system under test.

Every iteration takes an input (a schedule of steps) from the queue, executes
it on the system and measures its coverage. An input that reaches coverage
not seen before is kept in the corpus and --mutations mutants per new item
are queued. The queue is refilled with --seed-population random inputs when
it runs empty and every --reseed-every iterations.

The campaign lives in --corpus DIR: running the same command again continues
it (--iterations counts the campaign's total); --fresh starts over. Ctrl-C
(or SIGTERM) finishes the executions in flight, stores everything and
prints a summary; a second Ctrl-C exits at once, losing only what was not
stored yet.

For unattended runs: --parallel system instances execute the inputs of a
batch at once (the campaign's results do not depend on it); an execution
longer than --exec-timeout is stopped and recorded as a hang bug; a stats
snapshot (coverage, corpus, bugs, executions per second, memory) goes into
the corpus every --stats-every; and every new bug is minimized in the
background within --minimize-tries and --minimize-time ("modelfuzz bugs"
lists them). A corpus that can no longer be written stops the campaign
within seconds with one line saying why and how many executions were not
stored, and a non-zero exit: its directory removed, replaced or made
read-only, its lock file removed, its disk with less than 256 MiB free
(before the corpus could be damaged), a write that fails.

With --model, every execution is also mapped onto a TLA+ model and the
abstract model states it reaches are measured (model_states) for every
strategy; --strategy model (the default then) keeps inputs that reach new
ones. The model engine runs as a supervised subprocess (--tlc subprocess,
the default), in this process (--tlc inproc), or is an already running
sidecar (--tlc-url, token in $MODELFUZZ_TLC_TOKEN).

Strategies: model, line (a coverage build: make cover), trace, random. In a
coverage build every strategy also reports lines_covered: the source lines of
the system under test (the go.etcd.io/raft/v3 packages) its executions
covered.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runCampaign(cmd, &f) },
	}
	fs := cmd.Flags()
	f.adapter.register(fs)
	fs.StringVar(&f.strategy, "strategy", "", "coverage guidance: model (default with --model), trace (default otherwise), random")
	fs.StringVar(&f.model, "model", "", "TLA+ model to measure and guide with: an embedded model (microbench.tla) or a .tla file")
	fs.StringVar(&f.modelConfig, "model-config", "", "the model's TLC configuration (default: MODEL.cfg)")
	fs.StringVar(&f.tlcMode, "tlc", "subprocess", "where the model engine runs: subprocess (a supervised sidecar) or inproc")
	fs.StringVar(&f.tlcURL, "tlc-url", "", "use an already running sidecar at this URL (token from $MODELFUZZ_TLC_TOKEN)")
	fs.StringVar(&f.corpusDir, "corpus", "", "campaign directory (default modelfuzz-corpus/<adapter>-<strategy>)")
	fs.BoolVar(&f.fresh, "fresh", false, "delete the campaign in --corpus and start over")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of every random choice of the campaign")
	fs.Int64Var(&f.iterations, "iterations", 0, "stop when the campaign has run this many iterations in total (0: no limit)")
	fs.DurationVar(&f.duration, "duration", 0, "stop after this long, e.g. 30s, 8h (0: no limit)")
	fs.IntVar(&f.steps, "steps", 0, "steps of a random input, and the most a mutant may have (default: the adapter's)")
	fs.IntVar(&f.maxMessages, "max-messages", 5, "most messages one deliver step delivers")
	fs.IntVar(&f.crashQuota, "crash-quota", 10, "most crash steps in one input")
	fs.IntVar(&f.requests, "requests", -1, "client requests in a random input (default: the adapter's)")
	fs.IntVar(&f.seedPopulation, "seed-population", 20, "random inputs added when the queue is empty or at a reseed")
	fs.IntVar(&f.reseedEvery, "reseed-every", 200, "add random inputs every this many iterations")
	fs.IntVar(&f.mutations, "mutations", 5, "mutants queued per new coverage item")
	fs.BoolVar(&f.jsonOut, "json", false, "print the summary as one JSON object on the last line of stdout")
	fs.StringVar(&f.logLevel, "log-level", "info", "log level: error, warn, info, debug")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a Go CPU profile of the whole run to this file")
	fs.StringVar(&f.memProfile, "memprofile", "", "write a Go heap profile to this file at the largest heap a stats snapshot saw, and when the campaign ends")
	fs.BoolVar(&f.stopOnBug, "stop-on-bug", false, "stop as soon as a new bug is found (for experiments)")
	fs.IntVar(&f.pipeline, "pipeline", 0, "inputs executed as a batch, measured while the next batch executes (1: one at a time; default max(8, --parallel) for a new campaign; part of the campaign's settings)")
	fs.IntVar(&f.parallel, "parallel", runtime.NumCPU(), "system instances executing inputs at once (results do not depend on it)")
	fs.DurationVar(&f.execTimeout, "exec-timeout", 10*time.Second, "stop an execution that runs longer and record a hang bug (0: no limit)")
	fs.DurationVar(&f.statsEvery, "stats-every", 10*time.Second, "store a stats snapshot in the corpus this often (coverage over time)")
	fs.BoolVar(&f.minimize, "minimize", true, "minimize every new bug in the background (and unfinished ones of earlier sessions)")
	fs.IntVar(&f.minimizeTries, "minimize-tries", 3000, "most executions one bug's minimization may use per session")
	fs.DurationVar(&f.minimizeTime, "minimize-time", 2*time.Minute, "most time one bug's minimization may use per session")
	fs.Int64Var(&f.memoryLimit, "memory-limit", 768, "soft limit of this process's Go heap in MiB: the garbage collector works harder near it (0: none; $GOMEMLIMIT wins)")
	fs.StringVar(&f.series, "series", "", "write coverage over iterations to this file, one JSON object a line (what compare plots)")
	fs.Int64Var(&f.seriesEvery, "series-every", 10, "with --series: a line every this many iterations")
	return cmd
}

func runCampaign(cmd *cobra.Command, f *runFlags) (retErr error) {
	logger, err := newLogger(f.logLevel)
	if err != nil {
		return err
	}
	if f.cpuProfile != "" {
		pf, err := os.Create(f.cpuProfile)
		if err != nil {
			return fmt.Errorf("--cpuprofile: %v", err)
		}
		if err := pprof.StartCPUProfile(pf); err != nil {
			return fmt.Errorf("--cpuprofile: %v", err)
		}
		defer func() { pprof.StopCPUProfile(); pf.Close() }()
	}
	if f.strategy == "" {
		f.strategy = "trace"
		if f.model != "" {
			f.strategy = "model"
		}
	}
	if _, ok := strategies[f.strategy]; !ok {
		return fmt.Errorf("unknown --strategy %q (known: model, line, trace, random)", f.strategy)
	}
	if f.strategy == "model" && f.model == "" {
		return fmt.Errorf("--strategy model needs a model: add --model (for this adapter: --model %s)", modelHint(f.adapter.name))
	}
	if f.tlcMode != "subprocess" && f.tlcMode != "inproc" {
		return fmt.Errorf("unknown --tlc %q (subprocess or inproc)", f.tlcMode)
	}
	if f.iterations < 0 {
		return fmt.Errorf("--iterations must not be negative")
	}
	if f.duration < 0 {
		return fmt.Errorf("--duration must not be negative")
	}
	if f.pipeline < 0 || f.pipeline > 1024 || (f.pipeline == 0 && cmd.Flags().Changed("pipeline")) {
		return fmt.Errorf("--pipeline must be between 1 and 1024, got %d", f.pipeline)
	}
	if f.parallel < 1 || f.parallel > 1024 {
		return fmt.Errorf("--parallel must be between 1 and 1024, got %d", f.parallel)
	}
	if f.execTimeout < 0 || f.statsEvery < 0 || f.minimizeTime < 0 {
		return fmt.Errorf("--exec-timeout, --stats-every and --minimize-time must not be negative")
	}
	if f.memoryLimit < 0 {
		return fmt.Errorf("--memory-limit must not be negative")
	}
	if f.memoryLimit > 0 && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(f.memoryLimit << 20)
	}
	if f.seriesEvery < 1 {
		return fmt.Errorf("--series-every must be at least 1, got %d", f.seriesEvery)
	}
	if f.minimizeTries < 1 {
		return fmt.Errorf("--minimize-tries must be at least 1, got %d", f.minimizeTries)
	}
	if f.model != "" && !cmd.Flags().Changed("adapter") {
		// The model names its system: raft.tla goes with etcdraft.
		for name, a := range adapters {
			if a.model != "" && !a.explicit && strings.TrimSuffix(filepath.Base(f.model), ".tla") == strings.TrimSuffix(a.model, ".tla") {
				f.adapter.name = name
			}
		}
	}
	adapterLogger = logger.Named("process")
	fac, info, err := f.adapter.factory()
	if err != nil {
		return err
	}
	defer closeFactory(fac)
	// Line coverage: measured for every strategy in a coverage build, for
	// the adapters whose system runs in this process.
	var lines *lineTracker
	if info.lineCoverage {
		lines, err = newLineTracker()
		if err != nil && f.strategy == "line" {
			return fmt.Errorf("--strategy line needs a coverage build of modelfuzz: make cover, then run ./modelfuzz-cover (%v)", err)
		}
	} else if f.strategy == "line" {
		return fmt.Errorf("--strategy line: adapter %s has no line coverage (its system is not instrumented; etcdraft is)", f.adapter.name)
	}
	if f.steps == 0 {
		f.steps = info.steps
	}
	if f.requests < 0 {
		f.requests = info.reqs
	}
	if !fac.Spec().Supports(schedule.Crash) && !cmd.Flags().Changed("crash-quota") {
		f.crashQuota = 0
	}
	params := schedule.Params{Steps: f.steps, MaxMessages: f.maxMessages, CrashQuota: f.crashQuota, Requests: f.requests}
	gen, err := schedule.NewGenerator(fac.Spec(), params)
	if err != nil {
		return err
	}
	if f.corpusDir == "" {
		f.corpusDir = "modelfuzz-corpus/" + f.adapter.name + "-" + f.strategy
	}
	camp := &fuzzer.Campaign{Version: 1, Adapter: f.adapter.name, AdapterConfig: fac.Config(),
		Strategy: f.strategy, Seed: f.seed, Steps: params.Steps, MaxMessages: params.MaxMessages,
		CrashQuota: params.CrashQuota, Requests: params.Requests, SeedPopulation: f.seedPopulation,
		ReseedEvery: f.reseedEvery, Mutations: f.mutations, Pipeline: f.pipeline, Created: time.Now().UTC().Format(time.RFC3339)}
	var mapr schedule.Mapper
	if f.model != "" {
		if info.mapperFor == nil {
			return fmt.Errorf("adapter %s has no mapper to a TLA+ model yet; run without --model", f.adapter.name)
		}
		if st, err := os.Stat(f.model); (err != nil || st.IsDir()) && embeddedModel(f.model) && strings.TrimSuffix(f.model, ".tla") != strings.TrimSuffix(info.model, ".tla") {
			return fmt.Errorf("adapter %s maps its executions onto %s, not %s (choose the adapter with --adapter, or give a model file of your own)", f.adapter.name, info.model, f.model)
		}
		mapr, camp.ModelConsts = info.mapperFor(fac)
		camp.Model, camp.ModelConfig = f.model, f.modelConfig
	}

	store, err := corpus.Open(f.corpusDir, corpus.Options{Fresh: f.fresh})
	if err != nil {
		return err
	}
	// Closing is bounded; a store that cannot write its last changes fails
	// the command. After a fault of the corpus, the fault is the line shown.
	defer func() { retErr = errors.Join(retErr, store.Close()) }()
	old, err := store.Campaign()
	if err != nil {
		return err
	}
	if f.pipeline == 0 {
		// Not given: a continued campaign keeps its own; a new one batches
		// at least as many inputs as run at once.
		f.pipeline = max(8, f.parallel)
		if old != nil && old.Pipeline > 0 {
			f.pipeline = old.Pipeline
		}
		camp.Pipeline = f.pipeline
	}
	if f.parallel > f.pipeline {
		logger.Warn("only --pipeline inputs run at once", "parallel", f.parallel, "pipeline", f.pipeline)
	}
	if old != nil {
		if diff := campaignDiff(old, camp); diff != "" {
			return fmt.Errorf("corpus %s holds a campaign with %s; run with the same settings to continue it, or add --fresh to start over", f.corpusDir, diff)
		}
		logger.Info("continuing campaign", "corpus", f.corpusDir, "created", old.Created)
	} else if err := store.SetCampaign(camp); err != nil {
		return err
	}

	opt := fuzzer.Options{
		Strategy: f.strategy, Measures: []fuzzer.Measure{fuzzer.TraceMeasure{}}, Seed: f.seed,
		SeedPopulation: f.seedPopulation, ReseedEvery: f.reseedEvery, Mutations: f.mutations,
		Iterations: f.iterations, Duration: f.duration, StopOnBug: f.stopOnBug, Pipeline: f.pipeline,
		Parallel: f.parallel, ExecTimeout: f.execTimeout, StatsEvery: f.statsEvery,
		Minimize: f.minimize, MinimizeBudget: schedule.MinimizeOptions{MaxTries: f.minimizeTries, MaxTime: f.minimizeTime},
	}
	if f.strategy == "trace" {
		opt.Guide = fuzzer.TraceMeasure{}
	}
	if lines != nil {
		opt.Units = lines
		opt.Measures = append(opt.Measures, fuzzer.UnitsMeasure{})
		if f.strategy == "line" {
			opt.Guide = fuzzer.UnitsMeasure{}
		}
		if f.parallel > 1 {
			logger.Info("line coverage is measured: executions run one at a time (the coverage counters are global to the process)")
		}
	}
	if mapr != nil {
		simulator, closeSim, err := startModelEngine(f, camp.ModelConsts, logger)
		if err != nil {
			return err
		}
		defer closeSim()
		mm := &guidance.ModelMeasure{Mapper: mapr, Sim: simulator}
		opt.Measures = append(opt.Measures, mm)
		if f.strategy == "model" {
			opt.Guide = mm
		}
	}
	if f.series != "" {
		sf, err := os.Create(f.series)
		if err != nil {
			return fmt.Errorf("--series: %v", err)
		}
		defer sf.Close()
		bw := bufio.NewWriter(sf)
		defer bw.Flush()
		enc := json.NewEncoder(bw)
		opt.ObserveEvery = f.seriesEvery
		opt.Observe = func(iter int64, cov map[string]int) {
			enc.Encode(seriesPoint{Iteration: iter, Coverage: cov})
		}
	}
	if f.memProfile != "" {
		var peak int64
		opt.OnSnapshot = func(r *fuzzer.StatsRecord) {
			if r.HeapBytes > peak {
				peak = r.HeapBytes
				if err := writeHeapProfile(f.memProfile, false); err != nil {
					logger.Error("--memprofile", "error", err)
				}
			}
		}
	}
	prog := newProgress(os.Stderr, logger)
	opt.Progress = prog.update
	opt.Logf = func(format string, args ...any) {
		prog.clearLine()
		logger.Info(fmt.Sprintf(format, args...))
	}
	fz, err := fuzzer.New(opt, fac, gen, store)
	if err != nil {
		return err
	}

	ctx, stop := signalContext(logger, prog)
	defer stop()
	sum, runErr := fz.Run(ctx)
	prog.done()
	if f.memProfile != "" && f.statsEvery == 0 {
		if err := writeHeapProfile(f.memProfile, true); err != nil {
			logger.Error("--memprofile", "error", err)
		}
		runtime.KeepAlive(fz) // the campaign's memory is what the profile is for
	}
	if sum != nil && runErr != nil {
		sum.StoppedEarly = "by the error below"
	}
	if sum != nil {
		var unmapped map[string]int
		if u, ok := mapr.(interface{ Unmapped() map[string]int }); ok {
			unmapped = u.Unmapped()
		}
		printSummary(cmd.OutOrStdout(), sum, f.corpusDir, f.jsonOut, unmapped)
	}
	return runErr
}

// signalContext is cancelled by the first SIGINT or SIGTERM: the campaign
// finishes the execution in flight, commits and summarizes. A second signal
// exits at once; what was committed stays in the corpus.
func signalContext(logger hclog.Logger, prog *progress) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		n := 0
		for range ch {
			n++
			prog.clearLine()
			if n == 1 {
				logger.Info("stopping after the execution in flight (signal again to exit at once)")
				cancel()
				continue
			}
			fmt.Fprintln(os.Stderr, "modelfuzz: exiting at once; committed results are kept")
			os.Exit(130)
		}
	}()
	return ctx, func() { signal.Stop(ch); cancel() }
}

func campaignDiff(old, cur *fuzzer.Campaign) string {
	type field struct {
		name     string
		old, cur any
	}
	fields := []field{
		{"--adapter", old.Adapter, cur.Adapter},
		{"--strategy", old.Strategy, cur.Strategy},
		{"--seed", old.Seed, cur.Seed},
		{"--steps", old.Steps, cur.Steps},
		{"--max-messages", old.MaxMessages, cur.MaxMessages},
		{"--crash-quota", old.CrashQuota, cur.CrashQuota},
		{"--requests", old.Requests, cur.Requests},
		{"--seed-population", old.SeedPopulation, cur.SeedPopulation},
		{"--reseed-every", old.ReseedEvery, cur.ReseedEvery},
		{"--mutations", old.Mutations, cur.Mutations},
		{"--model", old.Model, cur.Model},
		{"--model-config", old.ModelConfig, cur.ModelConfig},
		{"--pipeline", old.Pipeline, cur.Pipeline},
	}
	for _, fl := range fields {
		if fmt.Sprint(fl.old) != fmt.Sprint(fl.cur) {
			return fmt.Sprintf("%s %v (not %v)", fl.name, fl.old, fl.cur)
		}
	}
	if !bytes.Equal(compactJSON(old.AdapterConfig), compactJSON(cur.AdapterConfig)) {
		return fmt.Sprintf("adapter configuration %s (not %s)", compactJSON(old.AdapterConfig), compactJSON(cur.AdapterConfig))
	}
	return ""
}

func compactJSON(b []byte) []byte {
	var out bytes.Buffer
	if json.Compact(&out, b) != nil {
		return b
	}
	return out.Bytes()
}

func newLogger(level string) (hclog.Logger, error) {
	lv := hclog.LevelFromString(level)
	if lv == hclog.NoLevel {
		return nil, fmt.Errorf("unknown --log-level %q (error, warn, info, debug)", level)
	}
	return hclog.New(&hclog.LoggerOptions{Name: "modelfuzz", Level: lv, Output: os.Stderr}), nil
}

// progress shows a one-line status on a terminal, and hclog lines every
// 10 seconds otherwise.
type progress struct {
	w       io.Writer
	tty     bool
	logger  hclog.Logger
	last    time.Time
	written atomic.Bool // a status line is on screen; read by the signal goroutine
}

func newProgress(w *os.File, logger hclog.Logger) *progress {
	st, err := w.Stat()
	tty := err == nil && st.Mode()&os.ModeCharDevice != 0 && os.Getenv("TERM") != "dumb"
	return &progress{w: w, tty: tty, logger: logger}
}

func (p *progress) update(s fuzzer.Stats) {
	cov := coverageText(s.Coverage)
	if p.tty {
		minimizing := ""
		if s.Minimizing > 0 {
			minimizing = fmt.Sprintf(" (minimizing %d)", s.Minimizing)
		}
		fmt.Fprintf(p.w, "\r\x1b[K%s  iter %d  %.0f exec/s  corpus %d  %s  bugs %d%s  queue %d  %s",
			s.Strategy, s.Iterations, s.ExecsPerSec, s.CorpusSize, cov, s.Bugs, minimizing, s.Queue, s.Elapsed.Round(time.Second))
		p.written.Store(true)
		return
	}
	if time.Since(p.last) < 10*time.Second {
		return
	}
	p.last = time.Now()
	args := []any{"iterations", s.Iterations, "execs_per_sec", int(s.ExecsPerSec), "corpus", s.CorpusSize, "bugs", s.Bugs}
	for _, m := range sortedKeys(s.Coverage) {
		args = append(args, m, s.Coverage[m])
	}
	p.logger.Info("progress", args...)
}

// clearLine makes room on a terminal for a log line.
func (p *progress) clearLine() {
	if p.written.Load() {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}

func (p *progress) done() {
	if p.written.Load() {
		fmt.Fprintln(p.w)
	}
}

func coverageText(c map[string]int) string {
	var parts []string
	for _, m := range sortedKeys(c) {
		parts = append(parts, fmt.Sprintf("%s %d", m, c[m]))
	}
	return strings.Join(parts, "  ")
}

func sortedKeys(m map[string]int) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// seriesPoint is one line of --series: coverage after an iteration.
type seriesPoint struct {
	Iteration int64          `json:"iteration"`
	Coverage  map[string]int `json:"coverage"`
}

type jsonBug struct {
	ID             string `json:"id"`
	Signature      string `json:"signature"`
	Kind           string `json:"kind"`
	FirstIteration int64  `json:"first_iteration"`
}

// printSummary prints a campaign's summary; unmapped counts, by type, the
// events the model mapper does not turn into model actions (nil: none).
func printSummary(w io.Writer, s *fuzzer.Summary, dir string, asJSON bool, unmapped map[string]int) {
	if asJSON {
		out := struct {
			Iterations   int64          `json:"iterations"`
			DurationS    float64        `json:"duration_s"`
			ExecsPerSec  float64        `json:"execs_per_sec"`
			Strategy     string         `json:"strategy"`
			UniqueTraces int            `json:"unique_traces"`
			ModelStates  *int           `json:"model_states,omitempty"`
			LinesCovered *int           `json:"lines_covered,omitempty"`
			Divergences  *int64         `json:"divergences,omitempty"`
			Unmapped     map[string]int `json:"unmapped_events,omitempty"`
			CorpusSize   int            `json:"corpus_size"`
			Bugs         []jsonBug      `json:"bugs"`
			Interrupted  bool           `json:"interrupted"`
			Corpus       string         `json:"corpus,omitempty"`
			CorpusLost   bool           `json:"corpus_lost,omitempty"`
			Unstored     int64          `json:"unstored,omitempty"`
		}{Iterations: s.Iterations, DurationS: round3(s.Duration.Seconds()), ExecsPerSec: round3(s.ExecsPerSec),
			Strategy: s.Strategy, UniqueTraces: s.Coverage[fuzzer.MeasureTraces], CorpusSize: s.CorpusSize,
			Bugs: []jsonBug{}, Interrupted: s.Interrupted, Corpus: dir, Unmapped: unmapped,
			CorpusLost: s.StoreLost, Unstored: s.Unstored}
		if s.StoreLost {
			out.Corpus = "" // never point at a corpus that is not there
		}
		for _, b := range s.Bugs {
			out.Bugs = append(out.Bugs, jsonBug{b.ID, b.Signature, b.Kind, b.FirstIteration})
		}
		if n, ok := s.Coverage[fuzzer.MeasureLines]; ok {
			out.LinesCovered = &n
		}
		if n, ok := s.Coverage[fuzzer.MeasureModel]; ok {
			d := s.Divergences
			out.ModelStates, out.Divergences = &n, &d
		}
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.Encode(out)
		return
	}
	state := "done"
	switch {
	case s.Interrupted:
		state = "interrupted"
	case s.StoppedEarly != "":
		state = "stopped: " + s.StoppedEarly
	}
	fmt.Fprintf(w, "campaign %s: %d iterations in total, %d in this session (%.1fs, %.0f exec/s)\n",
		state, s.Iterations, s.Session, s.Duration.Seconds(), s.ExecsPerSec)
	fmt.Fprintf(w, "strategy %s, corpus %d inputs, coverage: %s\n", s.Strategy, s.CorpusSize, coverageText(s.Coverage))
	if _, ok := s.Coverage[fuzzer.MeasureModel]; ok {
		fmt.Fprintf(w, "model: %d abstract states, %d execution(s) diverged from the model\n", s.Coverage[fuzzer.MeasureModel], s.Divergences)
		if len(unmapped) > 0 {
			fmt.Fprintf(w, "events not mapped to model actions (by design, see the mapper's doc): %s\n", coverageText(unmapped))
		}
	}
	// After a failure of the store, bugs found after its last commit
	// (iteration s.Iterations) are not in the corpus, and a lost corpus
	// holds nothing.
	replayable := ""
	if len(s.Bugs) == 0 {
		fmt.Fprintln(w, "no bugs found")
	} else {
		fmt.Fprintf(w, "%d bug(s):\n", len(s.Bugs))
		for _, b := range s.Bugs {
			stored, note := !s.StoreLost && b.FirstIteration <= s.Iterations, ""
			if !stored && !s.StoreLost {
				note = " (not stored)"
			}
			if stored && replayable == "" {
				replayable = b.ID
			}
			fmt.Fprintf(w, "  %-4s %-7s first at iteration %d, %d hit(s)%s: %s\n", b.ID, b.Kind, b.FirstIteration, b.Hits, note, b.Message)
		}
		if replayable != "" {
			fmt.Fprintf(w, "replay one with: modelfuzz replay --corpus %s %s\n", dir, replayable)
		}
	}
	switch {
	case s.StoreLost:
		fmt.Fprintf(w, "corpus: %s is lost; nothing of this campaign can be replayed from it\n", dir)
	case s.Unstored > 0:
		fmt.Fprintf(w, "corpus: %s (up to iteration %d; the %d execution(s) after it were not stored)\n", dir, s.Iterations, s.Unstored)
	default:
		fmt.Fprintf(w, "corpus: %s\n", dir)
	}
}

func round3(x float64) float64 { return float64(int64(x*1000+0.5)) / 1000 }

func modelHint(adapter string) string {
	if a, ok := adapters[adapter]; ok && a.model != "" {
		return a.model
	}
	return "MODEL.tla"
}

// startModelEngine starts (or connects to) the model engine for a campaign.
func startModelEngine(f *runFlags, consts []string, logger hclog.Logger) (guidance.Simulator, func(), error) {
	spec := models.Spec{Model: f.model, Config: f.modelConfig, Consts: consts}
	switch {
	case f.tlcURL != "":
		token := os.Getenv("MODELFUZZ_TLC_TOKEN")
		c := sidecar.NewClient(f.tlcURL, token, time.Minute)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := c.Health(ctx); err != nil {
			return nil, nil, fmt.Errorf("--tlc-url %s: %v", f.tlcURL, err)
		}
		return c, func() {}, nil
	case f.tlcMode == "inproc":
		m, err := models.Load(spec)
		if err != nil {
			return nil, nil, fmt.Errorf("model %s: %v", f.model, err)
		}
		s, err := sim.New(m, 0)
		if err != nil {
			return nil, nil, fmt.Errorf("model %s: %v", f.model, err)
		}
		return sidecar.InProc{Simulator: s}, func() {}, nil
	}
	// Check the model here first: a broken model is a clear error now,
	// not a sidecar that keeps dying.
	if _, err := models.Load(spec); err != nil {
		return nil, nil, fmt.Errorf("model %s: %v", f.model, err)
	}
	args := []string{"tlc", "serve", "--model", f.model}
	if f.modelConfig != "" {
		args = append(args, "--config", f.modelConfig)
	}
	for _, c := range consts {
		args = append(args, "--const", c)
	}
	p, err := sidecar.Launch(context.Background(), sidecar.LaunchOptions{Args: args, Stderr: os.Stderr})
	if err != nil {
		return nil, nil, fmt.Errorf("starting the model engine: %v", err)
	}
	logger.Debug("model sidecar started", "pid", p.PID())
	return p, func() {
		if n := p.Restarts(); n > 0 {
			logger.Info("the model sidecar was restarted", "restarts", n)
		}
		p.Close()
	}, nil
}

// embeddedModel reports whether name names a model shipped in the binary.
func embeddedModel(name string) bool {
	for _, e := range models.Embedded() {
		if name == e || name+".tla" == e {
			return true
		}
	}
	return false
}

// writeHeapProfile writes the heap profile as of the last garbage
// collection (gc: collect first, for the live heap now).
func writeHeapProfile(path string, gc bool) error {
	pf, err := os.Create(path)
	if err != nil {
		return err
	}
	defer pf.Close()
	if gc {
		runtime.GC()
	}
	return pprof.WriteHeapProfile(pf)
}
