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
	require.JSONEq(t, `[3,3,1]`, string(last.State["commitIndex"]))
	require.JSONEq(t, `["leader","follower","follower"]`, string(last.State["role"]))
}

// After 2 holds the committed entries, a vote granted to candidate 3,
// whose log holds only the bootstrap, is not what Raft allows: a
// divergence. Refusing it is fine.
func TestRaftStaleVoteDiverges(t *testing.T) {
	s := raftSimulator(t)
	acts := loadActions(t, "testdata/raft_election.json")
	vote := func(granted bool) sim.Action {
		return sim.Action{Name: "HandleVoteRequest", Params: map[string]any{
			"i": 2, "j": 3, "term": 2, "lastLogTerm": 1, "lastLogIndex": 1, "granted": granted}}
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

// simulate replays acts on the model and returns the index of the action
// that diverged (-1 for none).
func simulate(t *testing.T, s *sim.Simulator, acts []sim.Action) int {
	t.Helper()
	res, err := s.Simulate(&sim.Request{Actions: acts})
	require.NoError(t, err)
	require.Empty(t, res.Violations)
	if res.Divergence == nil {
		return -1
	}
	return res.Divergence.Index
}

func act(name string, params map[string]any) sim.Action {
	return sim.Action{Name: name, Params: params}
}

// What a leader reports of a follower is checked: Match must be what the
// follower's answers said, Next above it and at most one past the
// leader's last entry, the follower a member.
func TestRaftFollowerProgressIsChecked(t *testing.T) {
	s := raftSimulator(t)
	acts := loadActions(t, "testdata/raft_election.json")
	progress := func(j, match, next int, state string) sim.Action {
		return act("FollowerProgress", map[string]any{"i": 1, "j": j, "match": match, "next": next, "state": state})
	}
	for _, c := range []struct {
		a    sim.Action
		good bool
	}{
		{progress(2, 3, 4, "replicate"), true},
		{progress(3, 0, 2, "probe"), true},
		{progress(2, 2, 4, "replicate"), false}, // 2 answered up to 3
		{progress(3, 0, 5, "probe"), false},     // the leader's last entry is 3
		{progress(2, 3, 3, "replicate"), false}, // Next at Match
		{progress(3, 0, 2, "waiting"), false},
	} {
		got := simulate(t, s, append(append([]sim.Action{}, acts...), c.a))
		if c.good {
			require.Equal(t, -1, got, "%v", c.a.Params)
		} else {
			require.Equal(t, len(acts), got, "%v", c.a.Params)
		}
	}
}

// A configuration change takes effect when applied, and the quorums are
// then the new configuration's: with server 3 removed, the leader commits
// on server 2's answer alone, and reports nothing of 3. The configuration
// the system reports must be the model's.
func TestRaftReconfiguration(t *testing.T) {
	s := raftSimulator(t)
	acts := loadActions(t, "testdata/raft_election.json")
	remove3 := map[string]any{"kind": "simple", "voters": []any{}, "learners": []any{}, "remove": []any{3}}
	conf := func(voters ...any) map[string]any {
		return map[string]any{"voters": voters, "outgoing": []any{}, "learners": []any{}, "learnersNext": []any{}, "auto": false}
	}
	entry := map[string]any{"term": 1, "value": "conf:r3", "conf": remove3}
	acts = append(acts,
		act("ProposeConf", map[string]any{"i": 1, "value": "conf:r3", "ch": remove3}),
		act("HandleAppendRequest", map[string]any{"i": 2, "j": 1, "term": 1, "prevLogIndex": 3, "prevLogTerm": 1,
			"entries": []any{entry}, "commit": 3, "success": true}),
		act("HandleAppendResponse", map[string]any{"i": 1, "j": 2, "term": 1, "success": true, "index": 4, "rejectHint": 0}),
		act("AdvanceCommit", map[string]any{"i": 1, "index": 4}))
	apply := func(voters ...any) sim.Action {
		return act("ApplyConf", map[string]any{"i": 1, "index": 4, "reported": conf(voters...)})
	}
	require.Equal(t, len(acts), simulate(t, s, append(append([]sim.Action{}, acts...), apply(1, 2, 3))))
	acts = append(acts, apply(1, 2))
	require.Equal(t, -1, simulate(t, s, acts))
	require.Equal(t, len(acts), simulate(t, s, append(append([]sim.Action{}, acts...),
		act("FollowerProgress", map[string]any{"i": 1, "j": 3, "match": 0, "next": 4, "state": "probe"}))))

	acts = append(acts,
		act("ClientRequest", map[string]any{"i": 1, "value": "v=2"}),
		act("HandleAppendRequest", map[string]any{"i": 2, "j": 1, "term": 1, "prevLogIndex": 4, "prevLogTerm": 1,
			"entries": []any{map[string]any{"term": 1, "value": "v=2"}}, "commit": 4, "success": true}),
		act("HandleAppendResponse", map[string]any{"i": 1, "j": 2, "term": 1, "success": true, "index": 5, "rejectHint": 0}),
		act("AdvanceCommit", map[string]any{"i": 1, "index": 5}))
	require.Equal(t, -1, simulate(t, s, acts))

	// A leader in a simple configuration may not propose to leave a joint one.
	leave := map[string]any{"kind": "leave", "voters": []any{}, "learners": []any{}, "remove": []any{}}
	require.Equal(t, len(acts), simulate(t, s, append(append([]sim.Action{}, acts...),
		act("ProposeConf", map[string]any{"i": 1, "value": "conf:leave", "ch": leave}))))
}
