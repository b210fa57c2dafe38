package stdlib

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

func TestBags(t *testing.T) {
	b := F("a", 2, "b", 1) // {| "a", "a", "b" |}
	assert.Equal(t, "TRUE", ok(t, "Bags", "IsABag", b))
	assert.Equal(t, "TRUE", ok(t, "Bags", "IsABag", T()))
	assert.Equal(t, "FALSE", ok(t, "Bags", "IsABag", F("a", 0)))
	assert.Equal(t, "FALSE", ok(t, "Bags", "IsABag", S(1)))
	assert.Equal(t, "FALSE", ok(t, "Bags", "IsABag", F("a", "x")))

	assert.Equal(t, `{"a", "b"}`, ok(t, "Bags", "BagToSet", b))
	assert.Equal(t, "BagToSet: argument is not a bag: {1}", fails(t, "Bags", "BagToSet", S(1)))
	assert.Equal(t, `[a |-> 1, b |-> 1]`, ok(t, "Bags", "SetToBag", S("a", "b")))
	assert.Equal(t, `<<>>`, ok(t, "Bags", "SetToBag", S()))
	fails(t, "Bags", "SetToBag", T(1))
	assert.Equal(t, "TRUE", ok(t, "Bags", "BagIn", "a", b))
	assert.Equal(t, "FALSE", ok(t, "Bags", "BagIn", "c", b))
	assert.Equal(t, "BagIn: second argument is not a bag: 1", fails(t, "Bags", "BagIn", "a", 1))
	assert.Equal(t, "<<>>", ok(t, "Bags", "EmptyBag"))

	assert.Equal(t, `[a |-> 3, b |-> 1, c |-> 1]`, ok(t, "Bags", "(+)", b, F("a", 1, "c", 1)))
	assert.Equal(t, `[b |-> 1]`, ok(t, "Bags", "(-)", b, F("a", 2, "c", 5)))
	assert.Equal(t, `[a |-> 1, b |-> 1]`, ok(t, "Bags", "(-)", b, F("a", 1)))
	failsWith(t, []string{"(+): second argument is not a bag"}, "Bags", "(+)", b, S())

	assert.Equal(t, `[a |-> 3, b |-> 2]`, ok(t, "Bags", "BagUnion", S(b, F("a", 1, "b", 1))))
	assert.Equal(t, `<<>>`, ok(t, "Bags", "BagUnion", S()))
	failsWith(t, []string{"BagUnion", "not a bag"}, "Bags", "BagUnion", S(S()))

	assert.Equal(t, "TRUE", ok(t, "Bags", `\sqsubseteq`, F("a", 1), b))
	assert.Equal(t, "FALSE", ok(t, "Bags", `\sqsubseteq`, F("a", 3), b))
	assert.Equal(t, "FALSE", ok(t, "Bags", `\sqsubseteq`, F("c", 1), b))
	assert.Equal(t, "TRUE", ok(t, "Bags", `\sqsubseteq`, T(), T()))

	assert.Equal(t, `{<<>>, [a |-> 1], [a |-> 2], [b |-> 1], [a |-> 1, b |-> 1], [a |-> 2, b |-> 1]}`,
		ok(t, "Bags", "SubBag", b))
	assert.Equal(t, `{<<>>}`, ok(t, "Bags", "SubBag", T()))

	// BagOfAll(F, B): copies add up when F maps elements together.
	constOp := op1f(func(x vv) (vv, error) { return conv("k"), nil })
	assert.Equal(t, `[k |-> 3]`, ok(t, "Bags", "BagOfAll", constOp, b))
	assert.Equal(t, `[a |-> 2, b |-> 1]`, ok(t, "Bags", "BagOfAll", idOp, b))
	assert.Equal(t, "boom", fails(t, "Bags", "BagOfAll", errOp, b))

	assert.Equal(t, "3", ok(t, "Bags", "BagCardinality", b))
	assert.Equal(t, "0", ok(t, "Bags", "BagCardinality", T()))
	assert.Equal(t, "2", ok(t, "Bags", "CopiesIn", "a", b))
	assert.Equal(t, "0", ok(t, "Bags", "CopiesIn", "z", b))
	fails(t, "Bags", "CopiesIn", "a", S())
}

func TestBagsExt(t *testing.T) {
	b := F(1, 2, 2, 1, 3, 3) // {| 1, 1, 2, 3, 3, 3 |}
	// (A bag over 1..n prints as a tuple.)
	assert.Equal(t, `<<3, 1, 3>>`, ok(t, "BagsExt", "BagAdd", b, 1))
	assert.Equal(t, `<<2, 1, 3, 1>>`, ok(t, "BagsExt", "BagAdd", b, 4))
	assert.Equal(t, `[x |-> 1]`, ok(t, "BagsExt", "BagAdd", T(), "x"))
	assert.Equal(t, `<<1, 1, 3>>`, ok(t, "BagsExt", "BagRemove", b, 1))
	assert.Equal(t, `(1 :> 2 @@ 3 :> 3)`, ok(t, "BagsExt", "BagRemove", b, 2))
	assert.Equal(t, `<<2, 1, 3>>`, ok(t, "BagsExt", "BagRemove", b, 9))
	assert.Equal(t, `<<2, 1>>`, ok(t, "BagsExt", "BagRemoveAll", b, 3))
	assert.Equal(t, `<<2, 1, 3>>`, ok(t, "BagsExt", "BagRemoveAll", b, 7))
	fails(t, "BagsExt", "BagAdd", S(), 1)

	// The module's examples.
	oneOp := op1f(func(vv) (vv, error) { return conv(1), nil })
	assert.Equal(t, "6", ok(t, "BagsExt", "MapThenFoldBag", plusOp, 0, oneOp, minChoose, b))
	seqOp := op1f(func(x vv) (vv, error) { return T(x), nil })
	assert.Equal(t, "<<1, 1, 2, 3, 3, 3>>", ok(t, "BagsExt", "MapThenFoldBag", catOp, T(), seqOp, minChoose, b))
	assert.Equal(t, "<<3, 3, 3, 2, 1, 1>>", ok(t, "BagsExt", "MapThenFoldBag", catOp, T(), seqOp, maxChoose, b))
	assert.Equal(t, "13", ok(t, "BagsExt", "FoldBag", plusOp, 0, b))
	// TLC's FoldBag is a left fold, op(acc, element), over every copy in
	// canonical order (its Java override, not the module's definition).
	assert.Equal(t, "<<<<<<<<<<<<<<>>, 1>>, 1>>, 2>>, 3>>, 3>>, 3>>", ok(t, "BagsExt", "FoldBag", pairOp, T(), b))
	// etcd raft's PendingMessages(i): keep the messages from i, with copies.
	m1, m2 := R("msource", 1, "mterm", 1), R("msource", 2, "mterm", 1)
	bagAdd := op2f(func(acc, x vv) (vv, error) {
		if src, _ := x.(*value.Func).Field("msource"); src != conv(1) {
			return acc, nil
		}
		return call(t, "BagsExt", "BagAdd", acc, x)
	})
	assert.Equal(t, "([msource |-> 1, mterm |-> 1] :> 2)", ok(t, "BagsExt", "FoldBag", bagAdd, T(), F(m1, 2, m2, 1)))
	assert.Equal(t, "13", ok(t, "BagsExt", "SumBag", b))
	assert.Equal(t, "54", ok(t, "BagsExt", "ProductBag", b))
	assert.Equal(t, "0", ok(t, "BagsExt", "SumBag", T()))
	failsWith(t, []string{"SumBag", "not an integer"}, "BagsExt", "SumBag", F("a", 1))
}
