package stdlib

import (
	"fmt"
	"slices"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// The community module Functions.
//
// Inverse(f, S, T) and AntiFunction(f) pick, for each t, the least s in
// canonical order (CHOOSE). Injection, Surjection and Bijection build their
// sets explicitly. IsSurjective(f, S, T) and IsBijection(f, S, T) are
// defined as: every t in T is f[s] for some s in S; and, for IsBijection,
// moreover f maps distinct elements of S to distinct values.

func registerFunctions() {
	def("Functions",
		&Builtin{Name: "Restrict", Arity: 2, Fn: op2(func(f, s value.Value) (value.Value, error) {
			return restrict("Restrict", f, s)
		})},
		&Builtin{Name: "RestrictDomain", Arity: 2, OpParams: []int{1}, Fn: func(_ Context, args []Arg) (value.Value, error) {
			return restrictBy("RestrictDomain", args, false)
		}},
		&Builtin{Name: "RestrictValues", Arity: 2, OpParams: []int{1}, Fn: func(_ Context, args []Arg) (value.Value, error) {
			return restrictBy("RestrictValues", args, true)
		}},
		&Builtin{Name: "IsRestriction", Arity: 2, Fn: op2(isRestriction)},
		&Builtin{Name: "Range", Arity: 1, Fn: op1(func(f value.Value) (value.Value, error) {
			fn, err := funcArg("Range", 0, 1, f)
			if err != nil {
				return nil, err
			}
			return set(slices.Clone(fn.Values())), nil
		})},
		&Builtin{Name: "Pointwise", Arity: 3, OpParams: []int{2}, Fn: pointwise},
		&Builtin{Name: "Inverse", Arity: 3, Fn: op3(func(f, s, t value.Value) (value.Value, error) {
			fn, err := funcArg("Inverse", 0, 3, f)
			if err != nil {
				return nil, err
			}
			dom, err := elemsArg("Inverse", 1, 3, s)
			if err != nil {
				return nil, err
			}
			if err := setArg("Inverse", 2, 3, t); err != nil {
				return nil, err
			}
			return inverse("Inverse", fn, dom, t)
		})},
		&Builtin{Name: "AntiFunction", Arity: 1, Fn: op1(func(f value.Value) (value.Value, error) {
			fn, err := funcArg("AntiFunction", 0, 1, f)
			if err != nil {
				return nil, err
			}
			dom, err := value.Enumerate(fn.Domain())
			if err != nil {
				return nil, wrap("AntiFunction", err)
			}
			return inverse("AntiFunction", fn, dom, set(slices.Clone(fn.Values())))
		})},
		&Builtin{Name: "IsInjective", Arity: 1, Fn: op1(func(f value.Value) (value.Value, error) {
			fn, err := funcArg("IsInjective", 0, 1, f)
			if err != nil {
				return nil, err
			}
			return value.Bool(distinct(fn.Values())), nil
		})},
		&Builtin{Name: "IsSurjective", Arity: 3, Fn: op3(func(f, s, t value.Value) (value.Value, error) {
			return boolResult(surjectiveOnly("IsSurjective", f, s, t))
		})},
		&Builtin{Name: "IsBijection", Arity: 3, Fn: op3(func(f, s, t value.Value) (value.Value, error) {
			ok, images, err := surjectiveOn("IsBijection", f, s, t)
			if err != nil {
				return nil, err
			}
			return value.Bool(ok && distinct(images)), nil
		})},
		&Builtin{Name: "Injection", Arity: 2, Fn: op2(func(s, t value.Value) (value.Value, error) {
			dom, rng, err := twoSets("Injection", s, t)
			if err != nil {
				return nil, err
			}
			return injections("Injection", dom, rng)
		})},
		&Builtin{Name: "Surjection", Arity: 2, Fn: op2(func(s, t value.Value) (value.Value, error) {
			dom, rng, err := twoSets("Surjection", s, t)
			if err != nil {
				return nil, err
			}
			return surjections("Surjection", dom, rng)
		})},
		&Builtin{Name: "Bijection", Arity: 2, Fn: op2(func(s, t value.Value) (value.Value, error) {
			dom, rng, err := twoSets("Bijection", s, t)
			if err != nil {
				return nil, err
			}
			return bijections("Bijection", dom, rng)
		})},
		&Builtin{Name: "ExistsInjection", Arity: 2, Fn: op2(func(s, t value.Value) (value.Value, error) {
			m, n, err := twoCards("ExistsInjection", s, t)
			return boolResult(m <= n, err)
		})},
		&Builtin{Name: "ExistsSurjection", Arity: 2, Fn: op2(func(s, t value.Value) (value.Value, error) {
			m, n, err := twoCards("ExistsSurjection", s, t)
			// [S -> {}] is empty unless S is.
			return boolResult(m >= n && (n > 0 || m == 0), err)
		})},
		&Builtin{Name: "ExistsBijection", Arity: 2, Fn: op2(func(s, t value.Value) (value.Value, error) {
			m, n, err := twoCards("ExistsBijection", s, t)
			return boolResult(m == n, err)
		})},
		&Builtin{Name: "FoldFunction", Arity: 3, OpParams: []int{0}, Fn: func(_ Context, args []Arg) (value.Value, error) {
			op, err := opArg("FoldFunction", 0, 3, args, 2)
			if err != nil {
				return nil, err
			}
			fn, err := funcArg("FoldFunction", 2, 3, args[2].V)
			if err != nil {
				return nil, err
			}
			return foldRight(fn.Values(), args[1].V, op, nil)
		}},
		&Builtin{Name: "FoldFunctionOnSet", Arity: 4, OpParams: []int{0}, Fn: func(_ Context, args []Arg) (value.Value, error) {
			const name = "FoldFunctionOnSet"
			op, err := opArg(name, 0, 4, args, 2)
			if err != nil {
				return nil, err
			}
			fn, err := funcArg(name, 2, 4, args[2].V)
			if err != nil {
				return nil, err
			}
			idx, err := elemsArg(name, 3, 4, args[3].V)
			if err != nil {
				return nil, err
			}
			xs := make([]value.Value, len(idx))
			for i, k := range idx {
				v, ok := fn.Lookup(k)
				if !ok {
					return nil, fmt.Errorf("%s: index %s is not in the domain of %s", name, show(k), show(fn))
				}
				xs[i] = v
			}
			return foldRight(xs, args[1].V, op, nil)
		}},
		&Builtin{Name: "SumFunctionOnSet", Arity: 2, Fn: op2(func(f, s value.Value) (value.Value, error) {
			return sumFunction("SumFunctionOnSet", f, s, 1, 2)
		})},
		&Builtin{Name: "SumFunction", Arity: 1, Fn: op1(func(f value.Value) (value.Value, error) {
			fn, err := funcArg("SumFunction", 0, 1, f)
			if err != nil {
				return nil, err
			}
			return sumFunction("SumFunction", fn, fn.Domain(), 0, 1)
		})},
	)
}

// sumFunction is the sum of f[i] for i in the set s (FoldFunctionOnSet(+,
// 0, f, s)); si is s's position among n arguments, for error messages.
func sumFunction(name string, f, s value.Value, si, n int) (value.Value, error) {
	fn, err := funcArg(name, 0, n, f)
	if err != nil {
		return nil, err
	}
	idx, err := elemsArg(name, si, n, s)
	if err != nil {
		return nil, err
	}
	var sum value.Value = value.IntOf(0)
	for _, k := range idx {
		v, ok := fn.Lookup(k)
		if !ok {
			return nil, fmt.Errorf("%s: index %s is not in the domain of %s", name, show(k), show(fn))
		}
		if sum, err = value.Add(v, sum); err != nil {
			return nil, wrap(name, err)
		}
	}
	return sum, nil
}

// restrict is [x \in S |-> f[x]].
func restrict(op string, f, s value.Value) (value.Value, error) {
	fn, err := funcArg(op, 0, 2, f)
	if err != nil {
		return nil, err
	}
	if err := setArg(op, 1, 2, s); err != nil {
		return nil, err
	}
	g, err := value.FuncOver(s, func(x value.Value) (value.Value, error) {
		v, ok := fn.Lookup(x)
		if !ok {
			return nil, fmt.Errorf("%s: %s is not in the domain of %s", op, show(x), show(fn))
		}
		return v, nil
	})
	if err != nil {
		return nil, wrap(op, err)
	}
	return g, nil
}

// restrictBy keeps the part of f whose keys (onValues: values) satisfy the
// test.
func restrictBy(op string, args []Arg, onValues bool) (value.Value, error) {
	fn, err := funcArg(op, 0, 2, args[0].V)
	if err != nil {
		return nil, err
	}
	test, err := opArg(op, 1, 2, args, 1)
	if err != nil {
		return nil, err
	}
	var dom, vs []value.Value
	for i, v := range fn.Values() {
		k := fn.Key(i)
		x := k
		if onValues {
			x = v
		}
		ok, err := callBool(op, 1, 2, test, x)
		if err != nil {
			return nil, err
		}
		if ok {
			dom, vs = append(dom, k), append(vs, v)
		}
	}
	if len(dom) == fn.Len() {
		return fn, nil
	}
	g, err := value.NewFunc(dom, vs)
	return g, wrap(op, err)
}

// isRestriction is IsRestriction(narrow, wide).
func isRestriction(a, b value.Value) (value.Value, error) {
	narrow, err := funcArg("IsRestriction", 0, 2, a)
	if err != nil {
		return nil, err
	}
	wide, err := funcArg("IsRestriction", 1, 2, b)
	if err != nil {
		return nil, err
	}
	for i, v := range narrow.Values() {
		w, ok := wide.Lookup(narrow.Key(i))
		if !ok {
			return value.False, nil
		}
		eq, err := equal("IsRestriction", v, w)
		if err != nil || !eq {
			return boolResult(false, err)
		}
	}
	return value.True, nil
}

// pointwise is Pointwise(f, g, T) == [e \in DOMAIN f |-> T(f[e], g[e])].
func pointwise(_ Context, args []Arg) (value.Value, error) {
	f, err := funcArg("Pointwise", 0, 3, args[0].V)
	if err != nil {
		return nil, err
	}
	g, err := funcArg("Pointwise", 1, 3, args[1].V)
	if err != nil {
		return nil, err
	}
	t, err := opArg("Pointwise", 2, 3, args, 2)
	if err != nil {
		return nil, err
	}
	dom := make([]value.Value, f.Len())
	vs := make([]value.Value, f.Len())
	for i, v := range f.Values() {
		k := f.Key(i)
		w, ok := g.Lookup(k)
		if !ok {
			return nil, fmt.Errorf("Pointwise: %s is in the domain of the first function but not of the second, %s", show(k), show(g))
		}
		r, err := t.Call([]value.Value{v, w})
		if err != nil {
			return nil, err
		}
		dom[i], vs[i] = k, r
	}
	h, err := value.NewFunc(dom, vs)
	return h, wrap("Pointwise", err)
}

// inverse is [t \in T |-> CHOOSE s \in S : t \in Range(f) => f[s] = t],
// with dom the elements of S in canonical order.
func inverse(op string, f *value.Func, dom []value.Value, t value.Value) (value.Value, error) {
	rng := set(slices.Clone(f.Values()))
	g, err := value.FuncOver(t, func(y value.Value) (value.Value, error) {
		inRange, err := value.Member(y, rng)
		if err != nil {
			return nil, err
		}
		for _, s := range dom {
			if !inRange {
				return s, nil
			}
			v, ok := f.Lookup(s)
			if !ok {
				return nil, fmt.Errorf("%s: %s is not in the domain of %s", op, show(s), show(f))
			}
			eq, err := value.Equal(v, y)
			if err != nil {
				return nil, err
			}
			if eq {
				return s, nil
			}
		}
		return nil, fmt.Errorf("%s: no element of the domain set is mapped to %s", op, show(y))
	})
	if err != nil {
		return nil, wrap(op, err)
	}
	return g, nil
}

// distinct tells whether the values are pairwise different.
func distinct(vs []value.Value) bool {
	s := slices.Clone(vs)
	slices.SortFunc(s, value.Compare)
	for i := 1; i < len(s); i++ {
		if value.Compare(s[i-1], s[i]) == 0 {
			return false
		}
	}
	return true
}

// surjectiveOn tells whether every element of T is f[s] for some s in S,
// and returns the images f[s] of the elements of S.
func surjectiveOn(op string, f, s, t value.Value) (bool, []value.Value, error) {
	fn, err := funcArg(op, 0, 3, f)
	if err != nil {
		return false, nil, err
	}
	dom, err := elemsArg(op, 1, 3, s)
	if err != nil {
		return false, nil, err
	}
	rng, err := elemsArg(op, 2, 3, t)
	if err != nil {
		return false, nil, err
	}
	images := make([]value.Value, len(dom))
	for i, x := range dom {
		v, ok := fn.Lookup(x)
		if !ok {
			return false, nil, fmt.Errorf("%s: %s is not in the domain of %s", op, show(x), show(fn))
		}
		images[i] = v
	}
	img := value.NewSet(slices.Clone(images)...)
	for _, y := range rng {
		in, err := value.Member(y, img)
		if err != nil {
			return false, nil, wrap(op, err)
		}
		if !in {
			return false, images, nil
		}
	}
	return true, images, nil
}

func surjectiveOnly(op string, f, s, t value.Value) (bool, error) {
	ok, _, err := surjectiveOn(op, f, s, t)
	return ok, err
}

func twoSets(op string, s, t value.Value) ([]value.Value, []value.Value, error) {
	a, err := elemsArg(op, 0, 2, s)
	if err != nil {
		return nil, nil, err
	}
	b, err := elemsArg(op, 1, 2, t)
	if err != nil {
		return nil, nil, err
	}
	return a, b, nil
}

func twoCards(op string, s, t value.Value) (int64, int64, error) {
	if err := setArg(op, 0, 2, s); err != nil {
		return 0, 0, err
	}
	if err := setArg(op, 1, 2, t); err != nil {
		return 0, 0, err
	}
	m, err := value.Cardinality(s)
	if err != nil {
		return 0, 0, wrap(op, err)
	}
	n, err := value.Cardinality(t)
	if err != nil {
		return 0, 0, wrap(op, err)
	}
	return m, n, nil
}

// injections is the set of the injective functions from dom to rng.
func injections(op string, dom, rng []value.Value) (value.Value, error) {
	if len(dom) > len(rng) {
		return value.EmptySet, nil
	}
	total := 1
	for i := range dom {
		k := len(rng) - i
		if total > maxBuild/k {
			return nil, tooLarge(op, "the set of injections")
		}
		total *= k
	}
	out := make([]value.Value, 0, total)
	vs := make([]value.Value, len(dom))
	used := make([]bool, len(rng))
	var rec func(i int) error
	rec = func(i int) error {
		if i == len(dom) {
			f, err := value.NewFunc(dom, vs)
			if err != nil {
				return err
			}
			out = append(out, f)
			return nil
		}
		for j, y := range rng {
			if used[j] {
				continue
			}
			used[j] = true
			vs[i] = y
			if err := rec(i + 1); err != nil {
				return err
			}
			used[j] = false
		}
		return nil
	}
	if err := rec(0); err != nil {
		return nil, wrap(op, err)
	}
	return set(out), nil
}

// surjections is the set of the functions from dom onto rng.
func surjections(op string, dom, rng []value.Value) (value.Value, error) {
	if len(rng) > len(dom) || (len(rng) == 0 && len(dom) > 0) {
		return value.EmptySet, nil
	}
	total := 1
	for range dom {
		if total > maxBuild/len(rng) {
			return nil, tooLarge(op, "the set of functions")
		}
		total *= len(rng)
	}
	var out []value.Value
	idx := make([]int, len(dom))
	count := make([]int, len(rng))
	covered := 0
	vs := make([]value.Value, len(dom))
	var rec func(i int) error
	rec = func(i int) error {
		// Prune: the remaining positions cannot cover what is missing.
		if len(rng)-covered > len(dom)-i {
			return nil
		}
		if i == len(dom) {
			for k, j := range idx {
				vs[k] = rng[j]
			}
			f, err := value.NewFunc(dom, vs)
			if err != nil {
				return err
			}
			out = append(out, f)
			return nil
		}
		for j := range rng {
			idx[i] = j
			if count[j] == 0 {
				covered++
			}
			count[j]++
			if err := rec(i + 1); err != nil {
				return err
			}
			count[j]--
			if count[j] == 0 {
				covered--
			}
		}
		return nil
	}
	if err := rec(0); err != nil {
		return nil, wrap(op, err)
	}
	return set(out), nil
}
