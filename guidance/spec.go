package guidance

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/schedule"
	"github.com/modelfuzz/modelfuzz/tlc"
	"github.com/modelfuzz/modelfuzz/tlc/check"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// SpecMeasure covers the states of a TLA+ trace spec (etcd raft's
// Traceetcdraft.tla): each execution's own trace is validated against it,
// as TLC's trace validation does, and the spec states the validation
// reaches are the coverage, abstracted by leaving out the trace spec's own
// variables (the event index): the spec's full state, which is what the
// View of etcd raft's MCetcdraft.tla keeps. A trace the spec does not
// match is a spec-divergence; the states reached before the unmatched
// event still count. The spec's invariants (its cfg's) are checked on the
// way and are model-invariant failures.
type SpecMeasure struct {
	Spec, Config string
	// TraceVars are the trace spec's own variables, left out of the
	// coverage (default: l and pl, as in Traceetcdraft.tla).
	TraceVars []string
	// Known are the known disagreements of the spec with the system: a
	// failure that is one of them is marked so (schedule.Failure.Known).
	Known *KnownSet
	// v is the trace spec, compiled once for every execution (with the
	// known disagreements' witnesses module as its root, when they have
	// one).
	v *tlc.TraceValidator
}

// NewSpecMeasure loads the trace spec and its cfg, and its known
// disagreements (known, nil for none).
func NewSpecMeasure(spec, config string, known *KnownSet) (*SpecMeasure, error) {
	if config == "" {
		config = strings.TrimSuffix(spec, ".tla") + ".cfg"
	}
	ts := tlc.TraceSpec{Spec: spec, Config: config}
	if known != nil {
		ts.Extend = known.Witnesses
	}
	v, err := tlc.NewTraceValidator(ts)
	if err != nil {
		if ts.Extend != "" {
			return nil, fmt.Errorf("trace spec with the known disagreements' witnesses (%s): %v", filepath.Base(ts.Extend), err)
		}
		return nil, fmt.Errorf("trace spec: %v", err)
	}
	return &SpecMeasure{Spec: spec, Config: config, TraceVars: []string{"l", "pl"}, Known: known, v: v}, nil
}

// Close releases the measure.
func (m *SpecMeasure) Close() error { return nil }

// Name implements fuzzer.Measure: the spec's states are the campaign's
// model coverage.
func (m *SpecMeasure) Name() string { return MeasureModel }

// SpecValidation is one execution's trace validated.
type SpecValidation struct {
	Trace *tlc.TraceResult
	Model *tlc.Model
	// Keys are the abstract states reached, in the order they were first
	// reached.
	Keys []uint64
}

// Validate validates an execution's own trace.
func (m *SpecMeasure) Validate(ex *schedule.Execution) (*SpecValidation, error) {
	v, _, err := m.validate(ex)
	return v, err
}

// validate validates an execution's own trace and returns it as the spec
// holds it (for the known disagreements' witnesses).
func (m *SpecMeasure) validate(ex *schedule.Execution) (*SpecValidation, *tlc.Trace, error) {
	t := m.v.NewTrace()
	for _, e := range ex.Spec {
		if err := t.Add(e.JSON); err != nil {
			return nil, nil, err
		}
	}
	model := m.v.Model()
	keep := make([]bool, len(model.Vars))
	for i, v := range model.Vars {
		keep[i] = true
		for _, t := range m.TraceVars {
			if v == t {
				keep[i] = false
			}
		}
	}
	v := &SpecValidation{Model: model}
	seen := map[uint64]bool{}
	var buf []tlc.Value
	visit := func(s []tlc.Value) {
		buf = buf[:0]
		for i, x := range s {
			if keep[i] {
				buf = append(buf, x)
			}
		}
		k := tlc.FingerprintState(buf)
		if !seen[k] {
			seen[k] = true
			v.Keys = append(v.Keys, k)
		}
	}
	tr, err := t.Validate(tlc.TraceOptions{Visit: visit})
	if err != nil {
		return nil, nil, err
	}
	v.Trace = tr
	return v, t, nil
}

