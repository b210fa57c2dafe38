package value

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Pairs of values that TLC considers equal although they are built
// differently; they must be Equal, Compare as 0 and fingerprint alike.
func TestEqualAcrossRepresentations(t *testing.T) {
	mv := must[Value](t)
	viaFuncOver := func(dom Value, f func(Value) Value) Value {
		return must[*Func](t)(FuncOver(dom, func(x Value) (Value, error) { return f(x), nil }))
	}
	id := func(x Value) Value { return x }
	pairs := []struct {
		name string
		a, b Value
	}{
		{"record vs function over strings", rec(t, "a", IntOf(1), "b", IntOf(2)),
			viaFuncOver(set(Str("b"), Str("a")), func(x Value) Value {
				if x == Str("a") {
					return IntOf(1)
				}
				return IntOf(2)
			})},
		{"record field order", rec(t, "a", IntOf(1), "b", IntOf(2)), rec(t, "b", IntOf(2), "a", IntOf(1))},
		{"tuple vs function over 1..2", tup(IntOf(1), IntOf(2)), viaFuncOver(NewInterval(1, 2), id)},
		{"tuple vs NewFunc", tup(Str("x"), Str("y")), fn(t, IntOf(2), Str("y"), IntOf(1), Str("x"))},
		{"tuple vs IntervalFunc", tup(IntOf(5)), must[*Func](t)(IntervalFunc(1, []Value{IntOf(5)}))},
		{"empty tuple vs empty function", EmptyFunc, viaFuncOver(EmptySet, id)},
		{"empty tuple vs empty record", EmptyFunc, must[*Func](t)(Record(nil, nil))},
		{"empty tuple vs empty NewFunc", tup(), fn(t)},
		{"interval function", must[*Func](t)(IntervalFunc(0, ints(0, 1, 2))), fn(t, IntOf(2), IntOf(2), IntOf(0), IntOf(0), IntOf(1), IntOf(1))},
		{":> @@", must[Value](t)(Merge(SingletonFunc(IntOf(1), Str("a")), SingletonFunc(IntOf(2), Str("b")))), tup(Str("a"), Str("b"))},
		{"set literal order", iset(3, 1, 2), iset(1, 2, 3, 2)},
		{"interval vs set", NewInterval(1, 3), iset(1, 2, 3)},
		{"empty interval", NewInterval(5, 4), EmptySet},
		{"SUBSET {1}", mv(Powerset(iset(1))), set(EmptySet, iset(1))},
		{"SUBSET of interval", mv(Powerset(NewInterval(1, 2))), set(iset(), iset(1), iset(2), iset(1, 2))},
		{"function set", mv(SetOfFuncs(iset(1, 2), Boolean)), set(tup(False, False), tup(False, True), tup(True, False), tup(True, True))},
		{"record set", mv(SetOfRecords([]string{"x"}, []Value{iset(1, 2)})), set(rec(t, "x", IntOf(1)), rec(t, "x", IntOf(2)))},
		{"product", mv(Product(iset(1, 2), set(Str("a")))), set(tup(IntOf(1), Str("a")), tup(IntOf(2), Str("a")))},
		{"Seq({})", mv(SeqOf(EmptySet)), set(EmptyFunc)},
		{"lazy union", mv(Union(NewInterval(1, 100), iset(0))), NewInterval(0, 100)},
		{"lazy diff", mv(Diff(NewInterval(1, 100), NewInterval(2, 100))), iset(1)},
		{"lazy intersect", mv(Intersect(NewInterval(1, 100), Nat)), NewInterval(1, 100)},
		{"set of intervals", set(NewInterval(1, 2), NewInterval(3, 4)), set(iset(3, 4), iset(1, 2))},
		{"nested sets", set(iset(1, 2), iset()), set(iset(), iset(2, 1))},
		{"set of records", set(rec(t, "a", IntOf(1)), rec(t, "a", IntOf(1))), set(fn(t, Str("a"), IntOf(1)))},
		{"Nat", Nat, Nat},
		{"Seq(Nat)", mv(SeqOf(Nat)), mv(SeqOf(Nat))},
	}
	for _, p := range pairs {
		t.Run(p.name, func(t *testing.T) {
			assert.True(t, mustEqual(t, p.a, p.b), "%s = %s", p.a, p.b)
			assert.True(t, mustEqual(t, p.b, p.a), "%s = %s", p.b, p.a)
			assert.Zero(t, Compare(p.a, p.b), "Compare(%s, %s)", p.a, p.b)
			assert.Zero(t, Compare(p.b, p.a), "Compare(%s, %s)", p.b, p.a)
			assert.Equal(t, Fingerprint(p.a), Fingerprint(p.b), "fingerprints of %s and %s", p.a, p.b)
		})
	}
}

