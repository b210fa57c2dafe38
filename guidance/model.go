package guidance

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/schedule"
	"github.com/modelfuzz/modelfuzz/tlc/sidecar"
	"github.com/modelfuzz/modelfuzz/tlc/sim"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// ModelMeasure covers abstract model states: it maps an execution's trace
// to model actions, simulates them, and reports the abstract states
// visited as items, divergences from the model and violated model
// invariants as failures.
type ModelMeasure struct {
	Mapper  schedule.Mapper
	Sim     sidecar.Simulator // the model engine, in process or behind the sidecar
	Timeout time.Duration     // per simulation (0: one minute)
	// View, when set, names the measure MeasureView+View: a reference
	// abstraction measured beside the model's own VIEW (its Sim simulates
	// the model with that VIEW). Its failures are the model measure's and
	// are not reported twice.
	View string
	// Spec names the system's processes in messages (nil: p0, p1, ...).
	Spec *schedule.SystemSpec
}

// DivergedTraceHeader starts the detail of a divergence whose mapper
// keeps the trace (a mapper with a method KeepsTrace() bool that says
// so: one of a system whose replays differ); the trace follows, as
// schedule.EncodeTrace writes it.
const DivergedTraceHeader = "the trace the model diverged on (JSON, as replay --json prints a trace):\n"

// Name implements fuzzer.Measure.
func (m *ModelMeasure) Name() string {
	if m.View != "" {
		return MeasureView + m.View
	}
	return MeasureModel
}

// Measure implements fuzzer.Measure.
func (m *ModelMeasure) Measure(in *schedule.Input, ex *schedule.Execution) (fuzzer.Observation, error) {
	acts, req, err := m.request(in, ex)
	if err != nil {
		return fuzzer.Observation{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), m.timeout())
	defer cancel()
	res, err := m.Sim.Simulate(ctx, req)
	if err != nil {
		return fuzzer.Observation{}, fmt.Errorf("model simulation: %w", err)
	}
	return m.observe(in, ex, acts, res), nil
}

// MeasureBatch implements fuzzer.BatchMeasure: with a sidecar, the
// executions of a pipeline are simulated in one round trip.
func (m *ModelMeasure) MeasureBatch(ins []*schedule.Input, exs []*schedule.Execution) ([]fuzzer.Observation, []error) {
	obs := make([]fuzzer.Observation, len(ins))
	errs := make([]error, len(ins))
	acts := make([][]schedule.ModelAction, len(ins))
	var reqs []*sim.Request
	var idx []int
	for i := range ins {
		a, req, err := m.request(ins[i], exs[i])
		if err != nil {
			errs[i] = err
			continue
		}
		acts[i] = a
		reqs = append(reqs, req)
		idx = append(idx, i)
	}
	if len(reqs) == 0 {
		return obs, errs
	}
	ctx, cancel := context.WithTimeout(context.Background(), m.timeout())
	defer cancel()
	res, err := m.Sim.SimulateBatch(ctx, reqs)
	for k, i := range idx {
		if err != nil {
			errs[i] = fmt.Errorf("model simulation: %w", err)
			continue
		}
		obs[i] = m.observe(ins[i], exs[i], acts[i], res[k])
	}
	return obs, errs
}

func (m *ModelMeasure) timeout() time.Duration {
	if m.Timeout <= 0 {
		return time.Minute
	}
	return m.Timeout
}

// request maps an execution to a simulation request (keys only).
func (m *ModelMeasure) request(in *schedule.Input, ex *schedule.Execution) ([]schedule.ModelAction, *sim.Request, error) {
	acts, err := m.Mapper.Map(in, ex)
	if err != nil {
		return nil, nil, err
	}
	req := SimRequest(acts, false)
	// Coverage goes on past a divergence: the first is the bug, and the
	// states after it keep guiding the campaign (sim.Request.Resync).
	req.Resync = true
	return acts, req, nil
}

// SimRequest is the simulation of mapped actions; states asks for the
// visited states' variables too, not only their keys.
func SimRequest(acts []schedule.ModelAction, states bool) *sim.Request {
	req := &sim.Request{Actions: make([]sim.Action, len(acts)), States: &states}
	for i, a := range acts {
		req.Actions[i] = sim.Action{Name: a.Name, Params: a.Params}
	}
	return req
}

