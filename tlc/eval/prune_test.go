package eval

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// nextOf builds a module with variables x and y (both 0 initially) and the
// given definitions, and enumerates the successors of the initial state
// under Next within a budget of steps (calls and binder iterations). It
// returns the successors as <<x, y>>, in enumeration order, and what was
// printed.
func nextOf(t *testing.T, defs string, budget int64) ([]string, string, error) {
	t.Helper()
	src := evalHeader + "VARIABLES x, y\nInit == x = 0 /\\ y = 0\n" + defs + "\n====\n"
	m, err := buildModule(src, "INIT Init\nNEXT Next")
	require.NoError(t, err)
	var out bytes.Buffer
	m.Out = &out
	ev := m.NewEvaluator()
	var init []value.Value
	require.NoError(t, ev.Init(func(s []value.Value) error { init = s; return nil }))
	ev.c.maxSteps = budget
	var succ []string
	err = ev.Next(init, func(s []value.Value) error {
		succ = append(succ, value.Tuple(s...).String())
		return nil
	})
	return succ, out.String(), err
}

// A body that fails on a conjunct not mentioning the bound name fails for
// every binding: the enumeration stops after the first one, so a set far
// larger than the budget is no problem.
func TestPruneIndependentFalseConjunct(t *testing.T) {
	for _, defs := range []string{
		`Next == \E i \in 1..1000000 : /\ x = 1 /\ x' = i /\ y' = i`,
		// Through an operator whose argument depends on i but is not read
		// before the failing conjunct (TLC passes arguments lazily).
		"Act(a, r) == /\\ a = 1 /\\ r[1] = 2 /\\ x' = r[1] /\\ y' = r[2]\n" +
			`Next == \E j \in 0..0 : \E b, e \in 1..10000 : Act(j, <<b, e>>)`,
		// Through a LET that does not mention the bound name.
		`Next == \E i \in 1..1000000 : LET z == x + 1 IN z = 5 /\ x' = i /\ y' = z`,
	} {
		succ, _, err := nextOf(t, defs, 100000)
		require.NoError(t, err, defs)
		assert.Empty(t, succ, defs)
	}
	// The inner quantifier is pruned for j = 0 only; for j = 1 every
	// binding of b is tried, and b = 2 matches.
	succ, _, err := nextOf(t, "Act(a, r) == /\\ a = 1 /\\ r[1] = 2 /\\ x' = r[1] /\\ y' = r[2]\n"+
		`Next == \E j \in 0..1 : \E b, e \in 1..3 : Act(j, <<b, e>>)`, 0)
	require.NoError(t, err)
	assert.Equal(t, []string{"<<2, 1>>", "<<2, 2>>", "<<2, 3>>"}, succ)
}

// With several bound names, a body that fails reading only one of them
// fails for every binding that gives that name the same value.
func TestPruneDeadValues(t *testing.T) {
	// 250 * 250 bindings and one call per body evaluated would exceed the
	// budget; 250 + 250 bodies do not.
	succ, _, err := nextOf(t, "Is(v, w) == v = w\n"+
		`Next == \E b, e \in 1..250 : /\ Is(b, 3) /\ Is(e, 4) /\ x' = b /\ y' = e`, 100000)
	require.NoError(t, err)
	assert.Equal(t, []string{"<<3, 4>>"}, succ)
	// The same through a tuple argument read by component, as in
	// Traceetcdraft's AppendEntriesIfLogged(i, j, <<b, e>>).
	succ, _, err = nextOf(t, "Act(r) == /\\ r[1] = 3 /\\ r[2] = r[1] + 1 /\\ x' = r[1] /\\ y' = r[2]\n"+
		`Next == \E b, e \in 1..300 : Act(<<b, e>>)`, 100000)
	require.NoError(t, err)
	assert.Equal(t, []string{"<<3, 4>>"}, succ)
	for _, c := range []struct{ defs, want string }{
		{`Next == \E a, b \in 1..3 : /\ a # 2 /\ b = a /\ x' = a /\ y' = b`, "<<1, 1>> <<3, 3>>"},
		{"Act(r) == r[1] # 2 /\\ r[2] = r[1] /\\ x' = r[1] /\\ y' = r[2]\n" +
			`Next == \E a, b \in 1..3 : Act(<<a, b>>)`, "<<1, 1>> <<3, 3>>"},
		// The component read is the one the index names.
		{"Act(r) == r[2] # 2 /\\ r[1] = 1 /\\ x' = r[1] /\\ y' = r[2]\n" +
			`Next == \E a, b \in 1..3 : Act(<<a, b>>)`, "<<1, 1>> <<1, 3>>"},
		// For a = 2 the body reads b too: b = 1 fails, but a = 2 is not
		// dead.
		{`Next == \E a, b \in 1..3 : IF a = 2 THEN b > 1 /\ x' = a /\ y' = b ELSE FALSE`, "<<2, 2>> <<2, 3>>"},
		{`Next == \E <<a, b>> \in {<<1, 2>>, <<2, 1>>, <<2, 2>>} : a = 2 /\ x' = a /\ y' = b`, "<<2, 1>> <<2, 2>>"},
	} {
		succ, _, err := nextOf(t, c.defs, 0)
		require.NoError(t, err, c.defs)
		assert.Equal(t, c.want, strings.Join(succ, " "), c.defs)
	}
}

