package syntax

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func unitStrings(m *Module) []string {
	var out []string
	for _, u := range m.Units {
		out = append(out, UnitString(u))
	}
	return out
}

func TestModuleUnits(t *testing.T) {
	src := `Some text before the module is ignored: ==== \* "
--------------------------- MODULE Units ---------------------------
EXTENDS Naturals, Sequences
CONSTANTS N, F(_, _), _ ** _
CONSTANT Proc
VARIABLES x, y
VARIABLE z
-----------------------------------------------------------------------------
ASSUME N > 0
ASSUMPTION NPos == N \in Nat
Op == 1
Op2(a, G(_)) == G(a)
LOCAL Hidden == 2
a ++ b == a + b
a \prec b == a < b
x (+) y == x
-. a == 0 - a
a ^+ == a
f[i \in 1..N, j \in Proc] == i
RECURSIVE Fact(_), G
Fact(n) == IF n = 0 THEN 1 ELSE n * Fact(n - 1)
I == INSTANCE Inner WITH p <- 1, q <- x + 1
P(v) == INSTANCE Inner WITH p <- v
INSTANCE Inner
LOCAL INSTANCE TLC
AXIOM Ax == TRUE
THEOREM Thm == x = x
LEMMA x \in Nat
=============================================================================
Text after the module is ignored too: (* unterminated
`
	mods, err := ParseSource("Units.tla", []byte(src))
	require.NoError(t, err)
	require.Len(t, mods, 1)
	m := mods[0]
	assert.Equal(t, "Units", m.Name)
	assert.Equal(t, []string{"Naturals", "Sequences"}, m.Extends)
	assert.Equal(t, Pos{File: "Units.tla", Line: 2, Col: 1}, m.Pos)
	assert.Equal(t, []string{
		`CONSTANTS N, F(_, _), _ ** _`,
		`CONSTANTS Proc`,
		`VARIABLES x, y`,
		`VARIABLES z`,
		`ASSUME (N > 0)`,
		`ASSUME NPos == (N \in Nat)`,
		`Op == 1`,
		`Op2(a, G(_)) == G(a)`,
		`LOCAL Hidden == 2`,
		`a ++ b == (a + b)`,
		`a \prec b == (a < b)`,
		`x (+) y == x`,
		`-. a == (0 - a)`,
		`a^+ == a`,
		`f[i \in (1 .. N), j \in Proc] == i`,
		`RECURSIVE Fact(_), G`,
		`Fact(n) == (IF (n = 0) THEN 1 ELSE (n * Fact((n - 1))))`,
		`I == INSTANCE Inner WITH p <- 1, q <- (x + 1)`,
		`P(v) == INSTANCE Inner WITH p <- v`,
		`INSTANCE Inner`,
		`LOCAL INSTANCE TLC`,
		`AXIOM Ax == TRUE`,
		`THEOREM Thm == (x = x)`,
		`LEMMA (x \in Nat)`,
	}, unitStrings(m))

	c := m.Units[0].(*ConstantDecl)
	assert.Equal(t, []Decl{
		{Pos: Pos{"Units.tla", 4, 11}, Name: "N"},
		{Pos: Pos{"Units.tla", 4, 14}, Name: "F", Arity: 2},
		{Pos: Pos{"Units.tla", 4, 23}, Name: "**", Arity: 2, Fix: Infix},
	}, c.Decls)
	op2 := m.Units[7].(*OpDef)
	assert.Equal(t, 1, op2.Params[1].Arity)
	assert.True(t, m.Units[8].(*OpDef).Local)
	assert.Equal(t, Infix, m.Units[9].(*OpDef).Fix)
	assert.Equal(t, `(+)`, m.Units[11].(*OpDef).Name)
	neg := m.Units[12].(*OpDef)
	assert.Equal(t, "-.", neg.Name)
	assert.Equal(t, Prefix, neg.Fix)
	assert.Equal(t, Postfix, m.Units[13].(*OpDef).Fix)
	assert.True(t, m.Units[16].(*OpDef).Recursive)
	assert.False(t, m.Units[6].(*OpDef).Recursive)
	inst := m.Units[18].(*Instance)
	assert.Equal(t, "P", inst.Name)
	assert.Equal(t, "Inner", inst.Module)
	assert.Equal(t, "v", inst.Params[0].Name)
	assert.True(t, m.Units[20].(*Instance).Local)
	assert.Equal(t, "AXIOM", m.Units[21].(*Theorem).Kind)
}

