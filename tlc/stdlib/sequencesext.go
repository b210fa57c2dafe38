package stdlib

import (
	"fmt"
	"slices"
	"strings"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// The community module SequencesExt.
//
// Operators defined with Len, SubSeq and \o also work on strings, as in
// TLC (Front, RemoveAt, IsPrefix and IsSuffix and their strict variants,
// Prefixes, Suffixes, CommonPrefixes, LongestCommonPrefix, SubSeqs,
// FlattenSeq, IndexFirstSubSeq, ReplaceSubSeqAt, ReplaceFirstSubSeq,
// ReplaceAllSubSeqs); the others need sequences.
//
// Where the definition depends on an order:
//   - SetToSeq(S) lists S in canonical order (the first injective function
//     of [1..n -> S] in canonical order is the sorted one).
//   - FoldSeq folds like FoldFunction; FoldLeft and FoldRight go left to
//     right and right to left as documented.
//   - AllSubSeqs(s) is the set of the subsequences of s that keep the
//     order of s, as the module documents (<<1, 3>> \in
//     AllSubSeqs(<<1, 2, 3>>)).
//   - ReplaceAllSubSeqs replaces the occurrences of s from left to right,
//     without overlaps.

func registerSequencesExt() {
	const m = "SequencesExt"
	def(m,
		&Builtin{Name: "ToSet", Arity: 1, Fn: op1(func(s value.Value) (value.Value, error) {
			elems, err := seqArg("ToSet", 0, 1, s)
			if err != nil {
				return nil, err
			}
			return set(slices.Clone(elems)), nil
		})},
		&Builtin{Name: "ToBag", Arity: 1, Fn: op1(toBag)},
		&Builtin{Name: "SetToSeq", Arity: 1, Fn: op1(func(s value.Value) (value.Value, error) {
			elems, err := elemsArg("SetToSeq", 0, 1, s)
			if err != nil {
				return nil, err
			}
			return tuple(slices.Clone(elems)), nil
		})},
		&Builtin{Name: "SetToSeqs", Arity: 1, Fn: op1(func(s value.Value) (value.Value, error) {
			elems, err := elemsArg("SetToSeqs", 0, 1, s)
			if err != nil {
				return nil, err
			}
			return allPermutationSeqs("SetToSeqs", elems)
		})},
		&Builtin{Name: "SetToSortSeq", Arity: 2, OpParams: []int{1}, Fn: func(_ Context, args []Arg) (value.Value, error) {
			elems, err := elemsArg("SetToSortSeq", 0, 2, args[0].V)
			if err != nil {
				return nil, err
			}
			less, err := opArg("SetToSortSeq", 1, 2, args, 2)
			if err != nil {
				return nil, err
			}
			out, err := insertionSort("SetToSortSeq", elems, less)
			if err != nil {
				return nil, err
			}
			return tuple(out), nil
		}},
		&Builtin{Name: "SetToAllKPermutations", Arity: 1, Fn: op1(setToAllKPermutations)},
		&Builtin{Name: "TupleOf", Arity: 2, Fn: op2(func(s, n value.Value) (value.Value, error) {
			if err := setArg("TupleOf", 0, 2, s); err != nil {
				return nil, err
			}
			k, err := intArg("TupleOf", 1, 2, n)
			if err != nil {
				return nil, err
			}
			return value.SetOfFuncs(value.NewInterval(1, k), s)
		})},
		&Builtin{Name: "SeqOf", Arity: 2, Fn: op2(func(s, n value.Value) (value.Value, error) {
			return boundedSeq("SeqOf", s, n)
		})},
		&Builtin{Name: "BoundedSeq", Arity: 2, Fn: op2(func(s, n value.Value) (value.Value, error) {
			return boundedSeq("BoundedSeq", s, n)
		})},
		&Builtin{Name: "Contains", Arity: 2, Fn: op2(func(s, e value.Value) (value.Value, error) {
			elems, err := seqArg("Contains", 0, 2, s)
			if err != nil {
				return nil, err
			}
			i, err := indexWhereEqual("Contains", elems, e)
			return boolResult(i >= 0, err)
		})},
		&Builtin{Name: "IsSorted", Arity: 2, OpParams: []int{1}, Fn: isSorted},
		&Builtin{Name: "Reverse", Arity: 1, Fn: op1(func(s value.Value) (value.Value, error) {
			elems, err := seqArg("Reverse", 0, 1, s)
			if err != nil {
				return nil, err
			}
			out := slices.Clone(elems)
			slices.Reverse(out)
			return tuple(out), nil
		})},
		&Builtin{Name: "Remove", Arity: 2, Fn: op2(func(s, e value.Value) (value.Value, error) {
			elems, err := seqArg("Remove", 0, 2, s)
			if err != nil {
				return nil, err
			}
			var out []value.Value
			for _, x := range elems {
				eq, err := equal("Remove", x, e)
				if err != nil {
					return nil, err
				}
				if !eq {
					out = append(out, x)
				}
			}
			if len(out) == len(elems) {
				return s, nil
			}
			return tuple(out), nil
		})},
		&Builtin{Name: "ReplaceAll", Arity: 3, Fn: op3(func(s, old, nu value.Value) (value.Value, error) {
			elems, err := seqArg("ReplaceAll", 0, 3, s)
			if err != nil {
				return nil, err
			}
			out := slices.Clone(elems)
			for i, x := range out {
				eq, err := equal("ReplaceAll", x, old)
				if err != nil {
					return nil, err
				}
				if eq {
					out[i] = nu
				}
			}
			return tuple(out), nil
		})},
		&Builtin{Name: "SelectInSeq", Arity: 2, OpParams: []int{1}, Fn: func(_ Context, args []Arg) (value.Value, error) {
			return selectIn("SelectInSeq", args[0].V, args, 1, 2, false)
		}},
		&Builtin{Name: "SelectLastInSeq", Arity: 2, OpParams: []int{1}, Fn: func(_ Context, args []Arg) (value.Value, error) {
			return selectIn("SelectLastInSeq", args[0].V, args, 1, 2, true)
		}},
		&Builtin{Name: "SelectInSubSeq", Arity: 4, OpParams: []int{3}, Fn: func(_ Context, args []Arg) (value.Value, error) {
			sub, err := subSeq("SelectInSubSeq", args[0].V, args[1].V, args[2].V)
			if err != nil {
				return nil, err
			}
			return selectIn("SelectInSubSeq", sub, args, 3, 4, false)
		}},
		&Builtin{Name: "SelectLastInSubSeq", Arity: 4, OpParams: []int{3}, Fn: func(_ Context, args []Arg) (value.Value, error) {
			sub, err := subSeq("SelectLastInSubSeq", args[0].V, args[1].V, args[2].V)
			if err != nil {
				return nil, err
			}
			return selectIn("SelectLastInSubSeq", sub, args, 3, 4, true)
		}},
		&Builtin{Name: "InsertAt", Arity: 3, Fn: op3(insertAt)},
		&Builtin{Name: "ReplaceAt", Arity: 3, Fn: op3(func(s, i, e value.Value) (value.Value, error) {
			if _, err := seqArg("ReplaceAt", 0, 3, s); err != nil {
				return nil, err
			}
			if _, err := intArg("ReplaceAt", 1, 3, i); err != nil {
				return nil, err
			}
			// [s EXCEPT ![i] = e]: s itself when i is not an index.
			return value.Update(s, []value.Value{i}, e)
		})},
		&Builtin{Name: "RemoveAt", Arity: 2, Fn: op2(func(s, i value.Value) (value.Value, error) {
			k, err := intArg("RemoveAt", 1, 2, i)
			if err != nil {
				return nil, err
			}
			return removeAt("RemoveAt", s, k)
		})},
		&Builtin{Name: "RemoveFirst", Arity: 2, Fn: op2(func(s, e value.Value) (value.Value, error) {
			elems, err := seqArg("RemoveFirst", 0, 2, s)
			if err != nil {
				return nil, err
			}
			i, err := indexWhereEqual("RemoveFirst", elems, e)
			if err != nil {
				return nil, err
			}
			if i < 0 {
				return s, nil
			}
			return removeAt("RemoveFirst", s, int64(i)+1)
		})},
		&Builtin{Name: "RemoveFirstMatch", Arity: 2, OpParams: []int{1}, Fn: func(_ Context, args []Arg) (value.Value, error) {
			const name = "RemoveFirstMatch"
			elems, err := seqArg(name, 0, 2, args[0].V)
			if err != nil {
				return nil, err
			}
			test, err := opArg(name, 1, 2, args, 1)
			if err != nil {
				return nil, err
			}
			for i, x := range elems {
				ok, err := callBool(name, 1, 2, test, x)
				if err != nil {
					return nil, err
				}
				if ok {
					return removeAt(name, args[0].V, int64(i)+1)
				}
			}
			return args[0].V, nil
		}},
		&Builtin{Name: "Cons", Arity: 2, Fn: op2(func(e, s value.Value) (value.Value, error) {
			elems, err := seqArg("Cons", 1, 2, s)
			if err != nil {
				return nil, err
			}
			return tuple(append([]value.Value{e}, elems...)), nil
		})},
		&Builtin{Name: "Snoc", Arity: 2, Fn: op2(func(e, s value.Value) (value.Value, error) {
			if _, err := seqArg("Snoc", 1, 2, s); err != nil {
				return nil, err
			}
			return value.Append(s, e)
		})},
		&Builtin{Name: "Front", Arity: 1, Fn: op1(func(s value.Value) (value.Value, error) {
			n, err := seqLike("Front", 0, 1, s)
			if err != nil {
				return nil, err
			}
			return subSeqOf("Front", s, 1, n-1)
		})},
		&Builtin{Name: "Last", Arity: 1, Fn: op1(func(s value.Value) (value.Value, error) {
			elems, err := seqArg("Last", 0, 1, s)
			if err != nil {
				return nil, err
			}
			if len(elems) == 0 {
				return nil, fmt.Errorf("Last: argument is the empty sequence")
			}
			return elems[len(elems)-1], nil
		})},
		&Builtin{Name: "IsPrefix", Arity: 2, Fn: op2(func(s, t value.Value) (value.Value, error) {
			return boolResult(isPrefix("IsPrefix", s, t, false))
		})},
		&Builtin{Name: "IsStrictPrefix", Arity: 2, Fn: op2(func(s, t value.Value) (value.Value, error) {
			return boolResult(isPrefix("IsStrictPrefix", s, t, true))
		})},
		&Builtin{Name: "IsSuffix", Arity: 2, Fn: op2(func(s, t value.Value) (value.Value, error) {
			return boolResult(isSuffix("IsSuffix", s, t, false))
		})},
		&Builtin{Name: "IsStrictSuffix", Arity: 2, Fn: op2(func(s, t value.Value) (value.Value, error) {
			return boolResult(isSuffix("IsStrictSuffix", s, t, true))
		})},
		&Builtin{Name: "Prefixes", Arity: 1, Fn: op1(func(s value.Value) (value.Value, error) {
			return affixes("Prefixes", s, true)
		})},
		&Builtin{Name: "Suffixes", Arity: 1, Fn: op1(func(s value.Value) (value.Value, error) {
			return affixes("Suffixes", s, false)
		})},
		&Builtin{Name: "CommonPrefixes", Arity: 1, Fn: op1(func(s value.Value) (value.Value, error) {
			lcp, ok, err := longestCommonPrefix("CommonPrefixes", s)
			if err != nil {
				return nil, err
			}
			if !ok {
				return value.EmptySet, nil
			}
			return affixes("CommonPrefixes", lcp, true)
		})},
		&Builtin{Name: "LongestCommonPrefix", Arity: 1, Fn: op1(func(s value.Value) (value.Value, error) {
			lcp, ok, err := longestCommonPrefix("LongestCommonPrefix", s)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, fmt.Errorf("LongestCommonPrefix: argument is the empty set")
			}
			return lcp, nil
		})},
		&Builtin{Name: "SeqMod", Arity: 2, Fn: op2(func(a, b value.Value) (value.Value, error) {
			r, err := value.Mod(a, b)
			if err != nil {
				return nil, wrap("SeqMod", err)
			}
			if r.(value.Int) == 0 {
				return b, nil
			}
			return r, nil
		})},
		&Builtin{Name: "FoldSeq", Arity: 3, OpParams: []int{0}, Fn: func(_ Context, args []Arg) (value.Value, error) {
			op, err := opArg("FoldSeq", 0, 3, args, 2)
			if err != nil {
				return nil, err
			}
			elems, err := seqArg("FoldSeq", 2, 3, args[2].V)
			if err != nil {
				return nil, err
			}
			return foldRight(elems, args[1].V, op, nil)
		}},
		&Builtin{Name: "FoldLeft", Arity: 3, OpParams: []int{0}, Fn: func(_ Context, args []Arg) (value.Value, error) {
			op, err := opArg("FoldLeft", 0, 3, args, 2)
			if err != nil {
				return nil, err
			}
			elems, err := seqArg("FoldLeft", 2, 3, args[2].V)
			if err != nil {
				return nil, err
			}
			return foldLeft(elems, args[1].V, op)
		}},
		&Builtin{Name: "FoldRight", Arity: 3, OpParams: []int{0}, Fn: func(_ Context, args []Arg) (value.Value, error) {
			// FoldRight(op, seq, base)
			op, err := opArg("FoldRight", 0, 3, args, 2)
			if err != nil {
				return nil, err
			}
			elems, err := seqArg("FoldRight", 1, 3, args[1].V)
			if err != nil {
				return nil, err
			}
			return foldRight(elems, args[2].V, op, nil)
		}},
		&Builtin{Name: "FoldLeftDomain", Arity: 3, OpParams: []int{0}, Fn: func(_ Context, args []Arg) (value.Value, error) {
			op, err := opArg("FoldLeftDomain", 0, 3, args, 2)
			if err != nil {
				return nil, err
			}
			elems, err := seqArg("FoldLeftDomain", 2, 3, args[2].V)
			if err != nil {
				return nil, err
			}
			return foldLeft(indices(len(elems)), args[1].V, op)
		}},
		&Builtin{Name: "FoldRightDomain", Arity: 3, OpParams: []int{0}, Fn: func(_ Context, args []Arg) (value.Value, error) {
			op, err := opArg("FoldRightDomain", 0, 3, args, 2)
			if err != nil {
				return nil, err
			}
			elems, err := seqArg("FoldRightDomain", 1, 3, args[1].V)
			if err != nil {
				return nil, err
			}
			return foldRight(indices(len(elems)), args[2].V, op, nil)
		}},
		&Builtin{Name: "FlattenSeq", Arity: 1, Fn: op1(flattenSeq)},
		&Builtin{Name: "Zip", Arity: 2, Fn: op2(func(s, t value.Value) (value.Value, error) {
			a, err := seqArg("Zip", 0, 2, s)
			if err != nil {
				return nil, err
			}
			b, err := seqArg("Zip", 1, 2, t)
			if err != nil {
				return nil, err
			}
			out := make([]value.Value, min(len(a), len(b)))
			for i := range out {
				out[i] = value.Tuple(a[i], b[i])
			}
			return tuple(out), nil
		})},
		&Builtin{Name: "Interleave", Arity: 2, Fn: op2(func(s, t value.Value) (value.Value, error) {
			a, err := seqArg("Interleave", 0, 2, s)
			if err != nil {
				return nil, err
			}
			b, err := seqArg("Interleave", 1, 2, t)
			if err != nil {
				return nil, err
			}
			if len(a) != len(b) {
				return nil, fmt.Errorf("Interleave: the sequences have different lengths %d and %d", len(a), len(b))
			}
			out := make([]value.Value, 0, 2*len(a))
			for i := range a {
				out = append(out, value.Tuple(a[i]), value.Tuple(b[i]))
			}
			return tuple(out), nil
		})},
		&Builtin{Name: "SubSeqs", Arity: 1, Fn: op1(subSeqs)},
		&Builtin{Name: "AllSubSeqs", Arity: 1, Fn: op1(allSubSeqs)},
		&Builtin{Name: "IndexFirstSubSeq", Arity: 2, Fn: op2(func(s, t value.Value) (value.Value, error) {
			i, err := indexFirstSubSeq("IndexFirstSubSeq", s, t)
			if err != nil {
				return nil, err
			}
			if i == 0 {
				return nil, fmt.Errorf("IndexFirstSubSeq: %s does not occur in %s", show(s), show(t))
			}
			return value.IntOf(int64(i)), nil
		})},
		&Builtin{Name: "ReplaceSubSeqAt", Arity: 4, Fn: func(_ Context, args []Arg) (value.Value, error) {
			i, err := intArg("ReplaceSubSeqAt", 0, 4, args[0].V)
			if err != nil {
				return nil, err
			}
			return replaceSubSeqAt("ReplaceSubSeqAt", i, args[1].V, args[2].V, args[3].V)
		}},
		&Builtin{Name: "ReplaceFirstSubSeq", Arity: 3, Fn: op3(func(r, s, t value.Value) (value.Value, error) {
			const name = "ReplaceFirstSubSeq"
			i, err := indexFirstSubSeq(name, s, t)
			if err != nil {
				return nil, err
			}
			if i == 0 {
				return t, nil
			}
			return replaceSubSeqAt(name, int64(i), r, s, t)
		})},
		&Builtin{Name: "ReplaceAllSubSeqs", Arity: 3, Fn: op3(replaceAllSubSeqs)},
	)
}

