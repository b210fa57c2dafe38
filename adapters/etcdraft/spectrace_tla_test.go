//go:build with_tla

package etcdraft

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// The library's own trace is part of an execution's determinism: the same
// input gives the same events, byte for byte, on the same instance and on
// another, whichever API drives the nodes; the Node driver's synchronizing
// messages are not in it; every event names the step it happened in.
func TestSpecTraceDeterministic(t *testing.T) {
	for _, api := range []string{APIRawNode, APIMixed} {
		cfg := DefaultConfig()
		cfg.PreVote, cfg.CheckQuorum, cfg.SpecTrace, cfg.API = false, false, true, api
		f, s1 := newSystem(t, cfg)
		_, s2 := newSystem(t, cfg)
		g, err := schedule.NewGenerator(f.Spec(), schedule.Shape{Steps: 80, MaxMessages: 5, CrashQuota: 2, Requests: 4})
		require.NoError(t, err)
		r := rand.New(rand.NewPCG(7, 8))
		runs := 30 // the library sleeps 1 ms per traced receive
		if raceEnabled {
			runs = 8
		}
		for i := 0; i < runs; i++ {
			in := g.Random(r)
			a, _ := run(t, s1, in)
			b, _ := run(t, s1, in)
			c, _ := run(t, s2, in)
			require.NotEmpty(t, a.Spec)
			require.Equal(t, specBytes(a), specBytes(b), "%s input %d", api, i)
			require.Equal(t, specBytes(a), specBytes(c), "%s input %d", api, i)
			last := 0
			for _, e := range a.Spec {
				require.True(t, json.Valid(e.JSON), "%s", e.JSON)
				require.False(t, bytes.Contains(e.JSON, []byte(`"`+noSuchPeerID+`"`)), "%s", e.JSON)
				require.GreaterOrEqual(t, e.Step, last)
				require.Less(t, e.Step, in.Len())
				last = e.Step
			}
		}
	}
}

func specBytes(ex *schedule.Execution) []byte {
	var b bytes.Buffer
	for _, e := range ex.Spec {
		b.Write(e.JSON)
		b.WriteByte('\n')
	}
	return b.Bytes()
}
