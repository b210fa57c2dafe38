package output

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelfuzz/modelfuzz/tlc/check"
	"github.com/modelfuzz/modelfuzz/tlc/eval"
	"github.com/modelfuzz/modelfuzz/tlc/stdlib"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// Printer prints a check as TLC does: a banner, progress lines with
// rates, error traces whose steps name their action, the final counts;
// with JSON, one JSON object with the result instead. Its methods may be
// called from several goroutines (the checker's progress callbacks).
type Printer struct {
	w     io.Writer
	m     *eval.Model
	json  bool
	tool  bool // -tool: TLC's messages between markers with their codes
	terse bool // -terse: lazy sets in traces printed as written
	// noWarning: -nowarning; warned: a warning was printed (TLC tells how
	// to silence warnings after the first only).
	noWarning, warned bool
	diff              bool // -difftrace
	view              bool // -view
	start             time.Time
	// initLabel labels a trace's first state: TLC's simulation names the
	// initial predicate, its search does not.
	initLabel string
	// finalCov is -coverage's report, printed after the verdict.
	finalCov *Coverage

	mu   sync.Mutex // progress lines come from another goroutine
	last struct {
		at                  time.Time
		generated, distinct int64
	}
}

// Options say how a Printer prints.
type Options struct {
	JSON      bool // print one JSON object with the result, and nothing else
	DiffTrace bool // print only the variables a trace step changes (-difftrace)
	View      bool // print trace states through the cfg's VIEW (-view)
	Tool      bool // print each message as TLC's -tool mode does
	Terse     bool // print the lazy sets of trace states unexpanded (-terse)
	NoWarning bool // print no warning (-nowarning)
}

// New is a Printer writing to w for a run that started at start.
func New(w io.Writer, start time.Time, opt Options) *Printer {
	return &Printer{w: w, json: opt.JSON, diff: opt.DiffTrace, view: opt.View, tool: opt.Tool, terse: opt.Terse, noWarning: opt.NoWarning, start: start}
}

// SetModel gives the printer the model once it is loaded: traces are
// printed through it (its actions, ALIAS and VIEW).
func (p *Printer) SetModel(m *eval.Model) {
	p.m = m
	if p.tool {
		p.msg(ecSanyEnd, classNone, "SANY finished.")
	}
}

// tlcDate is TLC's format of a time of day.
const tlcDate = "2006-01-02 15:04:05"

// version is the program's version and revision, as the build recorded
// them.
func version() string {
	v, rev := "(devel)", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 7 {
				rev = s.Value[:7]
			}
		}
	}
	if rev != "" {
		return fmt.Sprintf("%s (rev: %s)", v, rev)
	}
	return v
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Banner prints TLC's first lines: the version, the mode (the search, or
// the simulation with its seed), the machine, the spec and its cfg.
func (p *Printer) Banner(spec, cfgPath string, workers int, simulate bool, seed int64) {
	if p.json {
		return
	}
	p.msg(ecVersion, classNone, "modelfuzz tlc check, version %s", version())
	env := fmt.Sprintf("on %d cores [pid: %d] (%s %s, %s)", runtime.NumCPU(), os.Getpid(), runtime.GOOS, runtime.GOARCH, runtime.Version())
	if simulate {
		p.msg(ecModeSimulation, classNone, "Running Random Simulation with seed %d with %d %s %s.", seed, workers, plural(workers, "worker", "workers"), env)
	} else {
		p.msg(ecModeMC, classNone, "Running breadth-first search Model-Checking with %d %s %s.", workers, plural(workers, "worker", "workers"), env)
	}
	p.msg(ecSanyStart, classNone, "Parsing file %s with configuration %s", spec, cfgPath)
}

// Starting prints TLC's line at the start of the search.
func (p *Printer) Starting() {
	p.last.at = time.Now()
	if p.json {
		return
	}
	p.msg(ecStarting, classNone, "Starting... (%s)", p.last.at.Format(tlcDate))
}