func TestNotEqual(t *testing.T) {
	pairs := [][2]Value{
		{IntOf(1), IntOf(2)},
		{Str("a"), Str("b")},
		{True, False},
		{mvA, mvB},
		{mvA, IntOf(1)},
		{IntOf(1), mvA},
		{mvA, EmptySet},
		{iset(1), iset(1, 2)},
		{iset(1, 3), iset(1, 2)},
		{tup(IntOf(1)), tup(IntOf(1), IntOf(2))},
		{tup(IntOf(1), IntOf(2)), tup(IntOf(2), IntOf(1))},
		{NewInterval(1, 3), iset(1, 2, 4)},
		{NewInterval(1, 3), NewInterval(2, 4)},
		{Nat, Integers},
		{Nat, iset(1)},
		{must[*Func](t)(IntervalFunc(0, ints(1))), tup(IntOf(1))},
		{rec(t, "a", IntOf(1)), rec(t, "b", IntOf(1))},
		{rec(t, "a", IntOf(1)), rec(t, "a", IntOf(2))},
	}
	for _, p := range pairs {
		assert.False(t, mustEqual(t, p[0], p[1]), "%s = %s", p[0], p[1])
		assert.NotZero(t, Compare(p[0], p[1]), "Compare(%s, %s)", p[0], p[1])
		assert.Equal(t, -Compare(p[0], p[1]), Compare(p[1], p[0]))
		assert.NotEqual(t, Fingerprint(p[0]), Fingerprint(p[1]), "%s vs %s", p[0], p[1])
	}
}

func TestEqualTypeMismatchIsAnError(t *testing.T) {
	tests := []struct {
		a, b Value
		msg  string
	}{
		{IntOf(1), Str("a"), `attempted to check equality of integer 1 with non-integer "a"`},
		{Str("a"), IntOf(1), `attempted to check equality of string "a" with non-string 1`},
		{True, IntOf(1), `attempted to check equality of boolean TRUE with non-boolean 1`},
		{iset(1), IntOf(1), `attempted to check equality of set {1} with non-set 1`},
		{EmptyFunc, EmptySet, `attempted to check equality of function <<>> with non-function {}`},
		{EmptySet, EmptyFunc, `attempted to check equality of set {} with non-set <<>>`},
		{iset(1), set(Str("a")), `attempted to check equality of integer 1 with non-integer "a"`},
		{tup(IntOf(1)), rec(t, "a", IntOf(1)), `attempted to check equality of integer 1 with non-integer "a"`},
		{mvTyp1, IntOf(1), `attempted to check equality of the typed model value p_1 and the non-model value 1`},
		{IntOf(1), mvTyp1, `attempted to check equality of the typed model value p_1 and the non-model value 1`},
		{mvTyp1, mvTypQ, `attempted to check equality of the differently-typed model values p_1 and q_1`},
	}
	for _, tt := range tests {
		_, err := Equal(tt.a, tt.b)
		require.Error(t, err, "%s = %s", tt.a, tt.b)
		assert.Equal(t, tt.msg, err.Error())
	}
	// Typed model values compare with model values of their type and with
	// untyped ones.
	assert.False(t, mustEqual(t, mvTyp1, mvTyp2))
	assert.True(t, mustEqual(t, mvTyp1, mvTyp1))
	assert.False(t, mustEqual(t, mvTyp1, mvA))
	assert.False(t, mustEqual(t, mvA, mvTyp1))
}

func TestCanonicalOrder(t *testing.T) {
	// Sorted ascending, following TLC where TLC defines an order.
	ordered := []Value{
		mvA, mvB, mvC, mvNone, // model values first, by creation
		False, True,
		IntOf(-3), IntOf(0), IntOf(2),
		Str(""), Str("B"), Str("a"), Str("ab"), Str("b"),
		EmptyFunc,               // functions by size first
		tup(IntOf(1)),           // then domain element,
		tup(IntOf(2)),           // then value
		rec(t, "a", IntOf(1)),   // string domain after int domain
		tup(IntOf(1), IntOf(1)), // size 2
		tup(IntOf(1), IntOf(2)), //
		EmptySet,                // sets by size first
		iset(5),                 //
		set(tup()),              // {<<>>} after {5}: function > int
		iset(1, 2),              //
		iset(1, 3),              //
		NewInterval(2, 3),       //
		NewInterval(1, 1000),    //
		Nat,                     // infinite sets last
	}
	for i := range ordered {
		for j := range ordered {
			c := Compare(ordered[i], ordered[j])
			switch {
			case i < j:
				assert.Negative(t, c, "%s < %s", ordered[i], ordered[j])
			case i > j:
				assert.Positive(t, c, "%s > %s", ordered[i], ordered[j])
			default:
				assert.Zero(t, c)
			}
		}
	}
}

func TestChooseOrderIsCanonical(t *testing.T) {
	// CHOOSE x \in S : TRUE is the least element of S.
	s := set(IntOf(3), mvNone, IntOf(1))
	elems := must[[]Value](t)(Enumerate(s))
	assert.Equal(t, mvNone, elems[0])
	sub := must[[]Value](t)(Enumerate(must[Value](t)(Powerset(iset(1, 2, 3)))))
	want := []string{"{}", "{1}", "{2}", "{3}", "{1, 2}", "{1, 3}", "{2, 3}", "{1, 2, 3}"}
	var got []string
	for _, e := range sub {
		got = append(got, e.String())
	}
	assert.Equal(t, want, got)
}
