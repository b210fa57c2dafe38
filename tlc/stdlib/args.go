package stdlib

import (
	"fmt"
	"slices"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// Argument checking and error helpers shared by the modules. Messages have
// the form
//
//	Len: argument is not a sequence: {1, 2}
//	SubSeq: third argument is not an integer: "a"
//
// that is the operator name, what is wrong, and the offending value printed
// as TLC prints it (cut at a readable length).

// show prints v for an error message.
func show(v value.Value) string {
	s := v.String()
	const limit = 200
	if len(s) > limit {
		return s[:limit] + "..."
	}
	return s
}

// ordinal names argument i of n: "argument" for a unary operator, "first
// argument", "second argument"... otherwise.
func ordinal(i, n int) string {
	if n == 1 {
		return "argument"
	}
	names := []string{"first", "second", "third", "fourth", "fifth", "sixth"}
	if i < len(names) {
		return names[i] + " argument"
	}
	return fmt.Sprintf("argument %d", i+1)
}

// argError reports that argument i of op (of n) is not a want.
func argError(op string, i, n int, want string, v value.Value) error {
	return fmt.Errorf("%s: %s is not %s: %s", op, ordinal(i, n), want, show(v))
}

// wrap prefixes an error from the value package with the operator name.
func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", op, err)
}

// op0 ... op3 adapt plain functions of values to Builtin.Fn.
func op0(f func() (value.Value, error)) func(Context, []Arg) (value.Value, error) {
	return func(Context, []Arg) (value.Value, error) { return f() }
}

func op1(f func(a value.Value) (value.Value, error)) func(Context, []Arg) (value.Value, error) {
	return func(_ Context, args []Arg) (value.Value, error) { return f(args[0].V) }
}

func op2(f func(a, b value.Value) (value.Value, error)) func(Context, []Arg) (value.Value, error) {
	return func(_ Context, args []Arg) (value.Value, error) { return f(args[0].V, args[1].V) }
}

func op3(f func(a, b, c value.Value) (value.Value, error)) func(Context, []Arg) (value.Value, error) {
	return func(_ Context, args []Arg) (value.Value, error) { return f(args[0].V, args[1].V, args[2].V) }
}

// constant returns a zero-arity implementation with a fixed value.
func constant(v value.Value) func(Context, []Arg) (value.Value, error) {
	return func(Context, []Arg) (value.Value, error) { return v, nil }
}

// intArg returns argument i of op as an int64.
func intArg(op string, i, n int, v value.Value) (int64, error) {
	if x, ok := v.(value.Int); ok {
		return int64(x), nil
	}
	return 0, argError(op, i, n, "an integer", v)
}

// natArg returns argument i of op as a natural number.
func natArg(op string, i, n int, v value.Value) (int64, error) {
	x, ok := v.(value.Int)
	if !ok || x < 0 {
		return 0, argError(op, i, n, "a natural number", v)
	}
	return int64(x), nil
}

// boolArg returns argument i of op as a bool.
func boolArg(op string, i, n int, v value.Value) (bool, error) {
	if b, ok := v.(value.Bool); ok {
		return bool(b), nil
	}
	return false, argError(op, i, n, "a boolean", v)
}

// strArg returns argument i of op as a string.
func strArg(op string, i, n int, v value.Value) (string, error) {
	if s, ok := v.(value.Str); ok {
		return string(s), nil
	}
	return "", argError(op, i, n, "a string", v)
}

// seqArg returns the elements of argument i of op, which must be a
// sequence (a function with domain 1..n). The slice must not be modified.
func seqArg(op string, i, n int, v value.Value) ([]value.Value, error) {
	if f, ok := v.(*value.Func); ok && f.IsSeq() {
		return f.Values(), nil
	}
	return nil, argError(op, i, n, "a sequence", v)
}

// funcArg returns argument i of op as a function.
func funcArg(op string, i, n int, v value.Value) (*value.Func, error) {
	if f, ok := v.(*value.Func); ok {
		return f, nil
	}
	return nil, argError(op, i, n, "a function", v)
}

// setArg checks that argument i of op is a set.
func setArg(op string, i, n int, v value.Value) error {
	if v.Kind() != value.KindSet {
		return argError(op, i, n, "a set", v)
	}
	return nil
}

// elemsArg returns the elements of argument i of op, a finite set, in
// canonical order. The slice must not be modified.
func elemsArg(op string, i, n int, v value.Value) ([]value.Value, error) {
	if err := setArg(op, i, n, v); err != nil {
		return nil, err
	}
	elems, err := value.Enumerate(v)
	if err != nil {
		return nil, wrap(op, err)
	}
	return elems, nil
}

// opArg returns operator argument i of op, checking its arity.
func opArg(op string, i, n int, args []Arg, arity int) (Op, error) {
	o := args[i].Op
	if o == nil {
		return nil, fmt.Errorf("%s: %s must be an operator", op, ordinal(i, n))
	}
	if o.Arity() != arity {
		return nil, fmt.Errorf("%s: %s must be an operator of %d arguments, but it takes %d", op, ordinal(i, n), arity, o.Arity())
	}
	return o, nil
}

// callBool applies a predicate operator and checks that it returned a
// boolean.
func callBool(op string, i, n int, o Op, args ...value.Value) (bool, error) {
	v, err := o.Call(args)
	if err != nil {
		return false, err
	}
	b, ok := v.(value.Bool)
	if !ok {
		return false, fmt.Errorf("%s: %s must be a boolean-valued operator, but it returned %s", op, ordinal(i, n), show(v))
	}
	return bool(b), nil
}

// boolResult converts a (bool, error) result.
func boolResult(b bool, err error) (value.Value, error) {
	if err != nil {
		return nil, err
	}
	return value.Bool(b), nil
}

// tuple builds a sequence from a slice it takes ownership of.
func tuple(vs []value.Value) value.Value {
	return value.Tuple(vs...)
}

// set builds a set from a slice it takes ownership of.
func set(vs []value.Value) value.Value {
	return value.NewSet(vs...)
}

// equal is a = b; kinds that cannot be compared are an error, as in TLC.
func equal(op string, a, b value.Value) (bool, error) {
	eq, err := value.Equal(a, b)
	return eq, wrap(op, err)
}

// indexOf finds x in the sorted, distinct elems.
func indexOf(elems []value.Value, x value.Value) (int, bool) {
	return slices.BinarySearchFunc(elems, x, value.Compare)
}

// maxBuild bounds the sets this package materializes (permutations,
// k-subsets, sub-bags...), like value's bound on enumeration.
const maxBuild = 1 << 24

func tooLarge(op string, what string) error {
	return fmt.Errorf("%s: %s has too many elements to build", op, what)
}
