package mapper_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/guidance"
	"github.com/modelfuzz/modelfuzz/mapper"
	"github.com/modelfuzz/modelfuzz/schedule"
	"github.com/modelfuzz/modelfuzz/tlc/sidecar"
)

// A divergence on etcd's wire keeps the trace it was computed from, whole,
// in the failure's detail: a replay of the input on real time seldom
// delivers the same messages in the same order, and without the trace no
// one can tell etcd's divergence from the mapper's. The corrupted trace of
// TestEtcdWireCorruptedTraceDiverges (an append from a member never
// elected) must come back out of the detail event for event.
func TestEtcdWireDivergenceKeepsItsTrace(t *testing.T) {
	m := mapper.NewEtcdWire(mapper.EtcdWireParams{Nodes: 3, PreVote: true})
	require.True(t, m.KeepsTrace())
	mm := &guidance.ModelMeasure{Mapper: m, Sim: sidecar.InProc{Simulator: newSim(t, "raft.tla", m.Consts())}}
	for name, tr := range wireTraces(t) {
		tr = tr.Clone()
		k := slices.IndexFunc(tr, func(e schedule.Event) bool { return e.Kind == schedule.EvSend && e.Type == schedule.MsgApp })
		require.GreaterOrEqual(t, k, 0, name)
		impostor := (tr[k].Node + 1) % 3
		if tr[k].Peer == impostor {
			impostor = (tr[k].Node + 2) % 3
		}
		msg := tr[k].Msg
		for i := range tr {
			if tr[i].Msg == msg {
				if tr[i].Kind == schedule.EvSend {
					tr[i].Node = impostor
				} else {
					tr[i].Peer = impostor
				}
			}
		}
		// An input as long as the trace's steps: the mapper leaves out
		// what comes after an input's last step.
		in := &schedule.Input{}
		for _, e := range tr {
			for len(in.Steps) <= e.Step {
				in.Steps = append(in.Steps, schedule.Step{Action: schedule.Deliver, Messages: 1})
			}
		}
		obs, err := mm.Measure(in, &schedule.Execution{Trace: tr})
		require.NoError(t, err, name)
		var div *schedule.Failure
		for i := range obs.Failures {
			if obs.Failures[i].Kind == schedule.FailureDivergence {
				div = &obs.Failures[i]
			}
		}
		require.NotNil(t, div, "%s: the impostor's append diverges", name)
		rest, ok := strings.CutPrefix(div.Detail, guidance.DivergedTraceHeader)
		require.True(t, ok, "%s: the detail starts with the trace's header: %.200q", name, div.Detail)
		got, err := schedule.DecodeTrace([]byte(rest))
		require.NoError(t, err, name)
		require.Equal(t, len(tr), len(got), name)
		require.Equal(t, string(schedule.EncodeTrace(tr)), string(schedule.EncodeTrace(got)), name)
	}
}
