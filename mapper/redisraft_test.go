package mapper_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/mapper"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// testdata/redisraft-election-crash.trace.json is what adapters/redisraft
// recorded of a real three-node cluster (modelfuzz replay --adapter
// redisraft --json): n1 elected in the template's term + 1, a SET and an
// INCR committed, n3 killed and restarted and caught up after a rejected
// RAFT.AE, then n2 elected in the next term with a vote from the old
// leader. Every mapped action must be enabled in raft.tla.
func TestRedisraftTraceFollowsRaftTLA(t *testing.T) {
	raw, err := os.ReadFile("testdata/redisraft-election-crash.trace.json")
	require.NoError(t, err)
	tr, err := schedule.DecodeTrace(raw)
	require.NoError(t, err)
	m := mapper.NewRedisraft(mapper.RedisraftParams{Nodes: 3})
	acts, err := m.Map(nil, &schedule.Execution{Trace: tr})
	require.NoError(t, err)
	names := map[string]int{}
	for _, a := range acts {
		names[a.Name]++
	}
	for _, want := range []string{"Timeout", "HandleVoteRequest", "HandleVoteResponse", "BecomeLeader", "ClientRequest",
		"HandleAppendRequest", "HandleAppendResponse", "AdvanceCommit", "Crash", "Restart"} {
		require.NotZero(t, names[want], "no %s among %v", want, names)
	}
	require.Equal(t, 2, names["Timeout"])
	require.Equal(t, 2, names["BecomeLeader"])
	require.Equal(t, 2, names["ClientRequest"], "the SET and the INCR")

	res := replay(t, newSim(t, "raft.tla", m.Consts()), acts)
	require.Nil(t, res.Divergence, "%+v", res.Divergence)
	require.NotZero(t, m.Unmapped()["send"], "sends are counted unmapped")

	// A rejected RAFT.AE maps to a refused HandleAppendRequest.
	refused := false
	for _, a := range acts {
		if a.Name == "HandleAppendRequest" && a.Params["success"] == false {
			refused = true
		}
	}
	require.True(t, refused, "n3's rejection after its restart")
}

// A trace whose nodes do not start alike is not a trace of the template:
// the mapper says so.
func TestRedisraftRefusesUnlikeStart(t *testing.T) {
	tr := schedule.Trace{
		{Kind: schedule.RREvState, Node: 0, Type: schedule.RRFollower, Args: []schedule.Arg{schedule.I(schedule.ArgTerm, 1), schedule.I(schedule.ArgIndex, 6), schedule.I(schedule.ArgCommit, 0), schedule.I(schedule.ArgSnapIndex, 0)}},
		{Kind: schedule.RREvState, Node: 1, Type: schedule.RRFollower, Args: []schedule.Arg{schedule.I(schedule.ArgTerm, 2), schedule.I(schedule.ArgIndex, 6), schedule.I(schedule.ArgCommit, 0), schedule.I(schedule.ArgSnapIndex, 0)}},
	}
	_, err := mapper.NewRedisraft(mapper.RedisraftParams{Nodes: 2}).Map(nil, &schedule.Execution{Trace: tr})
	require.ErrorContains(t, err, "do not start alike")
}
