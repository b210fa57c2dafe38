package campaign

import (
	"fmt"
	"github.com/modelfuzz/modelfuzz/internal/jsonerr"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/modelfuzz/modelfuzz/filter"
	"github.com/modelfuzz/modelfuzz/guidance"
	"github.com/modelfuzz/modelfuzz/models"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// FilterTest is one run of a filter test (docs/filters.md): a constrained
// random search of Executions executions, each built online by the test's
// filters and a uniform random choice among what they leave open.
type FilterTest struct {
	Test    *filter.Test
	System  *System
	Harness schedule.Harness
	// Executions is how many executions to sample; Seed seeds them.
	Executions int
	Seed       uint64
	// Model evaluates the test's model predicates (LoadFilterModel); nil
	// when the test has none.
	Model *guidance.Waypoints
}

// LoadFilterModel compiles a test's model predicates against the model of
// spec: a module extending the model whose tuple of the predicates our
// engine evaluates in the states the mapped execution reaches. A predicate
// that does not compile is reported at its place in the test file.
func LoadFilterModel(spec models.Spec, t *filter.Test, mp schedule.Mapper) (*guidance.Waypoints, error) {
	if len(t.Models) == 0 {
		return nil, nil
	}
	dir, err := os.MkdirTemp("", "modelfuzz-filter-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	base := strings.TrimSuffix(filepath.Base(spec.Model), ".tla")
	load := func(exprs []string) (*guidance.Waypoints, error) {
		var b strings.Builder
		fmt.Fprintf(&b, "---- MODULE modelfuzz_filter ----\nEXTENDS %s\nFilterPredicates == <<", base)
		for i, e := range exprs {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("(" + e + ")")
		}
		b.WriteString(">>\n====\n")
		path := filepath.Join(dir, "modelfuzz_filter.tla")
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			return nil, err
		}
		return LoadWaypoints(spec, path+":FilterPredicates", mp)
	}
	exprs := make([]string, len(t.Models))
	for i, m := range t.Models {
		exprs[i] = m.Expr
		if _, err := load([]string{m.Expr}); err != nil {
			msg := err.Error()
			if k := strings.LastIndex(msg, "modelfuzz_filter.tla"); k >= 0 {
				msg = strings.TrimLeft(msg[k+len("modelfuzz_filter.tla"):], ":0123456789 ")
			}
			return nil, fmt.Errorf("%s:%s: model predicate: %s", t.File, m.Pos, msg)
		}
	}
	return load(exprs)
}

// FilterOutcome is one execution that satisfied the scenario and failed:
// an oracle of the system, or the scenario's rejecting state.
type FilterOutcome struct {
	Execution int              `json:"execution"` // from 0
	Failure   schedule.Failure `json:"failure"`
	Input     *schedule.Input  `json:"input"`
}

// FilterResult is what a filter test found.
type FilterResult struct {
	Test       string          `json:"test"`
	File       string          `json:"file"`
	Executions int             `json:"executions"`
	Satisfied  int             `json:"satisfied"` // executions that reached the accepting state
	Failed     []FilterOutcome `json:"failed"`    // satisfying executions that failed, the first of each signature
	Failures   int             `json:"failures"`  // satisfying executions that failed, all of them
	Fired      []int           `json:"fired"`     // how many times each filter acted, over all executions
	Pass       bool            `json:"pass"`
	Verdict    string          `json:"verdict"`
}

// MaxFilterBytes is the largest filter test file read.
const MaxFilterBytes = 1 << 20

// LoadFilterTest reads and parses a test file.
func LoadFilterTest(path string) (*filter.Test, error) {
	src, err := jsonerr.ReadFile(path, MaxFilterBytes, "a filter test file", "campaign.MaxFilterBytes")
	if err != nil {
		return nil, fmt.Errorf("test %w", err)
	}
	return filter.Parse(path, string(src))
}

// Run samples the executions and judges the test: with expect ok, it
// passes when some execution satisfied the scenario and none of those
// failed; with expect failure, when some satisfying execution failed with
// the expected signature.
func (ft *FilterTest) Run() (*FilterResult, error) {
	t := ft.Test
	if len(t.Models) > 0 && ft.Model == nil {
		m := t.Models[0]
		return nil, fmt.Errorf("%s:%s: the test has model predicates: run it with --model (for this adapter: --model %s)", t.File, m.Pos, ModelHint(ft.System.Adapter.Name))
	}
	sys, err := ft.System.New()
	if err != nil {
		return nil, err
	}
	st, ok := sys.(schedule.Stepper)
	if !ok {
		return nil, fmt.Errorf("adapter %s cannot be scheduled online, which filter tests need (etcdraft, microbench and process can)", ft.System.Adapter.Name)
	}
	spec := sys.Spec()
	if err := checkTestActions(t, spec); err != nil {
		return nil, err
	}
	res := &FilterResult{Test: t.Name, File: t.File, Executions: ft.Executions, Fired: make([]int, len(t.Filters))}
	bySig := map[string]bool{}
	for i := 0; i < ft.Executions; i++ {
		r := rand.New(rand.NewPCG(ft.Seed, uint64(i)))
		ch := &filterChooser{sys: st, model: ft.Model, in: &schedule.Input{}}
		var model filter.ModelFunc
		if ft.Model != nil {
			model = ch.modelPredicate
		}
		ch.mon = t.NewMonitor(model)
		in, ex, _ := schedule.OnlineRun(st, ch, ft.Harness, r)
		if err := schedule.StepperErr(st); err != nil {
			return nil, err
		}
		if ch.err == nil {
			ch.observe(ex.Trace)
		}
		if ch.err != nil {
			return nil, ch.err
		}
		for k, n := range ch.mon.Fired() {
			res.Fired[k] += n
		}
		if !ch.mon.Satisfied() {
			continue
		}
		res.Satisfied++
		fails := slices.Clone(ex.Failures)
		if rej, at := ch.mon.Rejected(); rej {
			fails = append(fails, schedule.Failure{Kind: schedule.FailureScenario, Signature: "scenario: " + t.Reject,
				Message: fmt.Sprintf("the scenario entered its rejecting state %s", t.Reject), Step: at})
		}
		if len(fails) == 0 {
			continue
		}
		res.Failures++
		for _, f := range fails {
			if !bySig[f.Signature] {
				bySig[f.Signature] = true
				res.Failed = append(res.Failed, FilterOutcome{Execution: i, Failure: f, Input: in})
			}
		}
	}
	res.Pass, res.Verdict = judge(t, res)
	return res, nil
}

func judge(t *filter.Test, res *FilterResult) (bool, string) {
	if res.Satisfied == 0 {
		return false, fmt.Sprintf("no execution of %d satisfied the scenario", res.Executions)
	}
	if !t.Expect.Failure {
		if res.Failures > 0 {
			return false, fmt.Sprintf("%d of the %d satisfying executions failed (expect ok)", res.Failures, res.Satisfied)
		}
		return true, fmt.Sprintf("%d of %d executions satisfied the scenario, none failed", res.Satisfied, res.Executions)
	}
	for _, f := range res.Failed {
		if strings.Contains(f.Failure.Signature, t.Expect.Signature) {
			return true, fmt.Sprintf("%d of %d executions satisfied the scenario; %d failed, as expected (%s)", res.Satisfied, res.Executions, res.Failures, f.Failure.Signature)
		}
	}
	return false, fmt.Sprintf("%d of %d executions satisfied the scenario, none failed with %q (expect failure)", res.Satisfied, res.Executions, t.Expect.Signature)
}

// checkTestActions refuses a test whose actions the system cannot run.
func checkTestActions(t *filter.Test, spec *schedule.SystemSpec) error {
	need := map[string]schedule.Action{"drop": schedule.Drop, "duplicate": schedule.Duplicate, "crash": schedule.Crash,
		"restart": schedule.Restart, "timeout": schedule.Timeout, "partition": schedule.Partition, "heal": schedule.Heal,
		"read": schedule.Read, "transfer": schedule.TransferLeader}
	for _, f := range t.Filters {
		for _, a := range f.Actions {
			if act, ok := need[a.Op]; ok && !spec.Supports(act) {
				return fmt.Errorf("%s:%s: %s: system %s does not support %s", t.File, a.Pos, a.Op, spec.Name, act)
			}
			if (a.Op == "crash" || a.Op == "restart" || a.Op == "timeout" || a.Op == "read" || a.Op == "transfer") && a.Proc >= spec.Processes ||
				a.Op == "transfer" && a.To >= spec.Processes {
				return fmt.Errorf("%s:%s: %s: system %s has processes 0..%d", t.File, a.Pos, a.Op, spec.Name, spec.Processes-1)
			}
		}
	}
	return nil
}

// filterChooser runs a test's monitor on one execution: it shows the
// monitor every event, runs the steps it asks for, drops and duplicates
// the messages it decided, delivers what it released first, hides what it
// holds, and leaves the rest to a uniform random choice.
type filterChooser struct {
	sys      schedule.Stepper
	mon      *filter.Monitor
	r        *rand.Rand
	seen     int   // events of the trace shown to the monitor
	released []int // message ids to deliver before anything else
	err      error
	// model predicates: the steps run so far, and the predicates' values
	// in the state the trace of length valuesAt reaches
	model    *guidance.Waypoints
	in       *schedule.Input
	trace    schedule.Trace
	values   []bool
	valuesAt int
}

// modelPredicate answers predicate i in the model state the execution
// has reached: after the step during which the event observed happened.
func (c *filterChooser) modelPredicate(i int) (bool, error) {
	if c.values == nil || c.valuesAt != len(c.trace) {
		acts, err := c.model.Mapper.Map(c.in, &schedule.Execution{Trace: c.trace})
		if err != nil {
			return false, err
		}
		if c.values, err = c.model.Last(acts); err != nil {
			return false, err
		}
		c.valuesAt = len(c.trace)
	}
	return c.values[i], nil
}

func (c *filterChooser) Start(r *rand.Rand) { c.r = r }

func (c *filterChooser) observe(tr schedule.Trace) {
	c.trace = tr
	for ; c.seen < len(tr) && c.err == nil; c.seen++ {
		c.err = c.mon.Observe(&tr[c.seen])
	}
}

// step is the index of the next step: the steps so far are those whose
// events the trace holds; the monitor's delays count steps.
func (c *filterChooser) step() int {
	tr := c.sys.Trace()
	if len(tr) == 0 {
		return 0
	}
	return tr[len(tr)-1].Step + 1
}

func (c *filterChooser) Direct(evs []schedule.Enabled) ([]schedule.Step, bool) {
	c.observe(c.sys.Trace())
	if c.err != nil {
		return nil, true
	}
	if steps := c.mon.TakeSteps(); len(steps) > 0 {
		c.in.Steps = append(c.in.Steps, steps...)
		return steps, false
	}
	c.released = append(c.released, c.mon.TakeReleased()...)
	now := c.step()
	for i := range evs {
		e := &evs[i]
		if e.Kind != schedule.KindRecv {
			continue
		}
		var st schedule.Step
		switch c.mon.Fate(e.ID, now) {
		case filter.Drop:
			st = e.DropStep
		case filter.Duplicate:
			c.mon.Duplicated(e.ID)
			st = e.DupStep
		default:
			continue
		}
		if st.Action == "" {
			continue // the system cannot (checkTestActions refused a system without the action)
		}
		c.in.Steps = append(c.in.Steps, st)
		return []schedule.Step{st}, false
	}
	if len(c.allowed(evs)) == 0 {
		return nil, true
	}
	return nil, false
}

// allowed lists the events the search may choose: a released message
// pending first, alone; else everything but held and delayed messages.
func (c *filterChooser) allowed(evs []schedule.Enabled) []int {
	for len(c.released) > 0 {
		id := c.released[0]
		for i := range evs {
			if evs[i].Kind == schedule.KindRecv && evs[i].ID == id {
				return []int{i}
			}
		}
		c.released = c.released[1:] // not pending (received, dropped, lost in a crash)
	}
	now := c.step()
	var out []int
	for i := range evs {
		if evs[i].Kind == schedule.KindRecv {
			if f := c.mon.Fate(evs[i].ID, now); f == filter.Hold || f == filter.Delay {
				continue
			}
		}
		out = append(out, i)
	}
	return out
}

func (c *filterChooser) Choose(evs []schedule.Enabled) (int, bool) {
	ok := c.allowed(evs)
	return ok[c.r.IntN(len(ok))], false
}

func (c *filterChooser) Executed(e schedule.Enabled) {
	c.in.Steps = append(c.in.Steps, e.Step)
	if len(c.released) > 0 && e.Kind == schedule.KindRecv && e.ID == c.released[0] {
		c.released = c.released[1:]
	}
}

func (c *filterChooser) Finish() map[string]int { return nil }
