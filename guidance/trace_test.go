package guidance_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/guidance"
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
	require.Equal(t, guidance.TraceHash(a), guidance.TraceHash(b))
	// Message ids and steps are not part of the class: renumbering keeps it.
	c := schedule.Trace{send(5, 0, 1, 7, "a"), send(5, 0, 2, 3, "b"), recv(6, 2, 0, 3, "b"), recv(9, 1, 0, 7, "a")}
	require.Equal(t, guidance.TraceHash(a), guidance.TraceHash(c))
}

func TestTraceHashSeesDependentReorderings(t *testing.T) {
	// Node 1 receives a then b, or b then a: a different partial order.
	ab := schedule.Trace{send(0, 0, 1, 1, "a"), send(0, 2, 1, 2, "b"), recv(1, 1, 0, 1, "a"), recv(1, 1, 2, 2, "b")}
	ba := schedule.Trace{send(0, 0, 1, 1, "a"), send(0, 2, 1, 2, "b"), recv(1, 1, 2, 2, "b"), recv(1, 1, 0, 1, "a")}
	require.NotEqual(t, guidance.TraceHash(ab), guidance.TraceHash(ba))
	// A receive linked to a different send (same label) differs too: node 1
	// hears from 0 after 0 did something else first.
	x := schedule.Trace{{Kind: schedule.EvTimeout, Node: 0, Peer: -1, Type: "timeout"}, send(0, 0, 1, 1, "a"), recv(1, 1, 0, 1, "a")}
	y := schedule.Trace{send(0, 0, 1, 1, "a"), {Kind: schedule.EvTimeout, Node: 0, Peer: -1, Type: "timeout"}, recv(1, 1, 0, 1, "a")}
	require.NotEqual(t, guidance.TraceHash(x), guidance.TraceHash(y))
	// Message contents count.
	z := schedule.Trace{send(0, 0, 1, 1, "a"), recv(1, 1, 0, 1, "a")}
	z2 := schedule.Trace{send(0, 0, 1, 1, "a"), recv(1, 1, 0, 1, "a")}
	z2[0].Args = []schedule.Arg{schedule.I("term", 2)}
	require.NotEqual(t, guidance.TraceHash(z), guidance.TraceHash(z2))
}

func TestTraceHashLargeMessageIDs(t *testing.T) {
	a := schedule.Trace{send(0, 0, 1, 1000, "a"), recv(1, 1, 0, 1000, "a")}
	b := schedule.Trace{send(0, 0, 1, 1, "a"), recv(1, 1, 0, 1, "a")}
	c := schedule.Trace{send(0, 0, 1, -5, "a"), recv(1, 1, 0, -5, "a")}
	require.Equal(t, guidance.TraceHash(a), guidance.TraceHash(b))
	require.Equal(t, guidance.TraceHash(a), guidance.TraceHash(c))
}

// A duplicate names the message it copies by id: the id is not part of the
// class, the message copied is.
func TestTraceHashDuplicateFollowsTheMessageCopied(t *testing.T) {
	dup := func(node, peer, msg, of int, typ string) schedule.Event {
		return schedule.Event{Kind: schedule.EvDuplicate, Node: node, Peer: peer, Msg: msg, Type: typ,
			Args: []schedule.Arg{schedule.I(schedule.ArgCopyOf, int64(of))}}
	}
	// Node 0 sends a (term 1) then a (term 2) to node 1; the network copies one.
	a1, a2 := send(0, 0, 1, 1, "a"), send(0, 0, 1, 2, "a")
	a2.Args = []schedule.Arg{schedule.I("term", 2)}
	first := schedule.Trace{a1, a2, dup(1, 0, 3, 1, "a"), recv(1, 1, 0, 3, "a")}
	second := schedule.Trace{a1, a2, dup(1, 0, 3, 2, "a"), recv(1, 1, 0, 3, "a")}
	require.NotEqual(t, guidance.TraceHash(first), guidance.TraceHash(second))
	// Renumbered, the same class.
	b1, b2 := send(0, 0, 1, 8, "a"), send(0, 0, 1, 9, "a")
	b2.Args = a2.Args
	renumbered := schedule.Trace{b1, b2, dup(1, 0, 4, 8, "a"), recv(1, 1, 0, 4, "a")}
	require.Equal(t, guidance.TraceHash(first), guidance.TraceHash(renumbered))
	require.Equal(t, "a", first[2].Label(), "the id of the message copied is not in the label")
}
