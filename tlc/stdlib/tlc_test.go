package stdlib

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

func TestPrint(t *testing.T) {
	ctx := &testCtx{}
	v, err := callCtx(t, ctx, "TLC", "Print", "x =", S(2, 1))
	require.NoError(t, err)
	assert.Equal(t, "{1, 2}", v.String())
	sub, _ := value.Powerset(S(1))
	v, err = callCtx(t, ctx, "TLC", "PrintT", T("a", sub))
	require.NoError(t, err)
	assert.Equal(t, value.True, v)
	assert.Equal(t, []string{`"x ="  {1, 2}`, `<<"a", {{}, {1}}>>`}, ctx.lines)

	// Without a context: no output, same result.
	assert.Equal(t, "3", ok(t, "TLC", "Print", "x", 3))
	assert.Equal(t, "TRUE", ok(t, "TLC", "PrintT", "x"))
}

func TestAssert(t *testing.T) {
	assert.Equal(t, "TRUE", ok(t, "TLC", "Assert", true, "msg"))
	_, err := call(t, "TLC", "Assert", false, "bad thing")
	var ae *AssertionError
	require.True(t, errors.As(err, &ae))
	assert.Equal(t, value.Str("bad thing"), ae.Out)
	assert.Equal(t, "The first argument of Assert evaluated to FALSE; the second argument was: \"bad thing\"", err.Error())
	assert.Equal(t, "Assert: first argument is not a boolean: 1", fails(t, "TLC", "Assert", 1, "x"))
}

func TestTLCGetSet(t *testing.T) {
	ctx := &testCtx{}
	v, err := callCtx(t, ctx, "TLC", "TLCSet", 1, 42)
	require.NoError(t, err)
	assert.Equal(t, value.True, v)
	v, err = callCtx(t, ctx, "TLC", "TLCGet", 1)
	require.NoError(t, err)
	assert.Equal(t, "42", v.String())
	_, err = callCtx(t, ctx, "TLC", "TLCGet", "level")
	assert.EqualError(t, err, `TLCGet: no value for "level"`)
	failsWith(t, []string{"TLCGet", "not available"}, "TLC", "TLCGet", "level")
	failsWith(t, []string{"TLCSet", "not available"}, "TLC", "TLCSet", 1, 2)
	assert.Equal(t, "0", ok(t, "TLC", "JavaTime"))
}

func TestFunctionsOfTLC(t *testing.T) {
	assert.Equal(t, `[a |-> 1]`, ok(t, "TLC", ":>", "a", 1))
	assert.Equal(t, `(0 :> "x")`, ok(t, "TLC", ":>", 0, "x"))
	assert.Equal(t, `<<"x">>`, ok(t, "TLC", ":>", 1, "x"))
	// f @@ g takes f's value on the common domain.
	f := F(1, "f1", 2, "f2")
	g := F(2, "g2", 3, "g3")
	assert.Equal(t, `<<"f1", "f2", "g3">>`, ok(t, "TLC", "@@", f, g))
	assert.Equal(t, `<<"f1", "g2", "g3">>`, ok(t, "TLC", "@@", g, f))
	assert.Equal(t, `<<"f1", "f2">>`, ok(t, "TLC", "@@", f, T()))
	failsWith(t, []string{"@@"}, "TLC", "@@", S(), f)
	failsWith(t, []string{"@@"}, "TLC", "@@", f, 1)
}

func TestPermutations(t *testing.T) {
	assert.Equal(t, "{<<>>}", ok(t, "TLC", "Permutations", S()))
	assert.Equal(t, "{[a |-> \"a\"]}", ok(t, "TLC", "Permutations", S("a")))
	assert.Equal(t, `{[a |-> "a", b |-> "b"], [a |-> "b", b |-> "a"]}`, ok(t, "TLC", "Permutations", S("a", "b")))
	v, err := call(t, "TLC", "Permutations", S(mvA, mvB, 7))
	require.NoError(t, err)
	n, _ := value.Cardinality(v)
	assert.EqualValues(t, 6, n)
	// The result is a valid symmetry set.
	perms, err := value.PermsFromSet(mustCall(t, "TLC", "Permutations", S(mvA, mvB)))
	require.NoError(t, err)
	assert.Len(t, perms, 1, "the identity is dropped")
	assert.Equal(t, "Permutations: argument is not a set: <<1>>", fails(t, "TLC", "Permutations", T(1)))
	failsWith(t, []string{"Permutations", "too many"}, "TLC", "Permutations", rng(1, 20))
	failsWith(t, []string{"Permutations:"}, "TLC", "Permutations", value.Nat)
}

func mustCall(t *testing.T, module, name string, args ...any) value.Value {
	t.Helper()
	v, err := call(t, module, name, args...)
	require.NoError(t, err)
	return v
}

