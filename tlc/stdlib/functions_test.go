package stdlib

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

func TestFunctionsRestrict(t *testing.T) {
	const m = "Functions"
	in := mustSet(value.FuncOver(rng(2, 6), func(x vv) (vv, error) { return value.Add(x, value.IntOf(1)) }))
	assert.Equal(t, "(3 :> 4 @@ 5 :> 6)", ok(t, m, "Restrict", in, S(3, 5)))
	assert.Equal(t, "<<>>", ok(t, m, "Restrict", in, S()))
	failsWith(t, []string{"Restrict", "9 is not in the domain"}, m, "Restrict", in, S(9))
	failsWith(t, []string{"Restrict: first argument is not a function: {}"}, m, "Restrict", S(), S())
	failsWith(t, []string{"Restrict: second argument is not a set"}, m, "Restrict", in, 3)

	f := F(0, "a", 1, "b", 2, "c")
	in02 := pred(func(x vv) bool { return intOf(x) != 1 })
	assert.Equal(t, `(0 :> "a" @@ 2 :> "c")`, ok(t, m, "RestrictDomain", f, in02))
	assert.Equal(t, `(0 :> "a" @@ 1 :> "b" @@ 2 :> "c")`, ok(t, m, "RestrictDomain", f, pred(func(vv) bool { return true })))
	g := F("a", 0, "b", 1, "c", 2)
	assert.Equal(t, `[a |-> 0, c |-> 2]`, ok(t, m, "RestrictValues", g, evenOp))
	assert.Equal(t, `(1 :> 0 @@ 3 :> 2)`, ok(t, m, "RestrictValues", T(0, 1, 2), evenOp))
	assert.Equal(t, "<<>>", ok(t, m, "RestrictValues", T(1, 3), evenOp))
	failsWith(t, []string{"RestrictValues", "boolean"}, m, "RestrictValues", g, notBool)

	assert.Equal(t, "TRUE", ok(t, m, "IsRestriction", R("one", 1), R("one", 1, "two", 2)))
	assert.Equal(t, "TRUE", ok(t, m, "IsRestriction", R("one", 1), R("one", 1)))
	assert.Equal(t, "FALSE", ok(t, m, "IsRestriction", R("one", 1, "two", 2), R("one", 1, "two", 3)))
	assert.Equal(t, "FALSE", ok(t, m, "IsRestriction", R("one", 1), F(2, "two")))
	assert.Equal(t, "FALSE", ok(t, m, "IsRestriction", R("one", 1, "two", 2), R("two", 2)))

	assert.Equal(t, "{1, 2}", ok(t, m, "Range", T(1, 2, 1)))
	assert.Equal(t, "{}", ok(t, m, "Range", T()))
	assert.Equal(t, "Range: argument is not a function: {1}", fails(t, m, "Range", S(1)))

	a := F("a", 0, "b", 1, "c", 2)
	b := F("a", 1, "b", 1, "c", 3)
	assert.Equal(t, "[a |-> 1, b |-> 2, c |-> 5]", ok(t, m, "Pointwise", a, b, plusOp))
	failsWith(t, []string{"Pointwise", "not of the second"}, m, "Pointwise", a, R("a", 1), plusOp)
}

func TestFunctionsInverse(t *testing.T) {
	const m = "Functions"
	f := F("a", 0, "b", 1, "c", 2)
	assert.Equal(t, `<<"b", "c">>`, ok(t, m, "Inverse", f, S("a", "b", "c"), S(1, 2)))
	assert.Equal(t, `(0 :> "a" @@ 1 :> "b" @@ 2 :> "c")`, ok(t, m, "AntiFunction", f))
	// Outside the range: the first element of S.
	assert.Equal(t, `(1 :> "b" @@ 3 :> "a")`, ok(t, m, "Inverse", f, S("a", "b", "c"), S(1, 3)))
	// Not injective: the least preimage.
	assert.Equal(t, `(7 :> "a" @@ 8 :> "c")`, ok(t, m, "AntiFunction", F("a", 7, "b", 7, "c", 8)))
	assert.Equal(t, `<<>>`, ok(t, m, "AntiFunction", T()))
	failsWith(t, []string{"Inverse", "no element"}, m, "Inverse", f, S("a"), S(2))
	failsWith(t, []string{"Inverse", "no element"}, m, "Inverse", f, S(), S(5))
	failsWith(t, []string{"Inverse", `"z" is not in the domain`}, m, "Inverse", f, S("z"), S(1))
	failsWith(t, []string{"AntiFunction: argument is not a function"}, m, "AntiFunction", 3)

	// EWD998ChanID: a ring given as a function, walked with AntiFunction.
	ring := F(mvA, mvB, mvB, mvA)
	assert.Equal(t, "(a :> b @@ b :> a)", ok(t, m, "AntiFunction", ring))
}

