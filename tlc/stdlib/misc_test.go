package stdlib

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

func TestTLCExt(t *testing.T) {
	ctx := &testCtx{}
	v, err := callCtx(t, ctx, "TLCExt", "AssertEq", 1, 1)
	require.NoError(t, err)
	assert.Equal(t, value.True, v)
	assert.Empty(t, ctx.lines)
	v, err = callCtx(t, ctx, "TLCExt", "AssertEq", T(1), T(2))
	require.NoError(t, err)
	assert.Equal(t, value.False, v)
	assert.Equal(t, []string{`"Assertion failed"`, "<<1>>", "<<2>>"}, ctx.lines)
	failsWith(t, []string{"AssertEq"}, "TLCExt", "AssertEq", 1, "a")

	trace := T(R("x", 1), R("x", 2))
	tc := &traceCtx{testCtx{trace: trace}}
	v, err = callCtx(t, tc, "TLCExt", "Trace")
	require.NoError(t, err)
	assert.Same(t, trace, v)
	_, err = callCtx(t, ctx, "TLCExt", "Trace")
	assert.EqualError(t, err, "Trace: the behavior is not available here")
	failsWith(t, []string{"Trace"}, "TLCExt", "Trace")

	mv := mustCall(t, "TLCExt", "TLCModelValue", "a")
	assert.Equal(t, mvA, mv)
	fails(t, "TLCExt", "TLCModelValue", 1)
	assert.Equal(t, "TRUE", ok(t, "TLCExt", "PickSuccessor", false))
	assert.Equal(t, "3", ok(t, "TLCExt", "TLCCache", 3, S()))
}

func TestBitwise(t *testing.T) {
	assert.Equal(t, "8", ok(t, "Bitwise", "&", 12, 10))
	assert.Equal(t, "14", ok(t, "Bitwise", "|", 12, 10))
	assert.Equal(t, "6", ok(t, "Bitwise", "^^", 12, 10))
	assert.Equal(t, "3", ok(t, "Bitwise", "shiftR", 12, 2))
	assert.Equal(t, "0", ok(t, "Bitwise", "shiftR", 12, 70))
	assert.Equal(t, "&: first argument is not a natural number: -1", fails(t, "Bitwise", "&", -1, 2))
}

func TestRandomization(t *testing.T) {
	assert.Equal(t, "{1, 2}", ok(t, "Randomization", "RandomSubset", 2, S(3, 2, 1)))
	assert.Equal(t, "{}", ok(t, "Randomization", "RandomSubset", 0, S(3, 2, 1)))
	failsWith(t, []string{"RandomSubset", "larger"}, "Randomization", "RandomSubset", 4, S(3, 2, 1))
}

func TestJSON(t *testing.T) {
	const m = "Json"
	assert.Equal(t, `"[1,\"a\",true]"`, ok(t, m, "ToJson", T(1, "a", true)))
	j := func(v vv) string {
		t.Helper()
		return string(mustCall(t, m, "ToJson", v).(value.Str))
	}
	assert.Equal(t, `{"a":1,"b":[2,3]}`, j(R("b", T(2, 3), "a", 1)))
	assert.Equal(t, `[]`, j(T()))
	assert.Equal(t, `[1,2,3]`, j(S(3, 1, 2)))
	assert.Equal(t, `[1,2]`, j(rng(1, 2)))
	assert.Equal(t, `{"0":"x","2":"y"}`, j(F(0, "x", 2, "y")))
	assert.Equal(t, `"a"`, j(mvA))
	assert.Equal(t, `-5`, j(conv(-5)))
	assert.Equal(t, `"q\"\\\n\u0001<>"`, j(conv("q\"\\\n\x01<>")))
	assert.Equal(t, `[[1,"x"]]`, j(mustSet(value.Product(S(1), S("x")))))
	fails(t, m, "ToJson", value.Nat)

	arr := func(v vv) string { return string(mustCall(t, m, "ToJsonArray", v).(value.Str)) }
	obj := func(v vv) string { return string(mustCall(t, m, "ToJsonObject", v).(value.Str)) }
	assert.Equal(t, `[1,2]`, arr(T(1, 2)))
	assert.Equal(t, `[]`, arr(T()))
	assert.Equal(t, `{"0":1,"1":2}`, obj(T(1, 2)))
	assert.Equal(t, `{}`, obj(T()))
	assert.Equal(t, `{"a":1}`, obj(R("a", 1)))
	fails(t, m, "ToJsonObject", S())
	fails(t, m, "ToJsonArray", 1)

	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "trace.json")
	trace := T(R("x", 1, "y", T()), R("x", 2, "y", T("a")))
	assert.Equal(t, "TRUE", ok(t, m, "JsonSerialize", path, trace))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "[\n{\"x\":1,\"y\":[]},\n{\"x\":2,\"y\":[\"a\"]}\n]\n", string(data))
	back := mustCall(t, m, "JsonDeserialize", path)
	eq, err := value.Equal(trace, back)
	require.NoError(t, err)
	assert.True(t, eq, "%s", back)

	nd := filepath.Join(dir, "trace.ndjson")
	assert.Equal(t, "TRUE", ok(t, m, "ndJsonSerialize", nd, trace))
	data, err = os.ReadFile(nd)
	require.NoError(t, err)
	assert.Equal(t, "{\"x\":1,\"y\":[]}\n{\"x\":2,\"y\":[\"a\"]}\n", string(data))
	back = mustCall(t, m, "ndJsonDeserialize", nd)
	eq, err = value.Equal(trace, back)
	require.NoError(t, err)
	assert.True(t, eq, "%s", back)

	assert.Equal(t, "TRUE", ok(t, m, "JsonSerialize", filepath.Join(dir, "empty.json"), T()))
	data, _ = os.ReadFile(filepath.Join(dir, "empty.json"))
	assert.Equal(t, "[\n\n]\n", string(data))

	failsWith(t, []string{"JsonSerialize: second argument is not a sequence"}, m, "JsonSerialize", path, S())
	failsWith(t, []string{"JsonSerialize: first argument is not a string"}, m, "JsonSerialize", 1, T())
	failsWith(t, []string{"JsonDeserialize"}, m, "JsonDeserialize", filepath.Join(dir, "missing.json"))
	failsWith(t, []string{"ndJsonDeserialize"}, m, "ndJsonDeserialize", filepath.Join(dir, "missing.json"))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.json"), []byte("{"), 0o644))
	failsWith(t, []string{"JsonDeserialize"}, m, "JsonDeserialize", filepath.Join(dir, "bad.json"))

	// A malformed line is named by its number (blank lines count).
	badnd := filepath.Join(dir, "bad.ndjson")
	require.NoError(t, os.WriteFile(badnd, []byte("{\"a\":1}\n\n{\"a\":\n"), 0o644))
	failsWith(t, []string{"ndJsonDeserialize", "bad.ndjson:3:"}, m, "ndJsonDeserialize", badnd)
	// Numbers with a fraction truncate toward zero, as TLC's getAsInt.
	ts := filepath.Join(dir, "ts.ndjson")
	require.NoError(t, os.WriteFile(ts, []byte("{\"ts\":1712329729.6024537,\"n\":-2.5,\"e\":1e3,\"s\":[0.5]}\n"), 0o644))
	assert.Equal(t, "<<[e |-> 1000, n |-> -2, s |-> <<0>>, ts |-> 1712329729]>>", ok(t, m, "ndJsonDeserialize", ts))
}
