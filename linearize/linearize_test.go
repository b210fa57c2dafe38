package linearize

import (
	"math"
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/require"
)

func TestLinearizableHistories(t *testing.T) {
	put := func(key, v string, call, ret int64) Op {
		return Op{Put: true, Key: key, Arg: v, Call: call, Return: ret}
	}
	get := func(key, out string, call, ret int64) Op { return Op{Key: key, Out: out, Call: call, Return: ret} }
	incr := func(key, out string, call, ret int64) Op {
		return Op{Key: key, Incr: 1, Out: out, Call: call, Return: ret}
	}
	putIncr := func(key, v, out string, call, ret int64) Op {
		return Op{Put: true, Key: key, Arg: v, Incr: 1, Out: out, Call: call, Return: ret}
	}
	pendingIncr := func(key string, call int64) Op {
		return Op{Key: key, Incr: 1, Call: call, Return: math.MaxInt64, Pending: true}
	}
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
		// Increments (Redis's INCR, and MULTI SET INCR EXEC).
		{"increment from nothing", History{incr("a", "1", 0, 10), get("a", "1", 20, 30)}, true, ""},
		{"increment after a put", History{put("a", "4", 0, 10), incr("a", "5", 20, 30)}, true, ""},
		{"increment that skips one", History{put("a", "4", 0, 10), incr("a", "6", 20, 30)}, false, "a"},
		{"two increments, either order", History{incr("a", "2", 0, 30), incr("a", "1", 5, 25)}, true, ""},
		{"transaction of a put and an increment", History{putIncr("a", "8", "9", 0, 10), get("a", "9", 20, 30)}, true, ""},
		{"transaction torn", History{putIncr("a", "8", "9", 0, 10), get("a", "8", 20, 30)}, false, "a"},
		{"pending increment may count", History{pendingIncr("a", 0), incr("a", "2", 10, 20)}, true, ""},
		{"pending increment may not", History{pendingIncr("a", 0), incr("a", "1", 10, 20)}, true, ""},
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
