package process

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/linearize"
	"github.com/modelfuzz/modelfuzz/schedule"
)

func TestStaleReadIsNotLinearizable(t *testing.T) {
	// put(k1, 2) on n1, answered; then get(k1) on n2 reads nothing.
	in := input(req(0, 2), req(1, 3), req(2, 4), req(0, 5))
	_, s := newFake(t, fakeCluster(3, nil, "-stale"), nil)
	ex, _ := execute(t, s, in)
	require.Len(t, ex.Failures, 1, "%+v", ex.Failures)
	f := ex.Failures[0]
	require.Equal(t, schedule.FailureLinearizability, f.Kind)
	require.Equal(t, "linearizability: kv", f.Signature)
	require.Equal(t, "the client history of key k0 (2 operations) is not linearizable", f.Message)
	require.Equal(t, 3, f.Step)
	require.Contains(t, f.Detail, "process output:\n== n1 stdout ==\nready\n")

	h, err := linearize.HistoryFromDetail(f.Detail)
	require.NoError(t, err)
	require.Equal(t, s.History(), h)
	require.Len(t, h, 4)
	require.Equal(t, Op{Process: 1, Value: 3, Step: 1, Key: "k1", Out: "", Call: h[1].Call, Return: h[1].Return, RetStep: 1}, h[1])

	p := filepath.Join(t.TempDir(), "history.html")
	require.NoError(t, linearize.WriteVisualization(h, p))
	html, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Contains(t, string(html), "<html")
	require.Contains(t, string(html), `get(k1) -\u003e \"\"`)

	// The same schedule on the correct fake is fine.
	_, s2 := newFake(t, fakeCluster(3, nil), nil)
	ex, _ = execute(t, s2, in)
	require.Empty(t, ex.Failures)
	res, _ := linearize.Linearizable(s2.History())
	require.Equal(t, porcupine.Ok, res)
}
