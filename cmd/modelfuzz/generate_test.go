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

// --strategy generated: the session starts with the generated inputs,
// whose executions count as iterations; the seeded bug is found by one
// of them, run first. Its flags belong to it alone.
func TestStrategyGenerated(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "g")
	res := modelfuzz(t, "run", "--adapter", "microbench", "--workers", "2", "--tasks", "3", "--inject", "flush-before-last",
		"--model", "microbench.tla", "--tlc", "inproc", "--strategy", "generated", "--generate-depth", "30", "--generate-const", "MaxRequests=1",
		"--iterations", "500", "--stop-on-bug", "--corpus", dir, "--minimize=false", "--json")
	require.Equal(t, 0, res.code, res.stderr)
	var sum struct {
		Strategy string `json:"strategy"`
		Bugs     []struct {
			Kind           string `json:"kind"`
			FirstIteration int    `json:"first_iteration"`
		} `json:"bugs"`
	}
	lines := strings.Split(strings.TrimSpace(res.stdout), "\n")
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &sum))
	require.Equal(t, "generated", sum.Strategy)
	require.Len(t, sum.Bugs, 1)
	require.Equal(t, "panic", sum.Bugs[0].Kind)
	// The generation's executions (one per abstract state of the search:
	// a new campaign has reached none), then the first import: the bug's
	// input.
	var g struct{ Abstract int }
	res = modelfuzz(t, "generate", "--corpus", filepath.Join(t.TempDir(), "none"), "--max-depth", "3")
	require.NotEqual(t, 0, res.code)
	fresh := filepath.Join(t.TempDir(), "f")
	res = modelfuzz(t, "run", "--adapter", "microbench", "--workers", "2", "--tasks", "3", "--model", "microbench.tla", "--tlc", "inproc",
		"--iterations", "1", "--corpus", fresh)
	require.Equal(t, 0, res.code, res.stderr)
	res = modelfuzz(t, "generate", "--corpus", fresh, "--max-depth", "30", "--const", "MaxRequests=1", "--json")
	require.Equal(t, 0, res.code, res.stderr)
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &g))
	require.Equal(t, g.Abstract+1, sum.Bugs[0].FirstIteration)

	res = modelfuzz(t, "run", "--adapter", "microbench", "--model", "microbench.tla", "--strategy", "model", "--generate-depth", "5",
		"--iterations", "5", "--corpus", filepath.Join(t.TempDir(), "x"))
	require.NotEqual(t, 0, res.code)
	require.Contains(t, res.stderr, "--strategy generated")
	require.Equal(t, 1, strings.Count(strings.TrimSpace(res.stderr), "\n")+1, "one line: %s", res.stderr)
}
