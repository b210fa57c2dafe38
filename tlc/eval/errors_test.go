package eval

import (
	"io"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/tlc/cfg"
	"github.com/modelfuzz/modelfuzz/tlc/syntax"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// located matches an error that starts with the file, line and column it
// is about.
var locatedRE = regexp.MustCompile(`^T\.(tla|cfg):[0-9]+:[0-9]+: `)

// TestLoadErrors checks that malformed modules and configurations fail to
// build with one-line errors that say where the problem is.
func TestLoadErrors(t *testing.T) {
	cases := []struct {
		name, body, cfg string
		want            string // the whole error, after describeError's kind
	}{
		{"unknown operator", "VARIABLE x\nInit == x = Foo(1)\nNext == UNCHANGED x", "INIT Init\nNEXT Next",
			`load error: T.tla:4:13: unknown operator "Foo"`},
		{"unknown name", "VARIABLE x\nInit == x = y\nNext == UNCHANGED x", "INIT Init\nNEXT Next",
			`load error: T.tla:4:13: unknown operator "y"`},
		{"wrong arity", "VARIABLE x\nInc(a) == a + 1\nInit == x = Inc(1, 2)\nNext == UNCHANGED x", "INIT Init\nNEXT Next",
			`load error: T.tla:5:13: operator Inc takes 1 argument(s), got 2`},
		{"operator without its arguments", "VARIABLE x\nInc(a) == a + 1\nInit == x = Inc\nNext == UNCHANGED x", "INIT Init\nNEXT Next",
			`load error: T.tla:5:13: operator Inc takes 1 argument(s), got 0`},
		{"builtin arity", "VARIABLE x\nInit == x = Len(<<1>>, 2)\nNext == UNCHANGED x", "INIT Init\nNEXT Next",
			`load error: T.tla:4:13: operator Len takes 1 argument(s), got 2`},
		{"higher-order argument of the wrong arity", "VARIABLE x\nApply(F(_), a) == F(a)\nAdd(a, b) == a + b\nInit == x = Apply(Add, 1)\nNext == UNCHANGED x", "INIT Init\nNEXT Next",
			`load error: T.tla:6:19: argument 1 of Apply must be an operator of 1 argument(s), but Add takes 2`},
		{"LAMBDA of the wrong arity", "VARIABLE x\nApply(F(_), a) == F(a)\nInit == x = Apply(LAMBDA a, b : a, 1)\nNext == UNCHANGED x", "INIT Init\nNEXT Next",
			`load error: T.tla:5:19: argument 1 of Apply must be an operator of 1 argument(s), but LAMBDA takes 2`},
		{"LET operator argument of the wrong arity", "VARIABLE x\nInit == LET Ap(F(_, _)) == F(1, 2)\n            Id(a) == a\n        IN x = Ap(Id)\nNext == UNCHANGED x", "INIT Init\nNEXT Next",
			`load error: T.tla:6:19: argument 1 of Ap must be an operator of 2 argument(s), but Id takes 1`},
		{"ELSE left of the bullet column", "VARIABLE x\nInit == /\\ IF TRUE THEN x = 0\n       ELSE x = 1\nNext == UNCHANGED x", "INIT Init\nNEXT Next",
			`parse error: T.tla:5:8: expected ELSE, found "ELSE" at or left of the junction list bullet column 9`},
		{"empty bullet", "VARIABLE x\nInit == /\\ x = 0\n        /\\\nNext == UNCHANGED x", "INIT Init\nNEXT Next",
			`parse error: T.tla:6:1: expected expression, found identifier Next at or left of the junction list bullet column 9`},
		{"unbalanced parenthesis", "VARIABLE x\nInit == (x = 0\nNext == UNCHANGED x", "INIT Init\nNEXT Next",
			`parse error: T.tla:5:1: expected ")", found identifier Next`},
		{"missing expression", "VARIABLE x\nInit == x =\nNext == UNCHANGED x", "INIT Init\nNEXT Next",
			`parse error: T.tla:5:6: expected definition or declaration, found "=="`},
		{"@ outside EXCEPT", "VARIABLE x\nInit == x = @\nNext == UNCHANGED x", "INIT Init\nNEXT Next",
			`load error: T.tla:4:13: @ outside an EXCEPT value`},
		{"LAMBDA as a value", "VARIABLE x\nInit == x = LAMBDA y : y\nNext == UNCHANGED x", "INIT Init\nNEXT Next",
			`load error: T.tla:4:13: LAMBDA is only allowed as an argument of an operator`},
		{"unknown module", "!---- MODULE T ----\nEXTENDS NoSuchModule\nVARIABLE x\nInit == x = 0\nNext == UNCHANGED x\n====\n", "INIT Init\nNEXT Next",
			`load error: T.tla:1:1: EXTENDS NoSuchModule: module NoSuchModule not found (searched [])`},
		{"EXTENDS after a definition", "A == 1\nEXTENDS Naturals", "",
			`parse error: T.tla:4:1: EXTENDS must directly follow the module header`},
		{"module without its end", "!---- MODULE T ----\nA == 1\n", "",
			`parse error: T.tla:3:1: expected ==== at the end of module T, found end of file`},
		{"no module", "!A == 1\n", "",
			`parse error: T.tla:1:1: expected ---- MODULE Name ----, found no module`},
		{"instance of an unknown module", "VARIABLE x\nI == INSTANCE Nope\nInit == x = 0\nNext == UNCHANGED x", "INIT Init\nNEXT Next",
			`load error: T.tla:4:1: INSTANCE Nope: module Nope not found (searched [])`},
		{"variable in an ASSUME", "VARIABLE x\nASSUME x = 0\nInit == x = 0\nNext == UNCHANGED x", "INIT Init\nNEXT Next",
			`load error: T.tla:4:1: Level error: assumptions must be level 0 (Constant), but this one has level 1.`},
		{"variable in the SYMMETRY set", "VARIABLE x\nInit == x = {}\nNext == UNCHANGED x\nSym == Permutations(x)", "INIT Init\nNEXT Next\nSYMMETRY Sym",
			`error: T.tla:6:21: variable x is used where there is no state (in a constant expression)`},
		{"cfg names a missing definition", "VARIABLE x\nInit == x = 0\nNext == UNCHANGED x", "INIT Init\nNEXT Next\nINVARIANT TypeOK",
			`config error: T.cfg:3:11: INVARIANT TypeOK: the spec has no definition TypeOK`},
		{"cfg names a missing Next", "VARIABLE x\nInit == x = 0", "INIT Init\nNEXT Step",
			`config error: T.cfg:2:6: NEXT Step: the spec has no definition Step`},
		{"cfg names an operator with arguments", "VARIABLE x\nInit == x = 0\nNext == UNCHANGED x\nInv(a) == a", "INIT Init\nNEXT Next\nINVARIANT Inv",
			`config error: T.cfg:3:11: INVARIANT Inv: Inv takes arguments`},
		{"cfg unknown keyword", "VARIABLE x\nInit == x = 0\nNext == UNCHANGED x", "INIT Init\nNEXT Next\nINVARIANTZ Init",
			`config error: T.cfg:3:1: unknown keyword "INVARIANTZ"`},
		{"cfg substitution by a missing definition", "CONSTANT N\nVARIABLE x\nInit == x = N\nNext == UNCHANGED x", "CONSTANT N <- Three\nINIT Init\nNEXT Next",
			`config error: T.cfg:1:10: N <- Three: the spec has no definition Three`},
		{"cfg value for a variable", "VARIABLE x\nInit == x = 0\nNext == UNCHANGED x", "CONSTANT x = 1\nINIT Init\nNEXT Next",
			`config error: T.cfg:1:10: x is a variable, not a constant`},
		{"constant without a value", "CONSTANTS N, M\nVARIABLE x\nInit == x = N\nNext == UNCHANGED x", "INIT Init\nNEXT Next",
			`config error: T.tla:3:11: no value for constant(s) N, M: give them values in T.cfg`},
		{"no INIT", "VARIABLE x\nInit == x = 0", "",
			`config error: T.cfg: no SPECIFICATION and no INIT/NEXT`},
		{"SPECIFICATION names a missing definition", "VARIABLE x\nInit == x = 0", "SPECIFICATION Spec",
			`config error: T.cfg:1:15: SPECIFICATION Spec: the spec has no such definition`},
		{"false ASSUME", "CONSTANT N\nASSUME N > 1\nVARIABLE x\nInit == x = 0\nNext == UNCHANGED x", "CONSTANT N = 1\nINIT Init\nNEXT Next",
			`assume failure: T.tla:4:1: assumption is false`},
		{"ASSUME that fails to evaluate", "ASSUME 1 + \"a\" = 2\nVARIABLE x\nInit == x = 0\nNext == UNCHANGED x", "INIT Init\nNEXT Next",
			`error: T.tla:3:10: the second argument of + should be an integer, but instead it is "a"`},
		{"SYMMETRY that is not a set of permutations", "VARIABLE x\nInit == x = 0\nNext == UNCHANGED x\nSym == {1}", "INIT Init\nNEXT Next\nSYMMETRY Sym",
			""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := evalHeader + c.body + "\n====\n"
			if strings.HasPrefix(c.body, "!") {
				src = c.body[1:] // the whole file
			}
			m, err := buildModule(src, c.cfg)
			require.Error(t, err)
			require.Nil(t, m)
			got := describeError(err)
			assert.NotContains(t, got, "\n")
			_, msg, _ := strings.Cut(got, ": ")
			if !strings.HasPrefix(msg, "T.cfg: ") {
				assert.Regexp(t, locatedRE, msg)
			}
			if c.want != "" {
				assert.Equal(t, c.want, got)
			}
		})
	}
}

