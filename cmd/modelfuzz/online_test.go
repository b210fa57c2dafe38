package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/campaign"
	"github.com/modelfuzz/modelfuzz/corpus"
)

// An online strategy finds the micro-benchmark's bug, reports the
// quantities of its guarantee, and its reproducer replays byte for byte
// and is minimized like any other.
func TestOnlineStrategyFindsReplaysAndMinimizes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	mb := []string{"--adapter", "microbench", "--inject", "flush-before-last", "--workers", "3", "--tasks", "5"}
	res := modelfuzz(t, append([]string{"run", "--strategy", "tapct", "--depth", "2", "--iterations", "400", "--stop-on-bug",
		"--seed", "1", "--json", "--corpus", dir}, mb...)...)
	require.Equal(t, 0, res.code, res.stderr)
	r := lastJSON(t, res.stdout)
	require.Equal(t, "tapct", r.Strategy)
	require.Len(t, r.Bugs, 1)
	require.Contains(t, r.Bugs[0].Signature, "flush processed right before the last execute")
	var online struct {
		Online []struct {
			Name  string  `json:"name"`
			Value float64 `json:"value"`
		} `json:"online"`
	}
	lines := strings.Split(strings.TrimSpace(res.stdout), "\n")
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &online))
	names := map[string]float64{}
	for _, q := range online.Online {
		names[q.Name] = q.Value
	}
	for _, want := range []string{"chains max", "labelled events max", "analysis n^ (racy events)", "bound 1/(C·N^(d-1))"} {
		require.Contains(t, names, want)
	}
	require.Equal(t, 2.0, names["depth d"])

	a := modelfuzz(t, "replay", "--corpus", dir, "--json", "--original", r.Bugs[0].ID)
	b := modelfuzz(t, "replay", "--corpus", dir, "--json", "--original", r.Bugs[0].ID)
	require.Equal(t, exitFailed, a.code, a.stderr)
	require.Equal(t, a.stdout, b.stdout)
	m := modelfuzz(t, "replay", "--corpus", dir, r.Bugs[0].ID)
	require.Contains(t, m.stdout, "FAILURE at step")
	require.Equal(t, exitFailed, m.code, m.stderr)
	exp := filepath.Join(t.TempDir(), "exp")
	require.Equal(t, 0, modelfuzz(t, "corpus", "export", "--corpus", dir, "--out", exp).code)
	meta, err := os.ReadFile(filepath.Join(exp, "bugs", r.Bugs[0].ID+".meta.json"))
	require.NoError(t, err)
	require.Contains(t, string(meta), `"MinimizedSteps"`)

	// Continuing needs the same parameters; the other strategies take none.
	res = modelfuzz(t, append([]string{"run", "--strategy", "tapct", "--depth", "3", "--iterations", "500", "--corpus", dir}, mb...)...)
	require.NotEqual(t, 0, res.code)
	require.Contains(t, res.stderr, "--depth 2 (not 3)")
	oneLineError(t, modelfuzz(t, append([]string{"run", "--strategy", "trace", "--depth", "2", "--corpus", filepath.Join(t.TempDir(), "d")}, mb...)...),
		"--depth, --timeouts, --race-runs, --period, --isolations, --rounds and --faults are for the online strategies")
	oneLineError(t, modelfuzz(t, append([]string{"run", "--strategy", "rounds", "--isolations", "2", "--corpus", filepath.Join(t.TempDir(), "e")}, mb...)...),
		"system microbench cannot drop messages")
}

