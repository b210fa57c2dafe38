package semantic_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/tlc/semantic"
	"github.com/modelfuzz/modelfuzz/tlc/syntax"
)

// examplesDir is the conformance suite (tlaplus/Examples with TLC's counts)
// beside the repository.
const examplesDir = "../../../shared/tla-examples"

// checkFile parses path and checks it as TLC's front end would.
func checkFile(t *testing.T, path string) error {
	t.Helper()
	ld := syntax.NewLoader(filepath.Dir(path))
	m, err := ld.LoadFile(path)
	require.NoError(t, err, path)
	_, err = semantic.Check(ld, m)
	return err
}

// TestSuiteSpecsAccepted checks that every spec TLC checks in the
// conformance suite passes the rules TLC's front end applies.
func TestSuiteSpecsAccepted(t *testing.T) {
	f, err := os.Open(filepath.Join(examplesDir, "cases.tsv"))
	if err != nil {
		t.Skipf("conformance suite not found (%v): it lives in ../shared/tla-examples beside the repository", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	n := 0
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) < 2 {
			continue
		}
		n++
		assert.NoError(t, checkFile(t, filepath.Join(examplesDir, cols[1])), cols[1])
	}
	assert.Positive(t, n)
}

// TestRepositorySpecsAccepted checks the same of the engine's own test
// specs (those meant to load) and of the models.
func TestRepositorySpecsAccepted(t *testing.T) {
	var paths []string
	for _, pat := range []string{"../check/testdata/*.tla", "../cli/testdata/*.tla", "../testdata/*.tla", "../../models/*.tla"} {
		ps, err := filepath.Glob(pat)
		require.NoError(t, err)
		paths = append(paths, ps...)
	}
	require.NotEmpty(t, paths)
	for _, p := range paths {
		if strings.HasPrefix(filepath.Base(p), "Err") {
			continue // ill-formed on purpose
		}
		assert.NoError(t, checkFile(t, p), p)
	}
}