// A conjunct that depends on the bound name, directly or through an
// argument, a LET or a primed variable assigned from it, fails for some
// bindings only: every binding is tried.
func TestPruneKeepsDependentConjuncts(t *testing.T) {
	cases := []struct{ defs, want string }{
		{`Next == \E i \in 1..3 : /\ i > 1 /\ x' = i /\ y' = 0`, "<<2, 0>> <<3, 0>>"},
		{"Big(a) == a > 1\n" + `Next == \E i \in 1..3 : Big(i) /\ x' = i /\ y' = 0`, "<<2, 0>> <<3, 0>>"},
		{`Next == \E i \in 1..3 : LET z == i + 1 IN z > 2 /\ x' = z /\ y' = 0`, "<<3, 0>> <<4, 0>>"},
		{`Next == \E i \in 1..3 : /\ x' = i /\ x' > 1 /\ y' = 0`, "<<2, 0>> <<3, 0>>"},
		// x' is assigned from i outside the inner quantifier, whose body
		// does not mention j but reads x'.
		{`Next == \E i \in 1..3 : /\ x' = i /\ \E j \in 1..2 : x' = 3 /\ y' = j`, "<<3, 1>> <<3, 2>>"},
		// The set of the inner quantifier depends on the outer name.
		{`Next == \E i \in 0..2 : \E j \in 1..i : /\ i = 2 /\ x' = i /\ y' = j`, "<<2, 1>> <<2, 2>>"},
		// A LAMBDA that captures the bound name.
		{"Ap(F(_)) == F(1)\n" + `Next == \E i \in 1..3 : Ap(LAMBDA v : v + i > 2) /\ x' = i /\ y' = 0`, "<<2, 0>> <<3, 0>>"},
	}
	for _, c := range cases {
		succ, _, err := nextOf(t, c.defs, 0)
		require.NoError(t, err, c.defs)
		assert.Equal(t, c.want, strings.Join(succ, " "), c.defs)
	}
}

// An error TLC raises for a later binding is still raised: the body read
// the bound name before failing for the first one.
func TestPruneKeepsErrors(t *testing.T) {
	for _, defs := range []string{
		`Next == \E i \in 0..1 : /\ x' = 10 \div (i - 1) /\ FALSE /\ y' = 0`,
		"Op(a) == a > 20\n" + `Next == \E i \in 0..1 : Op(10 \div (i - 1)) /\ x' = 0 /\ y' = 0`,
		`Next == \E i \in 0..1 : LET z == 10 \div (i - 1) IN z > 20 /\ x' = 0 /\ y' = 0`,
	} {
		_, _, err := nextOf(t, defs, 0)
		require.Error(t, err, defs)
		assert.Contains(t, err.Error(), "division by zero", defs)
	}
	// An argument the operator never reads is never evaluated by TLC,
	// which passes arguments lazily: no error.
	succ, _, err := nextOf(t, "Op(a, b) == a > 20\n"+`Next == \E i \in 0..1 : Op(5, 10 \div (i - 1)) /\ x' = 0 /\ y' = 0`, 0)
	require.NoError(t, err)
	assert.Empty(t, succ)
}

// Side effects happen once per binding, as in TLC.
func TestPruneKeepsSideEffects(t *testing.T) {
	_, out, err := nextOf(t, `Next == \E i \in 1..3 : /\ PrintT("visit") /\ FALSE /\ x' = i /\ y' = 0`, 0)
	require.NoError(t, err)
	assert.Equal(t, 3, strings.Count(out, "visit"), out)
}

// invariantOf builds a module with variables x and y and the invariant Inv
// defined by defs, and returns an evaluator and what it printed so far.
func invariantOf(t *testing.T, defs string) (*Evaluator, *bytes.Buffer) {
	t.Helper()
	src := evalHeader + "VARIABLES x, y\nInit == x = 0 /\\ y = 0\nNext == UNCHANGED <<x, y>>\n" + defs + "\n====\n"
	m, err := buildModule(src, "INIT Init\nNEXT Next\nINVARIANT Inv")
	require.NoError(t, err)
	var out bytes.Buffer
	m.Out = &out
	return m.NewEvaluator(), &out
}

func ints(xs ...int64) []value.Value {
	out := make([]value.Value, len(xs))
	for i, x := range xs {
		out[i] = value.IntOf(x)
	}
	return out
}

