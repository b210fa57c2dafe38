package stdlib

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

const sx = "SequencesExt"

func TestSequencesExtSets(t *testing.T) {
	assert.Equal(t, "{}", ok(t, sx, "ToSet", T()))
	assert.Equal(t, "{1, 2}", ok(t, sx, "ToSet", T(1, 1, 2)))
	assert.Equal(t, "ToSet: argument is not a sequence: {1}", fails(t, sx, "ToSet", S(1)))
	assert.Equal(t, `[a |-> 2, b |-> 1]`, ok(t, sx, "ToBag", T("a", "b", "a")))
	assert.Equal(t, `<<>>`, ok(t, sx, "ToBag", T()))

	assert.Equal(t, "<<>>", ok(t, sx, "SetToSeq", S()))
	assert.Equal(t, "<<1, 2, 3>>", ok(t, sx, "SetToSeq", S(3, 1, 2)))
	assert.Equal(t, `<<"a", "b">>`, ok(t, sx, "SetToSeq", S("b", "a")))
	failsWith(t, []string{"SetToSeq", "cannot enumerate"}, sx, "SetToSeq", value.Nat)
	assert.Equal(t, "{<<>>}", ok(t, sx, "SetToSeqs", S()))
	assert.Equal(t, `{<<"l", "t">>, <<"t", "l">>}`, ok(t, sx, "SetToSeqs", S("t", "l")))
	greater := op2f(func(x, y vv) (vv, error) { b, err := value.Greater(x, y); return value.Bool(b), err })
	assert.Equal(t, "<<3, 2, 1>>", ok(t, sx, "SetToSortSeq", S(1, 2, 3), greater))
	assert.Equal(t, "{<<>>}", ok(t, sx, "SetToAllKPermutations", S()))
	assert.Equal(t, `{<<>>, <<"a">>}`, ok(t, sx, "SetToAllKPermutations", S("a")))
	assert.Equal(t, `{<<>>, <<"a">>, <<"b">>, <<"a", "b">>, <<"b", "a">>}`, ok(t, sx, "SetToAllKPermutations", S("a", "b")))
	v := mustCall(t, sx, "SetToAllKPermutations", rng(1, 4))
	n, _ := value.Cardinality(v)
	assert.EqualValues(t, 1+4+12+24+24, n)

	assert.Equal(t, "{<<1, 1>>, <<1, 2>>, <<2, 1>>, <<2, 2>>}", ok(t, sx, "TupleOf", S(1, 2), 2))
	assert.Equal(t, "{<<>>}", ok(t, sx, "TupleOf", S(1, 2), 0))
	assert.Equal(t, "{<<>>, <<1>>, <<2>>, <<1, 1>>, <<1, 2>>, <<2, 1>>, <<2, 2>>}", ok(t, sx, "SeqOf", S(1, 2), 2))
	assert.Equal(t, "{<<>>}", ok(t, sx, "BoundedSeq", S(1, 2), 0))
	assert.Equal(t, "{<<>>}", ok(t, sx, "BoundedSeq", S(), 3))
	// Large bounded sequence sets stay lazy: membership without building.
	bs := mustCall(t, sx, "BoundedSeq", rng(1, 100), 10)
	in, err := value.Member(T(5, 6, 7), bs)
	require.NoError(t, err)
	assert.True(t, in)
	in, err = value.Member(T(5, 600), bs)
	require.NoError(t, err)
	assert.False(t, in)
	in, err = value.Member(mustCall(t, sx, "SetToSeq", rng(1, 11)), bs)
	require.NoError(t, err)
	assert.False(t, in)
	fails(t, sx, "SeqOf", T(), 2)
	fails(t, sx, "SeqOf", S(), "x")
}

