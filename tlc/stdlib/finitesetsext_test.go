package stdlib

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

func TestFiniteSetsExt(t *testing.T) {
	const m = "FiniteSetsExt"
	assert.Equal(t, "55", ok(t, m, "FoldSet", plusOp, 0, rng(0, 10)))
	assert.Equal(t, "3", ok(t, m, "FoldSet", plusOp, 3, S()))
	failsWith(t, []string{"FoldSet: third argument is not a set"}, m, "FoldSet", plusOp, 0, T(1))
	assert.Equal(t, "55", ok(t, m, "SumSet", rng(0, 10)))
	assert.Equal(t, "0", ok(t, m, "SumSet", S()))
	assert.Equal(t, "6", ok(t, m, "ProductSet", rng(1, 3)))
	assert.Equal(t, "1", ok(t, m, "ProductSet", S()))
	failsWith(t, []string{"SumSet", `"a"`, "not an integer"}, m, "SumSet", S(1, "a"))
	failsWith(t, []string{"SumSet", "cannot enumerate"}, m, "SumSet", value.Nat)
	assert.Equal(t, "10", ok(t, m, "ReduceSet", plusOp, rng(1, 4), 0))

	field := op1f(func(r vv) (vv, error) { v, _ := r.(*value.Func).Field("n"); return v, nil })
	assert.Equal(t, "3", ok(t, m, "MapThenSumSet", field, S(R("n", 0), R("n", 1), R("n", 2))))
	assert.Equal(t, "0", ok(t, m, "MapThenSumSet", field, S()))
	failsWith(t, []string{"MapThenSumSet", "not an integer"}, m, "MapThenSumSet", idOp, S("a"))

	assert.Equal(t, "{1, 2, 3}", ok(t, m, "FlattenSet", S(S(1), S(2, 3), S())))
	assert.Equal(t, "{}", ok(t, m, "FlattenSet", S()))
	failsWith(t, []string{"FlattenSet", "not a set"}, m, "FlattenSet", S(1))

	assert.Equal(t, "{1, 4}", ok(t, m, "SymDiff", S(1, 2, 3), S(2, 3, 4)))
	assert.Equal(t, "{}", ok(t, m, "SymDiff", S(1), S(1)))
	failsWith(t, []string{"SymDiff: second argument is not a set"}, m, "SymDiff", S(1), 1)

	assert.Equal(t, "4", ok(t, m, "Quantify", rng(1, 9), evenOp))
	assert.Equal(t, "0", ok(t, m, "Quantify", S(), errOp))
	failsWith(t, []string{"Quantify", "boolean"}, m, "Quantify", S(1), notBool)

	assert.Equal(t, "{{1, 2}, {1, 3}, {2, 3}}", ok(t, m, "kSubset", 2, rng(1, 3)))
	assert.Equal(t, "{{}}", ok(t, m, "kSubset", 0, rng(1, 3)))
	assert.Equal(t, "{{1, 2, 3}}", ok(t, m, "kSubset", 3, rng(1, 3)))
	assert.Equal(t, "{}", ok(t, m, "kSubset", 4, rng(1, 3)))
	assert.Equal(t, "{}", ok(t, m, "kSubset", -1, rng(1, 3)))
	v := mustCall(t, m, "kSubset", 3, rng(1, 10))
	n, _ := value.Cardinality(v)
	assert.EqualValues(t, 120, n)
	failsWith(t, []string{"kSubset", "too many"}, m, "kSubset", 20, rng(1, 60))
	failsWith(t, []string{"kSubset: first argument is not an integer"}, m, "kSubset", "a", S())

	assert.Equal(t, "3", ok(t, m, "Max", S(1, 3, -2)))
	assert.Equal(t, "-2", ok(t, m, "Min", S(1, 3, -2)))
	assert.Equal(t, "1000", ok(t, m, "Max", rng(5, 1000)))
	assert.Equal(t, "Max: argument is the empty set", fails(t, m, "Max", S()))
	assert.Equal(t, "Min: argument is the empty set", fails(t, m, "Min", S()))
	failsWith(t, []string{"Max", `"a"`, "not an integer"}, m, "Max", S(1, "a"))
	failsWith(t, []string{"Min: argument is not a set"}, m, "Min", T(1))

	assert.Equal(t, "{{2, 5}, {1, 2, 5}, {1, 3, 5}, {2, 3, 5}}", ok(t, m, "Choices", S(S(1, 2), S(2, 3), S(5))))
	assert.Equal(t, "{{}}", ok(t, m, "Choices", S()))
	assert.Equal(t, "{}", ok(t, m, "Choices", S(S(1), S())))
	failsWith(t, []string{"Choices", "not a set"}, m, "Choices", S(1))

	mod3 := pred(func(x vv) bool { return intOf(x)%3 == 1 })
	assert.Equal(t, "4", ok(t, m, "ChooseUnique", S(2, 3, 4, 5), mod3))
	failsWith(t, []string{"ChooseUnique", "no element"}, m, "ChooseUnique", S(2, 3), mod3)
	failsWith(t, []string{"ChooseUnique", "more than one", "<<1, 4>>"}, m, "ChooseUnique", S(1, 4), mod3)
}
