package syntax

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func init() { recoverPanics = false }

// parsed parses src as one expression and renders it fully parenthesized.
func parsed(t *testing.T, src string) string {
	t.Helper()
	e, err := ParseExpr("e.tla", src)
	require.NoError(t, err, "source:\n%s", src)
	return e.String()
}

func TestPrecedenceAndAssociativity(t *testing.T) {
	cases := []struct{ src, want string }{
		// Arithmetic: + 10-10, - 11-11, * 13-13, ^ 14-14, prefix - 12-12.
		{`a + b * c`, `(a + (b * c))`},
		{`a * b + c`, `((a * b) + c)`},
		{`a + b + c`, `((a + b) + c)`},
		{`a - b - c`, `((a - b) - c)`},
		{`a - b + c`, `((a - b) + c)`},
		{`a + b - c`, `(a + (b - c))`},
		{`a * b * c`, `((a * b) * c)`},
		{`a \div b + c`, `((a \div b) + c)`},
		{`a + b \div c`, `(a + (b \div c))`},
		{`a + b % c`, `((a + b) % c)`},
		{`a ^ b * c`, `((a ^ b) * c)`},
		{`-a + b`, `((-a) + b)`},
		{`-a * b`, `(-(a * b))`},
		{`-a ^ 2`, `(-(a ^ 2))`},
		{`a - -b`, `(a - (-b))`},
		{`a<-1`, `(a < (-1))`},
		// Relations 5-5 bind looser than arithmetic and sets.
		{`a < b + 1`, `(a < (b + 1))`},
		{`x \in S \cup T`, `(x \in (S \cup T))`},
		{`S \cup T \cup U`, `((S \cup T) \cup U)`},
		{`S \ T \cup U`, `((S \ T) \cup U)`},
		{`a .. b + 1`, `(a .. (b + 1))`},
		{`x \notin 1 .. N`, `(x \notin (1 .. N))`},
		// Logic: => 1-1, <=> 2-2, /\ \/ 3-3 left, ~ 4-4.
		{`a = b /\ c = d`, `((a = b) /\ (c = d))`},
		{`a /\ b /\ c`, `((a /\ b) /\ c)`},
		{`a \/ b \/ c`, `((a \/ b) \/ c)`},
		{`a => b /\ c`, `(a => (b /\ c))`},
		{`a /\ b => c \/ d`, `((a /\ b) => (c \/ d))`},
		{`a <=> b => c`, `((a <=> b) => c)`},
		{`a <=> b /\ c`, `(a <=> (b /\ c))`},
		{`~a /\ b`, `((~a) /\ b)`},
		{`~ a = b`, `(~(a = b))`},
		{`~ ~ a`, `(~(~a))`},
		// Functions and records.
		{`a :> b @@ c :> d`, `((a :> b) @@ (c :> d))`},
		{`f @@ g @@ h`, `((f @@ g) @@ h)`},
		{`s \o t \o u`, `((s \o t) \o u)`},
		{`s \o t = u`, `((s \o t) = u)`},
		{`f[x][y]`, `f[x][y]`},
		{`f[x, y]`, `f[x, y]`},
		{`r.a.b`, `r.a.b`},
		{`f[x].a[y]`, `f[x].a[y]`},
		{`DOMAIN f \cup S`, `((DOMAIN f) \cup S)`},
		{`SUBSET S \X T`, `(SUBSET (S \X T))`},
		{`UNION {S, T}`, `(UNION {S, T})`},
		// Cross product is n-ary, 10-13.
		{`A \X B \X C`, `(A \X B \X C)`},
		{`(A \X B) \X C`, `((A \X B) \X C)`},
		{`A \X B \cup C`, `((A \X B) \cup C)`},
		{`x \in A \times B`, `(x \in (A \X B))`},
		// Postfix 15-15 below application 16 and field 17.
		{`x' = x + 1`, `((x') = (x + 1))`},
		{`f[x]'`, `(f[x]')`},
		{`x'[i]`, `(x')[i]`},
		{`r.a'`, `(r.a')`},
		{`-x'`, `(-(x'))`},
		{`R^+`, `(R^+)`},
		{`R^* \cup S^#`, `((R^*) \cup (S^#))`},
		// Temporal and action operators.
		{`[]P => Q`, `(([]P) => Q)`},
		{`<>[]P`, `(<>([]P))`},
		{`[]<>P /\ <>[]Q`, `(([](<>P)) /\ (<>([]Q)))`},
		{`[][Next]_vars /\ WF_vars(Next)`, `(([][Next]_vars) /\ WF_vars(Next))`},
		{`P ~> Q /\ R`, `(P ~> (Q /\ R))`},
		{`P /\ Q ~> R`, `((P /\ Q) ~> R)`},
		{`ENABLED A /\ B`, `((ENABLED A) /\ B)`},
		{`UNCHANGED <<x, y>> /\ z' = z`, `((UNCHANGED <<x, y>>) /\ ((z') = z))`},
		{`UNCHANGED x'`, `(UNCHANGED (x'))`},
		{`A \cdot B`, `(A \cdot B)`},
		{`E -+-> M`, `(E -+-> M)`},
		// Binders extend as far as possible.
		{`\A x \in S : P /\ Q`, `(\A x \in S : (P /\ Q))`},
		{`(\E x : P) /\ Q`, `((\E x : P) /\ Q)`},
		{`IF a THEN b ELSE c + 1`, `(IF a THEN b ELSE (c + 1))`},
		{`IF a THEN b ELSE c /\ d`, `(IF a THEN b ELSE (c /\ d))`},
		{`x = IF a THEN 1 ELSE 2`, `(x = (IF a THEN 1 ELSE 2))`},
		{`LET a == 1 IN a + 1`, `(LET a == 1 IN (a + 1))`},
		// User-definable infix symbols.
		{`a ++ b ** c`, `(a ++ (b ** c))`},
		{`a (+) b (-) c`, `(a (+) (b (-) c))`},
		{`a \prec b`, `(a \prec b)`},
		{`a \sqsubseteq b \sqcup c`, `(a \sqsubseteq (b \sqcup c))`},
		{`a || b && c`, `(a || (b && c))`},
		{`a $$ b ?? c`, `((a $$ b) ?? c)`},
		{`a |- b`, `(a |- b)`},
		{`a := b`, `(a := b)`},
		{`a ::= b`, `(a ::= b)`},
		{`a <: b`, `(a <: b)`},
		{`a // b`, `(a // b)`},
		{`a %% b`, `(a %% b)`},
		{`a ^^ b`, `(a ^^ b)`},
		{`a ## b`, `(a ## b)`},
		{`a !! b`, `(a !! b)`},
		{`a & b`, `(a & b)`},
		{`a | b`, `(a | b)`},
		{`a -- b`, `(a -- b)`},
		{`a ... b`, `(a ... b)`},
		{`a \wr b`, `(a \wr b)`},
		{`a \bullet b \star c`, `((a \bullet b) \star c)`},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, parsed(t, c.src), "source: %s", c.src)
	}
}