func TestSequencesExtBasics(t *testing.T) {
	assert.Equal(t, "TRUE", ok(t, sx, "Contains", T(1, 2), 2))
	assert.Equal(t, "FALSE", ok(t, sx, "Contains", T(), 2))
	failsWith(t, []string{"Contains", "integer"}, sx, "Contains", T(1), "a")

	assert.Equal(t, "TRUE", ok(t, sx, "IsSorted", T(1, 2, 3), lessOp))
	assert.Equal(t, "FALSE", ok(t, sx, "IsSorted", T(1, 2, 2), lessOp))
	assert.Equal(t, "TRUE", ok(t, sx, "IsSorted", T(), lessOp))

	assert.Equal(t, "<<>>", ok(t, sx, "Reverse", T()))
	assert.Equal(t, "<<3, 2, 1>>", ok(t, sx, "Reverse", T(1, 2, 3)))
	assert.Equal(t, `<<"b", "a", "a">>`, ok(t, sx, "Reverse", T("a", "a", "b")))

	assert.Equal(t, "<<>>", ok(t, sx, "Remove", T(), "c"))
	assert.Equal(t, `<<"b">>`, ok(t, sx, "Remove", T("a", "a", "b"), "a"))
	assert.Equal(t, `<<"a", "a", "b">>`, ok(t, sx, "Remove", T("a", "a", "b"), "c"))
	assert.Equal(t, `<<{"a", "b"}>>`, ok(t, sx, "Remove", T(S("a", "b"), S("a", "c")), S("c", "a")))
	assert.Equal(t, "<<4, 4, 2, 4, 4, 3>>", ok(t, sx, "ReplaceAll", T(1, 1, 2, 1, 1, 3), 1, 4))
	assert.Equal(t, "<<>>", ok(t, sx, "ReplaceAll", T(), 1, 4))

	assert.Equal(t, "2", ok(t, sx, "SelectInSeq", T(1, 2, 3, 4), evenOp))
	assert.Equal(t, "4", ok(t, sx, "SelectLastInSeq", T(1, 2, 3, 4), evenOp))
	assert.Equal(t, "0", ok(t, sx, "SelectInSeq", T(1, 3), evenOp))
	assert.Equal(t, "0", ok(t, sx, "SelectLastInSeq", T(), evenOp))
	// Relative to the subsequence, as defined.
	assert.Equal(t, "1", ok(t, sx, "SelectInSubSeq", T(1, 2, 3, 4), 2, 4, evenOp))
	assert.Equal(t, "3", ok(t, sx, "SelectLastInSubSeq", T(1, 2, 3, 4), 2, 4, evenOp))
	fails(t, sx, "SelectInSubSeq", T(1, 2), 2, 4, evenOp)

	assert.Equal(t, "<<9, 1, 2>>", ok(t, sx, "InsertAt", T(1, 2), 1, 9))
	assert.Equal(t, "<<1, 9, 2>>", ok(t, sx, "InsertAt", T(1, 2), 2, 9))
	assert.Equal(t, "<<1, 2, 9>>", ok(t, sx, "InsertAt", T(1, 2), 3, 9))
	assert.Equal(t, "<<9>>", ok(t, sx, "InsertAt", T(), 1, 9))
	failsWith(t, []string{"InsertAt", "index 4"}, sx, "InsertAt", T(1, 2), 4, 9)
	failsWith(t, []string{"InsertAt", "index 0"}, sx, "InsertAt", T(1, 2), 0, 9)

	assert.Equal(t, "<<2>>", ok(t, sx, "ReplaceAt", T(1), 1, 2))
	assert.Equal(t, "<<2, 1, 1>>", ok(t, sx, "ReplaceAt", T(1, 1, 1), 1, 2))
	assert.Equal(t, "<<1>>", ok(t, sx, "ReplaceAt", T(1), 5, 2), "outside the domain: unchanged, as EXCEPT")

	assert.Equal(t, "<<2, 3>>", ok(t, sx, "RemoveAt", T(1, 2, 3), 1))
	assert.Equal(t, "<<1, 3>>", ok(t, sx, "RemoveAt", T(1, 2, 3), 2))
	assert.Equal(t, "<<1, 2>>", ok(t, sx, "RemoveAt", T(1, 2, 3), 3))
	assert.Equal(t, "<<>>", ok(t, sx, "RemoveAt", T(1), 1))
	assert.Equal(t, `"ac"`, ok(t, sx, "RemoveAt", "abc", 2))
	fails(t, sx, "RemoveAt", T(1, 2), 5)
	fails(t, sx, "RemoveAt", S(1), 1)

	assert.Equal(t, "<<1, 3, 2>>", ok(t, sx, "RemoveFirst", T(2, 1, 3, 2), 2))
	assert.Equal(t, "<<1>>", ok(t, sx, "RemoveFirst", T(1), 2))
	assert.Equal(t, "<<1, 3, 4>>", ok(t, sx, "RemoveFirstMatch", T(1, 2, 3, 4), evenOp))
	assert.Equal(t, "<<1, 3>>", ok(t, sx, "RemoveFirstMatch", T(1, 3), evenOp))

	assert.Equal(t, "<<0, 1, 2>>", ok(t, sx, "Cons", 0, T(1, 2)))
	assert.Equal(t, "<<0>>", ok(t, sx, "Cons", 0, T()))
	assert.Equal(t, "<<1, 2, 0>>", ok(t, sx, "Snoc", 0, T(1, 2)))
	assert.Equal(t, "Cons: second argument is not a sequence: 1", fails(t, sx, "Cons", 0, 1))

	assert.Equal(t, "<<1, 2>>", ok(t, sx, "Front", T(1, 2, 3)))
	assert.Equal(t, "<<>>", ok(t, sx, "Front", T(1)))
	assert.Equal(t, "<<>>", ok(t, sx, "Front", T()))
	assert.Equal(t, `"ab"`, ok(t, sx, "Front", "abc"))
	assert.Equal(t, "3", ok(t, sx, "Last", T(1, 2, 3)))
	assert.Equal(t, "Last: argument is the empty sequence", fails(t, sx, "Last", T()))
	assert.Equal(t, "Front: argument is not a sequence or a string: {}", fails(t, sx, "Front", S()))
}