// seqLike checks that argument i of op is a sequence or a string and
// returns its length.
func seqLike(op string, i, n int, v value.Value) (int64, error) {
	if s, ok := v.(value.Str); ok {
		return int64(len(s)), nil
	}
	elems, err := seqArg(op, i, n, v)
	if err != nil {
		return 0, argError(op, i, n, "a sequence or a string", v)
	}
	return int64(len(elems)), nil
}

// items returns the elements of a sequence, or the one-character strings
// of a string, so that the operators defined with SubSeq and \o can treat
// both alike.
func items(op string, i, n int, v value.Value) ([]value.Value, bool, error) {
	if s, ok := v.(value.Str); ok {
		out := make([]value.Value, len(s))
		for j := range out {
			out[j] = s[j : j+1]
		}
		return out, true, nil
	}
	elems, err := seqArg(op, i, n, v)
	if err != nil {
		return nil, false, argError(op, i, n, "a sequence or a string", v)
	}
	return elems, false, nil
}

// fromItems is the inverse of items.
func fromItems(vs []value.Value, isStr bool) value.Value {
	if !isStr {
		return tuple(vs)
	}
	var sb strings.Builder
	for _, v := range vs {
		sb.WriteString(string(v.(value.Str)))
	}
	return value.Str(sb.String())
}

