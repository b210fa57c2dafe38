package process

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/guidance"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// Real processes can be scheduled online: the fuzzer holds every message a
// replica sends, so the heads of the inboxes are the enabled receipts. An
// input an online strategy recorded replays to the same trace, byte for
// byte, and a cluster that does not start is the harness's error.
func TestOnlineStrategiesOnProcesses(t *testing.T) {
	fac, _ := newFake(t, fakeCluster(3, nil), nil)
	h := schedule.Harness{Shape: schedule.Shape{Steps: 25, MaxMessages: 1, Requests: 2, CrashQuota: 1}}
	for _, strategy := range []string{"pos", "pctcp"} {
		p := guidance.OnlineParams{}
		require.NoError(t, p.Defaults(strategy, fac.Spec()))
		p.RaceRuns = 1
		o, err := guidance.NewOnline(strategy, p, h, fac, 1)
		require.NoError(t, err)
		sys, err := fac.NewSystem()
		require.NoError(t, err)
		recvs := 0
		for k := 0; k < 2; k++ {
			in, ex, err := o.Run(sys, rand.New(rand.NewPCG(uint64(k), 1)))
			require.NoError(t, err)
			require.NotEmpty(t, in.Steps)
			for _, e := range ex.Trace {
				if e.Kind == schedule.EvRecv {
					recvs++
				}
			}
			want := string(schedule.EncodeTrace(ex.Trace))
			again, err := sys.Execute(in)
			require.NoError(t, err)
			require.Equal(t, want, string(schedule.EncodeTrace(again.Trace)), "%s, input %d", strategy, k)
		}
		require.Positive(t, recvs, "%s received messages", strategy)
	}

	// A replica that exits at once: the cluster does not start.
	bad, _ := newFake(t, fakeCluster(3, func(c map[string]any) { c["command"], c["args"] = "false", []any{} }), nil)
	o, err := guidance.NewOnline("pos", guidance.OnlineParams{Depth: 1, RaceRuns: 1, Period: 1, Rounds: 1, Isolations: -1}, h, bad, 1)
	require.NoError(t, err)
	sys, err := bad.NewSystem()
	require.NoError(t, err)
	_, _, err = o.Run(sys, rand.New(rand.NewPCG(1, 1)))
	require.ErrorContains(t, err, "exited")
}