func TestSequencesExtPrefixes(t *testing.T) {
	yes := [][2]vv{{T(), T()}, {T(), T(1)}, {T(1), T(1, 2)}, {T(1, 2), T(1, 2)}, {T(1, 2), T(1, 2, 3)}, {conv("ab"), conv("abc")}}
	no := [][2]vv{{T(1, 2, 3), T(1, 2)}, {T(1, 2, 2), T(1, 2, 3)}, {T(1), T(2)}, {T(2, 1), T(1, 2)}, {conv("b"), conv("abc")}}
	for _, p := range yes {
		assert.Equal(t, "TRUE", ok(t, sx, "IsPrefix", p[0], p[1]), "%s %s", p[0], p[1])
	}
	for _, p := range no {
		assert.Equal(t, "FALSE", ok(t, sx, "IsPrefix", p[0], p[1]), "%s %s", p[0], p[1])
	}
	assert.Equal(t, "FALSE", ok(t, sx, "IsStrictPrefix", T(), T()))
	assert.Equal(t, "TRUE", ok(t, sx, "IsStrictPrefix", T(), T(1)))
	assert.Equal(t, "FALSE", ok(t, sx, "IsStrictPrefix", T(1, 2), T(1, 2)))
	assert.Equal(t, "TRUE", ok(t, sx, "IsSuffix", T(2, 3), T(1, 2, 3)))
	assert.Equal(t, "FALSE", ok(t, sx, "IsSuffix", T(3, 2), T(1, 2, 3)))
	assert.Equal(t, "TRUE", ok(t, sx, "IsSuffix", T(1, 2, 3), T(1, 2, 3)))
	assert.Equal(t, "FALSE", ok(t, sx, "IsStrictSuffix", T(1, 2, 3), T(1, 2, 3)))
	assert.Equal(t, "TRUE", ok(t, sx, "IsStrictSuffix", T(3), T(1, 2, 3)))
	assert.Equal(t, "TRUE", ok(t, sx, "IsSuffix", "bc", "abc"))
	failsWith(t, []string{"IsPrefix", "cannot mix"}, sx, "IsPrefix", "a", T())
	failsWith(t, []string{"IsPrefix: second argument is not a sequence or a string"}, sx, "IsPrefix", T(), S())

	assert.Equal(t, "{<<>>, <<1>>, <<1, 2>>}", ok(t, sx, "Prefixes", T(1, 2)))
	assert.Equal(t, "{<<>>}", ok(t, sx, "Prefixes", T()))
	assert.Equal(t, "{<<>>, <<2>>, <<1, 2>>}", ok(t, sx, "Suffixes", T(1, 2)))
	assert.Equal(t, `{"", "ab", "b"}`, ok(t, sx, "Suffixes", "ab"))
	assert.Equal(t, "{<<>>, <<1>>, <<1, 2>>}", ok(t, sx, "CommonPrefixes", S(T(1, 2, 3), T(1, 2, 4), T(1, 2))))
	assert.Equal(t, "{}", ok(t, sx, "CommonPrefixes", S()))
	assert.Equal(t, "<<1, 2>>", ok(t, sx, "LongestCommonPrefix", S(T(1, 2, 3), T(1, 2, 4), T(1, 2))))
	assert.Equal(t, "<<>>", ok(t, sx, "LongestCommonPrefix", S(T(1), T(2))))
	assert.Equal(t, "<<1, 2>>", ok(t, sx, "LongestCommonPrefix", S(T(1, 2))))
	assert.Equal(t, `"ab"`, ok(t, sx, "LongestCommonPrefix", S("abc", "abd")))
	assert.Equal(t, "LongestCommonPrefix: argument is the empty set", fails(t, sx, "LongestCommonPrefix", S()))
	failsWith(t, []string{"LongestCommonPrefix", "not a sequence"}, sx, "LongestCommonPrefix", S(T(1), 3))

	assert.Equal(t, "3", ok(t, sx, "SeqMod", 3, 3))
	assert.Equal(t, "1", ok(t, sx, "SeqMod", 4, 3))
	assert.Equal(t, "3", ok(t, sx, "SeqMod", 0, 3))
	failsWith(t, []string{"SeqMod"}, sx, "SeqMod", 1, 0)
}