// Measure implements fuzzer.Measure.
func (m *SpecMeasure) Measure(_ *schedule.Input, ex *schedule.Execution) (fuzzer.Observation, error) {
	if len(ex.Spec) == 0 {
		return fuzzer.Observation{}, nil
	}
	v, t, err := m.validate(ex)
	if err != nil {
		return fuzzer.Observation{}, err
	}
	obs := fuzzer.Observation{Items: v.Keys}
	if f, d := specFailure(ex, v); f != nil {
		if err := m.classify(f, d, v, t); err != nil {
			return fuzzer.Observation{}, err
		}
		obs.Failures = append(obs.Failures, *f)
	}
	return obs, nil
}

// classify marks f, the failure of validation v of trace t (the
// disagreement d), as the known disagreement it is, if it is one: its
// signature becomes "known: ID" (all the ways one disagreement shows are
// one record), and its detail keeps the signature it had and says why it
// is known.
func (m *SpecMeasure) classify(f *schedule.Failure, d Disagreement, v *SpecValidation, t *tlc.Trace) error {
	if m.Known == nil || len(m.Known.Entries) == 0 {
		return nil
	}
	witness := func(def string) (bool, error) {
		state := witnessState(v)
		if state == nil {
			return false, nil
		}
		val, err := t.Definition(def, state)
		if err != nil {
			return false, err
		}
		b, ok := val.(value.Bool)
		if !ok {
			return false, fmt.Errorf("%s is %s, not a boolean", def, val)
		}
		return bool(b), nil
	}
	k, err := m.Known.Match(d, witness)
	if err != nil || k == nil {
		return err
	}
	f.Known = k.ID
	f.Detail = fmt.Sprintf("known disagreement %s: %s\n%s\nsee %s\nsignature: %s\n%s", k.ID, k.Title, k.Reason, k.Doc, f.Signature, f.Detail)
	f.Signature = "known: " + k.ID
	return nil
}

// witnessState is the state in which a failed validation's disagreement
// showed: the violating state of an invariant, else the last state
// matched (nil: none).
func witnessState(v *SpecValidation) []tlc.Value {
	tr := v.Trace
	if res := tr.Check; res.Result == "invariant" && len(res.Trace) > 0 {
		return res.Trace[len(res.Trace)-1].Values
	}
	if len(tr.Stuck) > 0 {
		return tr.Stuck[len(tr.Stuck)-1].Values
	}
	return nil
}

// SpecFailure is the failure a validation shows (nil when it matched).
func SpecFailure(ex *schedule.Execution, v *SpecValidation) *schedule.Failure {
	f, _ := specFailure(ex, v)
	return f
}

