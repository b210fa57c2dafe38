package stdlib

import (
	"fmt"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// The Bags module. A bag is a function from its elements to positive
// integers (the number of copies); EmptyBag is <<>>, the empty function.

func registerBags() {
	def("Bags",
		&Builtin{Name: "IsABag", Arity: 1, Fn: op1(func(b value.Value) (value.Value, error) {
			return value.Bool(value.IsABag(b)), nil
		})},
		&Builtin{Name: "BagToSet", Arity: 1, Fn: op1(func(b value.Value) (value.Value, error) {
			f, err := bagArg("BagToSet", 0, 1, b)
			if err != nil {
				return nil, err
			}
			return f.Domain(), nil
		})},
		&Builtin{Name: "SetToBag", Arity: 1, Fn: op1(func(s value.Value) (value.Value, error) {
			if err := setArg("SetToBag", 0, 1, s); err != nil {
				return nil, err
			}
			b, err := value.SetToBag(s)
			return b, wrap("SetToBag", err)
		})},
		&Builtin{Name: "BagIn", Arity: 2, Fn: op2(func(e, b value.Value) (value.Value, error) {
			f, err := bagArg("BagIn", 1, 2, b)
			if err != nil {
				return nil, err
			}
			_, in := f.Lookup(e)
			return value.Bool(in), nil
		})},
		&Builtin{Name: "EmptyBag", Fn: constant(value.EmptyBag)},
		&Builtin{Name: "(+)", Arity: 2, Fn: op2(func(a, b value.Value) (value.Value, error) {
			if err := bagArgs("(+)", a, b); err != nil {
				return nil, err
			}
			return value.BagAdd(a, b)
		})},
		&Builtin{Name: "(-)", Arity: 2, Fn: op2(func(a, b value.Value) (value.Value, error) {
			if err := bagArgs("(-)", a, b); err != nil {
				return nil, err
			}
			return value.BagSub(a, b)
		})},
		&Builtin{Name: "BagUnion", Arity: 1, Fn: op1(bagUnion)},
		&Builtin{Name: `\sqsubseteq`, Arity: 2, Fn: op2(func(a, b value.Value) (value.Value, error) {
			if err := bagArgs(`\sqsubseteq`, a, b); err != nil {
				return nil, err
			}
			r, err := subBagEq(a.(*value.Func), b.(*value.Func))
			if err != nil {
				return nil, err
			}
			return value.Bool(r), nil
		})},
		&Builtin{Name: "SubBag", Arity: 1, Fn: op1(subBags)},
		&Builtin{Name: "BagOfAll", Arity: 2, OpParams: []int{0}, Fn: bagOfAll},
		&Builtin{Name: "BagCardinality", Arity: 1, Fn: op1(func(b value.Value) (value.Value, error) {
			if _, err := bagArg("BagCardinality", 0, 1, b); err != nil {
				return nil, err
			}
			return value.BagCardinality(b)
		})},
		&Builtin{Name: "CopiesIn", Arity: 2, Fn: op2(func(e, b value.Value) (value.Value, error) {
			f, err := bagArg("CopiesIn", 1, 2, b)
			if err != nil {
				return nil, err
			}
			if n, ok := f.Lookup(e); ok {
				return n, nil
			}
			return value.IntOf(0), nil
		})},
	)
}

func bagArg(op string, i, n int, b value.Value) (*value.Func, error) {
	if !value.IsABag(b) {
		return nil, argError(op, i, n, "a bag", b)
	}
	return b.(*value.Func), nil
}

func bagArgs(op string, a, b value.Value) error {
	if _, err := bagArg(op, 0, 2, a); err != nil {
		return err
	}
	_, err := bagArg(op, 1, 2, b)
	return err
}

// subBagEq is a \sqsubseteq b: every element of a has at most as many
// copies in b.
func subBagEq(a, b *value.Func) (bool, error) {
	for i, n := range a.Values() {
		m, ok := b.Lookup(a.Key(i))
		if !ok {
			return false, nil
		}
		le, err := value.LessEq(n, m)
		if err != nil || !le {
			return false, err
		}
	}
	return true, nil
}

// bagUnion is BagUnion(S), the bag sum of the bags of the finite set S.
func bagUnion(s value.Value) (value.Value, error) {
	bags, err := elemsArg("BagUnion", 0, 1, s)
	if err != nil {
		return nil, err
	}
	var acc value.Value = value.EmptyBag
	for _, b := range bags {
		if !value.IsABag(b) {
			return nil, fmt.Errorf("BagUnion: argument contains %s, which is not a bag", show(b))
		}
		if acc, err = value.BagAdd(acc, b); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

// subBags is SubBag(B), the set of all bags b with b \sqsubseteq B.
func subBags(b value.Value) (value.Value, error) {
	f, err := bagArg("SubBag", 0, 1, b)
	if err != nil {
		return nil, err
	}
	total := 1
	for _, v := range f.Values() {
		n := int(v.(value.Int))
		if n >= maxBuild || total > maxBuild/(n+1) {
			return nil, tooLarge("SubBag", "SubBag("+show(b)+")")
		}
		total *= n + 1
	}
	keys := make([]value.Value, f.Len())
	for i := range keys {
		keys[i] = f.Key(i)
	}
	counts := make([]int64, f.Len())
	out := make([]value.Value, 0, total)
	for {
		var dom, vs []value.Value
		for i, c := range counts {
			if c > 0 {
				dom = append(dom, keys[i])
				vs = append(vs, value.IntOf(c))
			}
		}
		g, err := value.NewFunc(dom, vs)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
		i := len(counts) - 1
		for ; i >= 0; i-- {
			counts[i]++
			if counts[i] <= int64(f.Values()[i].(value.Int)) {
				break
			}
			counts[i] = 0
		}
		if i < 0 {
			return set(out), nil
		}
	}
}

// bagOfAll is BagOfAll(F, B): the bag of F(e) for the copies of e in B.
func bagOfAll(_ Context, args []Arg) (value.Value, error) {
	fn, err := opArg("BagOfAll", 0, 2, args, 1)
	if err != nil {
		return nil, err
	}
	b, err := bagArg("BagOfAll", 1, 2, args[1].V)
	if err != nil {
		return nil, err
	}
	var acc value.Value = value.EmptyBag
	for i, n := range b.Values() {
		y, err := fn.Call([]value.Value{b.Key(i)})
		if err != nil {
			return nil, err
		}
		if acc, err = value.BagAdd(acc, value.SingletonFunc(y, n)); err != nil {
			return nil, err
		}
	}
	return acc, nil
}
