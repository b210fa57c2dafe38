package stdlib

import (
	"fmt"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// The TLC module.
//
//   - Print(out, val) prints "<out>  <val>" (two spaces; both printed as
//     TLC prints values, so strings keep their quotes, after normalizing
//     lazy sets) and returns val. PrintT(out) prints "<out>" and returns
//     TRUE. Without a Context nothing is printed. TLC breaks long values
//     over several lines; we print one line.
//   - Assert(val, out) is TRUE when val is; when val is FALSE it fails with
//     an *AssertionError carrying out.
//   - JavaTime is 0, not the wall-clock time, so that runs are
//     deterministic.
//   - RandomElement(S) is deterministic: the first element of S in
//     canonical order (the element CHOOSE x \in S : TRUE picks).
//   - Any, TLC's set of all values, is not supported: evaluating it is an
//     error.
//   - TLCEval(v) is v with its finite lazy sets made explicit.
//   - SortSeq(s, Op) is TLC's insertion sort: an element moves before its
//     predecessor while Op(element, predecessor) holds, so a strict order
//     sorts stably.

// AssertionError is the failure of Assert(FALSE, out). Its message is TLC's.
type AssertionError struct {
	Out   value.Value
	Terse bool // print Out unexpanded (-terse)
}

func (e *AssertionError) Error() string {
	return "The first argument of Assert evaluated to FALSE; the second argument was: " + value.Format(e.Out, e.Terse)
}

func registerTLC() {
	def("TLC",
		&Builtin{Name: "Print", Arity: 2, Fn: func(ctx Context, args []Arg) (value.Value, error) {
			if ctx != nil {
				ctx.Print(printable(ctx, args[0].V) + "  " + printable(ctx, args[1].V))
			}
			return args[1].V, nil
		}},
		&Builtin{Name: "PrintT", Arity: 1, Fn: func(ctx Context, args []Arg) (value.Value, error) {
			if ctx != nil {
				ctx.Print(printable(ctx, args[0].V))
			}
			return value.True, nil
		}},
		&Builtin{Name: "Assert", Arity: 2, Fn: func(ctx Context, args []Arg) (value.Value, error) {
			v, out := args[0].V, args[1].V
			ok, err := boolArg("Assert", 0, 2, v)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, &AssertionError{Out: out, Terse: isTerse(ctx)}
			}
			return value.True, nil
		}},
		&Builtin{Name: "JavaTime", Fn: constant(value.IntOf(0))},
		&Builtin{Name: "TLCGet", Arity: 1, Fn: func(ctx Context, args []Arg) (value.Value, error) {
			if ctx == nil {
				return nil, fmt.Errorf("TLCGet: not available outside model checking")
			}
			return ctx.TLCGet(args[0].V)
		}},
		&Builtin{Name: "TLCSet", Arity: 2, Fn: func(ctx Context, args []Arg) (value.Value, error) {
			if ctx == nil {
				return nil, fmt.Errorf("TLCSet: not available outside model checking")
			}
			if err := ctx.TLCSet(args[0].V, args[1].V); err != nil {
				return nil, err
			}
			return value.True, nil
		}},
		&Builtin{Name: ":>", Arity: 2, Fn: op2(func(k, v value.Value) (value.Value, error) {
			return value.SingletonFunc(k, v), nil
		})},
		&Builtin{Name: "@@", Arity: 2, Fn: op2(value.Merge)},
		&Builtin{Name: "Permutations", Arity: 1, Fn: op1(permutations)},
		&Builtin{Name: "SortSeq", Arity: 2, OpParams: []int{1}, Fn: sortSeq},
		&Builtin{Name: "RandomElement", Arity: 1, Fn: op1(func(s value.Value) (value.Value, error) {
			if err := setArg("RandomElement", 0, 1, s); err != nil {
				return nil, err
			}
			return firstElement("RandomElement", s)
		})},
		&Builtin{Name: "Any", Fn: op0(func() (value.Value, error) {
			return nil, fmt.Errorf("Any: the set of all values is not supported")
		})},
		&Builtin{Name: "ToString", Arity: 1, Fn: op1(func(v value.Value) (value.Value, error) {
			return value.Str(v.String()), nil
		})},
		&Builtin{Name: "TLCEval", Arity: 1, Fn: op1(func(v value.Value) (value.Value, error) {
			n, err := value.DeepNormalize(v)
			return n, wrap("TLCEval", err)
		})},
	)
}

