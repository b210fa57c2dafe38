package models

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/tlc/sim"
)

func raftSimulator(t *testing.T) *sim.Simulator {
	t.Helper()
	m, err := Load(Spec{Model: "raft.tla"})
	require.NoError(t, err)
	s, err := sim.New(m, 0)
	require.NoError(t, err)
	return s
}

func loadActions(t *testing.T, path string) []sim.Action {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var acts []sim.Action
	require.NoError(t, json.Unmarshal(data, &acts))
	return acts
}

// An election of server 1 with votes from 2 and 3, a client request, its
// replication to 2 and its commit replay on the model.
func TestRaftElectionReplays(t *testing.T) {
	s := raftSimulator(t)
	acts := loadActions(t, "testdata/raft_election.json")
	res, err := s.Simulate(&sim.Request{Actions: acts})
	require.NoError(t, err)
	require.Nil(t, res.Divergence)
	require.Empty(t, res.Violations)
	last := res.States[len(res.States)-1] // the last abstract state (the last response changes only what the VIEW leaves out)
	require.JSONEq(t, `[2,2,0]`, string(last.State["commitIndex"]))
	require.JSONEq(t, `["leader","follower","follower"]`, string(last.State["role"]))
}

// After 2 holds the committed entries, a vote granted to candidate 3,
// whose log is empty, is not what Raft allows: a divergence. Refusing it
// is fine.
func TestRaftStaleVoteDiverges(t *testing.T) {
	s := raftSimulator(t)
	acts := loadActions(t, "testdata/raft_election.json")
	vote := func(granted bool) sim.Action {
		return sim.Action{Name: "HandleVoteRequest", Params: map[string]any{
			"i": 2, "j": 3, "term": 2, "lastLogTerm": 0, "lastLogIndex": 0, "granted": granted}}
	}
	timeout3 := sim.Action{Name: "Timeout", Params: map[string]any{"i": 3}}

	bad := append(append([]sim.Action{}, acts...), timeout3, vote(true))
	res, err := s.Simulate(&sim.Request{Actions: bad})
	require.NoError(t, err)
	require.NotNil(t, res.Divergence)
	require.Equal(t, len(bad)-1, res.Divergence.Index)
	require.Equal(t, "HandleVoteRequest", res.Divergence.Action)

	ok := append(append([]sim.Action{}, acts...), timeout3, vote(false))
	res, err = s.Simulate(&sim.Request{Actions: ok})
	require.NoError(t, err)
	require.Nil(t, res.Divergence)
	require.Empty(t, res.Violations)
}
