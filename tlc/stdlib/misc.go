package stdlib

import (
	"fmt"
	"slices"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// The smaller community modules: BagsExt, TLCExt, Bitwise and
// Randomization.
//
// TLCExt: Trace needs a Context implementing TraceContext. AssertEq prints
// like TLC (through Context.Print) and is a = b. TLCModelValue(name) is the
// model value of that name (created on first use, which sets its place in
// the canonical order). PickSuccessor(exp) is TRUE: there is no
// interactive mode. TLCCache(exp, closure) is exp. AssertError, TLCDefer,
// TLCFP and the trace-export operators are not provided.
//
// Randomization is deterministic: RandomSubset(k, S) is the set of the k
// least elements of S in canonical order.

func registerBagsExt() {
	def("BagsExt",
		&Builtin{Name: "BagAdd", Arity: 2, Fn: op2(func(b, x value.Value) (value.Value, error) {
			if _, err := bagArg("BagAdd", 0, 2, b); err != nil {
				return nil, err
			}
			return value.BagAdd(b, value.SingletonFunc(x, value.IntOf(1)))
		})},
		&Builtin{Name: "BagRemove", Arity: 2, Fn: op2(func(b, x value.Value) (value.Value, error) {
			f, err := bagArg("BagRemove", 0, 2, b)
			if err != nil {
				return nil, err
			}
			if _, ok := f.Lookup(x); !ok {
				return b, nil
			}
			return value.BagSub(b, value.SingletonFunc(x, value.IntOf(1)))
		})},
		&Builtin{Name: "BagRemoveAll", Arity: 2, Fn: op2(func(b, x value.Value) (value.Value, error) {
			f, err := bagArg("BagRemoveAll", 0, 2, b)
			if err != nil {
				return nil, err
			}
			n, ok := f.Lookup(x)
			if !ok {
				return b, nil
			}
			return value.BagSub(b, value.SingletonFunc(x, n))
		})},
		&Builtin{Name: "MapThenFoldBag", Arity: 5, OpParams: []int{0, 2, 3}, Fn: mapThenFoldBag},
		&Builtin{Name: "FoldBag", Arity: 3, OpParams: []int{0}, Fn: func(_ Context, args []Arg) (value.Value, error) {
			op, err := opArg("FoldBag", 0, 3, args, 2)
			if err != nil {
				return nil, err
			}
			b, err := bagArg("FoldBag", 2, 3, args[2].V)
			if err != nil {
				return nil, err
			}
			return foldBagLeft(b, args[1].V, op)
		}},
		&Builtin{Name: "SumBag", Arity: 1, Fn: op1(func(b value.Value) (value.Value, error) {
			return arithBag("SumBag", b, value.IntOf(0), value.Add)
		})},
		&Builtin{Name: "ProductBag", Arity: 1, Fn: op1(func(b value.Value) (value.Value, error) {
			return arithBag("ProductBag", b, value.IntOf(1), value.Mul)
		})},
	)
}

// foldBagLeft is FoldBag as TLC evaluates it: TLC overrides the module's
// definition (which goes through MapThenFoldBag and would hand op a bag as
// its second argument) with a left fold over every copy of every element,
// the elements in canonical order: acc := op(acc, x) for each copy of x,
// starting from base. Specs rely on it: etcd raft's PendingMessages folds
// BagAdd over a bag of message records.
func foldBagLeft(b *value.Func, base value.Value, op Op) (value.Value, error) {
	acc := base
	for i, n := range b.Values() {
		x := b.Key(i)
		for range int64(n.(value.Int)) {
			var err error
			if acc, err = op.Call([]value.Value{acc, x}); err != nil {
				return nil, err
			}
		}
	}
	return acc, nil
}

// foldBag folds op over the copies of the elements of the bag b, visiting
// the elements in the given order: each element x (of n copies) becomes
// h(x) = op(...op(op(base, f(x)), f(x))..., f(x)) with n applications, and
// the h(x) are folded as by MapThenFoldSet, the first element outermost.
func foldBag(b *value.Func, order []value.Value, base value.Value, op, f Op) (value.Value, error) {
	hs := make([]value.Value, len(order))
	for i := len(order) - 1; i >= 0; i-- {
		x := order[i]
		n, _ := b.Lookup(x)
		y := x
		if f != nil {
			var err error
			if y, err = f.Call([]value.Value{x}); err != nil {
				return nil, err
			}
		}
		h := base
		for range int64(n.(value.Int)) {
			var err error
			if h, err = op.Call([]value.Value{h, y}); err != nil {
				return nil, err
			}
		}
		hs[i] = h
	}
	return foldRight(hs, base, op, nil)
}

func mapThenFoldBag(_ Context, args []Arg) (value.Value, error) {
	const name = "MapThenFoldBag"
	op, f, choose, err := mapThenFoldOps(name, args)
	if err != nil {
		return nil, err
	}
	b, err := bagArg(name, 4, 5, args[4].V)
	if err != nil {
		return nil, err
	}
	keys := make([]value.Value, b.Len())
	for i := range keys {
		keys[i] = b.Key(i)
	}
	order, err := chooseOrder(name, keys, choose)
	if err != nil {
		return nil, err
	}
	return foldBag(b, order, args[1].V, op, f)
}

func arithBag(name string, b, acc value.Value, f func(a, b value.Value) (value.Value, error)) (value.Value, error) {
	fn, err := bagArg(name, 0, 1, b)
	if err != nil {
		return nil, err
	}
	for i, n := range fn.Values() {
		x := fn.Key(i)
		if _, ok := x.(value.Int); !ok {
			return nil, fmt.Errorf("%s: argument contains %s, which is not an integer", name, show(x))
		}
		for range int64(n.(value.Int)) {
			if acc, err = f(acc, x); err != nil {
				return nil, wrap(name, err)
			}
		}
	}
	return acc, nil
}

func registerTLCExt() {
	def("TLCExt",
		&Builtin{Name: "AssertEq", Arity: 2, Fn: func(ctx Context, args []Arg) (value.Value, error) {
			eq, err := value.Equal(args[0].V, args[1].V)
			if err != nil {
				return nil, wrap("AssertEq", err)
			}
			if !eq && ctx != nil {
				ctx.Print(printable(ctx, value.Str("Assertion failed")))
				ctx.Print(printable(ctx, args[0].V))
				ctx.Print(printable(ctx, args[1].V))
			}
			return value.Bool(eq), nil
		}},
		&Builtin{Name: "Trace", Fn: func(ctx Context, _ []Arg) (value.Value, error) {
			tc, ok := ctx.(TraceContext)
			if !ok {
				return nil, fmt.Errorf("Trace: the behavior is not available here")
			}
			return tc.Trace()
		}},
		&Builtin{Name: "TLCModelValue", Arity: 1, Fn: op1(func(s value.Value) (value.Value, error) {
			name, err := strArg("TLCModelValue", 0, 1, s)
			if err != nil {
				return nil, err
			}
			return value.NewModelValue(name), nil
		})},
		&Builtin{Name: "PickSuccessor", Arity: 1, Fn: op1(func(v value.Value) (value.Value, error) {
			if _, err := boolArg("PickSuccessor", 0, 1, v); err != nil {
				return nil, err
			}
			return value.True, nil
		})},
		&Builtin{Name: "TLCCache", Arity: 2, Fn: op2(func(v, _ value.Value) (value.Value, error) {
			return v, nil
		})},
	)
}

func registerBitwise() {
	bit := func(name string, f func(x, y uint64) uint64) *Builtin {
		return &Builtin{Name: name, Arity: 2, Fn: op2(func(a, b value.Value) (value.Value, error) {
			x, err := natArg(name, 0, 2, a)
			if err != nil {
				return nil, err
			}
			y, err := natArg(name, 1, 2, b)
			if err != nil {
				return nil, err
			}
			return value.IntOf(int64(f(uint64(x), uint64(y)))), nil
		})}
	}
	def("Bitwise",
		bit("&", func(x, y uint64) uint64 { return x & y }),
		bit("|", func(x, y uint64) uint64 { return x | y }),
		bit("^^", func(x, y uint64) uint64 { return x ^ y }),
		bit("shiftR", func(x, y uint64) uint64 {
			if y >= 64 {
				return 0
			}
			return x >> y
		}),
	)
}

func registerRandomization() {
	def("Randomization",
		&Builtin{Name: "RandomSubset", Arity: 2, Fn: op2(func(kv, s value.Value) (value.Value, error) {
			k, err := natArg("RandomSubset", 0, 2, kv)
			if err != nil {
				return nil, err
			}
			elems, err := elemsArg("RandomSubset", 1, 2, s)
			if err != nil {
				return nil, err
			}
			if k > int64(len(elems)) {
				return nil, fmt.Errorf("RandomSubset: %d is larger than the cardinality %d of %s", k, len(elems), show(s))
			}
			return set(slices.Clone(elems[:k])), nil
		})},
	)
}
