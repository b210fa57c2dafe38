package stdlib

import (
	"fmt"
	"slices"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// The Folds module and the fold order shared by the community modules.
//
// MapThenFoldSet(op, base, f, choose, S) is defined recursively: with
// x = choose(S), the result is op(f(x), MapThenFoldSet(..., S \ {x})), and
// base for the empty set. So the element chosen first is the outermost
// argument: for the order x1, x2, ..., xn the result is
//
//	op(f(x1), op(f(x2), ... op(f(xn), base) ...))
//
// FoldSet, FoldFunction, FoldSeq and the other folds of the community
// modules choose with CHOOSE x \in s : TRUE, which picks the least element
// in canonical order (value.Enumerate's order, TLC's CHOOSE order), so they
// fold over the elements in canonical order with the least one outermost.

func registerFolds() {
	def("Folds",
		&Builtin{Name: "MapThenFoldSet", Arity: 5, OpParams: []int{0, 2, 3}, Fn: mapThenFoldSet},
	)
}

func mapThenFoldSet(_ Context, args []Arg) (value.Value, error) {
	const name = "MapThenFoldSet"
	op, f, choose, err := mapThenFoldOps(name, args)
	if err != nil {
		return nil, err
	}
	elems, err := elemsArg(name, 4, 5, args[4].V)
	if err != nil {
		return nil, err
	}
	order, err := chooseOrder(name, elems, choose)
	if err != nil {
		return nil, err
	}
	return foldRight(order, args[1].V, op, f)
}

// chooseOrder lists the sorted, distinct elems in the order in which
// choose picks them: choose is called on the set of the elements not yet
// picked, and must return one of them.
func chooseOrder(name string, elems []value.Value, choose Op) ([]value.Value, error) {
	rest := slices.Clone(elems)
	order := make([]value.Value, 0, len(elems))
	for len(rest) > 0 {
		x, err := choose.Call([]value.Value{set(slices.Clone(rest))})
		if err != nil {
			return nil, err
		}
		i, ok := indexOf(rest, x)
		if !ok {
			return nil, fmt.Errorf("%s: the choose operator returned %s, which is not in the set it was given", name, show(x))
		}
		order = append(order, rest[i])
		rest = slices.Delete(rest, i, i+1)
	}
	return order, nil
}

// foldRight computes op(f(xs[0]), op(f(xs[1]), ... op(f(xs[n-1]), base))),
// calling f on the elements from the last to the first. A nil f is the
// identity.
func foldRight(xs []value.Value, base value.Value, op, f Op) (value.Value, error) {
	acc := base
	for i := len(xs) - 1; i >= 0; i-- {
		x := xs[i]
		if f != nil {
			var err error
			if x, err = f.Call([]value.Value{x}); err != nil {
				return nil, err
			}
		}
		var err error
		if acc, err = op.Call([]value.Value{x, acc}); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

// foldLeft computes op(... op(op(base, xs[0]), xs[1]) ..., xs[n-1]).
func foldLeft(xs []value.Value, base value.Value, op Op) (value.Value, error) {
	acc := base
	for _, x := range xs {
		var err error
		if acc, err = op.Call([]value.Value{acc, x}); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

// mapThenFoldOps reads the operator arguments of MapThenFoldSet and
// MapThenFoldBag: the fold (binary), the map and the choice (unary).
func mapThenFoldOps(name string, args []Arg) (op, f, choose Op, err error) {
	if op, err = opArg(name, 0, 5, args, 2); err != nil {
		return nil, nil, nil, err
	}
	if f, err = opArg(name, 2, 5, args, 1); err != nil {
		return nil, nil, nil, err
	}
	if choose, err = opArg(name, 3, 5, args, 1); err != nil {
		return nil, nil, nil, err
	}
	return op, f, choose, nil
}
