package guidance

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/schedule"
	"github.com/modelfuzz/modelfuzz/tlc"
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
	// v is the trace spec, compiled once for every execution.
	v *tlc.TraceValidator
}

// NewSpecMeasure loads the trace spec and its cfg.
func NewSpecMeasure(spec, config string) (*SpecMeasure, error) {
	if config == "" {
		config = strings.TrimSuffix(spec, ".tla") + ".cfg"
	}
	v, err := tlc.NewTraceValidator(tlc.TraceSpec{Spec: spec, Config: config})
	if err != nil {
		return nil, fmt.Errorf("trace spec: %v", err)
	}
	return &SpecMeasure{Spec: spec, Config: config, TraceVars: []string{"l", "pl"}, v: v}, nil
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
	t := m.v.NewTrace()
	for _, e := range ex.Spec {
		if err := t.Add(e.JSON); err != nil {
			return nil, err
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
		return nil, err
	}
	v.Trace = tr
	return v, nil
}

// Measure implements fuzzer.Measure.
func (m *SpecMeasure) Measure(_ *schedule.Input, ex *schedule.Execution) (fuzzer.Observation, error) {
	if len(ex.Spec) == 0 {
		return fuzzer.Observation{}, nil
	}
	v, err := m.Validate(ex)
	if err != nil {
		return fuzzer.Observation{}, err
	}
	obs := fuzzer.Observation{Items: v.Keys}
	if f := SpecFailure(ex, v); f != nil {
		obs.Failures = append(obs.Failures, *f)
	}
	return obs, nil
}

// SpecFailure is the failure a validation shows (nil when it matched).
func SpecFailure(ex *schedule.Execution, v *SpecValidation) *schedule.Failure {
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
			Step:    stepOf(tr.Consumed)}
	case res.ExitCode != tlc.ExitSuccess:
		return &schedule.Failure{Kind: schedule.FailureSpecDivergence, Signature: string(schedule.FailureSpecDivergence) + ": evaluation error: " + schedule.BlankNumbers(firstLine(res.Error)),
			Message: fmt.Sprintf("validating the library's trace stopped after event %d: %s", tr.Consumed, firstLine(res.Error)),
			Step:    stepOf(tr.Consumed + 1)}
	case tr.Matched:
		return nil
	}
	k := tr.Consumed + 1
	name, desc := eventText(ex, k)
	sig := string(schedule.FailureSpecDivergence) + ": " + name
	if len(tr.Probes) > 0 {
		// Where the spec's furthest action stopped names the condition
		// the event broke: the same event broken the same way is the same
		// divergence.
		p := tr.Probes[0].Stuck
		sig += " at " + filepath.Base(p.File) + ":" + strconv.Itoa(p.Line)
		if text := sourceText(p.File, p.Line); text != "" {
			sig += " (" + text + ")"
		}
	}
	f := &schedule.Failure{Kind: schedule.FailureSpecDivergence, Signature: sig,
		Message: fmt.Sprintf("the spec does not allow event %d of %d of the library's trace: %s", k, len(tr.Log), desc),
		Step:    stepOf(k)}
	var d strings.Builder
	if tr.Consumed > 0 {
		_, last := eventText(ex, tr.Consumed)
		fmt.Fprintf(&d, "last matched event (%d): %s\n", tr.Consumed, last)
	}
	if k <= len(ex.Spec) {
		fmt.Fprintf(&d, "event not matched (%d): %s\n", k, ex.Spec[k-1].JSON)
	}
	if len(tr.Probes) > 0 {
		d.WriteString("the spec's actions that came furthest (conjuncts passed; where they stopped):\n")
		for i, p := range tr.Probes {
			if i == 5 {
				break
			}
			fmt.Fprintf(&d, "  %s: %d conjuncts passed, stopped at %s: %s\n", p.Name, p.Progress, p.Stuck, sourceText(p.Stuck.File, p.Stuck.Line))
		}
	}
	f.Detail = d.String()
	return f
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