// explore runs a breadth-first search of m's state graph for at most
// limit states and returns the first error (a reduced checker: tlc/check
// imports this package).
func explore(m *Model, limit int) error {
	ev := m.NewEvaluator()
	seen := map[uint64]bool{}
	var queue [][]value.Value
	add := func(s []value.Value) error {
		fp := value.FingerprintState(s)
		if seen[fp] || len(seen) >= limit {
			return nil
		}
		seen[fp] = true
		for i := range m.Invariants {
			if _, err := ev.Invariant(i, s); err != nil {
				return err
			}
		}
		queue = append(queue, s)
		return nil
	}
	if err := ev.Init(add); err != nil {
		return err
	}
	for len(queue) > 0 && ev.HasNext() {
		s := queue[0]
		queue = queue[1:]
		if err := ev.Next(s, add); err != nil {
			return err
		}
	}
	return nil
}

// TestRunErrors checks errors found while exploring the states: one line,
// located at the expression that failed.
func TestRunErrors(t *testing.T) {
	const initNext = "INIT Init\nNEXT Next"
	cases := []struct {
		name, body, cfg, want string
	}{
		{"type error in Next", "VARIABLE x\nInit == x = 0\nNext == x' = x + \"a\"", initNext,
			`T.tla:5:16: the second argument of + should be an integer, but instead it is "a"`},
		{"set operation on an integer", "VARIABLE x\nInit == x = {1}\nNext == x' = x \\cup 2", initNext,
			`T.tla:5:16: the argument of \cup should be a set, but instead it is 2`},
		{"function outside its domain", "VARIABLE x\nInit == x = <<1, 2>>\nNext == x' = [x EXCEPT ![1] = x[3]]", initNext,
			`T.tla:5:32: function applied outside its domain: <<1, 2>>[3], domain 1..2`},
		{"CHOOSE with no element", "VARIABLE x\nInit == x = 0\nNext == x' = CHOOSE y \\in 1..3 : y > 5", initNext,
			`T.tla:5:14: CHOOSE: no value satisfies the condition`},
		{"CASE with no arm", "VARIABLE x\nInit == x = 0\nNext == x' = CASE x = 1 -> 2", initNext,
			`T.tla:5:14: CASE: no arm applies and there is no OTHER`},
		{"CASE with no arm in an action", "VARIABLE x\nInit == x = 0\nNext == CASE x = 1 -> x' = 2", initNext,
			`T.tla:5:9: CASE: no arm applies and there is no OTHER`},
		{"x' read before it is assigned", "VARIABLE x\nInit == x = 0\nNext == x' > 1 /\\ x' = 2", initNext,
			`T.tla:5:9: x' is used before it is given a value`},
		{"variable read before Init assigns it", "VARIABLES x, y\nInit == x = y /\\ y = 0\nNext == UNCHANGED <<x, y>>", initNext,
			`T.tla:4:13: variable y is used before it is given a value`},
		{"non-boolean condition", "VARIABLE x\nInit == x = 0\nNext == IF x THEN x' = 1 ELSE x' = 2", initNext,
			`T.tla:5:12: expected a boolean, got 0`},
		{"non-boolean conjunct in an action", "VARIABLE x\nInit == x = 0\nNext == x + 1 /\\ x' = 1", initNext,
			`T.tla:5:11: expected a boolean, got 1`},
		{"enumerating an infinite set", "VARIABLE x\nInit == x \\in Nat\nNext == UNCHANGED x", initNext,
			`T.tla:4:11: cannot enumerate Nat`},
		{"overflow", "VARIABLE x\nInit == x = 9223372036854775807\nNext == x' = x + 1", initNext,
			`T.tla:5:16: integer overflow in 9223372036854775807 + 1`},
		{"comparing values of different kinds", "VARIABLE x\nInit == x = 0\nNext == x' = 1 /\\ x' = \"a\"", initNext,
			`T.tla:5:22: attempted to check equality of integer 1 with non-integer "a"`},
		{"invariant error", "VARIABLE x\nInit == x = 0\nNext == UNCHANGED x\nInv == x \\in 1", initNext + "\nINVARIANT Inv",
			`T.tla:6:10: attempted to check if 0 is an element of integer 1, which is not a set`},
		{"tuple binder over non-tuples", "VARIABLE x\nInit == x = 0\nNext == \\E <<a, b>> \\in {1, 2} : x' = a", initNext,
			`T.tla:5:25: cannot bind the tuple <<a, b>> to 1`},
		{"prime in Init", "VARIABLE x\nInit == x' = 0\nNext == UNCHANGED x", initNext,
			`T.tla:4:10: a primed expression in the initial predicate`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := buildModule(evalHeader+c.body+"\n====\n", c.cfg)
			require.NoError(t, err)
			m.Out = io.Discard
			err = explore(m, 100)
			require.Error(t, err)
			assert.NotContains(t, err.Error(), "\n")
			assert.Regexp(t, locatedRE, err.Error())
			assert.Equal(t, c.want, err.Error())
		})
	}
}

