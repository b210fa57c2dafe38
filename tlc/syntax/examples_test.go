package syntax

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// examplesDir holds the TLA+ examples repository (not part of this one).
const examplesDir = "../../../shared/tla-examples/specifications"

// exampleFiles lists every .tla file of the examples, or skips the test.
func exampleFiles(tb testing.TB) []string {
	tb.Helper()
	if _, err := os.Stat(examplesDir); err != nil {
		tb.Skipf("TLA+ examples not found at %s: %v", examplesDir, err)
	}
	var files []string
	err := filepath.WalkDir(examplesDir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".tla") {
			files = append(files, path)
		}
		return err
	})
	require.NoError(tb, err)
	if len(files) == 0 {
		tb.Skipf("no .tla files under %s", examplesDir)
	}
	return files
}

func TestParseAllExamples(t *testing.T) {
	files := exampleFiles(t)
	defs := 0
	for _, path := range files {
		rel, _ := filepath.Rel(examplesDir, path)
		t.Run(rel, func(t *testing.T) {
			mods, err := ParseFile(path)
			require.NoError(t, err)
			main := MainModule(path, mods)
			require.NotNil(t, main)
			assert.Equal(t, strings.TrimSuffix(filepath.Base(path), ".tla"), main.Name)
			for _, m := range mods {
				for _, u := range m.Units {
					if _, ok := u.(*OpDef); ok {
						defs++
					}
				}
			}
		})
	}
	t.Logf("parsed %d files, %d operator definitions", len(files), defs)
	assert.Greater(t, len(files), 100)
}

// TestExampleDetails pins the parse of a few well-known definitions.
func TestExampleDetails(t *testing.T) {
	exampleFiles(t)
	mods, err := ParseFile(filepath.Join(examplesDir, "TeachingConcurrency", "Simple.tla"))
	if os.IsNotExist(err) {
		t.Skip("Simple.tla not in this copy of the examples")
	}
	require.NoError(t, err)
	m := MainModule("Simple.tla", mods)
	found := map[string]string{}
	for _, u := range m.Units {
		if d, ok := u.(*OpDef); ok {
			found[d.Name] = d.Body.String()
		}
	}
	assert.Equal(t, `(Init /\ ([][Next]_vars))`, found["Spec"])
	assert.Equal(t, `((\E self \in (0 .. (N - 1)) : proc(self)) \/ Terminating)`, found["Next"])
	assert.Equal(t, `(/\ TypeOK /\ (\A i \in (0 .. (N - 1)) : ((pc[i] \in {"b", "Done"}) => (x[i] = 1))) `+
		`/\ (\/ (\E i \in (0 .. (N - 1)) : (pc[i] # "Done")) \/ (\E i \in (0 .. (N - 1)) : (y[i] = 1))))`, found["Inv"])
	var theorems []string
	for _, u := range m.Units {
		if th, ok := u.(*Theorem); ok {
			theorems = append(theorems, th.Name)
		}
	}
	assert.Equal(t, []string{"Correctness", "Correctness2"}, theorems, "proofs are skipped, theorems kept")
}
