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

// testdata/redisraft-form.trace.json is a real three-node cluster formed
// inside the execution (--redisraft-start form: RAFT.CLUSTER INIT at n1,
// JOIN at n2 and n3, their RAFT.NODE ADD, the non-voting phase and the
// promotions delivered by the schedule), then a SET at n1, n2 elected in
// the next term, n3 killed and restarted, an INCR at n2. The formation is
// left out of the view (counted as unmapped); from the formed cluster on
// every mapped action must be enabled in raft.tla, the formed cluster's
// leader n1 led through its election in the model's term 1 first.
func TestRedisraftFormedTraceFollowsRaftTLA(t *testing.T) {
	m, acts := mapFormTrace(t, "testdata/redisraft-form.trace.json")
	names := map[string]int{}
	for _, a := range acts {
		names[a.Name]++
	}
	require.Equal(t, 2, names["BecomeLeader"], "n1's (the formed cluster's) and n2's: %v", names)
	require.Equal(t, 2, names["ClientRequest"], "the SET and the INCR: %v", names)
	require.Equal(t, 1, names["Crash"])
	require.Equal(t, 1, names["Restart"])
	require.Equal(t, "Timeout", acts[0].Name)
	require.Equal(t, int64(1), acts[0].Params["i"], "n1 leads the formed cluster")
	require.NotZero(t, m.Unmapped()["formation"], "the joins are counted unmapped")

	res := replay(t, newSim(t, "raft.tla", m.Consts()), acts)
	require.Nil(t, res.Divergence, "%+v", res.Divergence)

	// Without the leader's prelude the same trace diverges: the formed
	// cluster's leader would append in a term the model has no leader of.
	cut := acts[:0:0]
	for _, a := range acts {
		if a.Event != acts[0].Event {
			cut = append(cut, a)
		}
	}
	res = replay(t, newSim(t, "raft.tla", m.Consts()), cut)
	require.NotNil(t, res.Divergence)
}

// testdata/redisraft-form-leader-restarted.trace.json is a real formation
// (modelfuzz replay --json of a campaign's reproducer) in which n1, the
// leader of term 1, is killed once every node is a voter and restarts as a
// follower of term 1 before its last term-1 RAFT.AEs reach n2: the
// cluster is then three followers of term 1, a term that had a leader.
// The model must have n1 as term 1's leader for those appends (taking the
// cluster for a leaderless one of the model's term 0 made them diverge),
// and then n1 crashed and restarted.
func TestRedisraftFormedLeaderRestartedBeforeItsAppends(t *testing.T) {
	m, acts := mapFormTrace(t, "testdata/redisraft-form-leader-restarted.trace.json")
	var names []string
	for _, a := range acts {
		names = append(names, a.Name)
	}
	require.Equal(t, "Timeout", acts[0].Name, "%v", names)
	require.Equal(t, int64(1), acts[0].Params["i"], "n1 led the formed cluster's term")
	require.Contains(t, names, "BecomeLeader")
	at := 0
	for at < len(names) && names[at] != "Crash" {
		at++
	}
	require.Less(t, at+1, len(names), "%v", names)
	require.Equal(t, "Restart", names[at+1])
	require.Equal(t, int64(1), acts[at].Params["i"])
	require.Equal(t, "HandleAppendRequest", names[len(names)-1], "n1's term-1 appends reach n2: %v", names)
	require.Equal(t, int64(1), acts[len(acts)-1].Params["term"])

	res := replay(t, newSim(t, "raft.tla", m.Consts()), acts)
	require.Nil(t, res.Divergence, "%+v", res.Divergence)
}

// mapFormTrace maps a recorded trace of a cluster formed inside its
// execution (three nodes) onto raft.tla's actions.
func mapFormTrace(t *testing.T, path string) (*mapper.Redisraft, []schedule.ModelAction) {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	tr, err := schedule.DecodeTrace(raw)
	require.NoError(t, err)
	m := mapper.NewRedisraft(mapper.RedisraftParams{Nodes: 3, Form: true})
	acts, err := m.Map(nil, &schedule.Execution{Trace: tr})
	require.NoError(t, err)
	return m, acts
}
