package campaign

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/internal/buildinfo"
	"github.com/modelfuzz/modelfuzz/internal/cmdline"
	"github.com/modelfuzz/modelfuzz/models"
	"github.com/modelfuzz/modelfuzz/schedule"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelfuzz/modelfuzz/guidance"
	"github.com/modelfuzz/modelfuzz/linecov"
	"github.com/modelfuzz/modelfuzz/report"
)

// Comparison is a comparison of strategies on one system: Runs campaigns
// of each strategy with the seeds Seed, Seed+1, ..., each a modelfuzz
// process of its own (so line coverage counters never mix).
type Comparison struct {
	System     SystemFlags
	SystemArgs []string // the adapter flags as given, passed to every campaign
	Model      string
	// ModelConfig is the model's cfg for every campaign ("" for MODEL.cfg).
	ModelConfig string
	Strategies  string // comma-separated
	Base        string // compared against every other strategy
	Runs        int
	Iterations  int64
	Parallel    int // campaigns at once
	Out         string
	Seed        uint64
	Points      int // coverage samples per campaign
	Steps       int
	Mutations   int
	// Energy, FreshShare, Stack and ReferenceViews are passed to every campaign
	// when set (run's flags of the same names).
	Energy         string
	FreshShare     float64
	Stack          int
	ReferenceViews string
	// Waypoints is passed to the learning strategies (run's --waypoints):
	// waypointrl learns to pass them, the others count the episodes that do.
	Waypoints string
	Keep      bool
	StopOnBug bool
	// Started, when set, is told how many campaigns will run; Done, when
	// set, is called as each one ends (err: it failed).
	Started func(campaigns int, strategies []string)
	Done    func(done, total int, strategy string, seed uint64, r *report.Run, err error)

	names []string // the strategies, parsed
}

// SeedPopulation is the campaigns' --seed-population (run's default): the
// first iterations, whose random inputs every strategy of one seed shares.
const SeedPopulation = 20

// compareJob is one campaign of a comparison.
type compareJob struct {
	strategy string
	seed     uint64
	dir      string
	args     []string
}

// validate checks the comparison's settings; it also checks that the
// adapter flags describe a valid system.
func (c *Comparison) validate() error {
	if c.Out == "" {
		return fmt.Errorf("compare needs --out DIR: where to write the results")
	}
	for _, n := range []struct {
		flag  string
		value int64
	}{{"--runs", int64(c.Runs)}, {"--iterations", c.Iterations}, {"--jobs", int64(c.Parallel)}, {"--points", int64(c.Points)}} {
		if n.value < 1 {
			return fmt.Errorf("%s must be at least 1, got %d", n.flag, n.value)
		}
	}
	// The settings every campaign is run with, checked once here rather
	// than by each campaign.
	switch {
	case c.Steps < 0 || c.Steps > schedule.MaxSteps:
		return fmt.Errorf("--steps %d: from 1 to %d steps an input (schedule.MaxSteps)", c.Steps, schedule.MaxSteps)
	case c.Mutations < 0:
		return fmt.Errorf("--mutations must not be negative, got %d", c.Mutations)
	case c.Energy != "" && c.Energy != fuzzer.EnergyFixed && c.Energy != fuzzer.EnergyRare && c.Energy != fuzzer.EnergyBandit:
		return fmt.Errorf("--energy must be %s, %s or %s, got %q", fuzzer.EnergyFixed, fuzzer.EnergyRare, fuzzer.EnergyBandit, c.Energy)
	case math.IsNaN(c.FreshShare) || c.FreshShare < 0 || c.FreshShare >= 1:
		return fmt.Errorf("--fresh-share must be in [0, 1), got %g", c.FreshShare)
	case c.Stack < 0 || c.Stack > fuzzer.MaxStack:
		return fmt.Errorf("--stack %d: from 0 to %d rounds of mutation (fuzzer.MaxStack)", c.Stack, fuzzer.MaxStack)
	}
	if err := cmdline.OutDir("--out", c.Out); err != nil {
		return err
	}
	if c.Model != "" && !models.IsEtcdraftSpec(c.Model) {
		// Every campaign would fail on it: refuse it once, here.
		if _, err := models.Source(c.Model); err != nil {
			return err
		}
	}
	ad, err := LookupAdapter(c.System.Adapter)
	if err != nil {
		return err
	}
	sys, err := c.System.Open(nil)
	if err != nil {
		return err
	}
	sys.Close()
	if c.names, err = parseStrategies(c.Strategies); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, s := range c.names {
		seen[s] = true
	}
	if len(c.names) < 2 {
		return fmt.Errorf("--strategies needs at least two strategies to compare, got %q", c.Strategies)
	}
	if !seen[c.Base] {
		return fmt.Errorf("--base %s is not one of --strategies %s", c.Base, strings.Join(c.names, ","))
	}
	if seen["waypointrl"] && c.Waypoints == "" {
		return fmt.Errorf("strategy waypointrl needs --waypoints FILE.tla[:DEF] and --model")
	}
	if c.Waypoints != "" && c.Model == "" {
		return fmt.Errorf("--waypoints needs --model (for this adapter: --model %s)", ModelHint(c.System.Adapter))
	}
	if (seen["model"] || seen[StrategyGenerated] || seen[guidance.StrategyModelReorder]) && c.Model == "" {
		return fmt.Errorf("strategies model, model-reorder and generated need --model (for this adapter: --model %s)", ModelHint(c.System.Adapter))
	}
	if seen["line"] && !ad.OwnLines {
		if !ad.LineCoverage {
			return fmt.Errorf("strategy line: adapter %s has no line coverage (etcdraft has)", c.System.Adapter)
		}
		if err := linecov.Available(); err != nil {
			return fmt.Errorf("strategy line needs the coverage build: make cover, then ./modelfuzz-cover compare ... (%v)", err)
		}
	}
	return nil
}

