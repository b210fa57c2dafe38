package fuzzer

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/schedule"
)

func send(step, node, peer, msg int, typ string) schedule.Event {
	return schedule.Event{Step: step, Kind: schedule.EvSend, Node: node, Peer: peer, Msg: msg, Type: typ}
}

func recv(step, node, peer, msg int, typ string) schedule.Event {
	return schedule.Event{Step: step, Kind: schedule.EvRecv, Node: node, Peer: peer, Msg: msg, Type: typ}
}

func TestTraceHashIgnoresOrderOfIndependentEvents(t *testing.T) {
	// Node 0 sends a to 1 and b to 2; 1 and 2 receive in either order.
	a := schedule.Trace{send(0, 0, 1, 1, "a"), send(0, 0, 2, 2, "b"), recv(1, 1, 0, 1, "a"), recv(2, 2, 0, 2, "b")}
	b := schedule.Trace{send(0, 0, 1, 1, "a"), send(0, 0, 2, 2, "b"), recv(1, 2, 0, 2, "b"), recv(2, 1, 0, 1, "a")}
	require.Equal(t, TraceHash(a), TraceHash(b))
	// Message ids and steps are not part of the class: renumbering keeps it.
	c := schedule.Trace{send(5, 0, 1, 7, "a"), send(5, 0, 2, 3, "b"), recv(6, 2, 0, 3, "b"), recv(9, 1, 0, 7, "a")}
	require.Equal(t, TraceHash(a), TraceHash(c))
}

func TestTraceHashSeesDependentReorderings(t *testing.T) {
	// Node 1 receives a then b, or b then a: a different partial order.
	ab := schedule.Trace{send(0, 0, 1, 1, "a"), send(0, 2, 1, 2, "b"), recv(1, 1, 0, 1, "a"), recv(1, 1, 2, 2, "b")}
	ba := schedule.Trace{send(0, 0, 1, 1, "a"), send(0, 2, 1, 2, "b"), recv(1, 1, 2, 2, "b"), recv(1, 1, 0, 1, "a")}
	require.NotEqual(t, TraceHash(ab), TraceHash(ba))
	// A receive linked to a different send (same label) differs too: node 1
	// hears from 0 after 0 did something else first.
	x := schedule.Trace{{Kind: schedule.EvTimeout, Node: 0, Peer: -1, Type: "timeout"}, send(0, 0, 1, 1, "a"), recv(1, 1, 0, 1, "a")}
	y := schedule.Trace{send(0, 0, 1, 1, "a"), {Kind: schedule.EvTimeout, Node: 0, Peer: -1, Type: "timeout"}, recv(1, 1, 0, 1, "a")}
	require.NotEqual(t, TraceHash(x), TraceHash(y))
	// Message contents count.
	z := schedule.Trace{send(0, 0, 1, 1, "a"), recv(1, 1, 0, 1, "a")}
	z2 := schedule.Trace{send(0, 0, 1, 1, "a"), recv(1, 1, 0, 1, "a")}
	z2[0].Args = []schedule.Arg{schedule.I("term", 2)}
	require.NotEqual(t, TraceHash(z), TraceHash(z2))
}

func TestCoverageNewAndAdd(t *testing.T) {
	c := NewCoverage()
	require.Equal(t, []uint64{1, 2}, c.New([]uint64{1, 2, 1}))
	c.Add([]uint64{1})
	require.Equal(t, []uint64{2}, c.New([]uint64{1, 2}))
	require.Equal(t, 1, c.Len())
}

func TestBlankNumbers(t *testing.T) {
	require.Equal(t, "worker-N: task N of N", schedule.BlankNumbers("worker-2: task 14 of 20"))
}

func TestTraceHashLargeMessageIDs(t *testing.T) {
	a := schedule.Trace{send(0, 0, 1, 1000, "a"), recv(1, 1, 0, 1000, "a")}
	b := schedule.Trace{send(0, 0, 1, 1, "a"), recv(1, 1, 0, 1, "a")}
	c := schedule.Trace{send(0, 0, 1, -5, "a"), recv(1, 1, 0, -5, "a")}
	require.Equal(t, TraceHash(a), TraceHash(b))
	require.Equal(t, TraceHash(a), TraceHash(c))
}

func TestCoverageSet(t *testing.T) {
	c := NewCoverage()
	ref := map[uint64]bool{}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		x := r.Uint64() % 30000 // repeats, small values and 0
		require.Equal(t, ref[x], c.Has(x))
		fresh := c.New([]uint64{x, x})
		if ref[x] {
			require.Empty(t, fresh)
		} else {
			require.Equal(t, []uint64{x}, fresh)
		}
		c.Add(fresh)
		ref[x] = true
		require.Equal(t, len(ref), c.Len())
	}
	require.True(t, c.Has(0) == ref[0])
	require.LessOrEqual(t, c.Bytes(), 8*4*len(ref)) // at most 3/4 full after growing
}
