package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// illFormed is a spec TLC's front end (SANY) or TLC rejects, with what the
// real TLC (tla2tools.jar at cc6b616) printed and its exit code, recorded
// from java -cp tla2tools.jar tlc2.TLC -workers 1 -config M.cfg M.tla.
type illFormed struct {
	name  string
	file  string            // the spec's file name, without .tla
	src   string            // the spec
	extra map[string]string // other modules, by file name
	cfg   string
	// TLC's exit code and the line of its message that names the error;
	// ours must say the same words.
	code int
	tlc  string
	// ours, when it is not TLC's line word for word: the class of error
	// is the same (the exit code says it), the words are the engine's.
	ours string
}

var illFormedSpecs = []illFormed{
	{name: "module name differs from its file", file: "Wrong",
		src:  "---- MODULE Other ----\nVARIABLE x\nInit == x = 0\nNext == x' = x\n====\n",
		code: 150, tlc: "File name 'Wrong' does not match the name 'Other' of the top level module it contains."},
	{name: "duplicate definition", file: "Dup",
		src:  "---- MODULE Dup ----\nVARIABLE x\nInit == x = 0\nInit == x = 1\nNext == x' = x\n====\n",
		code: 150, tlc: "Operator Init already defined or declared."},
	{name: "definition of a declared variable", file: "DupVar",
		src:  "---- MODULE DupVar ----\nVARIABLE x\nx == 1\nInit == x = 0\nNext == x' = x\n====\n",
		code: 150, tlc: "Operator x already defined or declared."},
	{name: "definition clashing with an extended module's", file: "DupExt",
		src:   "---- MODULE DupExt ----\nEXTENDS DupBase\nInit == x = 0\nNext == x' = x\n====\n",
		extra: map[string]string{"DupBase": "---- MODULE DupBase ----\nVARIABLE x\nInit == x = 1\n====\n"},
		code:  150, tlc: "Operator Init already defined or declared."},
	{name: "undefined name", file: "Undef",
		src:  "---- MODULE Undef ----\nVARIABLE x\nInit == x = y\nNext == x' = x\n====\n",
		code: 150, tlc: "Unknown operator: `y'.", ours: `unknown operator "y"`},
	{name: "recursion without RECURSIVE", file: "Rec",
		src:  "---- MODULE Rec ----\nEXTENDS Naturals\nVARIABLE x\nF(n) == IF n = 0 THEN 0 ELSE F(n - 1)\nInit == x = F(3)\nNext == x' = x\n====\n",
		code: 150, tlc: "Unknown operator: `F'."},
	{name: "use of a definition below", file: "Below",
		src:  "---- MODULE Below ----\nVARIABLE x\nInit == x = Zero\nZero == 0\nNext == x' = x\n====\n",
		code: 150, tlc: "Unknown operator: `Zero'."},
	{name: "temporal formula used as an action", file: "Temporal",
		src:  "---- MODULE Temporal ----\nEXTENDS Naturals\nVARIABLE x\nInit == x = 0\nNext == x' = x /\\ [](x = 0)\n====\n",
		code: 150, tlc: "\\land has both temporal formula and action as arguments."},
	{name: "action in an invariant", file: "ActInv",
		src:  "---- MODULE ActInv ----\nEXTENDS Naturals\nVARIABLE x\nInit == x = 0\nNext == x' = x\nInv == x' = x\n====\n",
		cfg:  "INVARIANT Inv\n",
		code: 76, tlc: "The invariant Inv is not a state predicate (one with no primes or temporal operators)."},
	{name: "state function where a constant is required", file: "AssumeVar",
		src:  "---- MODULE AssumeVar ----\nEXTENDS Naturals\nVARIABLE x\nASSUME x = 0\nInit == x = 0\nNext == x' = x\n====\n",
		code: 150, tlc: "Level error: assumptions must be level 0 (Constant)"},
	{name: "operator applied to too few arguments", file: "Arity",
		src:  "---- MODULE Arity ----\nVARIABLE x\nF(a, b) == a\nInit == x = F(1)\nNext == x' = x\n====\n",
		code: 150, tlc: "The operator F requires 2 arguments.", ours: "operator F takes 2 argument(s), got 1"},
}

// wellFormed are specs SANY accepts that a stricter reading might reject:
// TLC checks them (recorded as above) and so must we.
var wellFormed = []illFormed{
	{name: "a primed constant (TLC accepts it)", file: "PrimeConst",
		src:  "---- MODULE PrimeConst ----\nEXTENDS Naturals\nCONSTANT N\nVARIABLE x\nInit == x = 0\nNext == x' = N'\n====\n",
		cfg:  "CONSTANT N = 1\n",
		code: 0},
	{name: "RECURSIVE operator", file: "RecOk",
		src:  "---- MODULE RecOk ----\nEXTENDS Naturals\nVARIABLE x\nRECURSIVE F(_)\nF(n) == IF n = 0 THEN 0 ELSE F(n - 1)\nInit == x = F(3)\nNext == x' = x\n====\n",
		code: 0},
	{name: "recursive function definition", file: "FunRec",
		src:  "---- MODULE FunRec ----\nEXTENDS Naturals\nVARIABLE x\nf[n \\in 0..3] == IF n = 0 THEN 0 ELSE f[n - 1]\nInit == x = f[3]\nNext == x' = x\n====\n",
		code: 0},
}

func writeCase(t *testing.T, c illFormed) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, c.file+".tla"), []byte(c.src), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, c.file+".cfg"), []byte("INIT Init\nNEXT Next\n"+c.cfg), 0o644))
	for name, src := range c.extra {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name+".tla"), []byte(src), 0o644))
	}
	return dir
}

// TestIllFormedSpecs checks that each spec TLC rejects is rejected with
// TLC's exit code and its words, before any state is computed, and that
// the specs TLC accepts are checked.
func TestIllFormedSpecs(t *testing.T) {
	for _, c := range append(append([]illFormed(nil), illFormedSpecs...), wellFormed...) {
		t.Run(c.name, func(t *testing.T) {
			dir := writeCase(t, c)
			res := tlcIn(t, dir, "tlc", "check", "-workers", "1", c.file)
			require.Equal(t, c.code, res.code, res.stdout+res.stderr)
			if c.code == 0 {
				return
			}
			want := c.tlc
			if c.ours != "" {
				want = c.ours
			}
			oneLineError(t, res, want)
			assert.NotContains(t, res.stdout, "Computing initial states", "rejected before the search")
		})
	}
}

// TestIllFormedSpecsAgainstTLC runs the same specs through the real TLC,
// when it is beside the repository, to keep the recorded expectations
// true.
func TestIllFormedSpecsAgainstTLC(t *testing.T) {
	jar := realTLC(t)
	for _, c := range append(append([]illFormed(nil), illFormedSpecs...), wellFormed...) {
		t.Run(c.name, func(t *testing.T) {
			dir := writeCase(t, c)
			cmd := exec.Command("java", "-XX:+UseParallelGC", "-cp", jar, "tlc2.TLC", "-workers", "1", "-config", c.file+".cfg", c.file+".tla")
			cmd.Dir = dir
			out, _ := cmd.CombinedOutput()
			require.Equal(t, c.code, cmd.ProcessState.ExitCode(), string(out))
			if c.code != 0 {
				assert.Contains(t, strings.Join(strings.Fields(string(out)), " "), c.tlc)
			}
		})
	}
}
