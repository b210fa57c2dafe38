package stdlib

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

func TestSeq(t *testing.T) {
	s, err := call(t, "Sequences", "Seq", S(1, 2))
	require.NoError(t, err)
	assert.Equal(t, "Seq({1, 2})", s.String())
	in, err := value.Member(T(1, 2, 2, 1), s)
	require.NoError(t, err)
	assert.True(t, in)
	in, err = value.Member(T(3), s)
	require.NoError(t, err)
	assert.False(t, in)
	assert.Equal(t, "{<<>>}", ok(t, "Sequences", "Seq", S()))
	assert.Equal(t, `Seq: argument is not a set: <<1>>`, fails(t, "Sequences", "Seq", T(1)))
}

func TestLen(t *testing.T) {
	assert.Equal(t, "0", ok(t, "Sequences", "Len", T()))
	assert.Equal(t, "3", ok(t, "Sequences", "Len", T(1, "a", T())))
	assert.Equal(t, "3", ok(t, "Sequences", "Len", "abc"))
	assert.Equal(t, "0", ok(t, "Sequences", "Len", ""))
	assert.Equal(t, "Len: argument is not a sequence: {1, 2}", fails(t, "Sequences", "Len", S(1, 2)))
	// A function whose domain is not 1..n is not a sequence.
	assert.Equal(t, "Len: argument is not a sequence: (0 :> 1 @@ 1 :> 2)", fails(t, "Sequences", "Len", F(0, 1, 1, 2)))
	fails(t, "Sequences", "Len", R("a", 1))
	fails(t, "Sequences", "Len", 3)
}

func TestConcat(t *testing.T) {
	assert.Equal(t, "<<1, 2, 3>>", ok(t, "Sequences", `\o`, T(1), T(2, 3)))
	assert.Equal(t, "<<1>>", ok(t, "Sequences", `\o`, T(1), T()))
	assert.Equal(t, "<<>>", ok(t, "Sequences", `\o`, T(), T()))
	assert.Equal(t, `"abcd"`, ok(t, "Sequences", `\o`, "ab", "cd"))
	assert.Equal(t, `\o: second argument is not a string: <<1>>`, fails(t, "Sequences", `\o`, "ab", T(1)))
	assert.Equal(t, `\o: first argument is not a sequence: {}`, fails(t, "Sequences", `\o`, S(), T(1)))
	assert.Equal(t, `\o: second argument is not a sequence: "a"`, fails(t, "Sequences", `\o`, T(1), "a"))
}

func TestAppendHeadTail(t *testing.T) {
	assert.Equal(t, "<<1>>", ok(t, "Sequences", "Append", T(), 1))
	assert.Equal(t, "<<1, <<2>>>>", ok(t, "Sequences", "Append", T(1), T(2)))
	assert.Equal(t, "Append: first argument is not a sequence: {1}", fails(t, "Sequences", "Append", S(1), 2))
	fails(t, "Sequences", "Append", "abc", "d")

	assert.Equal(t, "1", ok(t, "Sequences", "Head", T(1, 2)))
	assert.Equal(t, "Head: argument is the empty sequence", fails(t, "Sequences", "Head", T()))
	assert.Equal(t, `Head: argument is not a sequence: "abc"`, fails(t, "Sequences", "Head", "abc"))

	assert.Equal(t, "<<2, 3>>", ok(t, "Sequences", "Tail", T(1, 2, 3)))
	assert.Equal(t, "<<>>", ok(t, "Sequences", "Tail", T(1)))
	assert.Equal(t, `"bc"`, ok(t, "Sequences", "Tail", "abc"))
	assert.Equal(t, "Tail: argument is the empty sequence", fails(t, "Sequences", "Tail", T()))
	assert.Equal(t, "Tail: argument is the empty string", fails(t, "Sequences", "Tail", ""))
	fails(t, "Sequences", "Tail", S(1))
}

func TestSubSeq(t *testing.T) {
	s := T(1, 2, 3)
	assert.Equal(t, "<<2, 3>>", ok(t, "Sequences", "SubSeq", s, 2, 3))
	assert.Equal(t, "<<1, 2, 3>>", ok(t, "Sequences", "SubSeq", s, 1, 3))
	assert.Equal(t, "<<2>>", ok(t, "Sequences", "SubSeq", s, 2, 2))
	// Empty ranges are empty whatever the bounds.
	assert.Equal(t, "<<>>", ok(t, "Sequences", "SubSeq", s, 3, 2))
	assert.Equal(t, "<<>>", ok(t, "Sequences", "SubSeq", s, 4, 3))
	assert.Equal(t, "<<>>", ok(t, "Sequences", "SubSeq", s, 10, -5))
	assert.Equal(t, "<<>>", ok(t, "Sequences", "SubSeq", T(), 1, 0))
	assert.Equal(t, `"bc"`, ok(t, "Sequences", "SubSeq", "abcd", 2, 3))
	assert.Equal(t, `""`, ok(t, "Sequences", "SubSeq", "abcd", 3, 2))

	assert.Equal(t, "SubSeq: start index 0 is outside the domain 1..3 of <<1, 2, 3>>", fails(t, "Sequences", "SubSeq", s, 0, 2))
	assert.Equal(t, "SubSeq: end index 4 is outside the domain 1..3 of <<1, 2, 3>>", fails(t, "Sequences", "SubSeq", s, 2, 4))
	fails(t, "Sequences", "SubSeq", T(), 1, 1)
	fails(t, "Sequences", "SubSeq", "ab", 1, 3)
	assert.Equal(t, `SubSeq: third argument is not an integer: "a"`, fails(t, "Sequences", "SubSeq", s, 1, "a"))
	assert.Equal(t, `SubSeq: second argument is not an integer: TRUE`, fails(t, "Sequences", "SubSeq", s, true, 1))
	assert.Equal(t, `SubSeq: first argument is not a sequence: {}`, fails(t, "Sequences", "SubSeq", S(), 1, 1))
}

