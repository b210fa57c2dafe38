package campaign

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/modelfuzz/modelfuzz/guidance"
	"github.com/modelfuzz/modelfuzz/mapper"
	"github.com/modelfuzz/modelfuzz/models"
	"github.com/modelfuzz/modelfuzz/record"
	"github.com/modelfuzz/modelfuzz/schedule"
	"github.com/modelfuzz/modelfuzz/tlc/sidecar"
	"github.com/modelfuzz/modelfuzz/tlc/sim"
)

// GenerateOptions bound the generation of inputs from the model.
type GenerateOptions struct {
	// MaxDepth and MaxStates bound the search of the model (as
	// models.SizeOptions); Workers is its parallelism.
	MaxDepth  int
	MaxStates int64
	Workers   int
	// Limit is the most targets tried on the system (0: all), shortest
	// paths first.
	Limit int
	// Consts set constants of the search only, NAME=VALUE, after the
	// campaign's: tighter bounds of the cfg's CONSTRAINT (MaxRequests=1).
	// Keys are the campaign's only if the VIEW does not read them.
	Consts []string
	// SearchConfig and SearchExtend, when set, search the model with
	// this cfg instead of the campaign's, and with this module that
	// EXTENDS the model (its operators for the cfg's CONSTRAINT and
	// ACTION_CONSTRAINT): the states a system can reach, when the model
	// allows more. The cfg's VIEW must be the campaign's, so that the keys
	// are its coverage's.
	SearchConfig, SearchExtend string
	// Alternatives is how many more paths, to other concrete states of a
	// target's view, are tried on the system when the first does not
	// reach it (in the order the search met them).
	Alternatives int
}

// Check refuses bounds generate cannot search with: the search of the
// model must be bounded, and no bound negative.
func (o GenerateOptions) Check() error {
	if o.MaxDepth < 1 && o.MaxStates < 1 {
		return fmt.Errorf("--max-depth or --max-states is required: the search of the model must be bounded")
	}
	if o.MaxDepth < 0 || o.MaxStates < 0 || o.Limit < 0 || o.Alternatives < 0 || o.Workers < 1 {
		return fmt.Errorf("--max-depth, --max-states, --limit and --alternatives must not be negative, --workers at least 1")
	}
	return nil
}

// GeneratedInput is one target, the schedule made for it and what the
// system did with it.
type GeneratedInput struct {
	Key     string                 `json:"key"` // 16 hex digits, as the campaign's coverage
	Path    []schedule.ModelAction `json:"path"`
	Input   *schedule.Input        `json:"input"`
	Reached bool                   `json:"reached"`
	// Attempts is how many of the target's paths were run (the first,
	// then alternatives until one reached it); Path and Input are the
	// one that reached it, or the first.
	Attempts int `json:"attempts"`
	// New: the execution reached an abstract state the campaign lacked
	// (its target or another).
	New     bool                 `json:"new"`
	Skipped []string             `json:"skipped,omitempty"` // the actions the system could not be made to take, and why
	Closest *UnreachedDifference `json:"closest,omitempty"` // unreached: the execution's state nearest the target
	// Failures are what the system's oracles and the campaign's model
	// measure (divergences, model invariants) reported: bugs, as in a
	// campaign.
	Failures []schedule.Failure `json:"failures,omitempty"`
	Target   map[string]string  `json:"-"`
}

// GeneratedBug is a failure a generated schedule found.
type GeneratedBug struct {
	Kind      schedule.FailureKind `json:"kind"`
	Signature string               `json:"signature"`
	Message   string               `json:"message"`
	Target    string               `json:"target"` // the key of the first target whose schedule found it
	Hits      int                  `json:"hits"`
}

// Cause is one reason why targets were not reached, and how many.
type Cause struct {
	Cause   string `json:"cause"`
	Targets int    `json:"targets"`
}

// UnreachedDifference is how the model state an execution got nearest to
// differs from its target: the variables whose values differ.
type UnreachedDifference struct {
	Vars []string          `json:"vars"`
	Want map[string]string `json:"want"`
	Got  map[string]string `json:"got"`
}