// observe turns a simulation result of the execution ex of in into
// coverage items and failures.
func (m *ModelMeasure) observe(in *schedule.Input, ex *schedule.Execution, acts []schedule.ModelAction, res *sim.Result) fuzzer.Observation {
	obs := fuzzer.Observation{Items: res.Keys}
	if len(res.States) == len(res.Keys) {
		// The step after which each state was reached: state k follows
		// action Index-1 (Index 0: the initial state).
		obs.Steps = make([]int, len(res.Keys))
		for k, st := range res.States {
			obs.Steps[k] = -1
			if i := st.Index - 1; i >= 0 && i < len(acts) {
				obs.Steps[k] = acts[i].Step
			}
		}
	}
	if m.View != "" {
		return obs
	}
	stepOf := func(i int) int {
		if i >= 0 && i < len(acts) {
			return acts[i].Step
		}
		if len(acts) > 0 && i >= len(acts) {
			return acts[len(acts)-1].Step
		}
		return 0
	}
	if d := res.Divergence; d != nil {
		sig := "divergence: " + d.Action + ": " + schedule.BlankNumbers(d.Reason)
		if d.At != "" {
			// The failed condition tells bugs apart that break one action
			// in different ways (a vote given twice, a vote for a shorter
			// log). Signatures without it, stored by earlier versions,
			// stay as they were.
			sig += ": " + d.Conjunct + " (" + d.At + ")"
		}
		msg := DivergenceText(m.Spec, in, ex, acts, d)
		fl := schedule.Failure{Kind: schedule.FailureDivergence, Signature: sig, Message: msg, Step: stepOf(d.Index)}
		if k, ok := m.Mapper.(interface{ KeepsTrace() bool }); ok && k.KeepsTrace() {
			// A system on real time does not replay the same trace: the
			// one the model diverged on goes with the failure.
			fl.Detail = DivergedTraceHeader + string(schedule.EncodeTrace(ex.Trace))
		}
		obs.Failures = append(obs.Failures, fl)
	}
	seen := map[string]bool{}
	for _, v := range res.Violations {
		if seen[v.Invariant] {
			continue
		}
		seen[v.Invariant] = true
		msg := fmt.Sprintf("model invariant %s is violated in the initial state", v.Invariant)
		if i := v.Index - 1; i >= 0 && i < len(acts) {
			msg = fmt.Sprintf("model invariant %s is violated after %s (%s)", v.Invariant, actionPlace(m.Spec, in, ex, acts[i]), ActionCall(acts[i]))
		}
		obs.Failures = append(obs.Failures, schedule.Failure{
			Kind:      schedule.FailureModelInvariant,
			Signature: "model-invariant: " + v.Invariant,
			Message:   msg,
			Step:      stepOf(v.Index - 1),
		})
	}
	return obs
}

// DivergenceText says where the execution ex of in left the model, in
// terms that keep their meaning when the input is minimized: the event
// the action maps and the step it happened in (numbered in this input),
// the action as TLA+ with its parameters, and the conjunct that was false
// with its position, e.g.
//
//	n3 <- n1 MsgApp at step 15 (n3 deliver(1)) of the 16-step input:
//	the model does not allow HandleAppendRequest(i=3, j=1, ...):
//	not enabled, ~success is false (raft.tla:291:19)
//
// (one line). The conjunct's context (a whole IF) is left to the
// model's view of a replay.
func DivergenceText(spec *schedule.SystemSpec, in *schedule.Input, ex *schedule.Execution, acts []schedule.ModelAction, d *sim.Divergence) string {
	if d.Index < 0 || d.Index >= len(acts) {
		return fmt.Sprintf("the model does not allow %s: %s", d.Action, d.Reason)
	}
	a := acts[d.Index]
	where := actionPlace(spec, in, ex, a)
	call := d.Call
	if call == "" {
		call = ActionCall(a)
	}
	why := d.Reason
	if d.At != "" {
		why = fmt.Sprintf("%s, %s is false (%s)", d.Reason, d.Conjunct, d.At)
	}
	return fmt.Sprintf("%s: the model does not allow %s: %s", where, call, why)
}

// actionPlace names what a mapped action comes from: the event it maps
// and the step it happened in, "n3 <- n1 MsgApp at step 15 (n3
// deliver(1)) of the 16-step input".
func actionPlace(spec *schedule.SystemSpec, in *schedule.Input, ex *schedule.Execution, a schedule.ModelAction) string {
	if spec == nil {
		spec = &schedule.SystemSpec{}
	}
	where := spec.StepName(in, a.Step)
	if ex != nil && a.Event >= 0 && a.Event < len(ex.Trace) && ex.Trace[a.Event].Step == a.Step {
		where = spec.EventName(&ex.Trace[a.Event]) + " at " + where
	}
	return where
}

// ActionCall shows a mapped action as TLA+: its name and its parameters,
// in the order of their names, as TLA+ values, e.g.
// HandleAppendRequest(commit=2, entries=<<[term |-> 3, value |-> ""]>>, i=2).
func ActionCall(a schedule.ModelAction) string {
	var b strings.Builder
	b.WriteString(a.Name)
	b.WriteByte('(')
	for i, k := range slices.Sorted(maps.Keys(a.Params)) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k + "=")
		if v, err := value.FromJSONValue(a.Params[k], nil); err == nil {
			b.WriteString(v.String())
		} else {
			fmt.Fprintf(&b, "%v (not a TLA+ value: %v)", a.Params[k], err)
		}
	}
	b.WriteByte(')')
	return b.String()
}
