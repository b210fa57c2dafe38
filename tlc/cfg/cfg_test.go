package cfg

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

func parse(t *testing.T, src string) *Config {
	t.Helper()
	c, err := Parse("test.cfg", []byte(src))
	require.NoError(t, err)
	return c
}

func names(ids []Ident) []string {
	var out []string
	for _, id := range ids {
		out = append(out, id.Name)
	}
	return out
}

func TestSingularKeywords(t *testing.T) {
	c := parse(t, `
INIT Init
NEXT Next
SPECIFICATION Spec
SYMMETRY Perms
VIEW View
ALIAS Alias
POSTCONDITION Post
TYPE_CONSTRAINT TC
`)
	assert.Equal(t, Ident{"Init", Pos{2, 6}}, c.Init)
	assert.Equal(t, "Next", c.Next.Name)
	assert.Equal(t, "Spec", c.Specification.Name)
	assert.Equal(t, "Perms", c.Symmetry.Name)
	assert.Equal(t, "View", c.View.Name)
	assert.Equal(t, "Alias", c.Alias.Name)
	assert.Equal(t, "Post", c.Postcondition.Name)
	assert.Equal(t, "TC", c.TypeConstraint.Name)
	assert.True(t, c.DeadlockCheck(), "deadlock is checked by default")
	assert.Nil(t, c.CheckDeadlock)
}

func TestListKeywordsAccumulate(t *testing.T) {
	c := parse(t, `
INVARIANT TypeOK
INVARIANTS Inv1 Inv2
  Inv3
PROPERTY P1 PROPERTIES P2
CONSTRAINT C1 CONSTRAINTS C2
ACTION_CONSTRAINT A1
ACTION_CONSTRAINTS A2 A3
INVARIANT Last
PROPERTIES
`)
	assert.Equal(t, []string{"TypeOK", "Inv1", "Inv2", "Inv3", "Last"}, names(c.Invariants))
	assert.Equal(t, []string{"P1", "P2"}, names(c.Properties))
	assert.Equal(t, []string{"C1", "C2"}, names(c.Constraints))
	assert.Equal(t, []string{"A1", "A2", "A3"}, names(c.ActionConstraints))
	assert.Equal(t, Pos{4, 3}, c.Invariants[3].Pos)
}

func TestCheckDeadlock(t *testing.T) {
	c := parse(t, "CHECK_DEADLOCK FALSE")
	assert.False(t, c.DeadlockCheck())
	c = parse(t, "CHECK_DEADLOCK\n  TRUE")
	assert.True(t, c.DeadlockCheck())
	require.NotNil(t, c.CheckDeadlock)
}

func TestConstants(t *testing.T) {
	c := parse(t, `
CONSTANTS
  N = 3
  M = -2
  S = {a, b, c}
  Q = {{a, b}, {}, {c}}
  Name = "node \"1\""
  Flag = TRUE
  None = None
  Nat <- NatOverride
  Ballot <-[Voting] MCBallot
  Acc = [Voting] {a}
  F(1, "x") = 7
  Inst!C = 1
  \prec <- MyPrec
CONSTANT a1=a1  a2=a2
`)
	ks := c.Constants
	require.Len(t, ks, 15)
	str := func(k Constant) string { return k.String() }
	assert.Equal(t, "N = 3", str(ks[0]))
	assert.Equal(t, value.IntOf(3), ks[0].Value)
	assert.Equal(t, Pos{3, 3}, ks[0].Pos)
	assert.Equal(t, "M = -2", str(ks[1]))
	assert.Equal(t, "S = {a, b, c}", str(ks[2]))
	a, ok := value.LookupModelValue("a")
	require.True(t, ok)
	in, err := value.Member(a, ks[2].Value)
	require.NoError(t, err)
	assert.True(t, in, "bare identifiers are model values")
	assert.Equal(t, "Q = {{}, {c}, {a, b}}", str(ks[3]))
	assert.Equal(t, value.Str(`node "1"`), ks[4].Value)
	assert.Equal(t, value.True, ks[5].Value)
	assert.Equal(t, "None = None", str(ks[6]))
	assert.Equal(t, value.KindModel, ks[6].Value.Kind())
	assert.Equal(t, Constant{Kind: Substitute, Name: "Nat", Subst: "NatOverride", Pos: Pos{10, 3}}, ks[7])
	assert.Equal(t, Constant{Kind: Substitute, Name: "Ballot", Module: "Voting", Subst: "MCBallot", Pos: Pos{11, 3}}, ks[8])
	assert.Equal(t, "Acc = [Voting] {a}", str(ks[9]))
	assert.Equal(t, `F(1, "x") = 7`, str(ks[10]))
	assert.Equal(t, "Inst!C = 1", str(ks[11]))
	assert.Equal(t, `\prec <- MyPrec`, str(ks[12]))
	assert.Equal(t, "a1 = a1", str(ks[13]))
	assert.Equal(t, "a2 = a2", str(ks[14]))
}

