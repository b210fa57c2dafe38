package value

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestJSONRoundTrip(t *testing.T) {
	models := map[string]ModelValue{"a": mvA, "None": mvNone}
	vals := []Value{
		IntOf(42), IntOf(-9000000000), Str("x"), Str("a b"), True, False, mvA, mvNone,
		EmptyFunc,
		tup(IntOf(1), Str("s"), tup(True)),
		rec(t, "term", IntOf(3), "log", tup(rec(t, "term", IntOf(1), "value", Str("v"))), "leader", mvNone),
	}
	for _, v := range vals {
		data, err := ToJSON(v)
		require.NoError(t, err, "%s", v)
		back, err := FromJSON(data, models)
		require.NoError(t, err, "%s", data)
		assert.True(t, mustEqual(t, v, back), "%s -> %s -> %s", v, data, back)
	}
}

func TestJSONEncoding(t *testing.T) {
	mv := must[Value](t)
	tests := []struct {
		v    Value
		want string
	}{
		{rec(t, "b", IntOf(1), "a", tup()), `{"a":[],"b":1}`},
		{iset(3, 1, 2), `[1,2,3]`},
		{NewInterval(1, 3), `[1,2,3]`},
		{set(mvA, Str("x")), `["a","x"]`},
		{fn(t, mvA, IntOf(1), mvB, IntOf(2)), `[["a",1],["b",2]]`},
		{must[*Func](t)(IntervalFunc(0, ints(7))), `[[0,7]]`},
		{mv(Powerset(iset(1))), `[[],[1]]`},
	}
	for _, tt := range tests {
		data, err := ToJSON(tt.v)
		require.NoError(t, err)
		assert.JSONEq(t, tt.want, string(data), "%s", tt.v)
	}
	_, err := ToJSON(Nat)
	assert.EqualError(t, err, "cannot encode Nat as JSON: cannot enumerate Nat")
}

func TestJSONDecoding(t *testing.T) {
	v, err := FromJSON([]byte(`{"x": [1, "a", true], "y": {}}`), map[string]ModelValue{"a": mvA})
	require.NoError(t, err)
	assert.Equal(t, "[x |-> <<1, a, TRUE>>, y |-> <<>>]", v.String())
	v, err = FromJSON([]byte(`"a"`), nil)
	require.NoError(t, err)
	assert.Equal(t, Str("a"), v)
	for doc, msg := range map[string]string{
		`1.5`:                  "JSON number 1.5 is not a 64-bit integer",
		`null`:                 "JSON null has no TLA+ value",
		`99999999999999999999`: "JSON number 99999999999999999999 is not a 64-bit integer",
		`{"a": null}`:          `field "a": JSON null has no TLA+ value`,
		`[1] 2`:                "decoding JSON value: trailing data after the value",
		`[1`:                   "decoding JSON value: unexpected EOF",
	} {
		_, err := FromJSON([]byte(doc), nil)
		assert.EqualError(t, err, msg, doc)
	}
}
