package stdlib

import (
	"fmt"
	"slices"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// The community module FiniteSetsExt. The folds visit the set in canonical
// order, the least element outermost (see folds.go).

func registerFiniteSetsExt() {
	def("FiniteSetsExt",
		&Builtin{Name: "FoldSet", Arity: 3, OpParams: []int{0}, Fn: func(_ Context, args []Arg) (value.Value, error) {
			return foldSet("FoldSet", args, 0, 1, 2)
		}},
		&Builtin{Name: "ReduceSet", Arity: 3, OpParams: []int{0}, Fn: func(_ Context, args []Arg) (value.Value, error) {
			// ReduceSet(op, set, acc) == FoldSet(op, acc, set)
			return foldSet("ReduceSet", args, 0, 2, 1)
		}},
		&Builtin{Name: "SumSet", Arity: 1, Fn: op1(func(s value.Value) (value.Value, error) {
			return arithSet("SumSet", s, value.IntOf(0), value.Add)
		})},
		&Builtin{Name: "ProductSet", Arity: 1, Fn: op1(func(s value.Value) (value.Value, error) {
			return arithSet("ProductSet", s, value.IntOf(1), value.Mul)
		})},
		&Builtin{Name: "MapThenSumSet", Arity: 2, OpParams: []int{0}, Fn: mapThenSumSet},
		&Builtin{Name: "FlattenSet", Arity: 1, Fn: op1(func(s value.Value) (value.Value, error) {
			elems, err := elemsArg("FlattenSet", 0, 1, s)
			if err != nil {
				return nil, err
			}
			for _, e := range elems {
				if e.Kind() != value.KindSet {
					return nil, fmt.Errorf("FlattenSet: argument contains %s, which is not a set", show(e))
				}
			}
			u, err := value.UnionAll(s)
			return u, wrap("FlattenSet", err)
		})},
		&Builtin{Name: "SymDiff", Arity: 2, Fn: op2(symDiff)},
		&Builtin{Name: "Quantify", Arity: 2, OpParams: []int{1}, Fn: quantify},
		&Builtin{Name: "kSubset", Arity: 2, Fn: op2(kSubset)},
		&Builtin{Name: "Max", Arity: 1, Fn: op1(func(s value.Value) (value.Value, error) {
			return extremum("Max", s, 1)
		})},
		&Builtin{Name: "Min", Arity: 1, Fn: op1(func(s value.Value) (value.Value, error) {
			return extremum("Min", s, -1)
		})},
		&Builtin{Name: "Choices", Arity: 1, Fn: op1(choices)},
		&Builtin{Name: "ChooseUnique", Arity: 2, OpParams: []int{1}, Fn: chooseUnique},
	)
}

// foldSet is FoldSet(op, base, set) with the arguments at the given
// positions.
func foldSet(name string, args []Arg, opI, baseI, setI int) (value.Value, error) {
	op, err := opArg(name, opI, 3, args, 2)
	if err != nil {
		return nil, err
	}
	elems, err := elemsArg(name, setI, 3, args[setI].V)
	if err != nil {
		return nil, err
	}
	return foldRight(elems, args[baseI].V, op, nil)
}

// arithSet adds (or multiplies) the integers of a finite set.
func arithSet(name string, s, acc value.Value, f func(a, b value.Value) (value.Value, error)) (value.Value, error) {
	elems, err := elemsArg(name, 0, 1, s)
	if err != nil {
		return nil, err
	}
	for _, e := range elems {
		if _, ok := e.(value.Int); !ok {
			return nil, fmt.Errorf("%s: argument contains %s, which is not an integer", name, show(e))
		}
		if acc, err = f(acc, e); err != nil {
			return nil, wrap(name, err)
		}
	}
	return acc, nil
}

func mapThenSumSet(_ Context, args []Arg) (value.Value, error) {
	const name = "MapThenSumSet"
	f, err := opArg(name, 0, 2, args, 1)
	if err != nil {
		return nil, err
	}
	elems, err := elemsArg(name, 1, 2, args[1].V)
	if err != nil {
		return nil, err
	}
	var acc value.Value = value.IntOf(0)
	for i := len(elems) - 1; i >= 0; i-- {
		y, err := f.Call([]value.Value{elems[i]})
		if err != nil {
			return nil, err
		}
		if _, ok := y.(value.Int); !ok {
			return nil, fmt.Errorf("%s: the operator returned %s, which is not an integer", name, show(y))
		}
		if acc, err = value.Add(y, acc); err != nil {
			return nil, wrap(name, err)
		}
	}
	return acc, nil
}

func symDiff(a, b value.Value) (value.Value, error) {
	if err := setArg("SymDiff", 0, 2, a); err != nil {
		return nil, err
	}
	if err := setArg("SymDiff", 1, 2, b); err != nil {
		return nil, err
	}
	x, err := value.Diff(a, b)
	if err != nil {
		return nil, wrap("SymDiff", err)
	}
	y, err := value.Diff(b, a)
	if err != nil {
		return nil, wrap("SymDiff", err)
	}
	u, err := value.Union(x, y)
	return u, wrap("SymDiff", err)
}

func quantify(_ Context, args []Arg) (value.Value, error) {
	elems, err := elemsArg("Quantify", 0, 2, args[0].V)
	if err != nil {
		return nil, err
	}
	p, err := opArg("Quantify", 1, 2, args, 1)
	if err != nil {
		return nil, err
	}
	n := 0
	for _, e := range elems {
		ok, err := callBool("Quantify", 1, 2, p, e)
		if err != nil {
			return nil, err
		}
		if ok {
			n++
		}
	}
	return value.IntOf(int64(n)), nil
}

// kSubset is kSubset(k, S), the subsets of S with k elements ({} when k is
// negative or larger than S).
func kSubset(kv, s value.Value) (value.Value, error) {
	k, err := intArg("kSubset", 0, 2, kv)
	if err != nil {
		return nil, err
	}
	elems, err := elemsArg("kSubset", 1, 2, s)
	if err != nil {
		return nil, err
	}
	n := int64(len(elems))
	if k < 0 || k > n {
		return value.EmptySet, nil
	}
	// Binomial coefficient, checked against the bound.
	total := int64(1)
	for i := int64(1); i <= min(k, n-k); i++ {
		total = total * (n - min(k, n-k) + i) / i
		if total > maxBuild {
			return nil, tooLarge("kSubset", fmt.Sprintf("kSubset(%d, %s)", k, show(s)))
		}
	}
	out := make([]value.Value, 0, total)
	idx := make([]int, k)
	for i := range idx {
		idx[i] = i
	}
	for {
		sub := make([]value.Value, k)
		for i, j := range idx {
			sub[i] = elems[j]
		}
		out = append(out, set(sub))
		i := int(k) - 1
		for i >= 0 && idx[i] == int(n)-int(k)+i {
			i--
		}
		if i < 0 {
			return set(out), nil
		}
		idx[i]++
		for j := i + 1; j < int(k); j++ {
			idx[j] = idx[j-1] + 1
		}
	}
}

// extremum is Max(S) (sign 1) or Min(S) (sign -1) of a non-empty finite
// set of integers.
func extremum(name string, s value.Value, sign int) (value.Value, error) {
	elems, err := elemsArg(name, 0, 1, s)
	if err != nil {
		return nil, err
	}
	if len(elems) == 0 {
		return nil, fmt.Errorf("%s: argument is the empty set", name)
	}
	var best value.Int
	for i, e := range elems {
		x, ok := e.(value.Int)
		if !ok {
			return nil, fmt.Errorf("%s: argument contains %s, which is not an integer", name, show(e))
		}
		if i == 0 || (sign > 0 && x > best) || (sign < 0 && x < best) {
			best = x
		}
	}
	return value.IntOf(int64(best)), nil
}

// choices is Choices(Sets): the sets made of one element of each set of
// Sets.
func choices(s value.Value) (value.Value, error) {
	sets, err := elemsArg("Choices", 0, 1, s)
	if err != nil {
		return nil, err
	}
	axes := make([][]value.Value, len(sets))
	total := 1
	for i, t := range sets {
		if t.Kind() != value.KindSet {
			return nil, fmt.Errorf("Choices: argument contains %s, which is not a set", show(t))
		}
		e, err := value.Enumerate(t)
		if err != nil {
			return nil, wrap("Choices", err)
		}
		if len(e) == 0 {
			return value.EmptySet, nil
		}
		if total > maxBuild/len(e) {
			return nil, tooLarge("Choices", "the set of choice functions")
		}
		total *= len(e)
		axes[i] = e
	}
	out := make([]value.Value, 0, total)
	idx := make([]int, len(axes))
	for {
		pick := make([]value.Value, len(axes))
		for i, a := range axes {
			pick[i] = a[idx[i]]
		}
		out = append(out, set(pick))
		i := len(axes) - 1
		for ; i >= 0; i-- {
			idx[i]++
			if idx[i] < len(axes[i]) {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			return set(out), nil
		}
	}
}

func chooseUnique(_ Context, args []Arg) (value.Value, error) {
	elems, err := elemsArg("ChooseUnique", 0, 2, args[0].V)
	if err != nil {
		return nil, err
	}
	p, err := opArg("ChooseUnique", 1, 2, args, 1)
	if err != nil {
		return nil, err
	}
	var found []value.Value
	for _, e := range elems {
		ok, err := callBool("ChooseUnique", 1, 2, p, e)
		if err != nil {
			return nil, err
		}
		if ok {
			found = append(found, e)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return nil, fmt.Errorf("ChooseUnique: no element of %s satisfies the predicate", show(args[0].V))
	}
	return nil, fmt.Errorf("ChooseUnique: more than one element of %s satisfies the predicate: %s", show(args[0].V), show(tuple(slices.Clone(found))))
}