func TestSynonymsAreCanonical(t *testing.T) {
	cases := []struct{ src, want string }{
		{`a \union b`, `(a \cup b)`},
		{`a \intersect b`, `(a \cap b)`},
		{`a <= b`, `(a =< b)`},
		{`a \leq b`, `(a =< b)`},
		{`a \geq b`, `(a >= b)`},
		{`a /= b`, `(a # b)`},
		{`\lnot a`, `(~a)`},
		{`\neg a`, `(~a)`},
		{`a \land b`, `(a /\ b)`},
		{`a \lor b`, `(a \/ b)`},
		{`a \equiv b`, `(a <=> b)`},
		{`f \circ g`, `(f \o g)`},
		{`a \oplus b`, `(a (+) b)`},
		{`a \ominus b`, `(a (-) b)`},
		{`a \odot b`, `(a (.) b)`},
		{`a \oslash b`, `(a (/) b)`},
		{`a \otimes b`, `(a (\X) b)`},
		{`a ≤ b ∧ x ∈ S`, `((a =< b) /\ (x \in S))`},
		{`∀ x ∈ S : ⟨x⟩ ≠ ⟨⟩`, `(\A x \in S : (<<x>> # <<>>))`},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, parsed(t, c.src), "source: %s", c.src)
	}
	e, err := ParseExpr("e.tla", `a \union b`)
	require.NoError(t, err)
	app, ok := e.(*OpApp)
	require.True(t, ok)
	assert.Equal(t, `\cup`, app.Name)
	e, err = ParseExpr("e.tla", `-x`)
	require.NoError(t, err)
	assert.Equal(t, "-.", e.(*OpApp).Name)
}