// UnreachedGroup is the targets whose nearest states differ from them in
// the same variables.
type UnreachedGroup struct {
	Vars    []string `json:"vars"`
	Targets int      `json:"targets"`
	// Example is one of them, the one with the shortest path.
	Example *GeneratedInput `json:"example"`
}

// GenerateResult is what Generate found and did.
type GenerateResult struct {
	Model    string `json:"model"`
	Config   string `json:"config"`
	States   int64  `json:"states"`   // distinct model states the search reached
	Abstract int    `json:"abstract"` // abstract states (VIEW values) among them
	Depth    int    `json:"depth"`
	Complete bool   `json:"complete"`
	Covered  int    `json:"covered"` // abstract states the campaign reached
	Targets  int    `json:"targets"` // abstract states the search reached and the campaign did not
	Tried    int    `json:"tried"`   // of the targets, those run on the system
	Reached  int    `json:"reached"` // of those tried, those the system reached
	// ReachedFirst: of those reached, those the first path reached.
	ReachedFirst int `json:"reached_first"`
	Executions   int `json:"executions"` // schedules run, alternatives included
	NewItems     int `json:"new_items"`  // abstract states the campaign had not reached that the schedules reached (targets or not)
	// Bugs are the distinct failures (by signature) the schedules found,
	// each with the first target whose schedule found it.
	Bugs   []GeneratedBug    `json:"bugs"`
	Inputs []*GeneratedInput `json:"inputs"`
	Groups []UnreachedGroup  `json:"unreached_groups"`
	// Causes counts the unreached targets by the first action of their
	// path the system could not be made to take, with why, its numbers
	// left out ("all taken" when it took every one and got elsewhere).
	Causes []Cause `json:"unreached_causes"`
}

// Generate turns the abstract states of the model that a search within
// opt's bounds reaches and the campaign stored in e did not into
// schedules: a path of the model to each, made into steps of the system by
// the inverse of the campaign's mapper, run on the system and measured as
// the campaign measures (the mapper, then the model in process). It
// writes nothing to the corpus.
func (e *Env) Generate(opt GenerateOptions) (*GenerateResult, error) {
	if e.Settings.Model == "" {
		return nil, fmt.Errorf("corpus %s: its campaign ran without a model; generate needs one (--model at run)", e.Dir)
	}
	if e.System.TraceSpec != nil {
		return nil, fmt.Errorf("corpus %s: generate works with a model and its mapper, not with the trace spec %s", e.Dir, e.Settings.Model)
	}
	if err := e.loadModel(); err != nil {
		return nil, err
	}
	inv, ok := e.mapper.(interface{ Inverse() mapper.Inverse })
	if !ok {
		return nil, fmt.Errorf("the %s mapper has no inverse: generate cannot make schedules for adapter %s", e.Settings.Model, e.Settings.Adapter)
	}
	snap, err := e.Store.Load(0)
	if err != nil {
		return nil, err
	}
	covered := map[uint64]bool{}
	for _, k := range snap.Coverage[guidance.MeasureModel] {
		covered[k] = true
	}
	spec := models.Spec{Model: e.Settings.Model, Config: e.Settings.ModelConfig, Consts: append(slices.Clone(e.Settings.ModelConsts), opt.Consts...)}
	if opt.SearchConfig != "" || opt.SearchExtend != "" {
		if spec, err = restrictedSearch(spec, opt); err != nil {
			return nil, err
		}
	}
	tr, err := models.TargetsWith(spec, covered, models.SizeOptions{MaxDepth: opt.MaxDepth, MaxStates: opt.MaxStates, Workers: opt.Workers}, opt.Alternatives)
	if err != nil {
		return nil, fmt.Errorf("searching %s: %v", e.Settings.Model, err)
	}
	res := &GenerateResult{Model: e.Settings.Model, Config: e.Settings.ModelConfig, States: tr.States, Abstract: tr.Abstract,
		Depth: tr.Depth, Complete: tr.Complete, Covered: len(covered), Targets: len(tr.Targets)}
	sys, err := e.System.New()
	if err != nil {
		return nil, err
	}
	st, ok := sys.(schedule.Stepper)
	if !ok {
		return nil, fmt.Errorf("adapter %s cannot be run step by step; generate needs it", e.Settings.Adapter)
	}
	mm := &guidance.ModelMeasure{Mapper: e.mapper, Sim: sidecar.InProc{Simulator: e.sim}, Spec: e.System.Spec()}
	newItems := map[uint64]bool{}
	for _, t := range tr.Targets {
		if opt.Limit > 0 && res.Tried >= opt.Limit {
			break
		}
		g, keys, err := e.runTarget(st, inv.Inverse(), mm, t)
		if err != nil {
			return nil, err
		}
		for _, k := range keys {
			if !covered[k] {
				newItems[k], g.New = true, true
			}
		}
		res.Tried++
		res.Executions += g.Attempts
		if g.Reached {
			res.Reached++
			if g.Attempts == 1 {
				res.ReachedFirst++
			}
		}
		res.Inputs = append(res.Inputs, g)
		for _, f := range g.Failures {
			k := slices.IndexFunc(res.Bugs, func(b GeneratedBug) bool { return b.Signature == f.Signature })
			if k < 0 {
				res.Bugs = append(res.Bugs, GeneratedBug{Kind: f.Kind, Signature: f.Signature, Message: f.Message, Target: g.Key})
				k = len(res.Bugs) - 1
			}
			res.Bugs[k].Hits++
		}
	}
	res.NewItems = len(newItems)
	res.Groups = unreachedGroups(res.Inputs)
	res.Causes = unreachedCauses(res.Inputs)
	return res, nil
}