// TestIncomplete checks the error for a state that Init or Next leaves
// without a value for some variable.
func TestIncomplete(t *testing.T) {
	m, err := buildModule(evalHeader+"VARIABLES x, y\nInit == x = 0\nNext == UNCHANGED <<x, y>>\n====\n", "INIT Init\nNEXT Next")
	require.NoError(t, err)
	err = explore(m, 10)
	var inc *IncompleteError
	require.ErrorAs(t, err, &inc)
	assert.Equal(t, IncompleteError{Var: "y", Init: true}, *inc)
	assert.Equal(t, syntax.Pos{File: "T.tla", Line: 4, Col: 1}, m.InitPos())

	m, err = buildModule(evalHeader+"VARIABLES x, y\nInit == x = 0 /\\ y = 0\nNext == \\/ x' = 1 /\\ y' = 1\n        \\/ x' = 2\n====\n", "INIT Init\nNEXT Next")
	require.NoError(t, err)
	err = explore(m, 10)
	require.ErrorAs(t, err, &inc)
	assert.Equal(t, IncompleteError{Var: "y"}, *inc)
	assert.Equal(t, syntax.Pos{File: "T.tla", Line: 5, Col: 1}, m.NextPos())
}

// fuzzSeeds are small modules (with their cfg) that reach most of the
// evaluator: the fuzzer mutates them.
var fuzzSeeds = [][2]string{
	{"EXTENDS Naturals\nVARIABLE x\nInit == x = 0\nNext == x < 3 /\\ x' = x + 1\n", "INIT Init\nNEXT Next"},
	{"EXTENDS Integers\nA == <<(-7) \\div 2, -7 % 3, 2 ^ 5, 1..3>>\n", ""},
	{"EXTENDS FiniteSets\nS == {x \\in SUBSET {1, 2} : Cardinality(x) = 1}\nT == UNION {{1}, {2, 3}} \\cap {2} \\ {3}\n", ""},
	{"F == [x \\in {1, 2} |-> x]\nG == [F EXCEPT ![1] = @ + 1]\nH == DOMAIN G \\subseteq {1}\n", ""},
	{"R == [a |-> 1, b |-> <<2>>]\nS == [R EXCEPT !.b[1] = 3, !.a = @]\nT == [a : {1}, b : {2, 3}]\n", ""},
	{"EXTENDS Sequences\nS == Append(Tail(<<1, 2>>), Head(<<3>>)) \\o SubSeq(<<4, 5>>, 1, 1)\nL == SelectSeq(S, LAMBDA e : e > 1)\n", ""},
	{"C == CASE 1 = 2 -> 1 [] OTHER -> 2\nI == IF C = 2 THEN CHOOSE x \\in {3, 1} : TRUE ELSE 0\n", ""},
	{"RECURSIVE F(_)\nF(n) == IF n = 0 THEN 0 ELSE 1 + F(n - 1)\nf[n \\in 0..4] == IF n = 0 THEN 1 ELSE n * f[n - 1]\nA == <<F(3), f[4]>>\n", ""},
	{"Twice(G(_), x) == G(G(x))\nA == Twice(LAMBDA y : y + 1, 1)\nB == LET Sq(x) == x * x IN Twice(Sq, 2)\n", ""},
	{"CONSTANT N\nVARIABLES x, y\nInit == x \\in 1..N /\\ y = <<>>\nNext == \\E i \\in 1..N : x' = i /\\ y' = y\nInv == x # y\n", "CONSTANT N = 2\nINIT Init\nNEXT Next\nINVARIANT Inv"},
	{"EXTENDS TLC\nCONSTANTS a, b\nS == Permutations({a, b})\nA == (1 :> 2) @@ (3 :> 4)\nB == a = b\n", "CONSTANTS a = a  b = b\nSYMMETRY S"},
	{"VARIABLE x\nA == x' = 1\nInit == x = 0\nNext == /\\ ENABLED A\n        /\\ \\/ A\n           \\/ UNCHANGED x\n", "INIT Init\nNEXT Next"},
	{"---- MODULE I ----\nCONSTANT K\nVARIABLE v\nOp == v + K\n====\nVARIABLE x\nM == INSTANCE I WITH K <- 1, v <- x\nP(q) == INSTANCE I WITH K <- q, v <- x\nInit == x = 0\nNext == x' = M!Op /\\ P(2)!Op > 0\n", "INIT Init\nNEXT Next"},
	{"H(Op(_, _)) == Op(1, 2)\nAp(F(_), a) == F(a)\nA == H(LAMBDA a, b : Ap(LAMBDA c : c + a, b))\nB == LET f[i \\in 1..2] == i G(x) == f[x] IN Ap(G, 1)\n", ""},
	{"VARIABLES q, r\nLose(s) == s # <<>> /\\ s' = Tail(s)\nInit == q = <<1, 2>> /\\ r = <<>>\nNext == \\/ Lose(q) /\\ UNCHANGED r\n        \\/ LET D(s) == s' = <<>> IN D(r) /\\ UNCHANGED <<q>>\n", "INIT Init\nNEXT Next"},
	{"VARIABLE x\nA == x' = x + 1\nB == x' = 2 * x\nInit == x \\in {0, 1}\nNext == (A \\cdot B) \\/ (IF x > 3 THEN UNCHANGED x ELSE A)\nInv == x < 9\nS == [][Next]_x\n", "INIT Init\nNEXT Next\nINVARIANT Inv\nCONSTRAINT Inv"},
	{"Inv == /\\ 1 = 1\n       /\\ 2 = 2\nA == Inv!2\nB == Inv!1 /\\ Inv!2\nR == [r \\in [a : {1, 2}] |-> r.a]\n", ""},
	{"EXTENDS TLC\nA == Print(<<1>>, 2) + ToString(3) \nB == Assert(FALSE, \"x\")\nC == TLCGet(\"level\") + TLCSet(1, 2)\nD == {x \\in Seq({1}) : TRUE}\n", ""},
	{"CONSTANTS P\nVARIABLE pc\nInit == pc = [p \\in P |-> 0]\nNext == \\E p \\in P : pc[p] < 2 /\\ pc' = [pc EXCEPT ![p] = @ + 1]\nV == pc\n", "CONSTANT P = {p1, p2}\nINIT Init\nNEXT Next\nVIEW V\nACTION_CONSTRAINT V"},
}