// printable prints v for Print, PrintT and Assert as TLC does: lazy sets
// enumerated by TLC's rules, or as written under -terse (value.Format).
func printable(ctx Context, v value.Value) string {
	return value.Format(v, isTerse(ctx))
}

func isTerse(ctx Context) bool {
	tc, ok := ctx.(TerseContext)
	return ok && tc.Terse()
}

// permutations is Permutations(S): the set of all bijections from S to S
// (Permutations({}) = {<<>>}).
func permutations(s value.Value) (value.Value, error) {
	elems, err := elemsArg("Permutations", 0, 1, s)
	if err != nil {
		return nil, err
	}
	return bijections("Permutations", elems, elems)
}

// bijections returns the set of the bijections from dom onto rng, two
// sorted slices of the same length.
func bijections(op string, dom, rng []value.Value) (value.Value, error) {
	n := len(dom)
	if n != len(rng) {
		return value.EmptySet, nil
	}
	total := 1
	for i := 2; i <= n; i++ {
		if total > maxBuild/i {
			return nil, tooLarge(op, "the set of permutations")
		}
		total *= i
	}
	out := make([]value.Value, 0, total)
	perm := make([]value.Value, n)
	used := make([]bool, n)
	var rec func(i int) error
	rec = func(i int) error {
		if i == n {
			f, err := value.NewFunc(dom, perm)
			if err != nil {
				return err
			}
			out = append(out, f)
			return nil
		}
		for j := range rng {
			if used[j] {
				continue
			}
			used[j] = true
			perm[i] = rng[j]
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

// sortSeq is SortSeq(s, Op), TLC's insertion sort.
func sortSeq(_ Context, args []Arg) (value.Value, error) {
	elems, err := seqArg("SortSeq", 0, 2, args[0].V)
	if err != nil {
		return nil, err
	}
	less, err := opArg("SortSeq", 1, 2, args, 2)
	if err != nil {
		return nil, err
	}
	out, err := insertionSort("SortSeq", elems, less)
	if err != nil {
		return nil, err
	}
	return tuple(out), nil
}

func insertionSort(op string, elems []value.Value, less Op) ([]value.Value, error) {
	out := make([]value.Value, len(elems))
	if len(elems) == 0 {
		return out, nil
	}
	out[0] = elems[0]
	for i := 1; i < len(elems); i++ {
		x := elems[i]
		j := i
		for j > 0 {
			before, err := callBool(op, 1, 2, less, x, out[j-1])
			if err != nil {
				return nil, err
			}
			if !before {
				break
			}
			out[j] = out[j-1]
			j--
		}
		out[j] = x
	}
	return out, nil
}

// firstElement returns the least element of the set s in canonical order
// without enumerating s when its structure tells (functions, records and
// tuples of a fixed shape compare value by value, so the least one takes
// the least value everywhere).
func firstElement(op string, s value.Value) (value.Value, error) {
	empty := func() (value.Value, error) {
		return nil, fmt.Errorf("%s: the set is empty", op)
	}
	switch t := s.(type) {
	case *value.Set:
		if t.Len() == 0 {
			return empty()
		}
		return t.Elems()[0], nil
	case *value.Interval:
		return value.IntOf(t.Lo()), nil
	case *value.PowerSet:
		return value.EmptySet, nil
	case *value.FuncSet:
		dom, err := value.Enumerate(t.Dom)
		if err != nil {
			return nil, wrap(op, err)
		}
		if len(dom) == 0 {
			return value.EmptyFunc, nil
		}
		v, err := firstElement(op, t.Rng)
		if err != nil {
			return nil, err
		}
		vs := make([]value.Value, len(dom))
		for i := range vs {
			vs[i] = v
		}
		f, err := value.NewFunc(dom, vs)
		return f, wrap(op, err)
	case *value.RecordSet:
		vs := make([]value.Value, len(t.Sets))
		for i, x := range t.Sets {
			v, err := firstElement(op, x)
			if err != nil {
				return nil, err
			}
			vs[i] = v
		}
		f, err := value.Record(t.Names, vs)
		return f, wrap(op, err)
	case *value.ProductSet:
		vs := make([]value.Value, len(t.Sets))
		for i, x := range t.Sets {
			v, err := firstElement(op, x)
			if err != nil {
				return nil, err
			}
			vs[i] = v
		}
		return tuple(vs), nil
	}
	elems, err := value.Enumerate(s)
	if err != nil {
		return nil, wrap(op, err)
	}
	if len(elems) == 0 {
		return empty()
	}
	return elems[0], nil
}
