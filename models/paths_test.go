package models

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/tlc"
	"github.com/modelfuzz/modelfuzz/tlc/sim"
)

// replayPath simulates a target's path from the model's initial state as
// a campaign's measure does and returns the keys it visits.
func replayPath(t *testing.T, s *tlc.Simulator, tg Target) []uint64 {
	t.Helper()
	req := &sim.Request{}
	for _, a := range tg.Path {
		req.Actions = append(req.Actions, sim.Action{Name: a.Name, Params: a.Params})
	}
	res, err := s.Simulate(req)
	require.NoError(t, err)
	require.Nil(t, res.Divergence, "path to %016x: %+v", tg.Key, res.Divergence)
	return res.Keys
}

// Every abstract state a search finds comes with a path that the
// simulator (which computes the keys a campaign stores) follows to that
// very key; covered states are left out.
func TestTargetsPathsReachTheirKeys(t *testing.T) {
	for _, c := range []struct {
		spec  Spec
		depth int
	}{
		{Spec{Model: "microbench.tla", Consts: []string{"Workers=2", "Tasks=3"}}, 12},
		{Spec{Model: "raft.tla", Config: "raft_standing.cfg"}, 5},
	} {
		all, err := Targets(c.spec, nil, SizeOptions{MaxDepth: c.depth, Workers: 2})
		require.NoError(t, err, c.spec.Model)
		require.Equal(t, all.Abstract, len(all.Targets), c.spec.Model)
		require.Greater(t, all.Abstract, 3, c.spec.Model)
		m, err := Load(c.spec)
		require.NoError(t, err)
		s, err := tlc.NewSimulator(m, 0)
		require.NoError(t, err)
		covered := map[uint64]bool{}
		for i, tg := range all.Targets {
			keys := replayPath(t, s, tg)
			require.Equal(t, tg.Key, keys[len(keys)-1], "%s: path %v", c.spec.Model, tg.Path)
			if i%2 == 0 {
				covered[tg.Key] = true
			}
		}
		rest, err := Targets(c.spec, covered, SizeOptions{MaxDepth: c.depth, Workers: 2})
		require.NoError(t, err)
		require.Len(t, rest.Targets, len(all.Targets)-len(covered))
		for _, tg := range rest.Targets {
			require.False(t, covered[tg.Key])
		}
	}
}

// The alternative paths of a target lead to other concrete states of its
// view: each one the simulator follows to the target's key, none the same
// as another, at most as many as asked for, and none for a covered state.
func TestTargetsAlternativesReachTheirKeys(t *testing.T) {
	spec := Spec{Model: "raft.tla", Config: "raft_standing.cfg"}
	m, err := Load(spec)
	require.NoError(t, err)
	s, err := tlc.NewSimulator(m, 0)
	require.NoError(t, err)
	all, err := TargetsWith(spec, nil, SizeOptions{MaxDepth: 5, Workers: 1}, 3)
	require.NoError(t, err)
	with := 0
	for _, tg := range all.Targets {
		require.LessOrEqual(t, len(tg.Alternatives), 3)
		seen := map[string]bool{fmt.Sprint(tg.Path): true}
		for _, p := range tg.Alternatives {
			alt := Target{Key: tg.Key, Path: p}
			keys := replayPath(t, s, alt)
			require.Equal(t, tg.Key, keys[len(keys)-1], "alternative %v", p)
			require.False(t, seen[fmt.Sprint(p)], "alternative %v twice", p)
			seen[fmt.Sprint(p)] = true
			with++
		}
	}
	require.Greater(t, with, len(all.Targets)/2)
	none, err := TargetsWith(spec, map[uint64]bool{all.Targets[0].Key: true}, SizeOptions{MaxDepth: 5, Workers: 1}, 3)
	require.NoError(t, err)
	require.Len(t, none.Targets, len(all.Targets)-1)
	_, err = TargetsWith(spec, nil, SizeOptions{MaxDepth: 5}, -1)
	require.Error(t, err)
}
