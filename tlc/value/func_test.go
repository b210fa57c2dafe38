package value

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestApply(t *testing.T) {
	f := tup(Str("x"), Str("y"), Str("z"))
	v, err := Apply(f, IntOf(2))
	require.NoError(t, err)
	assert.Equal(t, Str("y"), v)
	_, err = Apply(f, IntOf(5))
	assert.EqualError(t, err, `function applied outside its domain: <<"x", "y", "z">>[5], domain 1..3`)
	var de *DomainError
	require.ErrorAs(t, err, &de)
	assert.Equal(t, IntOf(5), de.Arg)
	_, err = Apply(f, Str("a"))
	assert.ErrorContains(t, err, "outside its domain")
	_, err = Apply(EmptyFunc, IntOf(1))
	assert.EqualError(t, err, "function applied outside its domain: <<>>[1], domain {}")

	r := rec(t, "b", IntOf(2), "a", IntOf(1))
	v, err = Apply(r, Str("b"))
	require.NoError(t, err)
	assert.Equal(t, IntOf(2), v)
	v, ok := r.Field("a")
	assert.True(t, ok)
	assert.Equal(t, IntOf(1), v)

	g := fn(t, mvB, IntOf(2), mvA, IntOf(1))
	v, err = Apply(g, mvB)
	require.NoError(t, err)
	assert.Equal(t, IntOf(2), v)

	_, err = Apply(iset(1), IntOf(1))
	assert.EqualError(t, err, "a non-function (set {1}) was applied as a function to 1")
}

func TestDomain(t *testing.T) {
	mv := must[Value](t)
	assert.Equal(t, "1..2", mv(Domain(tup(True, False))).String())
	assert.Equal(t, "{}", mv(Domain(EmptyFunc)).String())
	assert.Equal(t, `{"a", "b"}`, mv(Domain(rec(t, "b", True, "a", False))).String())
	assert.Equal(t, "{a, b}", mv(Domain(fn(t, mvB, True, mvA, False))).String())
	_, err := Domain(IntOf(1))
	assert.EqualError(t, err, "attempted to compute the domain of integer 1, which is not a function")
}

func TestNewFuncDuplicates(t *testing.T) {
	_, err := NewFunc(ints(1, 2, 1), ints(0, 0, 0))
	assert.EqualError(t, err, "the value 1 occurs multiple times in the function domain")
	_, err = Record([]string{"a", "a"}, ints(1, 2))
	assert.EqualError(t, err, "field a occurs twice in a record")
}

func TestUpdate(t *testing.T) {
	mv := must[Value](t)
	inner := rec(t, "x", IntOf(1), "y", IntOf(2))
	f := tup(inner, inner)
	g := mv(Update(f, []Value{IntOf(2), Str("y")}, IntOf(9)))
	assert.Equal(t, "<<[x |-> 1, y |-> 2], [x |-> 1, y |-> 9]>>", g.String())
	assert.Equal(t, "<<[x |-> 1, y |-> 2], [x |-> 1, y |-> 2]>>", f.String(), "the original is unchanged")
	// @ is the old value.
	h := mv(UpdateWith(f, []Value{IntOf(1), Str("x")}, func(old Value) (Value, error) { return Add(old, IntOf(10)) }))
	assert.Equal(t, "<<[x |-> 11, y |-> 2], [x |-> 1, y |-> 2]>>", h.String())
	// A key outside the domain leaves the function unchanged.
	assert.Same(t, f, mv(Update(f, []Value{IntOf(3)}, IntOf(0))))
	// Updating with an equal value keeps the same function.
	assert.Same(t, f, mv(Update(f, []Value{IntOf(1)}, inner)))
	_, err := Update(f, []Value{IntOf(1), Str("x"), IntOf(1)}, IntOf(0))
	assert.EqualError(t, err, "attempted to apply EXCEPT to integer 1, which is not a function")
	// Fingerprints follow the change.
	assert.NotEqual(t, Fingerprint(f), Fingerprint(g))
	assert.Equal(t, Fingerprint(g), Fingerprint(tup(inner, rec(t, "y", IntOf(9), "x", IntOf(1)))))
}

func TestMergeAndSingleton(t *testing.T) {
	mv := must[Value](t)
	f := mv(Merge(SingletonFunc(IntOf(1), Str("a")), fn(t, IntOf(1), Str("z"), IntOf(2), Str("b"))))
	assert.Equal(t, `<<"a", "b">>`, f.String())
	g := mv(Merge(SingletonFunc(mvA, IntOf(1)), SingletonFunc(mvB, IntOf(2))))
	assert.Equal(t, "(a :> 1 @@ b :> 2)", g.String())
	_, err := Merge(IntOf(1), EmptyFunc)
	assert.EqualError(t, err, "the first argument of @@ should be a function, but instead it is 1")
}

func TestRecordShape(t *testing.T) {
	shape, err := NewRecordShape("term", "from", "to")
	require.NoError(t, err)
	assert.Equal(t, []string{"term", "from", "to"}, shape.Names())
	r, err := shape.Make(ints(3, 1, 2))
	require.NoError(t, err)
	assert.Equal(t, "[from |-> 1, term |-> 3, to |-> 2]", r.String())
	_, err = shape.Make(ints(1))
	assert.EqualError(t, err, "record with 3 fields given 1 values")
}
