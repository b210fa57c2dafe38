package process

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/require"
)

func TestStaleReadIsNotLinearizable(t *testing.T) {
	// put(k1, 2) on n1, answered; then get(k1) on n2 reads nothing.
	in := input(req(0, 2), req(1, 3), req(2, 4), req(0, 5))
	_, s := newFake(t, fakeCluster(3, nil, "-stale"), nil)
	ex, _ := execute(t, s, in)
	require.Len(t, ex.Failures, 1, "%+v", ex.Failures)
	f := ex.Failures[0]
	require.Equal(t, KindLinearizability, f.Kind)
	require.Equal(t, "linearizability: kv", f.Signature)
	require.Equal(t, "the client history of key k0 (2 operations) is not linearizable", f.Message)
	require.Equal(t, 3, f.Step)
	require.Contains(t, f.Detail, "process output:\n== n1 stdout ==\nready\n")

	h, err := HistoryFromDetail(f.Detail)
	require.NoError(t, err)
	require.Equal(t, s.History(), h)
	require.Len(t, h, 4)
	require.Equal(t, Op{Process: 1, Value: 3, Step: 1, Key: "k1", Out: "", Call: h[1].Call, Return: h[1].Return, RetStep: 1}, h[1])

	p := filepath.Join(t.TempDir(), "history.html")
	require.NoError(t, WriteVisualization(h, p))
	html, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Contains(t, string(html), "<html")
	require.Contains(t, string(html), `get(k1) -\u003e \"\"`)

	// The same schedule on the correct fake is fine.
	_, s2 := newFake(t, fakeCluster(3, nil), nil)
	ex, _ = execute(t, s2, in)
	require.Empty(t, ex.Failures)
	res, _ := Linearizable(s2.History())
	require.Equal(t, porcupine.Ok, res)
}

func TestLinearizableHistories(t *testing.T) {
	put := func(key, v string, call, ret int64) Op {
		return Op{Put: true, Key: key, Arg: v, Call: call, Return: ret}
	}
	get := func(key, out string, call, ret int64) Op { return Op{Key: key, Out: out, Call: call, Return: ret} }
	pending := func(key, v string, call int64) Op {
		o := put(key, v, call, math.MaxInt64)
		o.Pending = true
		return o
	}
	for _, tc := range []struct {
		name string
		h    History
		ok   bool
		key  string
	}{
		{"empty", nil, true, ""},
		{"sequential", History{put("a", "1", 0, 10), get("a", "1", 20, 30)}, true, ""},
		{"stale", History{put("a", "1", 0, 10), get("a", "", 20, 30)}, false, "a"},
		{"concurrent read may see either", History{put("a", "1", 0, 30), get("a", "", 10, 20), get("a", "1", 15, 25)}, true, ""},
		{"a read cannot go back", History{put("a", "1", 0, 30), get("a", "1", 10, 20), get("a", "", 25, 28)}, false, "a"},
		// A put without an answer may have taken effect, later or never.
		{"pending put seen", History{pending("a", "1", 0), get("a", "1", 20, 30)}, true, ""},
		{"pending put not seen", History{pending("a", "1", 0), get("a", "", 20, 30)}, true, ""},
		{"pending put, then another put", History{pending("a", "1", 0), get("a", "1", 20, 30), put("a", "2", 40, 50), get("a", "2", 60, 70)}, true, ""},
		{"keys are independent", History{put("a", "1", 0, 10), put("b", "2", 0, 10), get("b", "", 20, 30), get("a", "1", 20, 30)}, false, "b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, key := Linearizable(tc.h)
			if tc.ok {
				require.Equal(t, porcupine.Ok, res)
			} else {
				require.Equal(t, porcupine.Illegal, res)
				require.Equal(t, tc.key, key)
			}
		})
	}
}