func TestModelValuesFollowFileOrder(t *testing.T) {
	c := parse(t, "CONSTANTS zz_first_mv = zz_first_mv  S = {zz_third_mv, zz_second_mv, zz_first_mv}")
	first := c.Constants[0].Value.(value.ModelValue)
	elems, err := value.Enumerate(c.Constants[1].Value)
	require.NoError(t, err)
	assert.Equal(t, first, elems[0])
	assert.Equal(t, "zz_third_mv", elems[1].String(), "model values sort by first appearance")
}

func TestComments(t *testing.T) {
	c := parse(t, `\* a line comment
(* a block (* nested *) comment
   INVARIANT Hidden *)
INVARIANT A \* B
  (* C *) D
`)
	assert.Equal(t, []string{"A", "D"}, names(c.Invariants))
}

func TestErrors(t *testing.T) {
	tests := []struct{ src, msg string }{
		{"INVARIANT A\nINVARIANTZ B", `test.cfg:2:1: unknown keyword "INVARIANTZ"`},
		{"FOO Bar", `test.cfg:1:1: unknown keyword "FOO"`},
		{"SPECIFICATION Spec\nSPECIFCATION Spec2", `test.cfg:2:1: unknown keyword "SPECIFCATION"`},
		{"CONSTANTS N = 1\nCONSTANTZ M = 2", `test.cfg:2:1: unknown keyword "CONSTANTZ"`},
		{"= 3", `test.cfg:1:1: expected a keyword such as SPECIFICATION or CONSTANT, found "="`},
		{"SPECIFICATION", "test.cfg:1:14: SPECIFICATION needs a name, found end of file"},
		{"SPECIFICATION INIT", `test.cfg:1:15: SPECIFICATION needs a name, found "INIT"`},
		{"SPECIFICATION A\nSPECIFICATION B", "test.cfg:2:1: SPECIFICATION given twice (first at line 1)"},
		{"CHECK_DEADLOCK FALSE CHECK_DEADLOCK TRUE", "test.cfg:1:22: CHECK_DEADLOCK given twice (first at line 1)"},
		{"CHECK_DEADLOCK maybe", `test.cfg:1:16: CHECK_DEADLOCK needs TRUE or FALSE, found "maybe"`},
		{"CONSTANT N 3", `test.cfg:1:12: expected "=" or "<-" after N, found "3"`},
		{"CONSTANT N =", "test.cfg:1:13: expected a value (a number, a string, TRUE, FALSE, a model value or a set), found end of file"},
		{"CONSTANT N = {1, 2", "test.cfg:1:14: set not closed"},
		{"CONSTANT N = {1 2}", `test.cfg:1:17: expected "," or "}" in a set, found "2"`},
		{"CONSTANT N = <<1, 2>>", "test.cfg:1:14: TLC does not accept tuples in a cfg file; define the value in a module and substitute it with <-"},
		{"CONSTANT N = 99999999999999999999", "test.cfg:1:14: number 99999999999999999999 out of range"},
		{"CONSTANT N = - x", `test.cfg:1:16: expected a number after "-", found "x"`},
		{"CONSTANT N <- 3", `test.cfg:1:15: expected the name of a definition after "<-", found "3"`},
		{"CONSTANT N <- [M MCN", `test.cfg:1:18: expected "]" after the module name M, found "MCN"`},
		{"CONSTANT F(1, 2 = 3", `test.cfg:1:17: expected "," or ")" in the arguments of F, found "="`},
		{"CONSTANT N = \"abc", "test.cfg:1:14: string not closed"},
		{"INVARIANT A, B", `test.cfg:1:12: INVARIANT lists names separated by spaces, found ","`},
		{"INVARIANT A (* open", "test.cfg:1:13: comment not closed"},
		{"INVARIANT A ; B", `test.cfg:1:13: unexpected character ';'`},
	}
	for _, tt := range tests {
		_, err := Parse("test.cfg", []byte(tt.src))
		require.Error(t, err, tt.src)
		assert.Equal(t, tt.msg, err.Error(), tt.src)
		assert.NotContains(t, err.Error(), "\n")
		var perr *Error
		assert.ErrorAs(t, err, &perr)
	}
}