// sameKind checks that two seq-like arguments are both strings or both
// sequences.
func sameKind(op string, s, t value.Value) (a, b []value.Value, isStr bool, err error) {
	a, sa, err := items(op, 0, 2, s)
	if err != nil {
		return nil, nil, false, err
	}
	b, sb, err := items(op, 1, 2, t)
	if err != nil {
		return nil, nil, false, err
	}
	if sa != sb {
		return nil, nil, false, fmt.Errorf("%s: cannot mix a string and a sequence: %s and %s", op, show(s), show(t))
	}
	return a, b, sa, nil
}

func indices(n int) []value.Value {
	out := make([]value.Value, n)
	for i := range out {
		out[i] = value.IntOf(int64(i) + 1)
	}
	return out
}

// indexWhereEqual is the index of the first element equal to e, or -1.
func indexWhereEqual(op string, elems []value.Value, e value.Value) (int, error) {
	for i, x := range elems {
		eq, err := equal(op, x, e)
		if err != nil {
			return -1, err
		}
		if eq {
			return i, nil
		}
	}
	return -1, nil
}

// equalItems compares two slices element by element.
func equalItems(op string, a, b []value.Value) (bool, error) {
	if len(a) != len(b) {
		return false, nil
	}
	for i := range a {
		eq, err := equal(op, a[i], b[i])
		if err != nil || !eq {
			return false, err
		}
	}
	return true, nil
}