// ComputingInit prints TLC's line as the search starts computing the
// initial states (check.Options.InitStart).
func (p *Printer) ComputingInit() {
	if p.json {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.msg(ecComputingInit, classNone, "Computing initial states...")
}

// StartingSimulation prints TLC's line at the start of a simulation,
// whose traces start with the initial predicate's name.
func (p *Printer) StartingSimulation() {
	p.Starting()
	p.initLabel = p.m.InitLabel()
}

// Branches prints TLC's line on the liveness check before the search
// (check.LiveReporter).
func (p *Printer) Branches(n int) {
	if p.json {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.msg(ecLiveImplied, classNone, "Implied-temporal checking--satisfiability problem has %d branches.", n)
}

// Checking prints TLC's lines before the temporal properties are checked
// on the complete state graph: a progress report without rates, and
// the size of the graphs (check.LiveReporter).
func (p *Printer) Checking(branches int, nodes int64, pr check.Progress) {
	if p.json {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.msg(ecProgress, classNone, "Progress(%d) at %s: %s states generated, %s distinct states found, %s states left on queue.",
		pr.Depth, time.Now().Format(tlcDate), thousands(pr.Generated), thousands(pr.Distinct), thousands(int64(pr.Queue)))
	of := ""
	if branches > 1 {
		of = fmt.Sprintf("%d branches of ", branches)
	}
	p.msg(ecCheckingTemporal, classNone, "Checking %stemporal properties for the complete state space with %d total distinct states at (%s)",
		of, int64(branches)*nodes, time.Now().Format(tlcDate))
}

// liveChecked prints TLC's line at the end of the check of the temporal
// properties, after its counterexample if there is one.
func (p *Printer) liveChecked(res *check.Result) {
	if !res.LiveChecked {
		return
	}
	p.msg(ecCheckedTemporal, classNone, "Finished checking temporal properties in %s at %s", took(res.LiveDuration), time.Now().Format(tlcDate))
}

// Recovering replaces Starting for a run recovered from a checkpoint.
func (p *Printer) Recovering(dir string) {
	p.last.at = time.Now()
	if p.json {
		return
	}
	fmt.Fprintf(p.w, "Starting... (%s)\n", p.last.at.Format(tlcDate))
	fmt.Fprintf(p.w, "Starting recovery from checkpoint %s\n", dir)
}

// Recovered prints TLC's line once a checkpoint is read.
func (p *Printer) Recovered(r check.Recovery) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "Recovery completed. %d states examined. %d states on queue.\n", r.Distinct, r.Queue)
	p.last.generated, p.last.distinct = r.Generated, r.Distinct
}

// CheckpointStart and CheckpointDone print TLC's lines around a
// checkpoint.
func (p *Printer) CheckpointStart(dir string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "Checkpointing of run %s\n", dir)
}

func (p *Printer) CheckpointDone(string, check.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "Checkpointing completed at (%s)\n", time.Now().Format(tlcDate))
}

// InitDone prints TLC's line after the initial states.
func (p *Printer) InitDone(pr check.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.msg(ecInitGenerated, classNone, "Finished computing initial states: %d distinct %s generated at %s.",
		pr.Distinct, plural(int(pr.Distinct), "state", "states"), time.Now().Format(tlcDate))
}

// Progress prints TLC's progress line, with the rates since the last one
// per minute.
func (p *Printer) Progress(pr check.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	mins := now.Sub(p.last.at).Minutes()
	rate := func(n, last int64) int64 {
		if mins <= 0 {
			return 0
		}
		return int64(float64(n-last) / mins)
	}
	p.msg(ecProgress, classNone, "Progress(%d) at %s: %s states generated (%s s/min), %s distinct states found (%s ds/min), %s states left on queue.",
		pr.Depth, now.Format(tlcDate), thousands(pr.Generated), thousands(rate(pr.Generated, p.last.generated)),
		thousands(pr.Distinct), thousands(rate(pr.Distinct, p.last.distinct)), thousands(int64(pr.Queue)))
	p.last.at, p.last.generated, p.last.distinct = now, pr.Generated, pr.Distinct
}