// parseStrategies splits a comma-separated list of strategies, dropping
// blanks and repeats; an unknown one is an error.
func parseStrategies(list string) ([]string, error) {
	var names []string
	seen := map[string]bool{}
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		if s == "" || seen[s] {
			continue
		}
		if _, err := guidance.LookupStrategy(s); err != nil {
			return nil, fmt.Errorf("unknown strategy %q in --strategies (known: %s)", s, guidance.StrategyNames())
		}
		seen[s] = true
		names = append(names, s)
	}
	return names, nil
}

// jobs are the campaigns of the comparison, strategy by strategy.
func (c *Comparison) jobs(runsDir string) []compareJob {
	common := append([]string(nil), c.SystemArgs...)
	common = append(common, "--adapter", c.System.Adapter)
	if c.Model != "" {
		common = append(common, "--model", c.Model, "--tlc", "inproc")
	}
	if c.ModelConfig != "" {
		common = append(common, "--model-config", c.ModelConfig)
	}
	if c.Steps > 0 {
		common = append(common, "--steps", strconv.Itoa(c.Steps))
	}
	if c.Mutations > 0 {
		common = append(common, "--mutations", strconv.Itoa(c.Mutations))
	}
	if c.Energy != "" {
		common = append(common, "--energy", c.Energy)
	}
	if c.FreshShare > 0 {
		common = append(common, "--fresh-share", strconv.FormatFloat(c.FreshShare, 'g', -1, 64))
	}
	if c.Stack > 0 {
		common = append(common, "--stack", strconv.Itoa(c.Stack))
	}
	if c.ReferenceViews != "" {
		common = append(common, "--reference-view", c.ReferenceViews)
	}
	every := max(1, c.Iterations/int64(c.Points))
	var jobs []compareJob
	for _, s := range c.names {
		for _, seed := range c.seeds() {
			dir := filepath.Join(runsDir, fmt.Sprintf("%s-%d", s, seed))
			args := append([]string{"run"}, common...)
			args = append(args, "--strategy", s, "--seed", strconv.FormatUint(seed, 10),
				"--iterations", strconv.FormatInt(c.Iterations, 10), "--corpus", filepath.Join(dir, "corpus"), "--fresh",
				"--series", filepath.Join(dir, "series.jsonl"), "--series-every", strconv.FormatInt(every, 10),
				"--parallel", "1", "--minimize=false", "--json", "--log-level", "error",
				"--seed-population", strconv.Itoa(SeedPopulation))
			if c.StopOnBug {
				args = append(args, "--stop-on-bug")
			}
			if c.Waypoints != "" && guidance.IsLearning(s) {
				args = append(args, "--waypoints", c.Waypoints)
			}
			jobs = append(jobs, compareJob{strategy: s, seed: seed, dir: dir, args: args})
		}
	}
	return jobs
}

