package stdlib

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/tlc/syntax"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

func TestRegistry(t *testing.T) {
	b, found := Lookup("Sequences", "Len")
	require.True(t, found)
	assert.Equal(t, "Sequences", b.Module)
	assert.Equal(t, 1, b.Arity)

	_, found = Lookup("Sequences", "Nat")
	assert.False(t, found, "Lookup does not follow EXTENDS")
	_, found = Lookup("NoSuchModule", "Len")
	assert.False(t, found)

	assert.True(t, IsModule("TLAPS"))
	assert.True(t, IsModule("NaturalsInduction"))
	assert.True(t, IsModule("SequencesExt"))
	assert.False(t, IsModule("Paxos"))
	assert.Empty(t, Operators("TLAPS"))
	assert.Nil(t, Operators("Paxos"))

	assert.Equal(t, []string{"Naturals"}, Extends("Integers"))
	assert.Equal(t, []string{"Integers", "Naturals"}, Extends("Reals"))
	assert.Empty(t, Extends("Sequences"), "Sequences instantiates Naturals LOCALly")
	assert.Empty(t, Extends("Naturals"))
	assert.Nil(t, Extends("Paxos"))
	ext := Extends("SequencesExt")
	for _, m := range []string{"Sequences", "Naturals", "FiniteSets", "FiniteSetsExt", "Folds", "Functions", "Bags", "TLC"} {
		assert.Contains(t, ext, m)
	}
	assert.Equal(t, []string{"Integers", "Folds", "Naturals"}, Extends("Functions"))
	assert.Equal(t, []string{"Integers", "FiniteSets", "Folds", "Functions", "Naturals"}, Extends("FiniteSetsExt"),
		"FiniteSetsExt extends Folds and Functions today: Range is in scope")
	assert.Contains(t, Extends("NaturalsInduction"), "Naturals")

	ops := Operators("Sequences")
	names := make([]string, len(ops))
	for i, o := range ops {
		names[i] = o.Name
	}
	assert.True(t, sort.StringsAreSorted(names))
	assert.Equal(t, []string{"Append", "Head", "Len", "SelectSeq", "Seq", "SubSeq", "Tail", `\o`}, names)
}

// Every module and Extends target is declared, every builtin is
// consistent, and every standard module of the parser is provided.
func TestRegistryConsistency(t *testing.T) {
	for _, m := range Modules() {
		for _, e := range Extends(m) {
			assert.True(t, IsModule(e), "%s extends unknown %s", m, e)
		}
		for _, b := range Operators(m) {
			assert.Equal(t, m, b.Module)
			assert.NotNil(t, b.Fn)
			for _, i := range b.OpParams {
				assert.True(t, i >= 0 && i < b.Arity, "%s!%s", m, b.Name)
			}
			assert.NotEmpty(t, b.Name)
		}
	}
	for _, m := range syntax.StandardModules() {
		assert.True(t, IsModule(m), "parser treats %s as built in", m)
	}
}

