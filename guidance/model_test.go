package guidance_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/adapters/microbench"
	"github.com/modelfuzz/modelfuzz/corpus"
	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/guidance"
	"github.com/modelfuzz/modelfuzz/mapper"
	"github.com/modelfuzz/modelfuzz/models"
	"github.com/modelfuzz/modelfuzz/mutate"
	"github.com/modelfuzz/modelfuzz/schedule"
	"github.com/modelfuzz/modelfuzz/tlc/sidecar"
	"github.com/modelfuzz/modelfuzz/tlc/sim"
)

func setup(t testing.TB, cfg microbench.Config) (*microbench.Factory, *guidance.ModelMeasure) {
	fac, err := microbench.NewFactory(cfg)
	require.NoError(t, err)
	mp := mapper.NewMicrobench(mapper.MicrobenchParams{Workers: cfg.Workers, Tasks: cfg.Tasks})
	m, err := models.Load(models.Spec{Model: "microbench.tla", Consts: mp.Consts()})
	require.NoError(t, err)
	s, err := sim.New(m, 0)
	require.NoError(t, err)
	return fac, &guidance.ModelMeasure{Mapper: mp, Sim: sidecar.InProc{Simulator: s}}
}

// The correct system never diverges from the model: every message it
// handles is one the model allows, whatever the schedule.
func TestMicrobenchNeverDiverges(t *testing.T) {
	cfg := microbench.Config{Workers: 3, Tasks: 5}
	fac, mm := setup(t, cfg)
	sys, err := fac.New()
	require.NoError(t, err)
	g, err := schedule.NewGenerator(fac.Spec(), schedule.Shape{Steps: 80, MaxMessages: 5, Requests: 3})
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(9, 9))
	states := map[uint64]bool{}
	in := g.Random(r)
	for i := 0; i < 3000; i++ {
		if i%5 == 0 {
			in = g.Random(r)
		} else {
			in = mutate.New(g).Mutate(r, in)
		}
		ex, err := sys.Execute(in)
		require.NoError(t, err)
		obs, err := mm.Measure(in, ex)
		require.NoError(t, err)
		require.Empty(t, obs.Failures, "input %s", schedule.EncodeInput(in))
		for _, k := range obs.Items {
			states[k] = true
		}
	}
	require.Greater(t, len(states), 100)
}

// A step the protocol does not allow is a divergence.
func TestDivergenceIsReported(t *testing.T) {
	_, mm := setup(t, microbench.Config{Workers: 2, Tasks: 2})
	ex := &schedule.Execution{Trace: schedule.Trace{
		{Step: 3, Kind: schedule.EvRecv, Node: 2, Peer: 0, Msg: 1, Type: "execute", Args: []schedule.Arg{schedule.I("req", 1), schedule.I("task", 1)}},
	}}
	obs, err := mm.Measure(&schedule.Input{}, ex)
	require.NoError(t, err)
	require.Len(t, obs.Failures, 1)
	require.Equal(t, schedule.FailureDivergence, obs.Failures[0].Kind)
	// The signature names the condition that failed and where it is.
	require.Equal(t, "divergence: Execute: not enabled: IsReq(r) (microbench.tla:79:8)", obs.Failures[0].Signature)
	require.Contains(t, obs.Failures[0].Message, "IsReq(r) is false (microbench.tla:79:8)")
	require.Equal(t, 3, obs.Failures[0].Step)
	require.Contains(t, obs.Failures[0].Message, "Execute(w=2, r=1, k=1)", "TLA+, in the operator's order")
}

// A divergence's message names the event and the step it happened in,
// with the length of the input: an input and its minimized form number
// the step differently but name the same event, and share the signature.
// Parameters are TLA+ values, and the false conjunct is named with its
// position, not the whole action.
func TestDivergenceMessageNamesTheEvent(t *testing.T) {
	fac, mm := setup(t, microbench.Config{Workers: 2, Tasks: 2})
	mm.Spec = fac.Spec()
	execute := schedule.Event{Kind: schedule.EvRecv, Node: 2, Peer: 0, Msg: 1, Type: "execute", Args: []schedule.Arg{schedule.I("req", 1), schedule.I("task", 1)}}
	deliver := schedule.Step{Process: 2, Action: schedule.Deliver, Messages: 1}
	timeout := schedule.Step{Process: 1, Action: schedule.Timeout}

	long := &schedule.Input{Steps: []schedule.Step{timeout, timeout, timeout, deliver, timeout}}
	e := execute
	e.Step = 3
	obsLong, err := mm.Measure(long, &schedule.Execution{Trace: schedule.Trace{e}})
	require.NoError(t, err)
	short := &schedule.Input{Steps: []schedule.Step{deliver}}
	e.Step = 0
	obsShort, err := mm.Measure(short, &schedule.Execution{Trace: schedule.Trace{e}})
	require.NoError(t, err)
	require.Len(t, obsLong.Failures, 1)
	require.Len(t, obsShort.Failures, 1)
	fl, fs := obsLong.Failures[0], obsShort.Failures[0]
	require.Equal(t, fl.Signature, fs.Signature)

	w2, master := fac.Spec().ProcessName(2), fac.Spec().ProcessName(0)
	event := w2 + " <- " + master + " execute"
	require.Equal(t, event+" at step 3 ("+w2+" deliver(1)) of the 5-step input: the model does not allow Execute(w=2, r=1, k=1): not enabled, IsReq(r) is false (microbench.tla:79:8)", fl.Message)
	require.Equal(t, event+" at step 0 ("+w2+" deliver(1)) of the 1-step input: the model does not allow Execute(w=2, r=1, k=1): not enabled, IsReq(r) is false (microbench.tla:79:8)", fs.Message)
	require.NotContains(t, fl.Message, "map[")
}