func TestSortSeq(t *testing.T) {
	assert.Equal(t, "<<1, 2, 3, 5>>", ok(t, "TLC", "SortSeq", T(3, 1, 5, 2), lessOp))
	assert.Equal(t, "<<>>", ok(t, "TLC", "SortSeq", T(), lessOp))
	greater := op2f(func(x, y vv) (vv, error) { b, err := value.Greater(x, y); return value.Bool(b), err })
	assert.Equal(t, "<<5, 3, 2, 1>>", ok(t, "TLC", "SortSeq", T(3, 1, 5, 2), greater))

	// Stability: sort records by key only; equal keys keep their order.
	byKey := op2f(func(x, y vv) (vv, error) {
		a, _ := x.(*value.Func).Field("k")
		b, _ := y.(*value.Func).Field("k")
		r, err := value.Less(a, b)
		return value.Bool(r), err
	})
	in := T(R("k", 2, "v", "a"), R("k", 1, "v", "b"), R("k", 2, "v", "c"), R("k", 1, "v", "d"))
	assert.Equal(t, `<<[k |-> 1, v |-> "b"], [k |-> 1, v |-> "d"], [k |-> 2, v |-> "a"], [k |-> 2, v |-> "c"]>>`,
		ok(t, "TLC", "SortSeq", in, byKey))

	assert.Equal(t, "SortSeq: first argument is not a sequence: {1}", fails(t, "TLC", "SortSeq", S(1), lessOp))
	failsWith(t, []string{"SortSeq", "boolean"}, "TLC", "SortSeq", T(1, 2), op2f(func(x, y vv) (vv, error) { return x, nil }))
	failsWith(t, []string{"SortSeq", "2 arguments"}, "TLC", "SortSeq", T(1, 2), evenOp)
	failsWith(t, []string{"<"}, "TLC", "SortSeq", T(1, "a"), lessOp)
}

func TestRandomElement(t *testing.T) {
	assert.Equal(t, "1", ok(t, "TLC", "RandomElement", S(3, 1, 2)))
	assert.Equal(t, "5", ok(t, "TLC", "RandomElement", rng(5, 1000000000)))
	fs, _ := value.SetOfFuncs(rng(1, 30), rng(1, 30))
	assert.Equal(t, "<<1, 1, 1>>", ok(t, "TLC", "RandomElement", mustSet(value.SetOfFuncs(rng(1, 3), S(2, 1)))))
	v := mustCall(t, "TLC", "RandomElement", fs) // 30^30 elements: not enumerated
	in, err := value.Member(v, fs)
	require.NoError(t, err)
	assert.True(t, in)
	assert.Equal(t, `[a |-> 1, b |-> "x"]`, ok(t, "TLC", "RandomElement", mustSet(value.SetOfRecords([]string{"b", "a"}, []vv{S("y", "x"), S(1, 2)}))))
	assert.Equal(t, `<<1, "x">>`, ok(t, "TLC", "RandomElement", mustSet(value.Product(S(1, 2), S("y", "x")))))
	assert.Equal(t, "{}", ok(t, "TLC", "RandomElement", mustSet(value.Powerset(S(1)))))
	assert.Equal(t, "<<>>", ok(t, "TLC", "RandomElement", mustSet(value.SetOfFuncs(S(), S()))))
	u, _ := value.Union(S(9), rng(3, 4))
	assert.Equal(t, "3", ok(t, "TLC", "RandomElement", u))

	// The result is always the CHOOSE element: the first in canonical order.
	for _, s := range []vv{
		mustSet(value.SetOfFuncs(S("a", "b"), S(2, 1))),
		mustSet(value.SetOfRecords([]string{"x", "y"}, []vv{rng(1, 2), S(T(), T(1))})),
		mustSet(value.Product(S(T(1), T()), rng(1, 3))),
	} {
		elems, err := value.Enumerate(s)
		require.NoError(t, err)
		assert.Equal(t, elems[0].String(), ok(t, "TLC", "RandomElement", s))
	}

	assert.Equal(t, "RandomElement: the set is empty", fails(t, "TLC", "RandomElement", S()))
	fails(t, "TLC", "RandomElement", mustSet(value.SetOfFuncs(S(1), S())))
	fails(t, "TLC", "RandomElement", value.Nat)
	fails(t, "TLC", "RandomElement", T(1))
}

func mustSet(v vv, err error) vv {
	if err != nil {
		panic(err)
	}
	return v
}

func TestTLCMisc(t *testing.T) {
	assert.Equal(t, "Any: the set of all values is not supported", fails(t, "TLC", "Any"))
	assert.Equal(t, `"<<1, \"a\">>"`, ok(t, "TLC", "ToString", T(1, "a")))
	assert.Equal(t, `"\"a\""`, ok(t, "TLC", "ToString", "a"))
	assert.Equal(t, `"1..3"`, ok(t, "TLC", "ToString", rng(1, 3)))
	sub, _ := value.Powerset(S(1))
	v := mustCall(t, "TLC", "TLCEval", sub)
	_, explicit := v.(*value.Set)
	assert.True(t, explicit)
	assert.Equal(t, "{{}, {1}}", v.String())
	assert.Equal(t, "Nat", ok(t, "TLC", "TLCEval", value.Nat))
}