// SimProgress prints the progress line of a simulation.
func (p *Printer) SimProgress(pr check.SimProgress) {
	fmt.Fprintf(p.w, "Progress: %s states checked, %s traces generated.\n", thousands(pr.States), thousands(pr.Traces))
}

// thousands writes n with commas, as TLC does in progress lines.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return s
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Violation prints an error and its trace (also each violation of
// -continue, as found).
func (p *Printer) Violation(r *check.Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if initialViolation(r) {
		// TLC: the state inside the message, no trace.
		st := p.traceStates(r.Trace)[0]
		p.errorMsg(violationCode(r), fmt.Sprintf("Invariant %s is violated by the initial state:\n%s", r.Invariant, p.stateBody(&st, nil)))
		return
	}
	p.errorMsg(violationCode(r), r.Error)
	if len(r.Trace) == 0 {
		return
	}
	if p.tool {
		p.msg(ecBehaviorUpToHere, classError, "The behavior up to this point is:")
	} else {
		fmt.Fprintln(p.w, "Error: The behavior up to this point is:")
	}
	p.states(r.Trace)
}

// states prints a trace's states, numbered from 1, each under the action
// that led to it (see traceStates), only the changed variables with
// -difftrace. A lasso's printer ends it with "Back to state N: " and
// stepLabel(last state, state N).
func (p *Printer) states(tr []check.State) {
	var prev *traceState
	for i, st := range p.traceStates(tr) {
		p.msg(ecState, classState, "%s\n%s", p.stateLabel(i+1, st.label), p.stateBody(&st, prev))
		prev = &st
	}
}

// stateBody prints a state's variables, one a line; with -difftrace only
// those that changed since prev (nil: all).
func (p *Printer) stateBody(st, prev *traceState) string {
	var b strings.Builder
	for j, n := range st.names {
		if p.diff && prev != nil && prev.same(n, st.vals[j]) {
			continue
		}
		v := value.Format(st.vals[j], p.terse)
		if n == "" { // -view of a VIEW that is not a tuple of variables
			fmt.Fprintf(&b, "%s\n", v)
		} else if len(st.names) == 1 {
			fmt.Fprintf(&b, "%s = %s\n", n, v)
		} else {
			fmt.Fprintf(&b, "/\\ %s = %s\n", n, v)
		}
	}
	return b.String()
}

// initialViolation tells whether r is an invariant violated by an initial
// state, which TLC reports with the state in its message and without a
// trace, counts or depth.
func initialViolation(r *check.Result) bool {
	return r.Result == "invariant" && len(r.Trace) == 1 && r.Invariant != ""
}

// Result prints the end of a check; violations is the number of
// invariant violations -continue found (and printed as found).
func (p *Printer) Result(res *check.Result, violations int) {
	switch {
	case res.Result == "success":
		p.liveChecked(res)
		p.msg(ecSuccess, classNone, "Model checking completed. No error has been found.")
	case res.Result == "not-checked":
		// Said at the end (unchecked).
	case res.Result == "liveness" || res.Result == "temporal" || res.Result == "property-initial":
		p.propertyViolation(res)
		p.liveChecked(res)
	case violations > 0 && res.Result == "invariant":
		// TLC says "No error has been found" here, and exits 0.
		fmt.Fprintf(p.w, "Model checking completed. %d invariant %s found (printed above).\n", violations, plural(violations, "violation was", "violations were"))
	default:
		p.Violation(res)
	}
	if p.finalCov != nil {
		p.mu.Lock()
		p.coverage(p.finalCov)
		p.mu.Unlock()
	}
	if violations == 0 && initialViolation(res) {
		p.finished()
		unchecked(p.w, res)
		return
	}
	// As TLC: in -tool mode a last progress report before the counts, for
	// the Toolbox's table of them.
	if p.tool {
		p.Progress(check.Progress{Depth: res.Depth, Generated: res.Generated, Distinct: res.Distinct, Queue: int(res.Queue)})
	}
	p.msg(ecStats, classNone, "%d states generated, %d distinct states found, %d states left on queue.", res.Generated, res.Distinct, res.Queue)
	p.msg(ecSearchDepth, classNone, "The depth of the complete state graph search is %d.", res.Depth)
	if d := res.OutDegree; d != nil && res.Result == "success" && violations == 0 {
		p.msg(ecOutDegree, classNone, "The average outdegree of the complete state graph is %d (minimum is %d, the maximum %d and the 95th percentile is %d).",
			d.Mean, d.Min, d.Max, d.P95)
	}
	p.finished()
	unchecked(p.w, res)
}

// SimResult prints the end of a simulation with its seed.
func (p *Printer) SimResult(res *check.SimResult, seed int64) {
	switch res.Result.Result {
	case "success", "not-checked":
	case "liveness", "temporal", "property-initial":
		p.propertyViolation(&res.Result)
	default:
		p.Violation(&res.Result)
	}
	fmt.Fprintf(p.w, "The number of states generated: %d\n", res.Generated)
	fmt.Fprintf(p.w, "Simulation using seed %d and aril 0\n", seed)
	fmt.Fprintf(p.w, "Progress: %d states checked, %d traces generated (trace length: mean=%.0f, var(x)=%.0f, sd=%.0f)\n",
		res.Generated, res.Traces, res.MeanLength, res.VarLength, math.Sqrt(res.VarLength))
	p.finished()
	unchecked(p.w, &res.Result)
}

// finished prints TLC's last line: "Finished in 01min 05s at (DATE)".
func (p *Printer) finished() {
	d := time.Since(p.start)
	t := took(d)
	if p.tool {
		// TLC's -tool mode gives milliseconds.
		t = fmt.Sprintf("%dms", d.Milliseconds())
	}
	p.msg(ecFinished, classNone, "Finished in %s at (%s)", t, time.Now().Format(tlcDate))
}

// took writes a duration as TLC does: "05s", "01min 05s", "02h 01min".
func took(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%02ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%02dmin %02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%02dh %02dmin", int(d.Hours()), int(d.Minutes())%60)
}

// stepLabel is the label of the action that leads from s to t, as a trace
// prints it ("<Action>" when no action of the split does).
func (p *Printer) stepLabel(s, t []value.Value) string {
	ev := p.m.NewEvaluator()
	if a, err := ev.StepAction(s, t); err == nil && a >= 0 {
		return p.m.NextActions()[a].Label()
	}
	return "<Action>"
}

// traceState is a trace step as printed: its label and the variables (or
// the ALIAS's fields) with their values.
type traceState struct {
	label  string
	action *eval.SubAction // nil for an initial state or an unknown action
	names  []string
	vals   []value.Value
}

func (t *traceState) same(name string, v value.Value) bool {
	for i, n := range t.names {
		if n == name {
			eq, err := value.Equal(t.vals[i], v)
			return err == nil && eq
		}
	}
	return false
}

// traceStates labels each step of a trace with the action that took it
// (the first of TLC's split that leads there, as TLC finds it) and applies
// the cfg's ALIAS, evaluated in each state and its successor (the last
// state is its own successor, as in TLC).
func (p *Printer) traceStates(tr []check.State) []traceState {
	ev := p.m.NewEvaluator()
	out := make([]traceState, len(tr))
	for i, st := range tr {
		ts := traceState{label: "<Initial predicate>"}
		if i == 0 && p.initLabel != "" {
			ts.label = p.initLabel
		}
		if i > 0 {
			ts.label = "<Action>"
			ev.SetLevel(i) // TLCGet("level") of the state the step leaves
			if a, err := ev.StepAction(tr[i-1].Values, st.Values); err == nil && a >= 0 {
				ts.action = p.m.NextActions()[a]
				ts.label = ts.action.Label()
			}
		}
		ts.names, ts.vals = p.stateValues(ev, tr, i)
		out[i] = ts
	}
	return out
}

// stateValues are the names and values printed for state i of a trace:
// the variables in alphabetical order (as TLC prints them), or the
// ALIAS's fields.
func (p *Printer) stateValues(ev *eval.Evaluator, tr []check.State, i int) ([]string, []value.Value) {
	st := tr[i]
	if p.view && p.m.HasView() {
		if v, err := ev.ViewOf(st.Values); err == nil {
			// As TLC's -view: a VIEW that is a tuple of variables prints
			// as those variables (in their declaration order), another
			// as its value alone (an empty name).
			vars := p.m.ViewVars()
			if f, ok := v.(*value.Func); ok && vars != nil && f.IsSeq() && f.Len() == len(vars) {
				return sortedByDecl(p.m.Vars, vars, f.Values())
			}
			return []string{""}, []value.Value{v}
		}
	}
	if p.m.HasAlias() {
		next := st.Values
		if i+1 < len(tr) {
			next = tr[i+1].Values
		}
		// As TLC: TLCGet("level") in the ALIAS is the state's number.
		ev.SetLevel(i + 1)
		v, err := ev.AliasOf(st.Values, next)
		if err == nil {
			if f, ok := v.(*value.Func); ok && f.IsRecord() {
				return aliasFields(f, p.m.AliasFields())
			}
			err = fmt.Errorf("the ALIAS is not a record: %s", v)
		}
		// As TLC: the state, with the error as one more field.
		names, vals := sortedVars(st)
		return append(names, "_ALIASEvalError"), append(vals, value.Str(err.Error()))
	}
	return sortedVars(st)
}

// sortedByDecl orders names (with their values) as decl, the variables'
// declaration order.
func sortedByDecl(decl, names []string, vals []value.Value) ([]string, []value.Value) {
	var on []string
	var ov []value.Value
	for _, d := range decl {
		for i, n := range names {
			if n == d {
				on, ov = append(on, n), append(ov, vals[i])
			}
		}
	}
	return on, ov
}

func sortedVars(st check.State) ([]string, []value.Value) {
	idx := make([]int, len(st.Vars))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return st.Vars[idx[a]] < st.Vars[idx[b]] })
	names := make([]string, len(idx))
	vals := make([]value.Value, len(idx))
	for i, j := range idx {
		names[i], vals[i] = st.Vars[j], st.Values[j]
	}
	return names, vals
}