func TestProofsAreSkipped(t *testing.T) {
	m := parseModule(t, `
Inv == x \in Nat
THEOREM Safety == Spec => []Inv
<1>1. Init => Inv
  BY DEF Init, Inv
<1>2. ASSUME NEW s \in Nat, NEW CONSTANT c
      PROVE  Inv /\ [Next]_x => Inv'
  <2>1. CASE x' = x + 1
    BY <1>2
  <2> DEFINE Q == 1
             R == 2
  <2>a. SUFFICES ASSUME x \in Nat PROVE FALSE
    OBVIOUS
  <2>. PICK y \in Nat : y = x
    PROOF OMITTED
  <2>3. HAVE x = 1
  <2>4. TAKE y \in Nat
  <2>5. WITNESS 1 \in Nat
  <2> USE DEF Inv
  <2> HIDE DEF Inv
  <2>. QED
    BY <2>1 DEF Next
<1>3. QED  BY <1>1, <1>2, PTL DEF Spec
USE DEF Inv
HIDE DEF Inv
LEMMA L1 == ASSUME NEW S, S # {}, ASSUME NEW T PROVE T PROVE S = S
  PROOF OBVIOUS
COROLLARY C1 == TRUE
  BY L1
PROPOSITION P1 == TRUE
  OMITTED
THEOREM T2 == TRUE
PROOF
  <*> QED OBVIOUS
After == 1
-----------------------------------------------------------------------------
Last == 2`)
	assert.Equal(t, []string{
		`Inv == (x \in Nat)`,
		`THEOREM Safety == (Spec => ([]Inv))`,
		`LEMMA L1 == ASSUME ... PROVE (S = S)`,
		`COROLLARY C1 == TRUE`,
		`PROPOSITION P1 == TRUE`,
		`THEOREM T2 == TRUE`,
		`After == 1`,
		`Last == 2`,
	}, unitStrings(m))
	assert.True(t, m.Units[2].(*Theorem).AssumeProve)
}

func TestMultipleModules(t *testing.T) {
	src := `
---- MODULE Helper ----
H == 1
====
------ MODULE Main ------
EXTENDS Helper
---- MODULE Inner ----
VARIABLE v
I == v
====
M == INSTANCE Inner
========
`
	mods, err := ParseSource("Main.tla", []byte(src))
	require.NoError(t, err)
	var names []string
	for _, m := range mods {
		names = append(names, m.Name)
	}
	assert.Equal(t, []string{"Helper", "Main", "Inner"}, names)
	main := MainModule("dir/Main.tla", mods)
	assert.Equal(t, "Main", main.Name)
	require.Len(t, main.Units, 2)
	assert.IsType(t, &Module{}, main.Units[0])
	assert.Equal(t, `M == INSTANCE Inner`, UnitString(main.Units[1]))
	assert.Equal(t, "Helper", MainModule("Other.tla", mods).Name)
}

func TestErrors(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"missing end", "---- MODULE M ----\nFoo == 1\n", `M.tla:3:1: expected ==== at the end of module M, found end of file`},
		{"unexpected token", "---- MODULE M ----\nFoo == 1 +\n====\n", `M.tla:3:1: expected expression, found ====`},
		{"unterminated string", "---- MODULE M ----\nFoo == \"abc\n====\n", `M.tla:2:8: unterminated string`},
		{"unterminated comment", "---- MODULE M ----\n(* a (* b *)\nFoo == 1\n====\n", `M.tla:2:1: unterminated comment`},
		{"bad escape", "---- MODULE M ----\nFoo == \"a\\qb\"\n====\n", `M.tla:2:10: invalid escape sequence in string`},
		{"no module", "just text", `M.tla:1:1: expected ---- MODULE Name ----, found no module`},
		{"missing module name", "---- MODULE ----\n====\n", `M.tla:1:13: expected identifier, found "----"`},
		{"missing paren", "---- MODULE M ----\nFoo == (1 + 2\nBar == 3\n====\n", `M.tla:3:1: expected ")", found identifier Bar`},
		{"missing THEN", "---- MODULE M ----\nFoo == IF a ELSE b\n====\n", `M.tla:2:13: expected THEN, found "ELSE"`},
		{"bad character", "---- MODULE M ----\nFoo == 1 ? 2\n====\n", `M.tla:2:10: unexpected character '?'`},
		{"integer overflow", "---- MODULE M ----\nFoo == 99999999999999999999\n====\n", `M.tla:2:8: integer literal 99999999999999999999 is out of range`},
		{"EXTENDS late", "---- MODULE M ----\nFoo == 1\nEXTENDS Naturals\n====\n", `M.tla:3:1: EXTENDS must directly follow the module header`},
		{"unclosed ASSUME", "---- MODULE M ----\nTHEOREM ASSUME x\n====\n", `M.tla:2:9: expected PROVE for this ASSUME, found ====`},
		{"missing EXCEPT path", "---- MODULE M ----\nFoo == [f EXCEPT !=1]\n====\n", `M.tla:2:19: expected "[" or "." after !, found "="`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseSource("M.tla", []byte(c.src))
			require.Error(t, err)
			var perr *Error
			require.True(t, errors.As(err, &perr))
			assert.Equal(t, c.want, err.Error())
			assert.NotContains(t, err.Error(), "\n")
		})
	}
}