func TestModelGuidedCampaignFindsTheBug(t *testing.T) {
	cfg := microbench.Config{Workers: 3, Tasks: 5, Inject: microbench.InjectFlushBeforeLast}
	fac, mm := setup(t, cfg)
	g, err := schedule.NewGenerator(fac.Spec(), schedule.Shape{Steps: 50, MaxMessages: 5, Requests: 2})
	require.NoError(t, err)
	st, err := corpus.Open(t.TempDir(), corpus.Options{})
	require.NoError(t, err)
	defer st.Close()
	f, err := fuzzer.New(fuzzer.Options{Strategy: "model", Guide: mm, Measures: []fuzzer.Measure{guidance.TraceMeasure{}, mm},
		Params: fuzzer.Params{Seed: 1, SeedPopulation: 20, ReseedEvery: 200, Mutations: 5},
		Limits: fuzzer.Limits{Iterations: 5000}}, fac, g, st)
	require.NoError(t, err)
	sum, err := f.Run(context.Background())
	require.NoError(t, err)
	require.Greater(t, sum.Coverage[guidance.MeasureModel], 50)
	require.Zero(t, sum.Divergences)
	var kinds []string
	for _, b := range sum.Bugs {
		kinds = append(kinds, b.Kind)
	}
	require.Equal(t, []string{"panic"}, kinds)
}

// A mapped action shows as TLA+: records and tuples in TLA+'s notation,
// never Go's.
func TestActionCallIsTLA(t *testing.T) {
	a := schedule.ModelAction{Name: "HandleAppendRequest", Params: map[string]any{
		"entries": []any{map[string]any{"term": int64(3), "value": ""}}, "i": int64(2), "success": false}}
	require.Equal(t, `HandleAppendRequest(entries=<<[term |-> 3, value |-> ""]>>, i=2, success=FALSE)`, guidance.ActionCall(a))
}

// fixedSim answers every simulation with one result.
type fixedSim struct{ res *sim.Result }

func (f fixedSim) Simulate(context.Context, *sim.Request) (*sim.Result, error) { return f.res, nil }
func (f fixedSim) SimulateBatch(_ context.Context, reqs []*sim.Request) ([]*sim.Result, error) {
	out := make([]*sim.Result, len(reqs))
	for i := range out {
		out[i] = f.res
	}
	return out, nil
}

// A violated model invariant names the event and the step whose action
// led to the state, as a divergence does, not an action count.
func TestModelInvariantNamesTheEvent(t *testing.T) {
	fac, mm := setup(t, microbench.Config{Workers: 2, Tasks: 2})
	mm.Spec = fac.Spec()
	mm.Sim = fixedSim{&sim.Result{Keys: []uint64{1, 2}, Violations: []sim.Violation{{Invariant: "Safe", Index: 1}}}}
	in := &schedule.Input{Steps: []schedule.Step{{Process: 0, Action: schedule.Request, Value: 1}, {Process: 0, Action: schedule.Deliver, Messages: 1}}}
	ex := &schedule.Execution{Trace: schedule.Trace{{Step: 1, Kind: "start", Node: 2, Peer: -1}}}
	obs, err := mm.Measure(in, ex)
	require.NoError(t, err)
	require.Len(t, obs.Failures, 1)
	f := obs.Failures[0]
	require.Equal(t, "model-invariant: Safe", f.Signature)
	w := fac.Spec().ProcessName(2)
	require.Equal(t, "model invariant Safe is violated after "+w+" START at step 1 ("+fac.Spec().ProcessName(0)+" deliver(1)) of the 2-step input (Start(p=2))", f.Message)
	require.Equal(t, 1, f.Step)
}