func toBag(s value.Value) (value.Value, error) {
	elems, err := seqArg("ToBag", 0, 1, s)
	if err != nil {
		return nil, err
	}
	var acc value.Value = value.EmptyBag
	for _, e := range elems {
		if acc, err = value.BagAdd(acc, value.SingletonFunc(e, value.IntOf(1))); err != nil {
			return nil, wrap("ToBag", err)
		}
	}
	return acc, nil
}

// allPermutationSeqs is the set of the sequences that list the elements
// exactly once.
func allPermutationSeqs(op string, elems []value.Value) (value.Value, error) {
	total := 1
	for i := 2; i <= len(elems); i++ {
		if total > maxBuild/i {
			return nil, tooLarge(op, "the set of sequences")
		}
		total *= i
	}
	out := make([]value.Value, 0, total)
	permute(elems, func(p []value.Value) { out = append(out, tuple(slices.Clone(p))) })
	return set(out), nil
}

// permute calls f with every permutation of elems (in a scratch slice).
func permute(elems []value.Value, f func([]value.Value)) {
	n := len(elems)
	perm := make([]value.Value, n)
	used := make([]bool, n)
	var rec func(i int)
	rec = func(i int) {
		if i == n {
			f(perm)
			return
		}
		for j, e := range elems {
			if used[j] {
				continue
			}
			used[j] = true
			perm[i] = e
			rec(i + 1)
			used[j] = false
		}
	}
	rec(0)
}