func TestDeepNestingIsAnError(t *testing.T) {
	src := "---- MODULE M ----\nFoo == " + repeat("(", 100000) + "1" + repeat(")", 100000) + "\n====\n"
	_, err := ParseSource("M.tla", []byte(src))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nested too deeply")
}

func repeat(s string, n int) string {
	b := make([]byte, 0, len(s)*n)
	for i := 0; i < n; i++ {
		b = append(b, s...)
	}
	return string(b)
}

func TestLoader(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	write("Spec.tla", `---- MODULE Spec ----
EXTENDS Naturals, Lib
---- MODULE Sub ----
S == 1
====
I == INSTANCE Other
====
`)
	write("Lib.tla", "---- MODULE Lib ----\nL == 1\n====\n")
	write("Other.tla", "---- MODULE Other ----\nO == 1\n====\n")
	write("Broken.tla", "---- MODULE Broken ----\nB == \n====\n")
	write("Naturals.tla", "---- MODULE Naturals ----\nX == 1\n====\n")

	l := NewLoader()
	spec, err := l.LoadFile(filepath.Join(dir, "Spec.tla"))
	require.NoError(t, err)
	assert.Equal(t, "Spec", spec.Name)

	sub, err := l.Load("Sub")
	require.NoError(t, err)
	assert.Equal(t, "Sub", sub.Name)

	lib, err := l.Load("Lib")
	require.NoError(t, err)
	again, err := l.Load("Lib")
	require.NoError(t, err)
	assert.Same(t, lib, again, "modules are cached")

	_, err = l.Load("Naturals")
	assert.ErrorIs(t, err, ErrStandardModule)
	assert.True(t, IsStandardModule("Naturals"))
	assert.True(t, IsStandardModule("TLAPS"))
	assert.True(t, IsStandardModule("SequencesExt"))
	assert.False(t, IsStandardModule("Lib"))
	assert.Contains(t, StandardModules(), "FiniteSets")

	_, err = l.Load("Missing")
	assert.ErrorContains(t, err, "module Missing not found")
	_, err = l.Load("Broken")
	assert.ErrorContains(t, err, "Broken.tla:3:1: expected expression")

	l2 := NewLoader(dir)
	other, err := l2.Load("Other")
	require.NoError(t, err)
	assert.Equal(t, "Other", other.Name)
	mods, err := ParseSource("X.tla", []byte("---- MODULE X ----\n====\n"))
	require.NoError(t, err)
	l2.Add(mods...)
	x, err := l2.Load("X")
	require.NoError(t, err)
	assert.Same(t, mods[0], x)
}

func TestInspect(t *testing.T) {
	m := parseModule(t, `
VARIABLE x
Next == /\ x' = [i \in S |-> IF i > 0 THEN f[i] ELSE @]
        /\ LET y == x IN UNCHANGED <<y>>
        /\ \E v \in T : CASE v -> x [] OTHER -> M!Op(v).fld`)
	var idents []string
	Inspect(m, func(n Node) bool {
		if id, ok := n.(*Ident); ok {
			idents = append(idents, id.Name)
		}
		return true
	})
	assert.Equal(t, []string{"x", "S", "i", "f", "i", "x", "y", "T", "v", "x", "v"}, idents)

	count := func(prune bool) int {
		c := 0
		Inspect(m, func(n Node) bool {
			c++
			_, isLet := n.(*Let)
			return !(prune && isLet)
		})
		return c
	}
	// The LET subtree below the Let node: OpDef y, x, UNCHANGED, <<y>>, y.
	assert.Equal(t, count(false)-5, count(true))
}