func TestFunctionsJections(t *testing.T) {
	const m = "Functions"
	assert.Equal(t, "TRUE", ok(t, m, "IsInjective", T()))
	assert.Equal(t, "TRUE", ok(t, m, "IsInjective", T(1, 2, 3)))
	assert.Equal(t, "FALSE", ok(t, m, "IsInjective", T(1, 1, 2)))
	assert.Equal(t, "TRUE", ok(t, m, "IsInjective", R("a", 1, "b", 2)))
	assert.Equal(t, "FALSE", ok(t, m, "IsInjective", F(0, S(1), 1, S(1))))
	assert.Equal(t, "TRUE", ok(t, m, "IsInjective", F(0, S(1), 1, rng(1, 2))))
	assert.Equal(t, "IsInjective: argument is not a function: {}", fails(t, m, "IsInjective", S()))

	assert.Equal(t, "TRUE", ok(t, m, "IsSurjective", T(1, 2, 1), S(1, 2), S(1, 2)))
	assert.Equal(t, "FALSE", ok(t, m, "IsSurjective", T(1, 2, 1), S(1, 3), S(1, 2)))
	assert.Equal(t, "TRUE", ok(t, m, "IsBijection", T(2, 1, 1), S(1, 2), S(1, 2)))
	assert.Equal(t, "FALSE", ok(t, m, "IsBijection", T(1, 2, 1), S(1, 2, 3), S(1, 2)))
	failsWith(t, []string{"IsSurjective", "not in the domain"}, m, "IsSurjective", T(1), S(5), S(1))

	assert.Equal(t, "{<<1, 2>>, <<2, 1>>}", ok(t, m, "Injection", rng(1, 2), rng(1, 2)))
	assert.Equal(t, "{<<1, 2>>, <<1, 3>>, <<2, 1>>, <<2, 3>>, <<3, 1>>, <<3, 2>>}", ok(t, m, "Injection", rng(1, 2), rng(1, 3)))
	assert.Equal(t, "{}", ok(t, m, "Injection", rng(1, 3), rng(1, 2)))
	assert.Equal(t, "{<<>>}", ok(t, m, "Injection", S(), S()))
	assert.Equal(t, "{<<1, 1, 2>>, <<1, 2, 1>>, <<1, 2, 2>>, <<2, 1, 1>>, <<2, 1, 2>>, <<2, 2, 1>>}", ok(t, m, "Surjection", rng(1, 3), rng(1, 2)))
	assert.Equal(t, "{}", ok(t, m, "Surjection", rng(1, 2), rng(1, 3)))
	assert.Equal(t, "{}", ok(t, m, "Surjection", rng(1, 2), S()))
	assert.Equal(t, "{<<>>}", ok(t, m, "Surjection", S(), S()))
	assert.Equal(t, "{<<1, 2>>, <<2, 1>>}", ok(t, m, "Bijection", rng(1, 2), rng(1, 2)))
	assert.Equal(t, "{}", ok(t, m, "Bijection", rng(1, 2), rng(1, 3)))

	// The sets agree with their definitions by filtering [S -> T].
	for _, st := range [][2]vv{{rng(1, 3), rng(1, 2)}, {rng(1, 2), rng(1, 3)}, {S("a", "b"), S(1, 2)}, {S(), S(1)}, {S(1), S()}} {
		s, tt := st[0], st[1]
		all, err := value.Enumerate(mustSet(value.SetOfFuncs(s, tt)))
		require.NoError(t, err)
		tElems, _ := value.Enumerate(tt)
		var inj, sur, bij []vv
		for _, f := range all {
			isInj := distinct(f.(*value.Func).Values())
			rngSet := value.NewSet(append([]vv(nil), f.(*value.Func).Values()...)...)
			isSur := rngSet.Len() == len(tElems)
			if isInj {
				inj = append(inj, f)
			}
			if isSur {
				sur = append(sur, f)
			}
			if isInj && isSur {
				bij = append(bij, f)
			}
		}
		assert.Equal(t, value.NewSet(inj...).String(), ok(t, m, "Injection", s, tt))
		assert.Equal(t, value.NewSet(sur...).String(), ok(t, m, "Surjection", s, tt))
		assert.Equal(t, value.NewSet(bij...).String(), ok(t, m, "Bijection", s, tt))
		assert.Equal(t, value.Bool(len(inj) > 0).String(), ok(t, m, "ExistsInjection", s, tt), "%s %s", s, tt)
		assert.Equal(t, value.Bool(len(sur) > 0).String(), ok(t, m, "ExistsSurjection", s, tt), "%s %s", s, tt)
		assert.Equal(t, value.Bool(len(bij) > 0).String(), ok(t, m, "ExistsBijection", s, tt), "%s %s", s, tt)
	}
	failsWith(t, []string{"ExistsInjection", "infinite"}, m, "ExistsInjection", value.Nat, S())
	failsWith(t, []string{"Injection: second argument is not a set"}, m, "Injection", S(), 1)
	failsWith(t, []string{"Injection", "too many"}, m, "Injection", rng(1, 12), rng(1, 12))
}

