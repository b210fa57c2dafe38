package value

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLazyMembership(t *testing.T) {
	mv := must[Value](t)
	seqNat := mv(SeqOf(Nat))
	tests := []struct {
		x, s Value
		want bool
	}{
		{IntOf(0), Nat, true},
		{IntOf(-1), Nat, false},
		{IntOf(-1), Integers, true},
		{Str("x"), Strings, true},
		{IntOf(2), NewInterval(1, 3), true},
		{IntOf(4), NewInterval(1, 3), false},
		{mvA, Nat, false},
		{mvA, NewInterval(1, 3), false},
		{iset(1, 3), mv(Powerset(NewInterval(1, 3))), true},
		{iset(1, 4), mv(Powerset(NewInterval(1, 3))), false},
		{EmptySet, mv(Powerset(EmptySet)), true},
		{NewInterval(1, 5), mv(Powerset(Nat)), true},
		{tup(True, False), mv(SetOfFuncs(NewInterval(1, 2), Boolean)), true},
		{tup(True), mv(SetOfFuncs(NewInterval(1, 2), Boolean)), false},
		{tup(True, mvA), mv(SetOfFuncs(NewInterval(1, 2), Boolean)), false},
		{fn(t, mvA, IntOf(7), mvB, IntOf(0)), mv(SetOfFuncs(set(mvB, mvA), Nat)), true},
		{EmptyFunc, mv(SetOfFuncs(EmptySet, Nat)), true},
		{rec(t, "a", IntOf(1), "b", True), mv(SetOfRecords([]string{"b", "a"}, []Value{Boolean, Nat})), true},
		{rec(t, "a", IntOf(-1), "b", True), mv(SetOfRecords([]string{"b", "a"}, []Value{Boolean, Nat})), false},
		{rec(t, "a", IntOf(1)), mv(SetOfRecords([]string{"b", "a"}, []Value{Boolean, Nat})), false},
		{tup(IntOf(1), Str("s")), mv(Product(Nat, Strings)), true},
		{tup(IntOf(1)), mv(Product(Nat, Strings)), false},
		{tup(), seqNat, true},
		{tup(IntOf(1), IntOf(2)), seqNat, true},
		{tup(IntOf(1), IntOf(-2)), seqNat, false},
		{must[*Func](t)(IntervalFunc(2, ints(1))), seqNat, false},
		{tup(tup(IntOf(1))), mv(SeqOf(seqNat)), true},
		{IntOf(-5), mv(Union(Nat, iset(-5))), true},
		{IntOf(-4), mv(Union(Nat, iset(-5))), false},
		{IntOf(0), mv(Diff(Nat, iset(0))), false},
		{IntOf(1), mv(Diff(Nat, iset(0))), true},
		{IntOf(3), mv(Intersect(Nat, mv(Diff(Integers, iset(5))))), true},
	}
	for _, tt := range tests {
		in, err := Member(tt.x, tt.s)
		require.NoError(t, err, "%s \\in %s", tt.x, tt.s)
		assert.Equal(t, tt.want, in, "%s \\in %s", tt.x, tt.s)
	}
}

func TestMembershipTypeErrors(t *testing.T) {
	mv := must[Value](t)
	tests := []struct {
		x, s Value
		msg  string
	}{
		{Str("a"), iset(1, 2), `attempted to compare string "a" with non-string 1`},
		{IntOf(1), set(Str("a")), `attempted to compare integer 1 with non-integer "a"`},
		{Str("a"), Nat, `attempted to check if the string "a" is an element of Nat`},
		{IntOf(1), Strings, `attempted to check if the integer 1 is an element of STRING`},
		{mvTyp1, NewInterval(1, 2), `attempted to check if the model value p_1 is an element of 1..2`},
		{mvTyp1, iset(1), `attempted to check equality of the typed model value p_1 and the non-model value 1`},
		{IntOf(1), mv(Powerset(iset(1))), `attempted to check if the integer 1 is an element of SUBSET {1}`},
		{IntOf(1), IntOf(2), `attempted to check if 1 is an element of integer 2, which is not a set`},
	}
	for _, tt := range tests {
		_, err := Member(tt.x, tt.s)
		require.Error(t, err, "%s \\in %s", tt.x, tt.s)
		assert.Equal(t, tt.msg, err.Error())
	}
	// Untyped model values are simply not members.
	in, err := Member(mvNone, iset(1, 2))
	require.NoError(t, err)
	assert.False(t, in)
	in, err = Member(IntOf(3), set(mvNone, IntOf(1)))
	require.NoError(t, err)
	assert.False(t, in)
}

