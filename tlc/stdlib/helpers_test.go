package stdlib

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// Model values for the tests, created first so that their ranks follow
// this order.
var (
	mvA = value.NewModelValue("a")
	mvB = value.NewModelValue("b")
)

// conv turns test shorthand into values: int -> Int, string -> Str, bool ->
// Bool, value.Value as is.
func conv(x any) value.Value {
	switch v := x.(type) {
	case int:
		return value.IntOf(int64(v))
	case int64:
		return value.IntOf(v)
	case string:
		return value.Str(v)
	case bool:
		return value.Bool(v)
	case value.Value:
		return v
	}
	panic(fmt.Sprintf("conv: %T", x))
}

func convAll(xs []any) []value.Value {
	out := make([]value.Value, len(xs))
	for i, x := range xs {
		out[i] = conv(x)
	}
	return out
}

// T is a tuple, S a set.
func T(xs ...any) value.Value { return value.Tuple(convAll(xs)...) }
func S(xs ...any) value.Value { return value.NewSet(convAll(xs)...) }

// F is the function k1 :> v1 @@ k2 :> v2 ...
func F(kv ...any) value.Value {
	var dom, vals []value.Value
	for i := 0; i < len(kv); i += 2 {
		dom = append(dom, conv(kv[i]))
		vals = append(vals, conv(kv[i+1]))
	}
	f, err := value.NewFunc(dom, vals)
	if err != nil {
		panic(err)
	}
	return f
}

// R is the record [n1 |-> v1, ...].
func R(kv ...any) value.Value {
	var names []string
	var vals []value.Value
	for i := 0; i < len(kv); i += 2 {
		names = append(names, kv[i].(string))
		vals = append(vals, conv(kv[i+1]))
	}
	r, err := value.Record(names, vals)
	if err != nil {
		panic(err)
	}
	return r
}

func rng(a, b int64) value.Value { return value.NewInterval(a, b) }

// testOp is an Op implemented by a Go function; calls counts its calls.
type testOp struct {
	n     int
	f     func(args []value.Value) (value.Value, error)
	calls *int
}

func (o testOp) Arity() int { return o.n }
func (o testOp) Call(args []value.Value) (value.Value, error) {
	if len(args) != o.n {
		panic("testOp: wrong number of arguments")
	}
	if o.calls != nil {
		*o.calls++
	}
	return o.f(args)
}

func op1f(f func(x value.Value) (value.Value, error)) Op {
	return testOp{n: 1, f: func(a []value.Value) (value.Value, error) { return f(a[0]) }}
}

func op2f(f func(x, y value.Value) (value.Value, error)) Op {
	return testOp{n: 2, f: func(a []value.Value) (value.Value, error) { return f(a[0], a[1]) }}
}

func pred(f func(x value.Value) bool) Op {
	return op1f(func(x value.Value) (value.Value, error) { return value.Bool(f(x)), nil })
}

func intOf(v value.Value) int64 { return int64(v.(value.Int)) }

var (
	plusOp  = op2f(value.Add)
	minusOp = op2f(value.Sub)
	timesOp = op2f(value.Mul)
	lessOp  = op2f(func(x, y value.Value) (value.Value, error) {
		b, err := value.Less(x, y)
		return value.Bool(b), err
	})
	// pairOp builds <<x, y>>, to see the shape of a fold.
	pairOp = op2f(func(x, y value.Value) (value.Value, error) { return value.Tuple(x, y), nil })
	// concatOp is \o.
	catOp  = op2f(concat)
	idOp   = op1f(func(x value.Value) (value.Value, error) { return x, nil })
	evenOp = pred(func(x value.Value) bool { i, ok := x.(value.Int); return ok && i%2 == 0 })
	// minChoose is CHOOSE x \in s : TRUE.
	minChoose = op1f(func(s value.Value) (value.Value, error) { return s.(*value.Set).Elems()[0], nil })
	maxChoose = op1f(func(s value.Value) (value.Value, error) {
		e := s.(*value.Set).Elems()
		return e[len(e)-1], nil
	})
	errOp = op1f(func(value.Value) (value.Value, error) { return nil, fmt.Errorf("boom") })
	// notBool returns a non-boolean.
	notBool = op1f(func(value.Value) (value.Value, error) { return value.IntOf(7), nil })
)

// testCtx records output and registers.
type testCtx struct {
	lines []string
	regs  map[string]value.Value
	trace value.Value
}

func (c *testCtx) Print(line string) { c.lines = append(c.lines, line) }
func (c *testCtx) TLCGet(k value.Value) (value.Value, error) {
	if v, ok := c.regs[k.String()]; ok {
		return v, nil
	}
	return nil, fmt.Errorf("TLCGet: no value for %s", k)
}
func (c *testCtx) TLCSet(k, v value.Value) error {
	if c.regs == nil {
		c.regs = map[string]value.Value{}
	}
	c.regs[k.String()] = v
	return nil
}

type traceCtx struct{ testCtx }

func (c *traceCtx) Trace() (value.Value, error) { return c.trace, nil }

// callCtx calls module!name with the arguments (values, shorthand or Ops).
func callCtx(t *testing.T, ctx Context, module, name string, args ...any) (value.Value, error) {
	t.Helper()
	b, ok := Lookup(module, name)
	require.True(t, ok, "no operator %s!%s", module, name)
	as := make([]Arg, len(args))
	for i, a := range args {
		if o, ok := a.(Op); ok {
			as[i] = Arg{Op: o}
		} else {
			as[i] = Arg{V: conv(a)}
		}
	}
	return b.Fn(ctx, as)
}

func call(t *testing.T, module, name string, args ...any) (value.Value, error) {
	t.Helper()
	return callCtx(t, nil, module, name, args...)
}

// show prints a result with its lazy sets enumerated.
func str(t *testing.T, v value.Value) string {
	t.Helper()
	n, err := value.DeepNormalize(v)
	require.NoError(t, err)
	return n.String()
}

// ok calls the operator, requires success and returns the printed result.
func ok(t *testing.T, module, name string, args ...any) string {
	t.Helper()
	v, err := call(t, module, name, args...)
	require.NoError(t, err, "%s!%s", module, name)
	require.NotNil(t, v)
	return str(t, v)
}

// fails calls the operator, requires an error and returns its message.
func fails(t *testing.T, module, name string, args ...any) string {
	t.Helper()
	v, err := call(t, module, name, args...)
	require.Error(t, err, "%s!%s returned %v", module, name, v)
	require.Nil(t, v)
	return err.Error()
}

// failsWith requires an error containing all the fragments.
func failsWith(t *testing.T, frags []string, module, name string, args ...any) {
	t.Helper()
	msg := fails(t, module, name, args...)
	for _, f := range frags {
		require.True(t, strings.Contains(msg, f), "error %q does not contain %q", msg, f)
	}
}

// vv abbreviates value.Value in test operators.
type vv = value.Value
