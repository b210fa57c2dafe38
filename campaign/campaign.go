package campaign

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/modelfuzz/modelfuzz/corpus"
	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/guidance"
	"github.com/modelfuzz/modelfuzz/models"
	"github.com/modelfuzz/modelfuzz/record"
	"github.com/modelfuzz/modelfuzz/schedule"
	"github.com/modelfuzz/modelfuzz/tlc/sidecar"
)

// Hooks are how the edges (a terminal, a log) watch a running campaign.
type Hooks struct {
	Logger   hclog.Logger
	Progress func(fuzzer.Stats)
	Logf     func(format string, args ...any)
}

// Campaign is a campaign ready to run: its system, its store, its model
// engine and its loop, assembled from Settings.
type Campaign struct {
	Settings *Settings
	System   *System
	Store    *corpus.Store
	// Continued is true when the corpus already held this campaign.
	Continued bool

	fz      *fuzzer.Fuzzer
	online  *guidance.Online   // the online strategy, if it is one
	learn   *guidance.Learning // the learning strategy, if it is one
	mapper  schedule.Mapper
	logger  hclog.Logger
	closers []func() error // run in reverse order by Close
}

// Prepare assembles the campaign s describes: it validates the settings,
// builds the system and its input generator, opens the corpus (refusing
// to continue a campaign with other stored settings), starts the model
// engine and the measures, and makes the loop. given reports whether a
// flag was set on the command line (defaults that depend on the system
// apply only to flags not given). On error, nothing is left open.
func Prepare(s *Settings, given func(flag string) bool, h Hooks) (*Campaign, error) {
	if h.Logger == nil {
		h.Logger = hclog.NewNullLogger()
	}
	c := &Campaign{Settings: s, logger: h.Logger}
	if err := c.prepare(given, h); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func (c *Campaign) prepare(given func(flag string) bool, h Hooks) (err error) {
	s := c.Settings
	// The settings alone are checked before anything is opened: a bad
	// command line stores nothing.
	if err := s.Validate(given); err != nil {
		return err
	}
	if err := s.chooseSystem(given); err != nil {
		return err
	}
	if c.System, err = s.System.Open(h.Logger); err != nil {
		return err
	}
	c.closers = append(c.closers, func() error { c.System.Close(); return nil })
	lines, err := c.lineCoverage()
	if err != nil {
		return err
	}
	if err := c.fitSystem(); err != nil {
		return err
	}
	if err := c.prepareModel(); err != nil {
		return err
	}
	waypoints, modelStates, err := c.learningModel()
	if err != nil {
		return err
	}
	gen, err := c.openStoreAndGenerator(given)
	if err != nil {
		return err
	}
	opt, err := c.options(lines != nil)
	if err != nil {
		return err
	}
	opt.Progress, opt.Logf = h.Progress, h.Logf
	if h.Progress != nil && c.Checks() != nil {
		opt.Progress = func(st fuzzer.Stats) {
			st.Checks = c.Checks()
			h.Progress(st)
		}
	}
	var fac schedule.Factory = c.System
	if lines != nil {
		fac = lines
	}
	if err := c.onlineStrategy(&opt, fac, waypoints, modelStates); err != nil {
		return err
	}
	if err := c.generateInputs(); err != nil {
		return err
	}
	var store record.Store = c.Store
	if s.Join != "" {
		if store, err = c.joinHub(&opt); err != nil {
			return err
		}
	}
	c.fz, err = fuzzer.New(opt, fac, gen, store)
	return err
}

// lineCoverage is the system recording the lines every execution covers:
// measured for every strategy in a coverage build, for the adapters whose
// system runs in this process (nil otherwise).
func (c *Campaign) lineCoverage() (schedule.Factory, error) {
	s, ad := c.Settings, c.System.Adapter
	var lines schedule.Factory
	var err error
	if ad.OwnLines && s.Strategy == "line" {
		rl, ok := c.System.Factory.(interface{ RecordLines(io.Writer) error })
		if !ok {
			return nil, fmt.Errorf("--strategy line: adapter %s's system cannot record its lines", ad.Name)
		}
		if err := rl.RecordLines(os.Stderr); err != nil {
			return nil, fmt.Errorf("--strategy line: %v", err)
		}
		return c.System, nil
	}
	if ad.LineCoverage {
		lines, err = guidance.LineCoverage(c.System)
		if err != nil && s.Strategy == "line" {
			return nil, fmt.Errorf("--strategy line needs a coverage build of modelfuzz: make cover, then run ./modelfuzz-cover (%v)", err)
		}
	} else if s.Strategy == "line" {
		return nil, fmt.Errorf("--strategy line: adapter %s has no line coverage (its system is not instrumented; etcdraft is)", ad.Name)
	}
	if lines != nil && (guidance.IsOnline(s.Strategy) || guidance.IsLearning(s.Strategy)) {
		// The line counters wrap Execute only; an online strategy steps
		// the system itself.
		c.logger.Info("the online strategies do not measure lines_covered", "strategy", s.Strategy)
		lines = nil
	}
	return lines, nil
}

// prepareModel checks the campaign's model against its system and loads
// what measuring with it needs: the mapper and the model's constants, or
// what validating the system's own trace needs. The model, its cfg and the
// reference views are loaded before the corpus is opened: a cfg that does
// not load must not leave a campaign stored with it.
func (c *Campaign) prepareModel() (err error) {
	s, ad := c.Settings, c.System.Adapter
	if len(s.KnownFiles) > 0 && (s.Model == "" || c.System.TraceSpec == nil) {
		return fmt.Errorf("--known lists known disagreements of a trace spec with the system: it needs --model etcdraft.tla")
	}
	if s.Model == "" {
		return c.checkReferenceViews()
	}
	if st, err := os.Stat(s.Model); (err != nil || st.IsDir()) && IsEmbeddedModel(s.Model) && trimTLA(s.Model) != trimTLA(ad.Model) {
		return fmt.Errorf("adapter %s maps its executions onto %s, not %s (choose the adapter with --adapter, or give a model file of your own)", ad.Name, ad.Model, s.Model)
	}
	if c.System.TraceSpec != nil {
		if err := c.prepareTraceSpec(); err != nil {
			return err
		}
	} else if c.mapper, s.ModelConsts, err = c.System.Mapper(); err != nil {
		return err
	}
	if c.mapper != nil {
		spec := models.Spec{Model: s.Model, Config: s.ModelConfig, Consts: s.ModelConsts}
		if _, err := models.Load(spec); err != nil {
			return modelError(spec.Model, err)
		}
	}
	return c.checkReferenceViews()
}

// learningModel loads what a learning strategy learns over besides the
// system: the model's states (--rl-state model) and its waypoints.
func (c *Campaign) learningModel() (*guidance.Waypoints, *guidance.ModelStates, error) {
	s := c.Settings
	spec := models.Spec{Model: s.Model, Config: s.ModelConfig, Consts: s.ModelConsts}
	var modelStates *guidance.ModelStates
	if s.RLState == "model" {
		if c.mapper == nil {
			return nil, nil, fmt.Errorf("--rl-state model needs a model whose states are simulated from mapped actions (--model raft.tla or microbench.tla)")
		}
		sm, err := loadSimulator(spec)
		if err != nil {
			return nil, nil, err
		}
		modelStates = &guidance.ModelStates{Mapper: c.mapper, Sim: sm}
	}
	if s.Waypoints == "" {
		return nil, modelStates, nil
	}
	if c.mapper == nil {
		return nil, nil, fmt.Errorf("--waypoints needs a model whose states are simulated from mapped actions (--model raft.tla or microbench.tla)")
	}
	waypoints, err := LoadWaypoints(spec, s.Waypoints, c.mapper)
	if err != nil {
		return nil, nil, err
	}
	return waypoints, modelStates, nil
}

// openStoreAndGenerator opens the corpus and makes the generator of the
// campaign's inputs. The actions are checked before the corpus is opened
// (a bad command line leaves no corpus behind), and again when a
// continued campaign brings its own.
func (c *Campaign) openStoreAndGenerator(given func(string) bool) (*schedule.Generator, error) {
	s, spec := c.Settings, c.System.Spec()
	actions := s.Actions
	if err := c.refuseUnmappable(); err != nil {
		return nil, err
	}
	gen, err := schedule.NewGenerator(spec, s.Shape)
	if err != nil {
		return nil, err
	}
	if err := c.openStore(given); err != nil {
		return nil, err
	}
	if s.Actions != actions {
		if err := c.refuseUnmappable(); err != nil {
			return nil, err
		}
		if gen, err = schedule.NewGenerator(spec, s.Shape); err != nil {
			return nil, err
		}
	}
	return gen, nil
}

// onlineStrategy makes the strategy that builds its inputs online, if the
// campaign's is one: a learning strategy (with what it learns over) or
// another online one.
func (c *Campaign) onlineStrategy(opt *fuzzer.Options, fac schedule.Factory, waypoints *guidance.Waypoints, modelStates *guidance.ModelStates) (err error) {
	s := c.Settings
	if guidance.IsLearning(s.Strategy) {
		h := schedule.Harness{Shape: s.Shape, Timeouts: s.OnlineParams.Timeouts, Faults: s.OnlineParams.HarnessFaults()}
		if c.learn, err = guidance.NewLearning(s.Strategy, guidance.LearningParams{}, h, waypoints); err != nil {
			return err
		}
		c.learn.Model = modelStates
		opt.Online, opt.Learner = c.learn, c.learn
	} else if guidance.IsOnline(s.Strategy) {
		h := schedule.Harness{Shape: s.Shape}
		if c.online, err = guidance.NewOnline(s.Strategy, s.OnlineParams, h, fac, s.Seed); err != nil {
			return err
		}
		opt.Online = c.online
		// Model guidance whose fresh inputs the online strategy builds.
		opt.OnlineSeeds = guidance.IsModelSeeded(s.Strategy) && !guidance.IsModelTails(s.Strategy) && !guidance.IsModelGenome(s.Strategy)
		// Or of the tails of some of the pool's mutants.
		opt.OnlineTails = guidance.IsModelTails(s.Strategy)
		// Or of every input, from a genome of its choices that the model's
		// states keep and mutate.
		opt.OnlineGenomes = guidance.IsModelGenome(s.Strategy)
	}
	return nil
}

// openStore opens the corpus and stores the settings of a new campaign or
// checks those of a continued one.
func (c *Campaign) openStore(given func(string) bool) error {
	s := c.Settings
	store, err := corpus.Open(s.CorpusDir, corpus.Options{Fresh: s.Fresh})
	if err != nil {
		return err
	}
	c.Store = store
	c.closers = append(c.closers, store.Close)
	var old Settings
	found, err := store.Campaign(&old)
	if err != nil {
		return err
	}
	if s.Pipeline == 0 {
		// Not given: a continued campaign keeps its own; a new one batches
		// at least as many inputs as run at once.
		s.Pipeline = max(8, s.Parallel)
		if found && old.Pipeline > 0 {
			s.Pipeline = old.Pipeline
		}
	}
	if s.Parallel > s.Pipeline {
		c.logger.Warn("only --pipeline inputs run at once", "parallel", s.Parallel, "pipeline", s.Pipeline)
	}
	if !found {
		if s.Join != "" {
			// Stored once the hub has taken them (joinHub): a worker the
			// hub refuses leaves no campaign behind in its corpus.
			return nil
		}
		return store.SetCampaign(s)
	}
	if old.Version < 2 && old.Actions == "" {
		// Campaigns stored before --actions used the first five actions.
		old.Actions = actionsText(schedule.BaseActions)
	}
	if !given("actions") {
		s.Actions = old.Actions // a continued campaign keeps its own
	}
	if old.Energy == "" {
		old.Energy = fuzzer.EnergyFixed // stored before the choice
	}
	if !given("energy") {
		s.Energy = old.Energy
	}
	if !given("fresh-share") {
		s.FreshShare = old.FreshShare
	}
	if !given("stack") {
		s.Stack = old.Stack // 0 when stored before the choice: one round
	}
	if old.Faults == 0 && (guidance.IsOnline(old.Strategy) || guidance.IsLearning(old.Strategy)) {
		old.Faults = -1 // stored before the harness injected faults: it ran with none
	}
	if !given("faults") {
		s.Faults = old.Faults // a continued campaign keeps its own
	}
	if diff := old.Diff(s); diff != "" {
		return fmt.Errorf("corpus %s holds a campaign with %s; run with the same settings to continue it, or add --fresh to start over", s.CorpusDir, diff)
	}
	c.Continued = true
	c.logger.Info("continuing campaign", "corpus", s.CorpusDir, "created", old.Created)
	// The stored settings again, as they are: the newest table then holds
	// a copy, which a repair keeps when the oldest table is damaged.
	var raw json.RawMessage
	if _, err := store.Campaign(&raw); err != nil {
		return err
	}
	return store.SetCampaign(raw)
}

// options assembles the loop's options: the measures (traces always,
// lines in a coverage build, the model with one), the guide, and the
// series and heap-profile hooks.
func (c *Campaign) options(lines bool) (fuzzer.Options, error) {
	s := c.Settings
	opt := fuzzer.Options{Params: s.Params, Limits: s.Limits, Strategy: s.Strategy,
		Measures: []fuzzer.Measure{guidance.TraceMeasure{}}, OrderMutants: s.Strategy == guidance.StrategyModelReorder}
	if s.Strategy == "trace" {
		opt.Guide = guidance.TraceMeasure{}
	}
	if lines {
		opt.Measures = append(opt.Measures, guidance.UnitsMeasure{})
		if s.Strategy == "line" {
			opt.Guide = guidance.UnitsMeasure{}
		}
		// Go's counters are global to the process; a system that records
		// its own lines (OwnLines) keeps each execution's apart.
		if !c.System.Adapter.OwnLines {
			if s.Parallel > 1 {
				c.logger.Info("line coverage is measured: executions run one at a time (the coverage counters are global to the process)")
			}
			opt.Parallel = 1
		}
	}
	if guidance.IsLearning(s.Strategy) {
		// Each episode learns from every episode before it, in order: one
		// runs at a time, so that the campaign does not depend on timing.
		if s.Parallel > 1 {
			c.logger.Info("a learning strategy runs one episode at a time", "strategy", s.Strategy)
		}
		opt.Parallel = 1
	}
	if err := c.modelMeasures(&opt); err != nil {
		return opt, err
	}
	return opt, c.observers(&opt)
}

// modelMeasures adds the measures of the campaign's model to opt: the
// maintainers' trace spec, or the model's states and its reference views,
// the guide of --strategy model.
func (c *Campaign) modelMeasures(opt *fuzzer.Options) error {
	s := c.Settings
	if c.System.TraceSpec != nil && s.Model != "" {
		sm, err := newSpecMeasure(s.Model, s.ModelConfig, s.KnownFiles, c.logger)
		if err != nil {
			return err
		}
		c.closers = append(c.closers, sm.Close)
		opt.Measures = append(opt.Measures, sm)
		if modelGuided(s.Strategy) {
			opt.Guide = sm
		}
	}
	if c.mapper != nil {
		eng := s.Engine
		if eng.DiffDir == "" && s.CorpusDir != "" {
			eng.DiffDir = filepath.Join(s.CorpusDir, "tlc-diff")
		}
		simulator, stop, err := StartModelEngine(models.Spec{Model: s.Model, Config: s.ModelConfig, Consts: s.ModelConsts}, eng, c.logger)
		if err != nil {
			return err
		}
		c.closers = append(c.closers, func() error { stop(); return nil })
		mm := &guidance.ModelMeasure{Mapper: c.mapper, Sim: simulator, Spec: c.System.Spec()}
		if eng.Mode == "java" || eng.Mode == "diff" {
			// A killed or hung JVM is restarted within the request that
			// met it: TLC's request timeout (10 minutes), a JVM's start
			// and a cold TLC on a loaded machine take more than the
			// native engine's minute.
			mm.Timeout = 30 * time.Minute
		}
		opt.Measures = append(opt.Measures, mm)
		if modelGuided(s.Strategy) {
			opt.Guide = mm
		}
		for _, v := range splitList(s.ReferenceViews) {
			// In process: a reference is measured, never the guide.
			vs, err := loadSimulator(models.Spec{Model: s.Model, Config: s.ModelConfig, Consts: s.ModelConsts, View: v})
			if err != nil {
				return fmt.Errorf("--reference-view %s: %v", v, err)
			}
			opt.Measures = append(opt.Measures, &guidance.ModelMeasure{Mapper: c.mapper, Sim: sidecar.InProc{Simulator: vs}, View: v})
		}
	}
	return nil
}

// observers sets the hooks of --series (coverage over iterations) and
// --memprofile (a heap profile at the largest heap a snapshot saw).
func (c *Campaign) observers(opt *fuzzer.Options) error {
	s := c.Settings
	if s.Series != "" {
		sf, err := os.Create(s.Series)
		if err != nil {
			return fmt.Errorf("--series: %v", err)
		}
		bw := bufio.NewWriter(sf)
		c.closers = append(c.closers, sf.Close, bw.Flush)
		enc := json.NewEncoder(bw)
		opt.ObserveEvery = s.SeriesEvery
		opt.Observe = func(iter int64, seconds float64, cov map[string]int) {
			enc.Encode(SeriesPoint{Iteration: iter, Seconds: math.Round(seconds*1000) / 1000, Coverage: cov})
		}
	}
	if s.MemProfile != "" {
		var peak int64
		opt.OnSnapshot = func(r *record.StatsRecord) {
			if r.HeapBytes > peak {
				peak = r.HeapBytes
				if err := writeHeapProfile(s.MemProfile, false); err != nil {
					c.logger.Error("--memprofile", "error", err)
				}
			}
		}
	}
	return nil
}

// checkReferenceViews checks that every --reference-view names a
// definition the model can use as its VIEW.
func (c *Campaign) checkReferenceViews() error {
	s := c.Settings
	if s.ReferenceViews == "" {
		return nil
	}
	if c.mapper == nil {
		return fmt.Errorf("--reference-view needs a model whose states are simulated from mapped actions (--model raft.tla or microbench.tla, not %q)", s.Model)
	}
	for _, v := range splitList(s.ReferenceViews) {
		if _, err := models.Load(models.Spec{Model: s.Model, Config: s.ModelConfig, Consts: s.ModelConsts, View: v}); err != nil {
			return fmt.Errorf("--reference-view %s: %v", v, err)
		}
	}
	return nil
}

// splitList splits a comma-separated list, dropping blanks.
func splitList(list string) []string {
	var out []string
	for _, x := range strings.Split(list, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// SeriesPoint is one line of --series: coverage after an iteration, and
// the fuzzing time it took to get there (over all sessions).
type SeriesPoint struct {
	Iteration int64          `json:"iteration"`
	Seconds   float64        `json:"seconds"`
	Coverage  map[string]int `json:"coverage"`
}

// Run fuzzes until the budget is used up or ctx is cancelled (see
// fuzzer.Fuzzer.Run).
func (c *Campaign) Run(ctx context.Context) (*fuzzer.Summary, error) {
	sum, err := c.fz.Run(ctx)
	if c.Settings.MemProfile != "" && c.Settings.StatsEvery == 0 {
		if err := writeHeapProfile(c.Settings.MemProfile, true); err != nil {
			c.logger.Error("--memprofile", "error", err)
		}
		runtime.KeepAlive(c.fz) // the campaign's memory is what the profile is for
	}
	if sum != nil && err != nil {
		sum.StoppedEarly = "by the error below"
	}
	return sum, err
}

// OnlineReport lists the quantities an online strategy's guarantee is
// stated in (nil for the other strategies).
func (c *Campaign) OnlineReport() []guidance.Quantity {
	if c.learn != nil {
		return c.learn.Report()
	}
	if c.online == nil {
		return nil
	}
	return c.online.Report()
}

// Unmapped counts, by type, the events the model's mapper does not turn
// into model actions (nil without a model or a mapper that counts them).
func (c *Campaign) Unmapped() map[string]int {
	if u, ok := c.mapper.(interface{ Unmapped() map[string]int }); ok {
		return u.Unmapped()
	}
	return nil
}

// Checks counts the system's own oracle checks by name (etcd's: the
// histories found linearizable, not, or undecided), nil when the system
// does not count them.
func (c *Campaign) Checks() map[string]int64 {
	if k, ok := c.System.Factory.(interface{ Checks() map[string]int64 }); ok {
		return k.Checks()
	}
	return nil
}

// Close stops the model engine, closes the corpus and stops the system.
// Its error is the corpus's when it could not write its last changes
// (closing is bounded: corpus.Store.Close), or the series file's.
func (c *Campaign) Close() error {
	var errs []error
	for i := len(c.closers) - 1; i >= 0; i-- {
		errs = append(errs, c.closers[i]())
	}
	c.closers = nil
	return errors.Join(errs...)
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

// defaultActions are the actions of a new campaign: every one the system
// supports, less those the campaign's model cannot map.
func (c *Campaign) defaultActions(spec *schedule.SystemSpec) string {
	var use []schedule.Action
	for _, a := range spec.Actions {
		if ts := c.System.TraceSpec; ts != nil {
			if _, ok := ts.Unmappable[a]; !ok {
				use = append(use, a)
			}
			continue
		}
		if c.Settings.Model == "" || !slices.Contains(c.System.Unmappable, a) {
			use = append(use, a)
		}
	}
	return actionsText(use)
}

// prepareTraceSpec checks what validating the system's own trace against
// etcd raft's trace spec needs: the spec in the module cache and an
// engine in this process (--tlc does not apply).
func (c *Campaign) prepareTraceSpec() error {
	s := c.Settings
	spec := models.EtcdraftTraceSpec(s.Model)
	if _, err := os.Stat(spec); err != nil {
		return fmt.Errorf("--model %s: the trace spec %s is not there (the tla/ folder of %s in the Go module cache; run go mod download %s)", s.Model, spec, models.RaftModule, models.RaftModule)
	}
	if s.Engine.URL != "" {
		return fmt.Errorf("--model %s validates traces in this process: --tlc-url is not supported with it", s.Model)
	}
	for _, f := range s.KnownFiles {
		if _, err := guidance.ReadKnown(f); err != nil {
			return err
		}
	}
	return nil
}

// refuseUnmappable refuses, by name, the actions the model cannot map.
func (c *Campaign) refuseUnmappable() error {
	if c.Settings.Model == "" {
		return nil
	}
	if ts := c.System.TraceSpec; ts != nil {
		use, err := schedule.ParseActions(c.Settings.Actions)
		if err != nil {
			return fmt.Errorf("--actions: %v", err)
		}
		for _, a := range use {
			if why, ok := ts.Unmappable[a]; ok {
				return fmt.Errorf("%s cannot validate the traces of action %s: %s; leave it out of --actions, or run without --model", filepath.Base(c.Settings.Model), a, why)
			}
		}
		return nil
	}
	use, err := schedule.ParseActions(c.Settings.Actions)
	if err != nil {
		return fmt.Errorf("--actions: %v", err)
	}
	var bad []string
	for _, a := range use {
		if slices.Contains(c.System.Unmappable, a) {
			bad = append(bad, string(a))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("model %s cannot map the action(s) %s of adapter %s; leave them out of --actions, or run without --model",
			filepath.Base(c.Settings.Model), strings.Join(bad, ", "), c.System.Adapter.Name)
	}
	return nil
}

func actionsText(as []schedule.Action) string {
	s := make([]string, len(as))
	for i, a := range as {
		s[i] = string(a)
	}
	return strings.Join(s, ",")
}