// restrictedSearch is spec with opt's search cfg and module, refused
// unless its VIEW is the campaign's.
func restrictedSearch(spec models.Spec, opt GenerateOptions) (models.Spec, error) {
	want, err := models.ViewName(spec)
	if err != nil {
		return spec, err
	}
	r := spec
	if opt.SearchConfig != "" {
		r.Config = opt.SearchConfig
	}
	r.Extend = opt.SearchExtend
	got, err := models.ViewName(r)
	if err != nil {
		return spec, fmt.Errorf("--search-config %s: %v", opt.SearchConfig, err)
	}
	if got != want {
		return spec, fmt.Errorf("--search-config %s: its VIEW is %q, the campaign's %q: the keys would not be the campaign's coverage", opt.SearchConfig, got, want)
	}
	if _, err := models.Load(r); err != nil {
		return spec, fmt.Errorf("the restricted search: %v", err)
	}
	return r, nil
}

// runTarget drives the system along t's path, then its alternatives
// until one reaches t, and measures each execution with mm, the
// campaign's own measure: its keys are the coverage a campaign stores, its
// failures (divergences, model invariants) its bugs. The unreached are
// described by the first path's execution.
func (e *Env) runTarget(st schedule.Stepper, inv mapper.Inverse, mm *guidance.ModelMeasure, t models.Target) (*GeneratedInput, []uint64, error) {
	var first *GeneratedInput
	var keys []uint64
	for k, p := range append([][]models.PathAction{t.Path}, t.Alternatives...) {
		g, items, err := e.runPath(st, inv, mm, t, p)
		if err != nil {
			return nil, nil, err
		}
		keys = append(keys, items...)
		if first == nil {
			first = g
		} else {
			first.Failures = append(first.Failures, g.Failures...)
		}
		first.Attempts = k + 1
		if g.Reached {
			first.Path, first.Input, first.Skipped, first.Closest, first.Reached = g.Path, g.Input, g.Skipped, nil, true
			break
		}
	}
	return first, keys, nil
}

// runPath drives the system along path, one of t's, and measures it.
func (e *Env) runPath(st schedule.Stepper, inv mapper.Inverse, mm *guidance.ModelMeasure, t models.Target, p []models.PathAction) (*GeneratedInput, []uint64, error) {
	path := make([]schedule.ModelAction, len(p))
	for k, a := range p {
		path[k] = schedule.ModelAction{Name: a.Name, Params: a.Params}
	}
	g := &GeneratedInput{Key: fmt.Sprintf("%016x", t.Key), Target: t.State}
	g.Path = inv.Prepare(path)
	in, ex, skipped := Drive(st, inv, g.Path)
	g.Input, g.Skipped, g.Failures = in, skipped, ex.Failures
	obs, err := mm.Measure(in, ex)
	if err != nil {
		g.Skipped = append(g.Skipped, "the execution could not be measured: "+err.Error())
		return g, nil, nil
	}
	g.Failures = append(g.Failures, obs.Failures...)
	g.Reached = slices.Contains(obs.Items, t.Key)
	if !g.Reached {
		// The states' variables, to say how the nearest differs.
		acts, err := e.mapper.Map(in, ex)
		if err != nil {
			return nil, nil, err
		}
		req := guidance.SimRequest(acts, false)
		req.Resync, req.Text = true, true
		res, err := e.sim.Simulate(req)
		if err != nil {
			return nil, nil, err
		}
		g.Closest = closestState(t.State, res.States)
	}
	return g, obs.Items, nil
}