func TestFoldFunction(t *testing.T) {
	const m = "Functions"
	addToSet := op2f(func(x, y vv) (vv, error) { return value.Union(S(x), y) })
	assert.Equal(t, "{1, 2}", ok(t, m, "FoldFunction", addToSet, S(), T(1, 2, 1)))
	assert.Equal(t, "{}", ok(t, m, "FoldFunctionOnSet", addToSet, S(), T(1, 2), S()))
	assert.Equal(t, "5", ok(t, m, "FoldFunctionOnSet", plusOp, 0, R("a", 2, "b", 3, "c", 4), S("a", "b")))
	// Sum(f, S) == FoldFunctionOnSet(+, 0, f, S) of EWD998.
	f := mustSet(value.FuncOver(rng(0, 4), func(x vv) (vv, error) { return value.Mul(x, x) }))
	assert.Equal(t, "30", ok(t, m, "FoldFunction", plusOp, 0, f))
	assert.Equal(t, "13", ok(t, m, "FoldFunctionOnSet", plusOp, 0, f, S(2, 3)))
	// Order: the domain in canonical order, the least key outermost.
	assert.Equal(t, `<<"x", <<"y", 0>>>>`, ok(t, m, "FoldFunction", pairOp, 0, T("x", "y")))
	failsWith(t, []string{"FoldFunctionOnSet", "index 9 is not in the domain"}, m, "FoldFunctionOnSet", plusOp, 0, f, S(9))
	failsWith(t, []string{"FoldFunction: third argument is not a function"}, m, "FoldFunction", plusOp, 0, S())
}

func TestFunctionsSum(t *testing.T) {
	const m = "Functions"
	f := F("a", 1, "b", 2, "c", 4)
	assert.Equal(t, "7", ok(t, m, "SumFunction", f))
	assert.Equal(t, "5", ok(t, m, "SumFunctionOnSet", f, S("a", "c")))
	assert.Equal(t, "0", ok(t, m, "SumFunctionOnSet", f, S()))
	assert.Equal(t, "0", ok(t, m, "SumFunction", T()))
	failsWith(t, []string{"SumFunctionOnSet", `"d" is not in the domain`}, m, "SumFunctionOnSet", f, S("d"))
	failsWith(t, []string{"SumFunction", "not a function"}, m, "SumFunction", S(1))
}
