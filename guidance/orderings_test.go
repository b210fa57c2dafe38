package guidance_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/guidance"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// A deeper inbox, a message overtaking more older ones and a longer wait
// are new items; the same orderings again, or shallower ones, are not.
func TestOrderingsGrowWithDepthOvertakingAndWaiting(t *testing.T) {
	// Process 1 gets two messages and receives them in order.
	inOrder := schedule.Trace{
		send(0, 0, 1, 1, "MsgApp"), send(0, 0, 1, 2, "MsgApp"),
		recv(1, 1, 0, 1, "MsgApp"), recv(2, 1, 0, 2, "MsgApp"),
	}
	base, steps := guidance.Orderings(inOrder)
	require.Len(t, steps, len(base))
	again, _ := guidance.Orderings(inOrder)
	require.Equal(t, base, again, "items are stable")

	has := func(items []uint64, x uint64) bool {
		for _, y := range items {
			if y == x {
				return true
			}
		}
		return false
	}
	newOf := func(tr schedule.Trace) []uint64 {
		items, _ := guidance.Orderings(tr)
		var out []uint64
		for _, x := range items {
			if !has(base, x) {
				out = append(out, x)
			}
		}
		return out
	}

	// The newer message overtakes the older: new.
	overtaken := schedule.Trace{
		send(0, 0, 1, 1, "MsgApp"), send(0, 0, 1, 2, "MsgApp"),
		recv(1, 1, 0, 2, "MsgApp"), recv(2, 1, 0, 1, "MsgApp"),
	}
	require.NotEmpty(t, newOf(overtaken), "a message overtaking an older one")

	// Five messages wait at once: a deeper inbox.
	deep := schedule.Trace{}
	for m := 1; m <= 5; m++ {
		deep = append(deep, send(0, 0, 1, m, "MsgApp"))
	}
	for m := 1; m <= 5; m++ {
		deep = append(deep, recv(1, 1, 0, m, "MsgApp"))
	}
	require.NotEmpty(t, newOf(deep), "a deeper inbox")

	// Process 1 waits ten steps with a message pending.
	starved := schedule.Trace{
		send(0, 0, 1, 1, "MsgApp"), send(0, 0, 1, 2, "MsgApp"),
		recv(10, 1, 0, 1, "MsgApp"), recv(11, 1, 0, 2, "MsgApp"),
	}
	require.NotEmpty(t, newOf(starved), "a longer wait")

	// One message, received at once: nothing beyond the base.
	shallow := schedule.Trace{send(0, 0, 1, 1, "MsgApp"), recv(1, 1, 0, 1, "MsgApp")}
	require.Empty(t, newOf(shallow))

	// A crash empties the inbox: messages sent before it do not deepen it.
	crashed := schedule.Trace{send(0, 0, 1, 1, "MsgApp"), send(0, 0, 1, 2, "MsgApp"),
		{Step: 1, Kind: schedule.EvCrash, Node: 1, Peer: -1}, send(2, 0, 1, 3, "MsgApp"), recv(3, 1, 0, 3, "MsgApp")}
	require.Empty(t, newOf(crashed))
}