// Drive runs path on the system through the inverse inv, action by
// action, and returns the input it ran, the execution and the actions the
// system could not be made to take (each with why).
func Drive(st schedule.Stepper, inv mapper.Inverse, path []schedule.ModelAction) (*schedule.Input, *schedule.Execution, []string) {
	in := &schedule.Input{}
	var skipped []string
	st.Begin()
	alive := true
	var pending []schedule.Enabled
	for k, a := range path {
		if !alive || len(in.Steps) >= schedule.MaxSteps {
			skipped = append(skipped, fmt.Sprintf("action %d (%s) and after: the execution ended", k, a.Name))
			break
		}
		for round := 0; round < mapper.MaxRounds; round++ {
			pending = st.Pending(pending[:0])
			steps, done, err := inv.Steps(a, round, pending, st.Trace())
			if err != nil {
				skipped = append(skipped, fmt.Sprintf("action %d %s: %v", k, actionCall(a), err))
				break
			}
			for _, s := range steps {
				in.Steps = append(in.Steps, s)
				if alive = st.Step(s); !alive {
					break
				}
			}
			if done || !alive {
				break
			}
			if round == mapper.MaxRounds-1 {
				skipped = append(skipped, fmt.Sprintf("action %d %s: not taken in %d rounds of steps", k, actionCall(a), mapper.MaxRounds))
			}
		}
	}
	// Then the system runs on by itself: its pending messages delivered
	// in its own order until none is left (or MaxDrain steps), as a
	// tester lets a cluster settle after a fault: a target is a state to
	// start from, and what the system does next is where its bugs show.
	for d := 0; alive && d < MaxDrain && len(in.Steps) < schedule.MaxSteps; d++ {
		pending = st.Pending(pending[:0])
		k := slices.IndexFunc(pending, func(e schedule.Enabled) bool { return e.Kind == schedule.KindRecv })
		if k < 0 {
			break
		}
		in.Steps = append(in.Steps, pending[k].Step)
		alive = st.Step(pending[k].Step)
	}
	return in, st.End(), skipped
}

// MaxDrain bounds the steps Drive runs after a path.
const MaxDrain = 200

// actionCall writes a as Name(p=v, ...), parameters by name.
func actionCall(a schedule.ModelAction) string {
	var b strings.Builder
	b.WriteString(a.Name + "(")
	for k, p := range slices.Sorted(maps.Keys(a.Params)) {
		if k > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s=%v", p, a.Params[p])
	}
	b.WriteString(")")
	return b.String()
}

// closestState is the state of states that differs from want in the
// fewest variables.
func closestState(want map[string]string, states []sim.State) *UnreachedDifference {
	var best *UnreachedDifference
	for _, s := range states {
		d := &UnreachedDifference{Want: map[string]string{}, Got: map[string]string{}}
		for _, v := range slices.Sorted(maps.Keys(want)) {
			if got := s.Text[v]; got != want[v] {
				d.Vars = append(d.Vars, v)
				d.Want[v], d.Got[v] = want[v], got
			}
		}
		// the latest of the nearest: the furthest the execution got
		if best == nil || len(d.Vars) <= len(best.Vars) {
			best = d
		}
	}
	return best
}

var digits = regexp.MustCompile(`[0-9]+`)