func TestSelectSeq(t *testing.T) {
	assert.Equal(t, "<<2, 4>>", ok(t, "Sequences", "SelectSeq", T(1, 2, 3, 4), evenOp))
	assert.Equal(t, "<<>>", ok(t, "Sequences", "SelectSeq", T(1, 3), evenOp))
	assert.Equal(t, "<<>>", ok(t, "Sequences", "SelectSeq", T(), errOp))
	assert.Equal(t, "boom", fails(t, "Sequences", "SelectSeq", T(1), errOp))
	assert.Equal(t, "SelectSeq: second argument must be a boolean-valued operator, but it returned 7",
		fails(t, "Sequences", "SelectSeq", T(1), notBool))
	assert.Equal(t, "SelectSeq: first argument is not a sequence: {1}", fails(t, "Sequences", "SelectSeq", S(1), evenOp))

	// The test sees the elements in order, once each.
	var seen []string
	rec := op1f(func(x value.Value) (value.Value, error) {
		seen = append(seen, x.String())
		return value.True, nil
	})
	in := T(3, 1, 2)
	v, err := call(t, "Sequences", "SelectSeq", in, rec)
	require.NoError(t, err)
	assert.Equal(t, []string{"3", "1", "2"}, seen)
	assert.Same(t, in, v, "nothing dropped: the same sequence")
}

func TestFiniteSets(t *testing.T) {
	assert.Equal(t, "TRUE", ok(t, "FiniteSets", "IsFiniteSet", S(1)))
	assert.Equal(t, "TRUE", ok(t, "FiniteSets", "IsFiniteSet", rng(1, 1000000)))
	assert.Equal(t, "FALSE", ok(t, "FiniteSets", "IsFiniteSet", value.Nat))
	sub, _ := value.Powerset(rng(1, 3))
	assert.Equal(t, "TRUE", ok(t, "FiniteSets", "IsFiniteSet", sub))
	seqs, _ := value.SeqOf(S(1))
	assert.Equal(t, "FALSE", ok(t, "FiniteSets", "IsFiniteSet", seqs))
	assert.Equal(t, "IsFiniteSet: argument is not a set: <<>>", fails(t, "FiniteSets", "IsFiniteSet", T()))

	assert.Equal(t, "0", ok(t, "FiniteSets", "Cardinality", S()))
	assert.Equal(t, "2", ok(t, "FiniteSets", "Cardinality", S(1, 2, 2)))
	// Lazy sets: their cardinality without building them.
	assert.Equal(t, "1000000", ok(t, "FiniteSets", "Cardinality", rng(1, 1000000)))
	big, _ := value.Powerset(rng(1, 40))
	assert.Equal(t, fmt.Sprint(int64(1)<<40), ok(t, "FiniteSets", "Cardinality", big))
	fs, _ := value.SetOfFuncs(rng(1, 10), rng(1, 10))
	assert.Equal(t, "10000000000", ok(t, "FiniteSets", "Cardinality", fs))
	prod, _ := value.Product(rng(1, 3), S("a", "b"))
	assert.Equal(t, "6", ok(t, "FiniteSets", "Cardinality", prod))
	rs, _ := value.SetOfRecords([]string{"x", "y"}, []value.Value{rng(1, 3), S()})
	assert.Equal(t, "0", ok(t, "FiniteSets", "Cardinality", rs))
	u, _ := value.Union(rng(1, 100), rng(50, 150))
	assert.Equal(t, "150", ok(t, "FiniteSets", "Cardinality", u))
	d, _ := value.Diff(value.Nat, value.Nat)
	failsWith(t, []string{"Cardinality:"}, "FiniteSets", "Cardinality", d)
	failsWith(t, []string{"Cardinality:", "infinite"}, "FiniteSets", "Cardinality", value.Nat)
	assert.Equal(t, "Cardinality: argument is not a set: 1", fails(t, "FiniteSets", "Cardinality", 1))
}