// specFailure is SpecFailure and the disagreement it is, to be matched
// against the known ones.
func specFailure(ex *schedule.Execution, v *SpecValidation) (*schedule.Failure, Disagreement) {
	tr := v.Trace
	res := tr.Check
	stepOf := func(k int) int { // event k, from 1
		if k >= 1 && k <= len(ex.Spec) {
			return ex.Spec[k-1].Step
		}
		if len(ex.Spec) > 0 {
			return ex.Spec[len(ex.Spec)-1].Step
		}
		return 0
	}
	switch {
	case res.Result == "invariant":
		return &schedule.Failure{Kind: schedule.FailureModelInvariant, Signature: "model-invariant: " + res.Invariant,
				Message: fmt.Sprintf("invariant %s of the spec is violated after event %d of the library's trace", res.Invariant, tr.Consumed),
				Step:    stepOf(tr.Consumed)},
			Disagreement{Kind: schedule.FailureModelInvariant, Invariant: res.Invariant, Line: eventLine(ex, tr.Consumed)}
	case res.ExitCode == check.ExitSafetyEval && invariantEval.MatchString(res.Error):
		// An invariant that cannot be evaluated in a state the trace
		// reached is that invariant's failure (TLC's exit 76), not a
		// divergence of the trace.
		inv := invariantEval.FindStringSubmatch(res.Error)[1]
		return &schedule.Failure{Kind: schedule.FailureModelInvariant, Signature: "model-invariant: " + inv + " cannot be evaluated",
				Message: fmt.Sprintf("invariant %s of the spec cannot be evaluated after event %d of the library's trace: %s", inv, tr.Consumed, firstLine(res.Error)),
				Step:    stepOf(tr.Consumed), Detail: res.Error},
			Disagreement{Kind: schedule.FailureModelInvariant, Invariant: inv, Line: eventLine(ex, tr.Consumed)}
	case res.ExitCode != tlc.ExitSuccess:
		return &schedule.Failure{Kind: schedule.FailureSpecDivergence, Signature: string(schedule.FailureSpecDivergence) + ": evaluation error: " + schedule.BlankNumbers(firstLine(res.Error)),
			Message: fmt.Sprintf("validating the library's trace stopped after event %d: %s", tr.Consumed, firstLine(res.Error)),
			Step:    stepOf(tr.Consumed + 1)}, Disagreement{}
	case tr.Matched:
		return nil, Disagreement{}
	}
	k := tr.Consumed + 1
	name, desc := eventText(ex, k)
	d := Disagreement{Kind: schedule.FailureSpecDivergence, Event: name, Line: eventLine(ex, k)}
	sig := string(schedule.FailureSpecDivergence) + ": " + name
	if len(tr.Probes) > 0 {
		// Where the spec's furthest action stopped names the condition
		// the event broke: the same event broken the same way is the same
		// divergence.
		p := tr.Probes[0].Stuck
		sig += " at " + filepath.Base(p.File) + ":" + strconv.Itoa(p.Line)
		if text := sourceText(p.File, p.Line); text != "" {
			sig += " (" + text + ")"
			d.Condition = text
		}
	}
	f := &schedule.Failure{Kind: schedule.FailureSpecDivergence, Signature: sig,
		Message: fmt.Sprintf("the spec does not allow event %d of %d of the library's trace: %s", k, len(tr.Log), desc),
		Step:    stepOf(k)}
	var det strings.Builder
	if tr.Consumed > 0 {
		_, last := eventText(ex, tr.Consumed)
		fmt.Fprintf(&det, "last matched event (%d): %s\n", tr.Consumed, last)
	}
	if k <= len(ex.Spec) {
		fmt.Fprintf(&det, "event not matched (%d): %s\n", k, ex.Spec[k-1].JSON)
	}
	if len(tr.Probes) > 0 {
		det.WriteString("the spec's actions that came furthest (conjuncts passed; where they stopped):\n")
		for i, p := range tr.Probes {
			if i == 5 {
				break
			}
			fmt.Fprintf(&det, "  %s: %d conjuncts passed, stopped at %s: %s\n", p.Name, p.Progress, p.Stuck, sourceText(p.Stuck.File, p.Stuck.Line))
		}
	}
	f.Detail = det.String()
	return f, d
}

// invariantEval finds the invariant an evaluation error names.
var invariantEval = regexp.MustCompile(`(?i)evaluating invariant (\w+)`)

// eventLine decodes event k (from 1) of an execution's own trace (nil: no
// such event).
func eventLine(ex *schedule.Execution, k int) map[string]any {
	if k < 1 || k > len(ex.Spec) {
		return nil
	}
	var line map[string]any
	if json.Unmarshal(ex.Spec[k-1].JSON, &line) != nil {
		return nil
	}
	return line
}

// eventText names event k (from 1) of an execution's own trace: its name
// (for the signature) and a short description.
func eventText(ex *schedule.Execution, k int) (string, string) {
	if k < 1 || k > len(ex.Spec) {
		return "end of trace", "the trace ended"
	}
	var ev struct {
		Event struct {
			Name string `json:"name"`
			Nid  string `json:"nid"`
			Role string `json:"role"`
			Msg  *struct {
				Type     string `json:"type"`
				From, To string
				Term     uint64 `json:"term"`
			} `json:"msg"`
		} `json:"event"`
	}
	if err := json.Unmarshal(ex.Spec[k-1].JSON, &ev); err != nil {
		return "malformed event", string(ex.Spec[k-1].JSON)
	}
	e := ev.Event
	name := e.Name
	desc := fmt.Sprintf("%s at node %s (%s)", e.Name, e.Nid, e.Role)
	if e.Msg != nil {
		name += " " + e.Msg.Type
		desc += fmt.Sprintf(", %s %s->%s term %d", e.Msg.Type, e.Msg.From, e.Msg.To, e.Msg.Term)
	}
	return name, desc
}

// sourceText is tlc.SourceLine without a leading conjunction or disjunction
// bullet: the condition itself.
func sourceText(file string, n int) string {
	t := tlc.SourceLine(file, n)
	t = strings.TrimPrefix(t, "/\\ ")
	return strings.TrimPrefix(t, "\\/ ")
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