// unreachedCauses counts the unreached targets by cause, the commonest
// first.
func unreachedCauses(gs []*GeneratedInput) []Cause {
	n := map[string]int{}
	for _, g := range gs {
		if g.Reached {
			continue
		}
		c := "every action taken, and the system went elsewhere"
		if len(g.Skipped) > 0 {
			c = g.Skipped[0]
			if _, rest, ok := strings.Cut(c, ": "); ok && strings.HasPrefix(c, "action ") {
				c = rest
			}
			c = digits.ReplaceAllString(c, "N")
		}
		n[c]++
	}
	var out []Cause
	for c, k := range n {
		out = append(out, Cause{c, k})
	}
	slices.SortFunc(out, func(a, b Cause) int {
		if a.Targets != b.Targets {
			return b.Targets - a.Targets
		}
		return strings.Compare(a.Cause, b.Cause)
	})
	return out
}

// unreachedGroups groups the targets the system did not reach by the
// variables in which its nearest state differs, the largest groups first.
func unreachedGroups(gs []*GeneratedInput) []UnreachedGroup {
	by := map[string]*UnreachedGroup{}
	var order []string
	for _, g := range gs {
		if g.Reached || g.Closest == nil {
			continue
		}
		k := strings.Join(g.Closest.Vars, ",")
		gr := by[k]
		if gr == nil {
			gr = &UnreachedGroup{Vars: g.Closest.Vars, Example: g}
			by[k] = gr
			order = append(order, k)
		}
		gr.Targets++
		if len(g.Path) < len(gr.Example.Path) {
			gr.Example = g
		}
	}
	out := make([]UnreachedGroup, 0, len(order))
	for _, k := range order {
		out = append(out, *by[k])
	}
	slices.SortStableFunc(out, func(a, b UnreachedGroup) int { return b.Targets - a.Targets })
	return out
}

// Text is the result as a person reads it: the search, the targets, how
// many the schedules reached, and the groups of those they did not.
func (r *GenerateResult) Text() string {
	var b strings.Builder
	bound := "the cfg's bounds (complete)"
	if !r.Complete {
		bound = fmt.Sprintf("depth %d", r.Depth)
	}
	fmt.Fprintf(&b, "%s: %d distinct states within %s, %d abstract states; the campaign reached %d abstract states\n",
		r.Model, r.States, bound, r.Abstract, r.Covered)
	fmt.Fprintf(&b, "targets (reached by the search, not by the campaign): %d; run on the system: %d; reached: %d (%.1f%%), %d by the first path\n",
		r.Targets, r.Tried, r.Reached, 100*float64(r.Reached)/float64(max(r.Tried, 1)), r.ReachedFirst)
	fmt.Fprintf(&b, "schedules run (alternative paths included): %d\n", r.Executions)
	fmt.Fprintf(&b, "abstract states new to the campaign that the schedules reached (targets or not): %d\n", r.NewItems)
	if len(r.Groups) == 0 {
		return b.String()
	}
	fmt.Fprintf(&b, "\nunreached targets by the first action the system could not be made to take:\n")
	for _, c := range r.Causes {
		fmt.Fprintf(&b, "  %5d  %s\n", c.Targets, c.Cause)
	}
	fmt.Fprintf(&b, "\nunreached targets by the variables in which the nearest state the schedule reached differs:\n")
	for _, g := range r.Groups {
		fmt.Fprintf(&b, "  %5d  %s\n", g.Targets, strings.Join(g.Vars, ", "))
		ex := g.Example
		fmt.Fprintf(&b, "         e.g. %s (path of %d actions)\n", ex.Key, len(ex.Path))
		for _, v := range g.Vars {
			fmt.Fprintf(&b, "           %s: want %s\n           %s  got %s\n", v, ex.Closest.Want[v], strings.Repeat(" ", len(v)), ex.Closest.Got[v])
		}
		for k, s := range ex.Skipped {
			if k == 3 {
				fmt.Fprintf(&b, "           (%d more)\n", len(ex.Skipped)-k)
				break
			}
			fmt.Fprintf(&b, "           %s\n", s)
		}
	}
	return b.String()
}

// WriteGenerated writes the inputs of r that reached an abstract state
// the campaign had not (their targets), one file each (KEY.json), for
// "modelfuzz corpus import".
func (e *Env) WriteGenerated(r *GenerateResult, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--out %s: %v", dir, err)
	}
	sys := e.Settings.InputSystem()
	for _, g := range r.Inputs {
		if !g.Reached {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, g.Key+".json"), schedule.EncodeInputFor(g.Input, sys), 0o644); err != nil {
			return fmt.Errorf("--out %s: %v", dir, err)
		}
	}
	return nil
}