func TestConstructs(t *testing.T) {
	cases := []struct{ src, want string }{
		{`<<>>`, `<<>>`},
		{`<<a, b + 1>>`, `<<a, (b + 1)>>`},
		{`{}`, `{}`},
		{`{1, 2, 3}`, `{1, 2, 3}`},
		{`{x \in S : x > 1}`, `{x \in S : (x > 1)}`},
		{`{<<a, b>> \in S \X T : a = b}`, `{<<a, b>> \in (S \X T) : (a = b)}`},
		{`{x \in S}`, `{(x \in S)}`},
		{`{x \in S /\ P, 2}`, `{((x \in S) /\ P), 2}`},
		{`{x, y \in S}`, `{x, (y \in S)}`},
		{`{<<a, b>> \in S}`, `{(<<a, b>> \in S)}`},
		{`{x \in S \cup T : x \in U}`, `{x \in (S \cup T) : (x \in U)}`},
		{`{x \in S : y \in T}`, `{x \in S : (y \in T)}`},
		{`{f(x) : x \in S}`, `{f(x) : x \in S}`},
		{`{x + y : x, y \in S, <<a, b>> \in T}`, `{(x + y) : x, y \in S, <<a, b>> \in T}`},
		{`[x \in S |-> x * 2]`, `[x \in S |-> (x * 2)]`},
		{`[x, y \in S, z \in T |-> x]`, `[x, y \in S, z \in T |-> x]`},
		{`[<<a, b>> \in S |-> a]`, `[<<a, b>> \in S |-> a]`},
		{`[S -> T]`, `[S -> T]`},
		{`[S -> [T -> U]]`, `[S -> [T -> U]]`},
		{`[a |-> 1, b |-> "x"]`, `[a |-> 1, b |-> "x"]`},
		{`[a : S, b : {1, 2}]`, `[a : S, b : {1, 2}]`},
		{`[f EXCEPT ![1] = 2]`, `[f EXCEPT ![1] = 2]`},
		{`[f EXCEPT ![a][b].c = @ + 1, !.d = @]`, `[f EXCEPT ![a][b].c = (@ + 1), !.d = @]`},
		{`[f EXCEPT ![a, b] = 0]`, `[f EXCEPT ![a, b] = 0]`},
		{`CHOOSE x \in S : x > 0`, `(CHOOSE x \in S : (x > 0))`},
		{`CHOOSE x : TRUE`, `(CHOOSE x : TRUE)`},
		{`CHOOSE <<a, b>> \in S : a < b`, `(CHOOSE <<a, b>> \in S : (a < b))`},
		{`\A x, y \in S, z \in T : P(x, y, z)`, `(\A x, y \in S, z \in T : P(x, y, z))`},
		{`\E <<a, b>> \in S : a = b`, `(\E <<a, b>> \in S : (a = b))`},
		{`\A x, y : x = y`, `(\A x, y : (x = y))`},
		{`\AA x : P(x)`, `(\AA x : P(x))`},
		{`\EE x, y : P`, `(\EE x, y : P)`},
		{`CASE a -> 1 [] b -> 2`, `(CASE a -> 1 [] b -> 2)`},
		{`CASE a -> 1 [] OTHER -> 3`, `(CASE a -> 1 [] OTHER -> 3)`},
		{"LET f[x \\in S] == x\n    g(a, F(_)) == F(a)\nIN g(f[1], h)", `(LET f[x \in S] == x g(a, F(_)) == F(a) IN g(f[1], h))`},
		{"LET RECURSIVE r(_)\n    r(n) == r(n - 1)\nIN r(3)", `(LET RECURSIVE r(_) r(n) == r((n - 1)) IN r(3))`},
		{`LET a ++ b == a + b IN 1 ++ 2`, `(LET a ++ b == (a + b) IN (1 ++ 2))`},
		{`LAMBDA x, y : x + y`, `(LAMBDA x, y : (x + y))`},
		{`F(+, LAMBDA x : x, -.)`, `F(+, (LAMBDA x : x), -.)`},
		{`M!Op`, `M!Op`},
		{`M!Op(1, 2)`, `M!Op(1, 2)`},
		{`M(x)!N!Op(y)`, `M(x)!N!Op(y)`},
		{`Inv!2`, `Inv!2`},
		{`Thm!:`, `Thm!:`},
		{`F(x)!1!<<`, `F(x)!1!<<`},
		{`<<A>>_v`, `<<A>>_v`},
		{`[A]_<<x, y>>`, `[A]_<<x, y>>`},
		{`WF_vars(Next)`, `WF_vars(Next)`},
		{`SF_<<x, y>>(A \/ B)`, `SF_<<x, y>>((A \/ B))`},
		{`WF_M!vars(A)`, `WF_M!vars(A)`},
		{`lbl:: x + 1`, `(lbl:: (x + 1))`},
		{`lbl(a, b):: a`, `(lbl(a, b):: a)`},
		{`TRUE /\ FALSE`, `(TRUE /\ FALSE)`},
		{`x \in BOOLEAN \cup STRING`, `(x \in (BOOLEAN \cup STRING))`},
		{`1.5 + 2`, `(1.5 + 2)`},
		{`\h1F + \b101 + \o17 + \H1f`, `(((31 + 5) + 15) + 31)`},
		{`"a\"b\\c\n\t"`, `"a\"b\\c\n\t"`},
		{`1a + a1 + _b`, `((1a + a1) + _b)`},
		{`(* comment (* nested *) *) x \* trailing`, `x`},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, parsed(t, c.src), "source: %s", c.src)
	}
}

