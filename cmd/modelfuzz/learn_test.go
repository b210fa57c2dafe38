package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

type learnJSON struct {
	Coverage map[string]int `json:"coverage"`
	Online   []struct {
		Name  string  `json:"name"`
		Value float64 `json:"value"`
	} `json:"online"`
}

func learnRun(t *testing.T, args ...string) learnJSON {
	t.Helper()
	res := modelfuzz(t, args...)
	require.Equal(t, 0, res.code, res.stderr)
	lines := strings.Split(strings.TrimSpace(res.stdout), "\n")
	var out learnJSON
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &out))
	return out
}

func (l learnJSON) quantity(name string) float64 {
	for _, q := range l.Online {
		if q.Name == name {
			return q.Value
		}
	}
	return -1
}

// A learning campaign stopped and continued goes on from its stored
// Q-values: with one worker, 60 episodes and then 60 more reach exactly
// what 120 episodes in one session reach (the same Q-table, the same model
// states). Without the stored Q-values the second session would choose
// differently and reach other states.
func TestLearningCampaignResumesFromItsQValues(t *testing.T) {
	base := []string{"run", "--adapter", "etcdraft", "--model", "raft.tla", "--tlc", "inproc", "--strategy", "bonusmaxrl",
		"--steps", "20", "--workers", "1", "--seed", "3", "--json"}
	whole := learnRun(t, append(base, "--iterations", "120", "--corpus", filepath.Join(t.TempDir(), "whole"))...)
	dir := filepath.Join(t.TempDir(), "halves")
	first := learnRun(t, append(base, "--iterations", "60", "--corpus", dir)...)
	second := learnRun(t, append(base, "--iterations", "120", "--corpus", dir)...)
	require.Greater(t, second.quantity("q-table states"), first.quantity("q-table states"))
	require.Equal(t, whole.quantity("q-table states"), second.quantity("q-table states"))
	require.Equal(t, whole.Coverage["model"], second.Coverage["model"])
	require.Equal(t, 60.0, second.quantity("episodes"), "the second session ran 60 episodes")
}

// --rl-state model learns over the model's abstract states: the Q-table's
// states are states of the model coverage (the same VIEW): those a step
// ends in, where the coverage also counts those a step passes through
// (a leader's answer, then what it believes of the follower).
func TestLearningOverModelStates(t *testing.T) {
	r := learnRun(t, "run", "--adapter", "etcdraft", "--model", "raft.tla", "--tlc", "inproc", "--strategy", "negrl",
		"--rl-state", "model", "--steps", "15", "--iterations", "40", "--json", "--corpus", filepath.Join(t.TempDir(), "c"))
	require.Greater(t, r.quantity("model states (Q-table's)"), 10.0)
	require.LessOrEqual(t, r.quantity("model states (Q-table's)"), float64(r.Coverage["model"]))
}

func TestLearningStrategyErrors(t *testing.T) {
	e := []string{"--adapter", "etcdraft", "--corpus", filepath.Join(t.TempDir(), "c")}
	oneLineError(t, modelfuzz(t, append([]string{"run", "--strategy", "waypointrl", "--model", "raft.tla"}, e...)...),
		"--strategy waypointrl needs --waypoints")
	oneLineError(t, modelfuzz(t, append([]string{"run", "--strategy", "trace", "--waypoints", "x.tla"}, e...)...),
		"--waypoints is for the learning strategies")
	oneLineError(t, modelfuzz(t, append([]string{"run", "--strategy", "bonusmaxrl", "--waypoints", "x.tla"}, e...)...),
		"--waypoints needs a model")
	oneLineError(t, modelfuzz(t, append([]string{"run", "--strategy", "bonusmaxrl", "--rl-state", "view"}, e...)...),
		"--rl-state must be system or model")
	oneLineError(t, modelfuzz(t, append([]string{"run", "--strategy", "walk", "--rl-state", "model"}, e...)...),
		"--rl-state model needs a model")
}