// aliasFields lists a record's fields in the order written (order), those
// not in order after them.
func aliasFields(f *value.Func, order []string) ([]string, []value.Value) {
	byName := map[string]value.Value{}
	var rest []string
	idx := value.PrintOrder(f) // the fields not named: in TLC's order
	if idx == nil {
		for i := range f.Len() {
			idx = append(idx, i)
		}
	}
	for _, i := range idx {
		k := f.Key(i).(value.Str)
		byName[string(k)] = f.Values()[i]
		rest = append(rest, string(k))
	}
	var names []string
	var vals []value.Value
	for _, n := range order {
		if v, ok := byName[n]; ok {
			names, vals = append(names, n), append(vals, v)
			delete(byName, n)
		}
	}
	for _, n := range rest {
		if v, ok := byName[n]; ok {
			names, vals = append(names, n), append(vals, v)
		}
	}
	return names, vals
}

// jsonResult is the result of --json: one object.
type jsonResult struct {
	Result          string      `json:"result"`
	DistinctStates  int64       `json:"distinct_states"`
	StatesGenerated int64       `json:"states_generated"`
	Depth           int         `json:"depth"`
	DurationS       float64     `json:"duration_s"`
	Error           string      `json:"error,omitempty"`
	Trace           []jsonState `json:"trace,omitempty"`
	Unchecked       []string    `json:"unchecked_properties,omitempty"`
	// A lasso (a temporal property violated): the trace goes back to
	// state BackToState (1-based), or stutters in its last state.
	BackToState int  `json:"back_to_state,omitempty"`
	Stuttering  bool `json:"stuttering,omitempty"`
	// With -simulate: the seed and the behaviours generated.
	Seed   int64 `json:"seed,omitempty"`
	Traces int64 `json:"traces,omitempty"`
}