// setToAllKPermutations is the set of the sequences of distinct elements
// of S (of every length, <<>> included).
func setToAllKPermutations(s value.Value) (value.Value, error) {
	const name = "SetToAllKPermutations"
	elems, err := elemsArg(name, 0, 1, s)
	if err != nil {
		return nil, err
	}
	// sum over k of n!/(n-k)!
	total, term := 1, 1
	for k := 1; k <= len(elems); k++ {
		if term > maxBuild/(len(elems)-k+1) {
			return nil, tooLarge(name, "the set of sequences")
		}
		term *= len(elems) - k + 1
		total += term
		if total > maxBuild {
			return nil, tooLarge(name, "the set of sequences")
		}
	}
	out := make([]value.Value, 0, total)
	cur := make([]value.Value, 0, len(elems))
	used := make([]bool, len(elems))
	var rec func()
	rec = func() {
		out = append(out, tuple(slices.Clone(cur)))
		for j, e := range elems {
			if used[j] {
				continue
			}
			used[j] = true
			cur = append(cur, e)
			rec()
			cur = cur[:len(cur)-1]
			used[j] = false
		}
	}
	rec()
	return set(out), nil
}

// boundedSeq is SeqOf(S, n) = BoundedSeq(S, n): the sequences of length at
// most n with elements in S, kept lazy as [1..0 -> S] \cup ... \cup
// [1..n -> S].
func boundedSeq(op string, s, n value.Value) (value.Value, error) {
	if err := setArg(op, 0, 2, s); err != nil {
		return nil, err
	}
	k, err := intArg(op, 1, 2, n)
	if err != nil {
		return nil, err
	}
	var acc value.Value = value.NewSet(value.EmptyFunc)
	for m := int64(1); m <= k; m++ {
		fs, err := value.SetOfFuncs(value.NewInterval(1, m), s)
		if err != nil {
			return nil, wrap(op, err)
		}
		if acc, err = value.Union(acc, fs); err != nil {
			return nil, wrap(op, err)
		}
	}
	return acc, nil
}