// FuzzEval parses, builds and evaluates arbitrary small modules: every
// zero-arity definition of the root module, and the first states of the
// model when the cfg gives one. Errors are expected; panics, hangs and
// unbounded memory are not. go test -fuzz=FuzzEval ./tlc/eval/
func FuzzEval(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s[0], s[1])
	}
	for _, c := range loadErrorSeeds() {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, body, cfgSrc string) {
		if len(body) > 600 || len(cfgSrc) > 200 {
			return
		}
		// Bound the work: small sets and a step budget per context.
		defer value.SetEnumerateLimit(value.SetEnumerateLimit(1 << 12))
		defer defaultMaxSteps.Store(defaultMaxSteps.Swap(50000))
		src := body
		if !strings.Contains(body, "MODULE") {
			// A body: give it a module (most mutations keep it one).
			src = "---- MODULE F ----\n" + body + "\n====\n"
		}
		mods, err := syntax.ParseSource("F.tla", []byte(src))
		if err != nil {
			requireOneLine(t, err)
			return
		}
		ld := syntax.NewLoader()
		ld.Add(mods...)
		conf, err := cfg.Parse("F.cfg", []byte(cfgSrc))
		if err != nil {
			return // the cfg parser is tlc/cfg's to test
		}
		m, err := Build(ld, syntax.MainModule("F.tla", mods), conf)
		if err != nil {
			requireOneLine(t, err)
			return
		}
		m.Out = io.Discard
		var names []string
		for name, d := range m.root.names {
			if d.kind == dkOp && len(d.params) == 0 && d.sc == m.root {
				names = append(names, name)
			}
		}
		sort.Strings(names)
		for _, name := range names {
			n, _, _, err := m.compileIn(m.root, &syntax.Ident{Pos: syntax.Pos{File: "F.tla"}, Name: name}, nil)
			if err != nil {
				continue
			}
			if v, err := n.eval(m.newCtx(), nil); err == nil {
				_ = v.String()
			}
		}
		if m.init != nil {
			_ = explore(m, 20)
		}
	})
}

// requireOneLine fails unless err is an error with a message. Parse,
// load and config errors are one line (evaluation errors may quote a
// multi-line value, as Assert's does).
func requireOneLine(t *testing.T, err error) {
	t.Helper()
	msg := err.Error()
	if msg == "" {
		t.Fatalf("empty error %T", err)
	}
	if strings.Contains(msg, "\n") {
		if _, ok := err.(*EvalFailure); !ok {
			t.Fatalf("multi-line error %T: %q", err, msg)
		}
	}
}

// loadErrorSeeds are the malformed inputs of TestLoadErrors, as seeds.
func loadErrorSeeds() [][2]string {
	return [][2]string{
		{"VARIABLE x\nInit == /\\ IF TRUE THEN x = 0\n       ELSE x = 1\nNext == UNCHANGED x", "INIT Init\nNEXT Next"},
		{"VARIABLE x\nInit == (x = 0\nNext == UNCHANGED x", "INIT Init\nNEXT Next\nINVARIANTZ Init"},
	}
}