// Canonical operator names match the parser's.
func TestCanonicalNames(t *testing.T) {
	for _, m := range Modules() {
		for _, b := range Operators(m) {
			if regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`).MatchString(b.Name) {
				continue
			}
			switch b.Arity {
			case 2:
				assert.True(t, syntax.IsInfixOp(b.Name), "%s!%s is not an infix operator of the parser", m, b.Name)
				assert.Equal(t, b.Name, syntax.CanonicalOp(b.Name))
			case 1:
				assert.True(t, syntax.IsPrefixOp(b.Name), "%s!%s", m, b.Name)
			default:
				t.Errorf("%s!%s: symbolic operator of arity %d", m, b.Name, b.Arity)
			}
		}
	}
	for _, syn := range []string{`\oplus`, `\ominus`, `<=`, `\leq`, `\geq`, `\circ`} {
		c := syntax.CanonicalOp(syn)
		found := false
		for _, m := range Modules() {
			if _, ok := Lookup(m, c); ok {
				found = true
			}
		}
		assert.True(t, found, "%s (canonical %s) is not provided", syn, c)
	}
}

// The guard checks argument counts and kinds and turns panics into errors.
func TestGuard(t *testing.T) {
	b, _ := Lookup("Sequences", "Len")
	_, err := b.Fn(nil, nil)
	assert.EqualError(t, err, "Len: expected 1 arguments, got 0")
	_, err = b.Fn(nil, []Arg{{}})
	assert.EqualError(t, err, "Len: argument has no value")

	b, _ = Lookup("Sequences", "SelectSeq")
	_, err = b.Fn(nil, []Arg{{V: T()}, {V: value.True}})
	assert.EqualError(t, err, "SelectSeq: second argument must be an operator")
	assert.True(t, b.IsOpParam(1))
	assert.False(t, b.IsOpParam(0))

	// An Op that panics: the builtin reports an error instead.
	boom := op1f(func(value.Value) (value.Value, error) { panic("kaboom") })
	_, err = b.Fn(nil, []Arg{{V: T(1)}, {Op: boom}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "internal error")

	// Wrong operator arity.
	_, err = b.Fn(nil, []Arg{{V: T(1)}, {Op: plusOp}})
	assert.EqualError(t, err, "SelectSeq: second argument must be an operator of 1 arguments, but it takes 2")
}

// Every operator the conformance specs use from the standard and community
// modules exists. The list was made by grepping the specs of
// /work/shared/tla-examples; when that directory is present, the test also
// checks that each spec's EXTENDS names only modules that exist (here or in
// the spec's directory).
func TestConformanceOperators(t *testing.T) {
	used := map[string][]string{
		"Naturals":      {"Nat", "+", "-", "*", "^", "<", ">", "=<", ">=", `\div`, "%", ".."},
		"Integers":      {"Int", "-."},
		"Sequences":     {"Seq", "Len", `\o`, "Append", "Head", "Tail", "SubSeq", "SelectSeq"},
		"FiniteSets":    {"IsFiniteSet", "Cardinality"},
		"TLC":           {"Print", "PrintT", "Assert", "TLCGet", "TLCSet", "Permutations", ":>", "@@", "ToString", "RandomElement", "JavaTime"},
		"TLCExt":        {"Trace"},
		"Json":          {"JsonSerialize"},
		"SequencesExt":  {"RemoveAt", "ToSet", "SetToSeq", "Front", "IsStrictPrefix", "LongestCommonPrefix", "BoundedSeq", "Remove"},
		"FiniteSetsExt": {"Max", "Min", "FoldSet"},
		"Functions":     {"Range", "AntiFunction", "FoldFunction", "FoldFunctionOnSet", "Restrict", "RestrictDomain", "RestrictValues", "IsInjective", "Inverse", "Injection", "Surjection", "Bijection", "ExistsInjection", "ExistsSurjection", "ExistsBijection", "SumFunction", "SumFunctionOnSet"},
		"Folds":         {"MapThenFoldSet"},
		"Bags":          {"EmptyBag", "SetToBag"},
		"BagsExt":       {"BagAdd", "BagRemove"},
		"Randomization": {"RandomSubset"},
		"IOUtils":       {"IOEnv", "atoi"},
	}
	for m, names := range used {
		for _, n := range names {
			_, found := Lookup(m, n)
			assert.True(t, found, "%s!%s", m, n)
		}
	}

	const dir = "/work/shared/tla-examples/specifications"
	if _, err := os.Stat(dir); err != nil {
		t.Skip("conformance specs not present")
	}
	extends := regexp.MustCompile(`(?m)^\s*EXTENDS\s+([\w\s,]+?)\s*$`)
	err := filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || !strings.HasSuffix(path, ".tla") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range extends.FindAllStringSubmatch(string(data), -1) {
			for _, name := range strings.Split(m[1], ",") {
				name = strings.TrimSpace(name)
				if name == "" || !syntax.IsStandardModule(name) {
					continue
				}
				assert.True(t, IsModule(name), "%s extends %s", path, name)
			}
		}
		return nil
	})
	require.NoError(t, err)
}