func TestRoundTrip(t *testing.T) {
	src := `CONSTANTS N = 3 S = {p1, p2} Nat <- NatOverride B <- [V] MCB F("a") = -1
SPECIFICATION Spec
INVARIANTS TypeOK Inv
PROPERTIES Live
CONSTRAINT C
ACTION_CONSTRAINT AC
SYMMETRY Sym
VIEW V
ALIAS Al
CHECK_DEADLOCK FALSE
`
	c := parse(t, src)
	again := parse(t, c.String())
	assert.Equal(t, c.String(), again.String())
	assert.Len(t, again.Constants, 5)
	assert.False(t, again.DeadlockCheck())
}

// Every cfg of the TLA+ examples parses. The examples are conformance data
// kept outside the repository.
func TestExampleConfigs(t *testing.T) {
	root := filepath.Join("..", "..", "..", "shared", "tla-examples", "specifications")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("example specifications not found at %s: %v", root, err)
	}
	count := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".cfg") {
			return err
		}
		count++
		c, err := ParseFile(path)
		if !assert.NoError(t, err) {
			return nil
		}
		hasBehavior := c.Specification.Name != "" || c.Init.Name != "" && c.Next.Name != ""
		assert.True(t, hasBehavior, "%s names a specification", path)
		again, err := Parse(path, []byte(c.String()))
		if assert.NoError(t, err, "%s printed:\n%s", path, c) {
			assert.Equal(t, c.String(), again.String())
		}
		return nil
	})
	require.NoError(t, err)
	assert.Positive(t, count)
	t.Logf("parsed %d cfg files", count)
}

func TestExampleConfigContents(t *testing.T) {
	root := filepath.Join("..", "..", "..", "shared", "tla-examples", "specifications")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("example specifications not found at %s: %v", root, err)
	}
	c, err := ParseFile(filepath.Join(root, "Paxos", "MCPaxos.cfg"))
	require.NoError(t, err)
	assert.Equal(t, "MCSymmetry", c.Symmetry.Name)
	assert.Equal(t, []string{"Inv1", "Inv2", "Inv3", "Inv4"}, names(c.Invariants))
	var scoped []string
	for _, k := range c.Constants {
		if k.Module != "" {
			scoped = append(scoped, k.String())
		}
	}
	assert.Equal(t, []string{"Ballot <- [Voting] MCBallot"}, scoped)

	c, err = ParseFile(filepath.Join(root, "ewd998", "EWD998ChanID.cfg"))
	require.NoError(t, err)
	assert.Equal(t, "View", c.View.Name)
	assert.Equal(t, []string{"EWD998ChanStateConstraint"}, names(c.Constraints))
	assert.False(t, c.DeadlockCheck())
}