// An invariant is remembered by the variables it read in a state: a state
// that differs only in a variable it did not read there reuses the result,
// one that differs in a variable it read is evaluated again.
func TestInvariantMemo(t *testing.T) {
	ev, _ := invariantOf(t, `Inv == IF y > 2 THEN x < 5 ELSE TRUE`)
	for _, c := range []struct {
		x, y int64
		want bool
	}{
		{9, 0, true},  // reads y only
		{9, 1, true},  // y differs: evaluated again
		{9, 3, false}, // y differs: x < 5 fails
		{9, 1, true},
		{1, 3, true},  // reads x and y
		{9, 3, false}, // x differs
	} {
		ok, err := ev.Invariant(0, ints(c.x, c.y))
		require.NoError(t, err)
		assert.Equal(t, c.want, ok, "x = %d, y = %d", c.x, c.y)
	}
	// Sequences equal but built apart are the same values.
	ev, _ = invariantOf(t, `Inv == Len(x) < 3`)
	for _, want := range []bool{true, true, false} {
		n := 2
		if !want {
			n = 3
		}
		s := []value.Value{value.Tuple(ints(make([]int64, n)...)...), value.IntOf(0)}
		ok, err := ev.Invariant(0, s)
		require.NoError(t, err)
		assert.Equal(t, want, ok)
	}
}

// An invariant with an effect (output) is evaluated in every state, as TLC
// does.
func TestInvariantMemoKeepsEffects(t *testing.T) {
	ev, out := invariantOf(t, `Inv == PrintT("checked") /\ x < 5`)
	for range 3 {
		ok, err := ev.Invariant(0, ints(1, 1))
		require.NoError(t, err)
		assert.True(t, ok)
	}
	assert.Equal(t, 3, strings.Count(out.String(), "checked"), out.String())
}

// A zero-arity definition of the state is evaluated once per state: the
// value follows the state, and a definition with an effect is evaluated
// at every use.
func TestStateValue(t *testing.T) {
	src := evalHeader + "VARIABLES x, y\nInit == x = 0 /\\ y = 0\n" +
		"D == x * 10\nP == PrintT(\"p\") /\\ x >= 0\n" +
		"Next == \\E i \\in 1..3 : P /\\ P /\\ x' = D + i /\\ y' = D\n====\n"
	m, err := buildModule(src, "INIT Init\nNEXT Next")
	require.NoError(t, err)
	var out bytes.Buffer
	m.Out = &out
	ev := m.NewEvaluator()
	for _, x := range []int64{1, 2, 1} {
		var succ []string
		require.NoError(t, ev.Next(ints(x, 0), func(s []value.Value) error {
			succ = append(succ, value.Tuple(s...).String())
			return nil
		}))
		d := x * 10
		assert.Equal(t, []string{
			value.Tuple(ints(d+1, d)...).String(),
			value.Tuple(ints(d+2, d)...).String(),
			value.Tuple(ints(d+3, d)...).String(),
		}, succ)
	}
	assert.Equal(t, 3*3*2, strings.Count(out.String(), "p"), out.String())
}

// An expensive operator that does not read the state is evaluated once per
// argument value; one with an effect at every call.
func TestPureCallMemo(t *testing.T) {
	q := "Q(c) == {s \\in SUBSET c : Cardinality(s) * 2 > Cardinality(c)}\n"
	// 50 evaluations of Q(1..10) would take 50 * 1024 binder iterations.
	succ, _, err := nextOf(t, q+`Next == \E i \in 1..50 : Cardinality(Q(1..10)) = 386 /\ x' = i /\ y' = 0`, 20000)
	require.NoError(t, err)
	assert.Len(t, succ, 50)
	// Equal arguments built apart, and different arguments.
	succ, _, err = nextOf(t, q+`Next == \E i \in 7..8 : x' = Cardinality(Q(1..i)) /\ y' = Cardinality(Q({j \in 1..i : TRUE}))`, 0)
	require.NoError(t, err)
	assert.Equal(t, []string{"<<64, 64>>", "<<93, 93>>"}, succ)
	_, out, err := nextOf(t, "P(c) == PrintT(\"p\") /\\ Cardinality(SUBSET c) > 0\n"+
		`Next == \E i \in 1..3 : P(1..7) /\ x' = i /\ y' = 0`, 0)
	require.NoError(t, err)
	assert.Equal(t, 3, strings.Count(out, "p"), out)
}

// A call that enumeration would not branch in is evaluated; one that it
// branches in (a disjunction, \E) still yields one successor per branch, as
// TLC counts them, and one that assigns through an argument still assigns.
func TestEvaluableCalls(t *testing.T) {
	for _, c := range []struct{ defs, want string }{
		{"Q(a) == a > 0 /\\ x = 0\n" + `Next == Q(1) /\ x' = 1 /\ y' = 1`, "<<1, 1>>"},
		{"Q(a) == a > 0 /\\ x = 1\n" + `Next == Q(1) /\ x' = 1 /\ y' = 1`, ""},
		{"P == x = 0 \\/ y = 0\n" + `Next == P /\ x' = 1 /\ y' = 1`, "<<1, 1>> <<1, 1>>"},
		{"P(a) == \\E i \\in 1..a : i > 0\n" + `Next == P(2) /\ x' = 1 /\ y' = 1`, "<<1, 1>> <<1, 1>>"},
		{"Set(v) == v = 5\n" + `Next == Set(x') /\ y' = 0`, "<<5, 0>>"},
	} {
		succ, _, err := nextOf(t, c.defs, 0)
		require.NoError(t, err, c.defs)
		assert.Equal(t, c.want, strings.Join(succ, " "), c.defs)
	}
}