// jsonState is a trace state in --json: the action that took the step
// (its name and parameters as TLC prints them, "Prepare(r1)", and its
// location) and the values as JSON values (a sequence is an array, a
// record or function an object, a set an array; a value JSON cannot
// express is its TLA+ text).
type jsonState struct {
	Action   string                     `json:"action"`
	Location string                     `json:"location,omitempty"`
	Vars     map[string]json.RawMessage `json:"vars"`
}

func (p *Printer) json1(v *jsonResult) {
	enc := json.NewEncoder(p.w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

// LoadFailed prints, with JSON, the object of a run whose model did not
// load: result is the result's name (LoadFailure's); without JSON the
// error is the command's to print.
func (p *Printer) LoadFailed(result string, err error) {
	p.json1(&jsonResult{Result: result, Error: err.Error(), DurationS: round3(time.Since(p.start).Seconds())})
}

// ResultJSON prints the JSON object of a check's result.
func (p *Printer) ResultJSON(res *check.Result) {
	p.json1(p.resultObject(res, time.Since(p.start)))
}

// SimResultJSON prints the JSON object of a simulation's result, with its
// seed and the number of behaviours generated.
func (p *Printer) SimResultJSON(res *check.SimResult, seed int64) {
	obj := p.resultObject(&res.Result, time.Since(p.start))
	obj.Seed, obj.Traces = seed, res.Traces
	p.json1(obj)
}

// resultObject is the --json object of a result.
func (p *Printer) resultObject(res *check.Result, d time.Duration) *jsonResult {
	out := &jsonResult{Result: res.Result, DistinctStates: res.Distinct, StatesGenerated: res.Generated,
		Depth: res.Depth, DurationS: round3(d.Seconds()), Error: res.Error,
		BackToState: res.LoopBack, Stuttering: res.Stuttering}
	for _, pr := range res.Unchecked {
		out.Unchecked = append(out.Unchecked, pr.Name)
	}
	for i, st := range p.traceStates(res.Trace) {
		js := jsonState{Action: "Initial predicate", Vars: map[string]json.RawMessage{}}
		switch {
		case st.action != nil:
			js.Action, js.Location = st.action.Signature(), st.action.Loc.String()
		case i > 0:
			js.Action = "Action" // no action of the split leads there
		}
		for i, n := range st.names {
			js.Vars[n] = jsonValue(st.vals[i])
		}
		out.Trace = append(out.Trace, js)
	}
	return out
}

// jsonValue is v as JSON (see jsonState).
func jsonValue(v value.Value) json.RawMessage {
	if b, err := stdlib.ToJSON(v); err == nil {
		return b
	}
	b, _ := json.Marshal(v.String())
	return b
}

// unchecked ends the output of a run that found no error but did not
// check every property: never "No error has been found" about those.
func unchecked(w io.Writer, res *check.Result) {
	if res.Result == "not-checked" {
		fmt.Fprintf(w, "Model checking completed without finding an error, but %s.\n", res.Error)
	}
}

func round3(x float64) float64 { return float64(int64(x*1000+0.5)) / 1000 }

// Warned records that warnings were printed before the check (those of
// loading the spec): TLC tells how to silence warnings after the first.
func (p *Printer) Warned() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.warned = true
}