func (c *Comparison) seeds() []uint64 {
	var seeds []uint64
	for k := 0; k < c.Runs; k++ {
		seeds = append(seeds, c.Seed+uint64(k))
	}
	return seeds
}

// Run runs every campaign, Parallel at once, and analyzes the results
// (report.Analyze). A cancelled ctx stops it with an error; the finished
// campaigns stay in Out/runs.
func (c *Comparison) Run(ctx context.Context) (*report.Comparison, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("cannot find the modelfuzz executable to run campaigns: %v", err)
	}
	runsDir := filepath.Join(c.Out, "runs")
	if err := os.MkdirAll(runsDir, 0o755); err != nil {
		return nil, err
	}
	jobs := c.jobs(runsDir)
	if c.Started != nil {
		c.Started(len(jobs), c.names)
	}
	results := make([]*report.Run, len(jobs))
	errs := make([]error, len(jobs))
	var mu sync.Mutex
	done := 0
	sem := make(chan struct{}, c.Parallel)
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
			results[i], errs[i] = runCompareJob(ctx, exe, &jobs[i], c.Keep)
			mu.Lock()
			done++
			if c.Done != nil {
				c.Done(done, len(jobs), jobs[i].strategy, jobs[i].seed, results[i], errs[i])
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("compare interrupted; the finished campaigns are in %s", runsDir)
			}
			return nil, fmt.Errorf("campaign %s seed %d failed: %v (its output is in %s)", jobs[i].strategy, jobs[i].seed, err, jobs[i].dir)
		}
	}
	rc := &report.Comparison{Adapter: c.System.Adapter, Model: c.Model, Iterations: c.Iterations, Seeds: c.seeds(),
		SeedPopulation: SeedPopulation, Created: time.Now().UTC().Format(time.RFC3339),
		SystemFlags: c.SystemArgs, Tool: buildinfo.Read().String()}
	for _, s := range c.names {
		st := report.Strategy{Name: s}
		for i := range jobs {
			if jobs[i].strategy == s {
				st.Runs = append(st.Runs, *results[i])
			}
		}
		rc.Strategies = append(rc.Strategies, st)
	}
	if err := report.Analyze(rc, c.Base); err != nil {
		return nil, err
	}
	return rc, nil
}

// runCompareJob runs one campaign as a modelfuzz process and reads its
// summary and coverage series.
func runCompareJob(ctx context.Context, exe string, j *compareJob, keep bool) (*report.Run, error) {
	if err := os.MkdirAll(j.dir, 0o755); err != nil {
		return nil, err
	}
	seriesPath := filepath.Join(j.dir, "series.jsonl")
	var out bytes.Buffer
	var resumed string
	var earlier []byte // the series of the failed process, when it was continued
	var cpu float64    // of every attempt
	args := j.args
	for attempt := 0; ; attempt++ {
		c := exec.CommandContext(ctx, exe, args...)
		// A stopped comparison interrupts its campaigns as Ctrl-C would,
		// so that they stop the systems they run (real processes, for
		// the process and redisraft adapters); SIGKILL only if they do
		// not exit.
		c.Cancel = func() error { return c.Process.Signal(os.Interrupt) }
		c.WaitDelay = 30 * time.Second
		var errb bytes.Buffer
		out.Reset()
		c.Stdout, c.Stderr = &out, &errb
		c.Env = append(os.Environ(), "GOCOVERDIR="+os.TempDir()) // a coverage build would warn without it
		err := c.Run()
		if ps := c.ProcessState; ps != nil {
			cpu += (ps.UserTime() + ps.SystemTime()).Seconds()
		}
		stderrName := "stderr.txt"
		if attempt > 0 {
			stderrName = fmt.Sprintf("stderr.%d.txt", attempt)
		}
		os.WriteFile(filepath.Join(j.dir, stderrName), errb.Bytes(), 0o644)
		os.WriteFile(filepath.Join(j.dir, "summary.json"), out.Bytes(), 0o644)
		if err == nil {
			break
		}
		why := fmt.Sprintf("%v: %s", err, lastLine(errb.String()))
		// A campaign is resumable: one whose process failed (a machine so
		// loaded that its corpus watch gave up, an out-of-memory kill) is
		// continued once from what its corpus kept, instead of losing the
		// whole comparison. Its result says so (Run.Resumed).
		if ctx.Err() != nil || attempt > 0 || !hasCorpus(filepath.Join(j.dir, "corpus")) {
			if attempt > 0 {
				return nil, fmt.Errorf("%s (after continuing it once from its corpus, when it had failed with: %s)", why, resumed)
			}
			return nil, fmt.Errorf("%s", why)
		}
		resumed = why
		earlier, _ = os.ReadFile(seriesPath)
		args = slices.DeleteFunc(slices.Clone(j.args), func(a string) bool { return a == "--fresh" })
	}
	if earlier != nil {
		if err := mergeSeries(seriesPath, earlier); err != nil {
			return nil, err
		}
	}
	r, err := jobRun(j, lastLine(out.String()), resumed)
	if err != nil {
		return nil, err
	}
	// The CPU seconds from the process's rusage: the campaign's own, the
	// engine's in process included, and nothing of the other campaigns.
	r.CPUSeconds = math.Round(cpu*1000) / 1000
	r.SetFirstBugCPU(slices.Contains(j.args, "--stop-on-bug") && r.FirstBug != nil && *r.FirstBug == r.Iterations)
	if !keep {
		os.RemoveAll(filepath.Join(j.dir, "corpus"))
	}
	return r, nil
}

