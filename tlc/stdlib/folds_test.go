package stdlib

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

func TestMapThenFoldSet(t *testing.T) {
	seq := T(1, 2, 3, 4)
	at := op1f(func(i vv) (vv, error) { return value.Apply(seq, i) })
	dom := rng(1, 4)
	// The examples of the community module's tests.
	assert.Equal(t, "10", ok(t, "Folds", "MapThenFoldSet", plusOp, 0, at, maxChoose, dom))
	assert.Equal(t, "10", ok(t, "Folds", "MapThenFoldSet", plusOp, 0, at, minChoose, dom))
	assert.Equal(t, "24", ok(t, "Folds", "MapThenFoldSet", timesOp, 1, at, minChoose, dom))
	assert.Equal(t, "2", ok(t, "Folds", "MapThenFoldSet", minusOp, 0, at, maxChoose, dom))
	assert.Equal(t, "-2", ok(t, "Folds", "MapThenFoldSet", minusOp, 0, at, minChoose, dom))
	// The chosen element is outermost.
	assert.Equal(t, "<<1, <<2, <<3, 0>>>>>>", ok(t, "Folds", "MapThenFoldSet", pairOp, 0, idOp, minChoose, S(3, 1, 2)))
	assert.Equal(t, "<<3, <<2, <<1, 0>>>>>>", ok(t, "Folds", "MapThenFoldSet", pairOp, 0, idOp, maxChoose, S(3, 1, 2)))
	// The module's example.
	single := op1f(func(x vv) (vv, error) { return S(S(x)), nil })
	union := op2f(value.Union)
	assert.Equal(t, "{{1}, {2}}", ok(t, "Folds", "MapThenFoldSet", union, S(), single, minChoose, S(1, 2)))
	assert.Equal(t, "7", ok(t, "Folds", "MapThenFoldSet", plusOp, 7, idOp, minChoose, S()))

	// choose sees the shrinking set.
	var seen []string
	spy := op1f(func(s vv) (vv, error) {
		seen = append(seen, s.String())
		return s.(*value.Set).Elems()[0], nil
	})
	_, err := call(t, "Folds", "MapThenFoldSet", plusOp, 0, idOp, spy, S(1, 2, 3))
	require.NoError(t, err)
	assert.Equal(t, []string{"{1, 2, 3}", "{2, 3}", "{3}"}, seen)

	bad := op1f(func(vv) (vv, error) { return conv(99), nil })
	failsWith(t, []string{"MapThenFoldSet", "99", "not in the set"}, "Folds", "MapThenFoldSet", plusOp, 0, idOp, bad, S(1))
	failsWith(t, []string{"MapThenFoldSet: fifth argument is not a set: 42"}, "Folds", "MapThenFoldSet", plusOp, 0, idOp, minChoose, 42)
	failsWith(t, []string{"MapThenFoldSet", "cannot enumerate"}, "Folds", "MapThenFoldSet", plusOp, 0, idOp, minChoose, value.Nat)
	failsWith(t, []string{"first argument must be an operator of 2 arguments"}, "Folds", "MapThenFoldSet", idOp, 0, idOp, minChoose, S(1))
	assert.Equal(t, "boom", fails(t, "Folds", "MapThenFoldSet", plusOp, 0, errOp, minChoose, S(1)))
}

func TestFoldSetOrderIndependence(t *testing.T) {
	// For a commutative and associative op the result does not depend on
	// the order: compare with the fold in the other order.
	sets := []vv{S(), S(5), S(3, 1, 2), rng(1, 100), S(-4, 17, 0, 8, 8, 23)}
	for _, s := range sets {
		a := ok(t, "FiniteSetsExt", "FoldSet", plusOp, 0, s)
		b := ok(t, "Folds", "MapThenFoldSet", plusOp, 0, idOp, maxChoose, s)
		c := ok(t, "FiniteSetsExt", "SumSet", s)
		assert.Equal(t, a, b, "%s", s)
		assert.Equal(t, a, c, "%s", s)
		union := op2f(func(x, y vv) (vv, error) { return value.Union(S(x), y) })
		eq, err := value.Equal(s, mustCall(t, "FiniteSetsExt", "FoldSet", union, S(), s))
		require.NoError(t, err)
		assert.True(t, eq, "%s", s)
	}
	assert.Equal(t, "5050", ok(t, "FiniteSetsExt", "FoldSet", plusOp, 0, rng(1, 100)))
	// Non-commutative: canonical order, least element outermost.
	assert.Equal(t, "<<1, <<2, <<3, 0>>>>>>", ok(t, "FiniteSetsExt", "FoldSet", pairOp, 0, S(2, 3, 1)))
	assert.Equal(t, "<<1, <<2, 0>>>>", ok(t, "FiniteSetsExt", "ReduceSet", pairOp, S(2, 1), 0))
}