// StrategyGenerated is model guidance whose sessions start with the
// inputs generated from the model's paths to what the corpus lacks.
const StrategyGenerated = "generated"

// The default bounds of strategy generated's search.
const (
	DefaultGenerateDepth  = 40
	DefaultGenerateStates = 200000
)

// modelGuided reports whether strategy keeps the inputs that reach new
// abstract states of the model.
func modelGuided(strategy string) bool {
	return strategy == "model" || strategy == StrategyGenerated || guidance.IsModelSeeded(strategy) || strategy == guidance.StrategyModelReorder
}

func (s *Settings) validateGenerate() error {
	if s.GenerateDepth < 0 || s.GenerateStates < 0 {
		return fmt.Errorf("--generate-depth and --generate-states must not be negative")
	}
	if (s.GenerateDepth > 0 || s.GenerateStates > 0 || len(s.GenerateConsts) > 0) && s.Strategy != StrategyGenerated {
		return fmt.Errorf("--generate-depth, --generate-states and --generate-const are for --strategy %s, not %s", StrategyGenerated, s.Strategy)
	}
	return nil
}

// generateInputs runs, for strategy generated, the generation against
// the corpus as it is (every state of the search is a target in a new
// campaign) and stores the inputs that reached an abstract state the
// corpus lacked, or found a failure, as imports: the loop runs them first
// and keeps, as any input, those that reach new states, then mutates them.
// The generation's executions count as iterations, so that the
// campaign's iteration numbers (a bug's first iteration) include them.
func (c *Campaign) generateInputs() error {
	s := c.Settings
	if s.Strategy != StrategyGenerated {
		return nil
	}
	if c.mapper == nil {
		return fmt.Errorf("--strategy %s needs a model with a mapper (not a trace spec)", StrategyGenerated)
	}
	sm, err := loadSimulator(models.Spec{Model: s.Model, Config: s.ModelConfig, Consts: s.ModelConsts})
	if err != nil {
		return err
	}
	e := &Env{Dir: s.CorpusDir, Store: c.Store, Settings: s, System: c.System, mapper: c.mapper, sim: sm}
	// One worker: the paths, so the inputs, are the same on every run.
	opt := GenerateOptions{MaxDepth: s.GenerateDepth, MaxStates: s.GenerateStates, Consts: s.GenerateConsts, Workers: 1}
	if opt.MaxDepth == 0 {
		opt.MaxDepth = DefaultGenerateDepth
	}
	if opt.MaxStates == 0 {
		opt.MaxStates = DefaultGenerateStates
	}
	res, err := e.Generate(opt)
	if err != nil {
		return fmt.Errorf("--strategy %s: %v", StrategyGenerated, err)
	}
	snap, err := c.Store.Load(0)
	if err != nil {
		return err
	}
	cnt := snap.Counters
	if cnt.NextInputID == 0 {
		cnt.NextInputID = 1
	}
	cnt.Iterations += int64(res.Tried)
	batch := &record.Batch{Counters: &cnt}
	// Those that found failures first: the loop records them as bugs at
	// once.
	ins := slices.Clone(res.Inputs)
	slices.SortStableFunc(ins, func(a, b *GeneratedInput) int { return min(len(b.Failures), 1) - min(len(a.Failures), 1) })
	for _, g := range ins {
		if !g.Reached && len(g.Failures) == 0 && !g.New {
			continue
		}
		if err := g.Input.Validate(c.System.Spec()); err != nil {
			continue // longer than an input may be
		}
		batch.Inputs = append(batch.Inputs, &record.InputRecord{ID: cnt.NextInputID, Source: "import", Input: g.Input})
		cnt.NextInputID++
	}
	c.logger.Info("generated inputs", "targets", res.Targets, "executions", res.Tried, "reached", res.Reached,
		"new_states", res.NewItems, "imported", len(batch.Inputs), "bugs", len(res.Bugs))
	return c.Store.Commit(batch)
}