// jobRun is the result of a campaign of the comparison: its summary, the
// last line of its output (run --json), and its coverage series.
func jobRun(j *compareJob, summary, resumed string) (*report.Run, error) {
	var sum OutcomeJSON
	if err := json.Unmarshal([]byte(summary), &sum); err != nil {
		return nil, fmt.Errorf("reading its summary: %v", err)
	}
	r := &report.Run{Seed: j.seed, Iterations: sum.Iterations, Seconds: sum.DurationS, Resumed: resumed,
		Final: map[string]float64{"traces": float64(sum.UniqueTraces)}, Coverage: map[string][]report.Point{}}
	if sum.ModelStates != nil {
		r.Final["model"] = float64(*sum.ModelStates)
	}
	if sum.LinesCovered != nil {
		r.Final["lines"] = float64(*sum.LinesCovered)
	}
	for m, n := range sum.Coverage {
		if strings.HasPrefix(m, guidance.MeasureView) {
			r.Final[m] = float64(n) // reference abstractions
		}
	}
	for _, b := range sum.Bugs {
		r.Bugs = append(r.Bugs, report.BugHit{Signature: b.Signature, Kind: b.Kind, FirstIteration: b.FirstIteration})
	}
	r.FirstBug = report.FirstBugAfter(r.Bugs, 0)
	r.FirstGuidedBug = report.FirstBugAfter(r.Bugs, SeedPopulation)
	if err := readSeries(filepath.Join(j.dir, "series.jsonl"), r); err != nil {
		return nil, err
	}
	return r, nil
}

// hasCorpus reports whether a failed campaign left a corpus to continue.
func hasCorpus(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "MODELFUZZ"))
	return err == nil
}

// mergeSeries puts the points of a failed process's series (earlier)
// before those its continuation wrote to path: the continuation starts
// its file afresh, at the iteration its corpus had committed.
func mergeSeries(path string, earlier []byte) error {
	later, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading its coverage series: %v", err)
	}
	first := int64(-1)
	for _, line := range bytes.Split(later, []byte("\n")) {
		var p SeriesPoint
		if len(bytes.TrimSpace(line)) > 0 && json.Unmarshal(line, &p) == nil {
			first = p.Iteration
			break
		}
	}
	var merged bytes.Buffer
	for _, line := range bytes.Split(earlier, []byte("\n")) {
		var p SeriesPoint
		if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &p) != nil {
			continue // a line the failed process left half written
		}
		if first < 0 || p.Iteration < first {
			merged.Write(line)
			merged.WriteByte('\n')
		}
	}
	merged.Write(later)
	return os.WriteFile(path, merged.Bytes(), 0o644)
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
		var p SeriesPoint
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		for m, v := range p.Coverage {
			if _, ok := r.Final[m]; ok {
				r.Coverage[m] = append(r.Coverage[m], report.Point{Iteration: p.Iteration, Value: float64(v), Seconds: p.Seconds})
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