func TestNodeShapes(t *testing.T) {
	e, err := ParseExpr("e.tla", `[f EXCEPT ![a][b].c = @]`)
	require.NoError(t, err)
	ex := e.(*Except)
	require.Len(t, ex.Updates, 1)
	path := ex.Updates[0].Path
	require.Len(t, path, 3)
	assert.Equal(t, "a", path[0].Index[0].String())
	assert.Equal(t, "c", path[2].Field)
	assert.Nil(t, path[2].Index)
	assert.IsType(t, &At{}, ex.Updates[0].Value)

	e, err = ParseExpr("e.tla", `\E x, y \in S, <<a, b>> \in T : TRUE`)
	require.NoError(t, err)
	q := e.(*Quant)
	assert.False(t, q.Forall)
	require.Len(t, q.Bounds, 2)
	assert.Equal(t, []string{"x", "y"}, q.Bounds[0].Names)
	assert.False(t, q.Bounds[0].Tuple)
	assert.Equal(t, []string{"a", "b"}, q.Bounds[1].Names)
	assert.True(t, q.Bounds[1].Tuple)

	e, err = ParseExpr("e.tla", `M(1)!N!Op(2)`)
	require.NoError(t, err)
	app := e.(*OpApp)
	assert.Equal(t, "Op", app.Name)
	require.Len(t, app.Path, 2)
	assert.Equal(t, "M", app.Path[0].Name)
	assert.Len(t, app.Path[0].Args, 1)
	assert.Equal(t, "N", app.Path[1].Name)

	e, err = ParseExpr("e.tla", "x +\n  \\b11")
	require.NoError(t, err)
	n := e.(*OpApp).Args[1].(*Number)
	assert.Equal(t, int64(3), n.Value)
	assert.Equal(t, `\b11`, n.Text)
	assert.Equal(t, Pos{File: "e.tla", Line: 2, Col: 3}, n.Pos)

	e, err = ParseExpr("e.tla", `1.25`)
	require.NoError(t, err)
	assert.Equal(t, "1.25", e.(*Decimal).Text)

	e, err = ParseExpr("e.tla", `"é" = x`)
	require.NoError(t, err)
	assert.Equal(t, 7, e.(*OpApp).Args[1].Position().Col, "columns count runes")
}