func isSorted(_ Context, args []Arg) (value.Value, error) {
	elems, err := seqArg("IsSorted", 0, 2, args[0].V)
	if err != nil {
		return nil, err
	}
	op, err := opArg("IsSorted", 1, 2, args, 2)
	if err != nil {
		return nil, err
	}
	for i := range elems {
		for j := i + 1; j < len(elems); j++ {
			ok, err := callBool("IsSorted", 1, 2, op, elems[i], elems[j])
			if err != nil || !ok {
				return boolResult(false, err)
			}
		}
	}
	return value.True, nil
}

// selectIn is the 1-based index of the first (last) element of the
// sequence s satisfying operator argument ti of n, or 0.
func selectIn(op string, s value.Value, args []Arg, ti, n int, last bool) (value.Value, error) {
	elems, err := seqArg(op, 0, n, s)
	if err != nil {
		return nil, err
	}
	test, err := opArg(op, ti, n, args, 1)
	if err != nil {
		return nil, err
	}
	for k := range elems {
		i := k
		if last {
			i = len(elems) - 1 - k
		}
		ok, err := callBool(op, ti, n, test, elems[i])
		if err != nil {
			return nil, err
		}
		if ok {
			return value.IntOf(int64(i) + 1), nil
		}
	}
	return value.IntOf(0), nil
}

// insertAt is SubSeq(s, 1, i-1) \o <<e>> \o SubSeq(s, i, Len(s)).
func insertAt(s, i, e value.Value) (value.Value, error) {
	const name = "InsertAt"
	elems, err := seqArg(name, 0, 3, s)
	if err != nil {
		return nil, err
	}
	k, err := intArg(name, 1, 3, i)
	if err != nil {
		return nil, err
	}
	if k < 1 || k > int64(len(elems))+1 {
		return nil, fmt.Errorf("%s: index %d is outside 1..%d", name, k, len(elems)+1)
	}
	out := make([]value.Value, 0, len(elems)+1)
	out = append(out, elems[:k-1]...)
	out = append(out, e)
	out = append(out, elems[k-1:]...)
	return tuple(out), nil
}