func TestSequencesExtFolds(t *testing.T) {
	addToSet := op2f(func(x, y vv) (vv, error) { return value.Union(S(x), y) })
	assert.Equal(t, "{1, 2}", ok(t, sx, "FoldSeq", addToSet, S(), T(1, 2, 1)))
	// The module's examples.
	assert.Equal(t, "<<<<<<0, 3>>, 1>>, 2>>", ok(t, sx, "FoldLeft", pairOp, 0, T(3, 1, 2)))
	assert.Equal(t, "<<3, <<1, <<2, 0>>>>>>", ok(t, sx, "FoldRight", pairOp, T(3, 1, 2), 0))
	assert.Equal(t, "0", ok(t, sx, "FoldLeft", pairOp, 0, T()))
	assert.Equal(t, "-6", ok(t, sx, "FoldLeft", minusOp, 0, T(1, 2, 3)))
	assert.Equal(t, "2", ok(t, sx, "FoldRight", minusOp, T(1, 2, 3), 0))
	assert.Equal(t, "<<<<0, 1>>, 2>>", ok(t, sx, "FoldLeftDomain", pairOp, 0, T("x", "y")))
	assert.Equal(t, "<<1, <<2, 0>>>>", ok(t, sx, "FoldRightDomain", pairOp, T("x", "y"), 0))
	failsWith(t, []string{"FoldRight: second argument is not a sequence"}, sx, "FoldRight", pairOp, 0, T())
	assert.Equal(t, "boom", fails(t, sx, "FoldLeft", op2f(func(vv, vv) (vv, error) { return errOp.Call([]vv{nil}) }), 0, T(1)))

	assert.Equal(t, "<<1, 2, 1>>", ok(t, sx, "FlattenSeq", T(T(1, 2), T(1))))
	assert.Equal(t, `<<"a", "b">>`, ok(t, sx, "FlattenSeq", T(T("a"), T("b"))))
	assert.Equal(t, `"ab"`, ok(t, sx, "FlattenSeq", T("a", "b")))
	assert.Equal(t, "<<>>", ok(t, sx, "FlattenSeq", T()))
	assert.Equal(t, "<<>>", ok(t, sx, "FlattenSeq", T(T(), T())))
	failsWith(t, []string{"FlattenSeq", "not a sequence"}, sx, "FlattenSeq", T(T(1), 2))
	failsWith(t, []string{"FlattenSeq", "not a string"}, sx, "FlattenSeq", T("a", T()))

	assert.Equal(t, "<<>>", ok(t, sx, "Zip", T(), T()))
	assert.Equal(t, `<<<<"a", "b">>>>`, ok(t, sx, "Zip", T("a"), T("b")))
	assert.Equal(t, "<<<<1, 2>>, <<3, 4>>>>", ok(t, sx, "Zip", T(1, 3), T(2, 4)))
	assert.Equal(t, "<<>>", ok(t, sx, "Zip", T(), T(1, 2, 3)))
	assert.Equal(t, `<<<<"a", 1>>>>`, ok(t, sx, "Zip", T("a", "b", "c"), T(1)))
	assert.Equal(t, "<<>>", ok(t, sx, "Interleave", T(), T()))
	assert.Equal(t, "<<<<1>>, <<2>>, <<3>>, <<4>>>>", ok(t, sx, "Interleave", T(1, 3), T(2, 4)))
	failsWith(t, []string{"Interleave", "different lengths"}, sx, "Interleave", T(1), T())
}