// compare runs the online strategies next to the others, seed for seed.
func TestCompareWithOnlineStrategies(t *testing.T) {
	out := filepath.Join(t.TempDir(), "cmp")
	res := modelfuzz(t, "compare", "--adapter", "microbench", "--workers", "3", "--tasks", "5", "--inject", "flush-before-last",
		"--strategies", "random,pctcp,rounds", "--base", "random", "--runs", "2", "--iterations", "300", "--stop-on-bug", "--out", out)
	require.Equal(t, 0, res.code, res.stderr)
	var c struct {
		Strategies []struct {
			Name string `json:"name"`
			Runs []struct {
				FirstBug    *int64   `json:"first_bug"`
				CPUSeconds  float64  `json:"cpu_seconds"`
				FirstBugCPU *float64 `json:"first_bug_cpu_seconds"`
			} `json:"runs"`
		} `json:"strategies"`
		Tests []struct {
			Measure string `json:"measure"`
		} `json:"tests"`
	}
	data, err := os.ReadFile(filepath.Join(out, "results.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &c))
	require.Len(t, c.Strategies, 3)
	for _, s := range c.Strategies {
		require.Len(t, s.Runs, 2, s.Name)
		for _, r := range s.Runs {
			require.Greater(t, r.CPUSeconds, 0.0, "every campaign's CPU seconds, from its process's rusage")
			// Stopped at its first bug: the CPU to it is the campaign's.
			require.Equal(t, r.FirstBug != nil, r.FirstBugCPU != nil)
			if r.FirstBugCPU != nil {
				require.Equal(t, r.CPUSeconds, *r.FirstBugCPU)
			}
		}
		if s.Name == "pctcp" {
			for _, r := range s.Runs {
				require.NotNil(t, r.FirstBug, "pctcp finds the shallow bug (n = 5) within 300 executions")
			}
		}
	}
	measures := map[string]bool{}
	for _, x := range c.Tests {
		measures[x.Measure] = true
	}
	require.True(t, measures["first bug"] && measures["first bug (CPU s)"] && measures["final traces per CPU s"], "%v", measures)
	require.Contains(t, res.stdout, "median CPU")
}

// A continued online campaign keeps its own --faults; one stored before
// the harness injected faults (no faults in its settings) is read as
// --faults -1, as it ran, and continues without the flag.
func TestOnlineCampaignKeepsItsFaults(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	er := []string{"--adapter", "etcdraft", "--strategy", "pos", "--seed", "1", "--corpus", dir}
	run := func(extra ...string) result {
		return modelfuzz(t, append(append([]string{"run"}, er...), extra...)...)
	}
	res := run("--iterations", "20", "--faults", "3")
	require.Equal(t, 0, res.code, res.stderr)
	res = run("--iterations", "40")
	require.Equal(t, 0, res.code, res.stderr)
	oneLineError(t, run("--iterations", "60", "--faults", "1"), "--faults 3 (not 1)")

	// As a campaign stored before --faults existed.
	store, err := corpus.Open(dir, corpus.Options{})
	require.NoError(t, err)
	var s campaign.Settings
	found, err := store.Campaign(&s)
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, 3, s.Faults)
	s.Faults = 0
	require.NoError(t, store.SetCampaign(&s))
	require.NoError(t, store.Close())
	res = run("--iterations", "60")
	require.Equal(t, 0, res.code, res.stderr)
	oneLineError(t, run("--iterations", "80", "--faults", "2"), "--faults -1 (not 2)")
}

// model-pctcp is model guidance whose fresh inputs PCTCP builds: it keeps
// inputs by the model's states, reports PCTCP's quantities, finds the
// micro-benchmark's bug, and its bug replays.
func TestModelSeededStrategy(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	res := modelfuzz(t, "run", "--model", "microbench.tla", "--tlc", "inproc", "--inject", "flush-before-last", "--workers", "3", "--tasks", "5",
		"--strategy", "model-pctcp", "--iterations", "400", "--stop-on-bug", "--seed", "1", "--json", "--corpus", dir)
	require.Equal(t, 0, res.code, res.stderr)
	r := lastJSON(t, res.stdout)
	require.Equal(t, "model-pctcp", r.Strategy)
	require.Len(t, r.Bugs, 1)
	require.Greater(t, r.CorpusSize, 0, "inputs that reach new model states are kept")
	require.Contains(t, res.stdout, `"analysis n (events)"`)
	a := modelfuzz(t, "replay", "--corpus", dir, "--original", r.Bugs[0].ID)
	require.Equal(t, exitFailed, a.code, a.stderr)
}
