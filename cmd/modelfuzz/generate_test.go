package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// generate on a stored campaign: the states its search finds and the
// campaign reached are recognized as such (the keys are the campaign's:
// a complete search of the small micro-benchmark's model meets every
// state a campaign within its bounds reaches), the schedules reach some
// of the others, find the seeded bug, and --out writes them for import.
// Bad flags are one line each, and a campaign without a model is refused.
func TestGenerateFromACampaign(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	res := modelfuzz(t, "run", "--adapter", "microbench", "--workers", "2", "--tasks", "3", "--inject", "flush-before-last",
		"--model", "microbench.tla", "--tlc", "inproc", "--iterations", "150", "--requests", "2", "--corpus", dir, "--minimize=false", "--json")
	require.Contains(t, []int{0, 3}, res.code, res.stderr)
	var sum struct {
		Coverage map[string]int `json:"coverage"`
	}
	lines := strings.Split(strings.TrimSpace(res.stdout), "\n")
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &sum))

	out := filepath.Join(t.TempDir(), "gen")
	res = modelfuzz(t, "generate", "--corpus", dir, "--max-depth", "40", "--json", "--out", out)
	require.Equal(t, 0, res.code, res.stderr)
	var g struct {
		Abstract, Covered, Targets, Tried, Reached int
		Complete                                   bool
		Bugs                                       []struct{ Kind string }
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &g))
	require.True(t, g.Complete)
	require.Equal(t, sum.Coverage["model"], g.Covered)
	require.Equal(t, g.Abstract-g.Covered, g.Targets, "every state the campaign reached is one of the search's")
	require.Equal(t, g.Targets, g.Tried)
	require.Greater(t, g.Reached, 0)
	require.NotEmpty(t, g.Bugs)
	files, err := os.ReadDir(out)
	require.NoError(t, err)
	require.Len(t, files, g.Reached)

	res = modelfuzz(t, "generate", "--corpus", dir, "--max-depth", "40")
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, "unreached targets by the variables")

	for _, bad := range [][]string{{"--max-depth", "0"}, {"--max-depth", "3", "--limit", "-1"}} {
		res = modelfuzz(t, append([]string{"generate", "--corpus", dir}, bad...)...)
		require.NotEqual(t, 0, res.code)
		require.Equal(t, 1, strings.Count(strings.TrimSpace(res.stderr), "\n")+1, "one line: %s", res.stderr)
	}
	plain := filepath.Join(t.TempDir(), "p")
	res = modelfuzz(t, "run", "--adapter", "microbench", "--iterations", "5", "--corpus", plain)
	require.Equal(t, 0, res.code, res.stderr)
	res = modelfuzz(t, "generate", "--corpus", plain, "--max-depth", "5")
	require.NotEqual(t, 0, res.code)
	require.Contains(t, res.stderr, "without a model")
}