// removeAt is SubSeq(s, 1, i-1) \o SubSeq(s, i+1, Len(s)).
func removeAt(op string, s value.Value, i int64) (value.Value, error) {
	n, err := seqLike(op, 0, 2, s)
	if err != nil {
		return nil, err
	}
	a, err := subSeqOf(op, s, 1, i-1)
	if err != nil {
		return nil, err
	}
	b, err := subSeqOf(op, s, i+1, n)
	if err != nil {
		return nil, err
	}
	return concatOp(op, a, b)
}

// isPrefix is IsPrefix(s, t) (strict: and s # t).
func isPrefix(op string, s, t value.Value, strict bool) (bool, error) {
	a, b, _, err := sameKind(op, s, t)
	if err != nil {
		return false, err
	}
	if len(a) > len(b) || (strict && len(a) == len(b)) {
		return false, nil
	}
	return equalItems(op, a, b[:len(a)])
}

// isSuffix is IsSuffix(s, t) (strict: and s # t).
func isSuffix(op string, s, t value.Value, strict bool) (bool, error) {
	a, b, _, err := sameKind(op, s, t)
	if err != nil {
		return false, err
	}
	if len(a) > len(b) || (strict && len(a) == len(b)) {
		return false, nil
	}
	return equalItems(op, a, b[len(b)-len(a):])
}

// affixes is the set of the prefixes (suffixes) of s, the empty one
// included.
func affixes(op string, s value.Value, prefixes bool) (value.Value, error) {
	elems, isStr, err := items(op, 0, 1, s)
	if err != nil {
		return nil, err
	}
	out := make([]value.Value, 0, len(elems)+1)
	for l := 0; l <= len(elems); l++ {
		part := elems[:l]
		if !prefixes {
			part = elems[len(elems)-l:]
		}
		out = append(out, fromItems(slices.Clone(part), isStr))
	}
	return set(out), nil
}

// longestCommonPrefix of a set of sequences (or of strings); false for the
// empty set.
func longestCommonPrefix(op string, s value.Value) (value.Value, bool, error) {
	seqs, err := elemsArg(op, 0, 1, s)
	if err != nil {
		return nil, false, err
	}
	if len(seqs) == 0 {
		return nil, false, nil
	}
	first, isStr, err := items(op, 0, 1, seqs[0])
	if err != nil {
		return nil, false, fmt.Errorf("%s: argument contains %s, which is not a sequence", op, show(seqs[0]))
	}
	n := len(first)
	for _, q := range seqs[1:] {
		elems, qStr, err := items(op, 0, 1, q)
		if err != nil || qStr != isStr {
			return nil, false, fmt.Errorf("%s: argument contains %s, which is not a sequence of the same kind as %s", op, show(q), show(seqs[0]))
		}
		n = min(n, len(elems))
		for i := 0; i < n; i++ {
			eq, err := equal(op, first[i], elems[i])
			if err != nil {
				return nil, false, err
			}
			if !eq {
				n = i
				break
			}
		}
	}
	return fromItems(slices.Clone(first[:n]), isStr), true, nil
}

func flattenSeq(s value.Value) (value.Value, error) {
	seqs, err := seqArg("FlattenSeq", 0, 1, s)
	if err != nil {
		return nil, err
	}
	if len(seqs) == 0 {
		return s, nil
	}
	acc := seqs[0]
	if _, err := seqLike("FlattenSeq", 0, 1, acc); err != nil {
		return nil, fmt.Errorf("FlattenSeq: argument contains %s, which is neither a sequence nor a string", show(acc))
	}
	// Concatenate in one go (same result as folding \o from the left).
	if str, ok := acc.(value.Str); ok {
		var sb strings.Builder
		sb.WriteString(string(str))
		for _, x := range seqs[1:] {
			y, ok := x.(value.Str)
			if !ok {
				return nil, fmt.Errorf("FlattenSeq: argument contains %s, which is not a string like %s", show(x), show(acc))
			}
			sb.WriteString(string(y))
		}
		return value.Str(sb.String()), nil
	}
	var out []value.Value
	for _, x := range seqs {
		elems, err := seqArg("FlattenSeq", 0, 1, x)
		if err != nil {
			return nil, fmt.Errorf("FlattenSeq: argument contains %s, which is not a sequence", show(x))
		}
		out = append(out, elems...)
	}
	return tuple(out), nil
}

