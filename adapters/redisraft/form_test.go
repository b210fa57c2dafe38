package redisraft

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// TestFormInsideExecution forms the cluster inside an execution: nothing
// reaches a node until a step delivers it, and delivering whatever is
// held, round after round, makes every node a voter of n1's term-1
// cluster holding the same log.
func TestFormInsideExecution(t *testing.T) {
	fac := testFactory(t, func(c *Config) { c.Start = StartForm })
	sys, err := fac.NewSystem()
	require.NoError(t, err)

	// No step: the joins are held, n2 and n3 stay outside the cluster.
	ex, err := sys.Execute(steps())
	require.NoError(t, err)
	require.Empty(t, ex.Failures)
	for p := 1; p < 3; p++ {
		st := lastState(ex.Trace, p)
		require.NotNil(t, st)
		v, _ := evArg(st, argVoters)
		require.Zero(t, v, "n%d joined without a step", p+1)
	}
	var joins []string
	for _, e := range ex.Trace {
		if e.Kind == schedule.EvSend && e.Type == TypeNode && e.Peer == 0 {
			require.Len(t, e.Args, 1)
			joins = append(joins, e.Args[0].Str)
		}
	}
	// In node order, the joiner's address named by its node, not its port.
	require.Equal(t, []string{"ADD 2 n2", "ADD 3 n3"}, joins, "one RAFT.NODE ADD held per joiner")

	var ss []schedule.Step
	for round := 0; round < 12; round++ {
		ss = append(ss, schedule.Step{Process: 0, Action: schedule.Tick, N: 1}, deliver(0, 5), deliver(1, 5), deliver(2, 5))
	}
	in := steps(ss...)
	ex, err = sys.Execute(in)
	require.NoError(t, err)
	require.Empty(t, ex.Failures, "\n%s", schedule.Timeline(fac.Spec(), in, ex))
	idx := stateIndex(t, ex.Trace, 0)
	for p := 0; p < 3; p++ {
		st := lastState(ex.Trace, p)
		v, _ := evArg(st, argVoters)
		require.EqualValues(t, 3, v, "n%d's voters\n%s", p+1, schedule.Timeline(fac.Spec(), in, ex))
		require.Equal(t, idx, stateIndex(t, ex.Trace, p), "n%d's log", p+1)
	}
}

// TestJoinerCrashOnRestart: a node that has joined (n1 answered its
// RAFT.NODE ADD) and taken n1's term from a heartbeat it refused, but
// holds no entry yet, killed and restarted, dies while it restores its log
// (RedisRaft ade4aa8: raft_get_first_entry_idx's assertion, from
// callRaftPeriodic), and again at every later restart. The oracle names it
// by its log, as a crash of the node, not as a restart that failed. It
// shows only when the node's term reached its log file before the kill
// (about eight replays of ten), so the execution is tried up to five
// times.
func TestJoinerCrashOnRestart(t *testing.T) {
	fac := testFactory(t, func(c *Config) { c.Start = StartForm })
	sys, err := fac.NewSystem()
	require.NoError(t, err)
	tick := schedule.Step{Process: 0, Action: schedule.Tick, N: 1}
	in := steps(deliver(0, 1), deliver(1, 1), tick, deliver(1, 1), crash(1), restart(1), restart(1))
	var ex *schedule.Execution
	for try := 0; try < 5 && (ex == nil || len(ex.Failures) == 0); try++ {
		ex, err = sys.Execute(in)
		require.NoError(t, err)
	}
	require.Len(t, ex.Failures, 1)
	f := ex.Failures[0]
	require.Equal(t, schedule.FailureExit, f.Kind)
	require.Equal(t, "assert: raft_server.c:1780 raft_get_first_entry_idx: 0 < raft_get_current_idx(me)", f.Signature)
	require.Equal(t, 5, f.Step)
	exits := 0
	for _, e := range ex.Trace {
		if e.Kind == schedule.EvExit && e.Node == 1 {
			exits++
		}
	}
	require.Equal(t, 2, exits, "n2 dies at both restarts\n%s", schedule.Timeline(fac.Spec(), in, ex))
}