func TestEnumerateCardinalityFiniteness(t *testing.T) {
	mv := must[Value](t)
	tests := []struct {
		s      Value
		card   int64
		finite bool
	}{
		{EmptySet, 0, true},
		{NewInterval(-2, 2), 5, true},
		{Boolean, 2, true},
		{mv(Powerset(NewInterval(1, 4))), 16, true},
		{mv(SetOfFuncs(NewInterval(1, 3), iset(0, 1))), 8, true},
		{mv(SetOfFuncs(EmptySet, Nat)), 1, true},
		{mv(SetOfFuncs(Nat, EmptySet)), 0, true},
		{mv(SetOfRecords([]string{"a", "b"}, []Value{Boolean, iset(1, 2, 3)})), 6, true},
		{mv(SetOfRecords([]string{"a", "b"}, []Value{Nat, EmptySet})), 0, true},
		{mv(Product(Boolean, Boolean, iset(1))), 4, true},
		{mv(SeqOf(EmptySet)), 1, true},
		{mv(Union(NewInterval(1, 3), NewInterval(2, 80))), 80, true},
		{mv(Intersect(NewInterval(1, 100), NewInterval(50, 200))), 51, true},
		{mv(Intersect(Nat, mv(Diff(NewInterval(-100, 100), iset(0))))), 100, true},
		{mv(Diff(NewInterval(1, 100), iset(5))), 99, true},
	}
	for _, tt := range tests {
		fin, err := IsFinite(tt.s)
		require.NoError(t, err)
		assert.Equal(t, tt.finite, fin, "IsFinite(%s)", tt.s)
		n, err := Cardinality(tt.s)
		require.NoError(t, err, "Cardinality(%s)", tt.s)
		assert.Equal(t, tt.card, n, "Cardinality(%s)", tt.s)
		elems, err := Enumerate(tt.s)
		require.NoError(t, err)
		assert.Len(t, elems, int(tt.card))
		for i := 1; i < len(elems); i++ {
			assert.Negative(t, Compare(elems[i-1], elems[i]), "Enumerate(%s) in canonical order", tt.s)
		}
		norm, err := Normalize(tt.s)
		require.NoError(t, err)
		assert.True(t, mustEqual(t, norm, tt.s))
	}
	for _, s := range []Value{Nat, Integers, Strings, mv(SeqOf(iset(1))), mv(Powerset(Nat)), mv(Union(Nat, iset(-1))), mv(SetOfFuncs(iset(1, 2), Nat))} {
		fin, err := IsFinite(s)
		require.NoError(t, err)
		assert.False(t, fin, "IsFinite(%s)", s)
		_, err = Enumerate(s)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "cannot enumerate "+s.String())
	}
	_, err := Enumerate(Nat)
	assert.EqualError(t, err, "cannot enumerate Nat")
	_, err = Cardinality(mv(Powerset(NewInterval(1, 100))))
	assert.ErrorContains(t, err, "too large")
}

