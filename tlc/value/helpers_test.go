package value

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Model values used by the tests, created first so that their ranks follow
// this order.
var (
	mvA    = NewModelValue("a")
	mvB    = NewModelValue("b")
	mvC    = NewModelValue("c")
	mvNone = NewModelValue("None")
	mvTyp1 = NewModelValue("p_1")
	mvTyp2 = NewModelValue("p_2")
	mvTypQ = NewModelValue("q_1")
)

func ints(xs ...int64) []Value {
	out := make([]Value, len(xs))
	for i, x := range xs {
		out[i] = IntOf(x)
	}
	return out
}

func set(xs ...Value) *Set { return NewSet(xs...) }

func iset(xs ...int64) *Set { return NewSet(ints(xs...)...) }

func tup(xs ...Value) *Func { return Tuple(xs...) }

func rec(t *testing.T, kv ...any) *Func {
	t.Helper()
	var names []string
	var vals []Value
	for i := 0; i < len(kv); i += 2 {
		names = append(names, kv[i].(string))
		vals = append(vals, kv[i+1].(Value))
	}
	r, err := Record(names, vals)
	require.NoError(t, err)
	return r
}

func fn(t *testing.T, kv ...Value) *Func {
	t.Helper()
	var dom, vals []Value
	for i := 0; i < len(kv); i += 2 {
		dom = append(dom, kv[i])
		vals = append(vals, kv[i+1])
	}
	f, err := NewFunc(dom, vals)
	require.NoError(t, err)
	return f
}

func mustEqual(t *testing.T, a, b Value) bool {
	t.Helper()
	eq, err := Equal(a, b)
	require.NoError(t, err, "Equal(%s, %s)", a, b)
	return eq
}

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		require.NoError(t, err)
		return v
	}
}