func TestSequencesExtSubSeqs(t *testing.T) {
	assert.Equal(t, "{<<>>, <<1>>, <<2>>, <<3>>, <<1, 2>>, <<2, 3>>, <<1, 2, 3>>}", ok(t, sx, "SubSeqs", T(1, 2, 3)))
	assert.Equal(t, "{<<>>}", ok(t, sx, "SubSeqs", T()))
	assert.Equal(t, `{"", "a", "ab", "b"}`, ok(t, sx, "SubSeqs", "ab"))
	all := ok(t, sx, "AllSubSeqs", T(1, 2, 3, 4))
	assert.Equal(t, "{<<>>, <<1>>, <<2>>, <<3>>, <<4>>, <<1, 2>>, <<1, 3>>, <<1, 4>>, <<2, 3>>, <<2, 4>>, <<3, 4>>, "+
		"<<1, 2, 3>>, <<1, 2, 4>>, <<1, 3, 4>>, <<2, 3, 4>>, <<1, 2, 3, 4>>}", all)
	assert.Equal(t, "{<<>>, <<1>>, <<1, 1>>}", ok(t, sx, "AllSubSeqs", T(1, 1)))

	assert.Equal(t, "1", ok(t, sx, "IndexFirstSubSeq", T(1), T(1, 1, 1)))
	assert.Equal(t, "2", ok(t, sx, "IndexFirstSubSeq", T(2, 3), T(1, 2, 3, 2, 3)))
	assert.Equal(t, "1", ok(t, sx, "IndexFirstSubSeq", T(), T(1, 2)))
	assert.Equal(t, "3", ok(t, sx, "IndexFirstSubSeq", "c", "abc"))
	failsWith(t, []string{"IndexFirstSubSeq", "does not occur"}, sx, "IndexFirstSubSeq", T(4), T(1, 2))

	assert.Equal(t, "<<1, 9, 9, 4>>", ok(t, sx, "ReplaceSubSeqAt", 2, T(9, 9), T(2, 3), T(1, 2, 3, 4)))
	assert.Equal(t, `"aXd"`, ok(t, sx, "ReplaceSubSeqAt", 2, "X", "bc", "abcd"))
	assert.Equal(t, "<<1, 9, 3, 2>>", ok(t, sx, "ReplaceFirstSubSeq", T(9), T(2), T(1, 2, 3, 2)))
	assert.Equal(t, "<<9, 1>>", ok(t, sx, "ReplaceFirstSubSeq", T(9), T(), T(1)))
	assert.Equal(t, "<<1, 2>>", ok(t, sx, "ReplaceFirstSubSeq", T(9), T(5), T(1, 2)))
	assert.Equal(t, `"a--c"`, ok(t, sx, "ReplaceFirstSubSeq", "--", "b", "abc"))

	// The module's examples.
	assert.Equal(t, "<<>>", ok(t, sx, "ReplaceAllSubSeqs", T(), T(), T()))
	assert.Equal(t, "<<4>>", ok(t, sx, "ReplaceAllSubSeqs", T(4), T(), T()))
	assert.Equal(t, "<<1, 2>>", ok(t, sx, "ReplaceAllSubSeqs", T(2), T(3), T(1, 3)))
	assert.Equal(t, "<<2, 2, 1>>", ok(t, sx, "ReplaceAllSubSeqs", T(2, 2), T(1, 1), T(1, 1, 1)))
	assert.Equal(t, "<<4, 1, 4, 2>>", ok(t, sx, "ReplaceAllSubSeqs", T(4), T(), T(1, 2)))
	assert.Equal(t, "<<1, 2>>", ok(t, sx, "ReplaceAllSubSeqs", T(9), T(5), T(1, 2)))
	assert.Equal(t, `"xbxb"`, ok(t, sx, "ReplaceAllSubSeqs", "x", "a", "abab"))
	assert.Equal(t, `"yy"`, ok(t, sx, "ReplaceAllSubSeqs", "yy", "abab", "abab"))
	failsWith(t, []string{"ReplaceAllSubSeqs", "cannot mix"}, sx, "ReplaceAllSubSeqs", T(), "a", "abc")
}