func TestSetOperators(t *testing.T) {
	mv := must[Value](t)
	assert.Equal(t, "{1, 2, 3}", mv(Union(iset(1, 3), iset(2, 3))).String())
	assert.Equal(t, "{3}", mv(Intersect(iset(1, 3), iset(2, 3))).String())
	assert.Equal(t, "{1}", mv(Diff(iset(1, 3), iset(2, 3))).String())
	assert.Equal(t, "{1, 2}", mv(Intersect(Nat, iset(-1, 1, 2))).String())
	assert.Equal(t, "{1, 2, 3, 4}", mv(UnionAll(set(iset(1, 2), iset(3), NewInterval(2, 4)))).String())
	sub := must[bool](t)
	assert.True(t, sub(Subseteq(iset(1, 2), NewInterval(0, 5))))
	assert.False(t, sub(Subseteq(iset(1, 9), NewInterval(0, 5))))
	assert.True(t, sub(Subseteq(Nat, Integers)))
	assert.False(t, sub(Subseteq(Integers, Nat)))
	assert.True(t, sub(Subseteq(EmptySet, Nat)))
	_, err := Union(IntOf(1), iset(1))
	assert.EqualError(t, err, `the argument of \cup should be a set, but instead it is 1`)
	// A union with a lazy side stays lazy; adding to an explicit set that
	// already holds the elements returns it unchanged.
	s := iset(1, 2, 3)
	assert.Same(t, s, mv(Union(s, iset(2))))
}

func TestDeepNormalize(t *testing.T) {
	mv := must[Value](t)
	lazy := mv(Powerset(iset(1, 2)))
	f := tup(lazy, NewInterval(1, 2), Nat)
	n := mv(DeepNormalize(f))
	assert.Equal(t, "<<{{}, {1}, {2}, {1, 2}}, 1..2, Nat>>", n.String())
	assert.True(t, mustEqual(t, f, n))
	plain := tup(iset(1), IntOf(2))
	assert.Same(t, plain, mv(DeepNormalize(plain)))
}

// TestMembershipNeverEnumerates decides x \in UNION {[D -> SUBSET R]}, a
// record set of such, and SUBSET without building the sets: [1..4 -> SUBSET
// 1..3] has 4,096 functions, and building it (as {S} once did, to put its
// element in canonical form) costs thousands of allocations where testing
// a function's four values costs a few.
func TestMembershipNeverEnumerates(t *testing.T) {
	mv := must[Value](t)
	f := tup(iset(1), EmptySet, iset(1, 2, 3), iset(2))
	bad := tup(iset(1), EmptySet, iset(1, 4), iset(2))
	funcs := func() Value {
		return mv(UnionAll(NewSet(mv(SetOfFuncs(NewInterval(1, 4), mv(Powerset(NewInterval(1, 3))))))))
	}
	recs := func() Value {
		return mv(SetOfRecords([]string{"f", "s"}, []Value{funcs(), mv(Powerset(NewInterval(1, 30)))}))
	}
	tests := []struct {
		name string
		x    Value
		s    func() Value
		want bool
	}{
		{"function in UNION {[D -> SUBSET R]}", f, funcs, true},
		{"function outside UNION {[D -> SUBSET R]}", bad, funcs, false},
		{"record in a record set", rec(t, "f", f, "s", NewInterval(3, 25)), recs, true},
		{"record outside a record set", rec(t, "f", f, "s", NewInterval(3, 31)), recs, false},
	}
	for _, tt := range tests {
		in, err := Member(tt.x, tt.s())
		require.NoError(t, err, tt.name)
		assert.Equal(t, tt.want, in, tt.name)
		allocs := testing.AllocsPerRun(5, func() { _, _ = Member(tt.x, tt.s()) })
		assert.Less(t, allocs, 200.0, "%s: the set was built", tt.name)
	}
	// UNION {A, B} written out is UnionOf(A, B), which never builds the
	// set {A, B} (that would put A and B in canonical order, building them).
	two := func() Value { return mv(UnionOf(funcs(), mv(SetOfFuncs(NewInterval(1, 2), Nat)))) }
	for x, want := range map[Value]bool{f: true, bad: false, tup(IntOf(1), IntOf(9)): true, tup(IntOf(1)): false} {
		in, err := Member(x, two())
		require.NoError(t, err)
		assert.Equal(t, want, in, "%s", x)
		allocs := testing.AllocsPerRun(5, func() { _, _ = Member(x, two()) })
		assert.Less(t, allocs, 200.0, "%s \\in UNION {A, B}: a set was built", x)
	}
	_, err := UnionOf(funcs(), IntOf(7))
	assert.ErrorContains(t, err, "the argument of UNION should be a set")
}