// subSeqs is the set of the contiguous subsequences of s, <<>> included.
func subSeqs(s value.Value) (value.Value, error) {
	elems, isStr, err := items("SubSeqs", 0, 1, s)
	if err != nil {
		return nil, err
	}
	n := len(elems)
	if n > 1<<12 {
		return nil, tooLarge("SubSeqs", "SubSeqs("+show(s)+")")
	}
	out := []value.Value{fromItems(nil, isStr)}
	for i := 0; i < n; i++ {
		for j := i + 1; j <= n; j++ {
			out = append(out, fromItems(slices.Clone(elems[i:j]), isStr))
		}
	}
	return set(out), nil
}

// allSubSeqs is the set of the (not necessarily contiguous) subsequences
// of s.
func allSubSeqs(s value.Value) (value.Value, error) {
	elems, err := seqArg("AllSubSeqs", 0, 1, s)
	if err != nil {
		return nil, err
	}
	n := len(elems)
	if n >= 24 {
		return nil, tooLarge("AllSubSeqs", "AllSubSeqs("+show(s)+")")
	}
	out := make([]value.Value, 0, 1<<n)
	for mask := 0; mask < 1<<n; mask++ {
		var sub []value.Value
		for i, e := range elems {
			if mask&(1<<i) != 0 {
				sub = append(sub, e)
			}
		}
		out = append(out, tuple(sub))
	}
	return set(out), nil
}

// indexFirstSubSeq is the 1-based start of the first occurrence of s in t
// (1 for the empty s), or 0 when s does not occur.
func indexFirstSubSeq(op string, s, t value.Value) (int, error) {
	a, b, _, err := sameKind(op, s, t)
	if err != nil {
		return 0, err
	}
	for i := 0; i+len(a) <= len(b); i++ {
		eq, err := equalItems(op, a, b[i:i+len(a)])
		if err != nil {
			return 0, err
		}
		if eq {
			return i + 1, nil
		}
	}
	return 0, nil
}

// replaceSubSeqAt is SubSeq(t, 1, i-1) \o r \o SubSeq(t, i+Len(s), Len(t)).
func replaceSubSeqAt(op string, i int64, r, s, t value.Value) (value.Value, error) {
	ls, err := seqLike(op, 2, 4, s)
	if err != nil {
		return nil, err
	}
	lt, err := seqLike(op, 3, 4, t)
	if err != nil {
		return nil, err
	}
	pre, err := subSeqOf(op, t, 1, i-1)
	if err != nil {
		return nil, err
	}
	suf, err := subSeqOf(op, t, i+ls, lt)
	if err != nil {
		return nil, err
	}
	x, err := concatOp(op, pre, r)
	if err != nil {
		return nil, err
	}
	return concatOp(op, x, suf)
}

// replaceAllSubSeqs is ReplaceAllSubSeqs(r, s, t): t with the
// occurrences of s, taken from left to right without overlaps, replaced
// by r. An empty s (other than t) puts r before every element of t.
func replaceAllSubSeqs(r, s, t value.Value) (value.Value, error) {
	const name = "ReplaceAllSubSeqs"
	a, b, isStr, err := sameKind(name, s, t)
	if err != nil {
		return nil, err
	}
	rep, rStr, err := items(name, 0, 3, r)
	if err != nil {
		return nil, err
	}
	if rStr != isStr {
		return nil, fmt.Errorf("%s: cannot mix a string and a sequence: %s and %s", name, show(r), show(t))
	}
	if eq, err := equalItems(name, a, b); err != nil {
		return nil, err
	} else if eq {
		return r, nil
	}
	var out []value.Value
	if len(a) == 0 {
		for _, x := range b {
			out = append(out, rep...)
			out = append(out, x)
		}
		return fromItems(out, isStr), nil
	}
	found := false
	for i := 0; i < len(b); {
		if i+len(a) <= len(b) {
			eq, err := equalItems(name, a, b[i:i+len(a)])
			if err != nil {
				return nil, err
			}
			if eq {
				out = append(out, rep...)
				i += len(a)
				found = true
				continue
			}
		}
		out = append(out, b[i])
		i++
	}
	if !found {
		return t, nil
	}
	return fromItems(out, isStr), nil
}
