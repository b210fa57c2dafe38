package redisraft

import (
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// The tests of this file show each fault kind acting on a real cluster
// (they skip when RedisRaft is not built, see binaries).

// elect makes n1 the leader of the template's term + 1, its no-op entry
// on every node and committed at n1.
func elect() []schedule.Step {
	return []schedule.Step{timeout(0), deliver(1, 1), deliver(2, 1), deliver(0, 2),
		deliver(1, 1), deliver(2, 1), deliver(0, 2)}
}

func evArg(e *schedule.Event, key string) (int64, bool) {
	for _, a := range e.Args {
		if a.Key == key && !a.IsStr {
			return a.Int, true
		}
	}
	return 0, false
}

// lastState is node p's last reported state (nil if none).
func lastState(tr schedule.Trace, p int) *schedule.Event {
	for k := len(tr) - 1; k >= 0; k-- {
		if tr[k].Kind == schedule.RREvState && tr[k].Node == p {
			return &tr[k]
		}
	}
	return nil
}

func execute(t *testing.T, in *schedule.Input) *schedule.Execution {
	t.Helper()
	fac := testFactory(t, nil)
	sys, err := fac.NewSystem()
	require.NoError(t, err)
	ex, err := sys.Execute(in)
	require.NoError(t, err)
	require.Empty(t, ex.Failures, "\n%s", schedule.Timeline(fac.Spec(), in, ex))
	return ex
}

func stateIndex(t *testing.T, tr schedule.Trace, p int) int64 {
	t.Helper()
	st := lastState(tr, p)
	require.NotNil(t, st, "no state of n%d", p+1)
	v, ok := evArg(st, schedule.ArgIndex)
	require.True(t, ok)
	return v
}

// A dropped RAFT.AE is never received, and the entry it carried never
// reaches its receiver's log while nothing else is sent to it.
func TestDroppedAppendIsNeverApplied(t *testing.T) {
	in := steps(append(elect(), request(0, 2), drop(1, 1), deliver(2, 1), deliver(0, 5), deliver(1, 5))...)
	ex := execute(t, in)
	var dropped int
	for _, e := range ex.Trace {
		if e.Kind == schedule.EvDrop && e.Node == 1 && e.Type == schedule.RRAppendEntries {
			dropped = e.Msg
		}
	}
	require.NotZero(t, dropped, "no RAFT.AE to n2 was dropped")
	for _, e := range ex.Trace {
		require.False(t, e.Kind == schedule.EvRecv && e.Msg == dropped, "the dropped message %d was received at step %d", dropped, e.Step)
	}
	leader, n3, n2 := stateIndex(t, ex.Trace, 0), stateIndex(t, ex.Trace, 2), stateIndex(t, ex.Trace, 1)
	require.Equal(t, leader, n3, "the entry reached n3")
	require.Less(t, n2, leader, "n2 has the entry whose RAFT.AE was dropped")
}

// A partition stops messages in both directions and lets those within a
// side through.
func TestPartitionStopsBothDirections(t *testing.T) {
	cut := schedule.Step{Action: schedule.Partition, Set: schedule.ProcSet(1)} // n1 alone
	in := steps(append(elect(), cut, request(0, 2), deliver(1, 5), deliver(2, 5),
		timeout(1), deliver(0, 5), deliver(2, 5), deliver(1, 5))...)
	ex := execute(t, in)
	cutAt := len(elect())
	within := 0
	for _, e := range ex.Trace {
		if e.Kind != schedule.EvRecv || e.Step <= cutAt {
			continue
		}
		across := (e.Node == 0) != (e.Peer == 0)
		require.False(t, across, "n%d received %s from n%d across the partition at step %d", e.Node+1, e.Type, e.Peer+1, e.Step)
		within++
	}
	require.NotZero(t, within, "nothing was received within the majority's side")
	// The cut side's request was sent and stayed held.
	sent := false
	for _, e := range ex.Trace {
		if e.Kind == schedule.EvSend && e.Node == 0 && e.Step > cutAt && e.Type == schedule.RRAppendEntries {
			sent = true
		}
	}
	require.True(t, sent, "n1 sent no RAFT.AE after the cut")
}

// A node killed with SIGKILL and restarted recovers its log from its data
// directory.
func TestRestartRecoversLog(t *testing.T) {
	ss := append(elect(), request(0, 2), request(0, 3), deliver(1, 5), deliver(2, 5), deliver(0, 5))
	ss = append(ss, crash(2), restart(2))
	ex := execute(t, steps(ss...))
	crashStep := len(ss) - 2
	var before int64 = -1
	for _, e := range ex.Trace {
		if e.Kind == schedule.RREvState && e.Node == 2 && e.Step < crashStep {
			before, _ = evArg(&e, schedule.ArgIndex)
		}
	}
	require.Greater(t, before, int64(0))
	var restarted *schedule.Event
	for k := range ex.Trace {
		if ex.Trace[k].Kind == schedule.EvRestart && ex.Trace[k].Node == 2 {
			restarted = &ex.Trace[k]
		}
	}
	require.NotNil(t, restarted, "no restart recorded")
	after, ok := evArg(restarted, schedule.ArgLastIndex)
	require.True(t, ok, "the restart event has no last index")
	require.Equal(t, before, after, "n3's log after its restart")
	require.Equal(t, stateIndex(t, ex.Trace, 0), after, "n3 had every entry of the leader")
}

// A duplicated request is handled twice by its receiver.
func TestDuplicateIsHandledTwice(t *testing.T) {
	ex := execute(t, steps(timeout(0), schedule.Step{Process: 1, Action: schedule.Duplicate, K: 1}, deliver(1, 3)))
	got := 0
	for _, e := range ex.Trace {
		if e.Kind == schedule.EvRecv && e.Node == 1 && e.Peer == 0 && e.Type == schedule.RRRequestVote {
			got++
		}
	}
	require.Equal(t, 2, got, "RAFT.REQUESTVOTE receipts at n2")
}

// A node restarted while a peer's link to it still holds its replies
// comes back without waiting for that peer to reconnect (it once hung
// until the execution timed out).
func TestRestartWithRepliesHeld(t *testing.T) {
	ex := execute(t, steps(timeout(0), deliver(1, 4), timeout(1), deliver(1, 3), deliver(1, 1), deliver(2, 5), crash(1), restart(1), timeout(2), deliver(1, 5)))
	got := false
	for _, e := range ex.Trace {
		if e.Kind == schedule.EvRecv && e.Node == 1 && e.Peer == 2 && e.Type == schedule.RRRequestVote {
			got = true
		}
	}
	require.True(t, got, "the restarted n2 received nothing from n3")
}

// Client requests are answered and their history is linearizable.
func TestClientRequests(t *testing.T) {
	fac := testFactory(t, nil)
	sys, err := fac.NewSystem()
	require.NoError(t, err)
	var ss []schedule.Step
	ss = append(ss, elect()...)
	for v := 1; v <= 8; v++ { // SET, GET, INCR and MULTI/EXEC by the value
		ss = append(ss, request(v%3, v), deliver(1, 5), deliver(2, 5), deliver(0, 5))
	}
	in := steps(ss...)
	ex, err := sys.Execute(in)
	require.NoError(t, err)
	require.Empty(t, ex.Failures)
	kinds := map[string]bool{}
	for _, op := range sys.History() {
		require.False(t, op.Pending, "an operation was not answered: %+v\n%s", op, schedule.Timeline(fac.Spec(), in, ex))
	}
	for _, e := range ex.Trace {
		if e.Kind == schedule.EvRequest || e.Kind == schedule.EvRead {
			kinds[e.Type] = true
		}
	}
	require.Len(t, kinds, 4, "request kinds seen: %v", kinds)
}

// A System closed while an execution it began was never ended (its caller
// gave up, e.g. a test that failed between Begin and End) ends it itself
// after abandonAfter: its nodes stop and Close returns, instead of
// waiting for ever with the nodes running.
func TestCloseEndsAnAbandonedExecution(t *testing.T) {
	fac := testFactory(t, nil)
	sys, err := fac.NewSystem()
	require.NoError(t, err)
	defer func(d time.Duration) { abandonAfter = d }(abandonAfter)
	abandonAfter = time.Second
	sys.Begin()
	require.NoError(t, sys.cur.err)
	sys.Step(timeout(0))
	var pids []int
	sys.cur.r.mu.Lock()
	for _, n := range sys.cur.r.nodes {
		if n.pid > 0 {
			pids = append(pids, n.pid)
		}
	}
	sys.cur.r.mu.Unlock()
	require.Len(t, pids, 3)
	done := make(chan error, 1)
	go func() { done <- sys.Close() }()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(2 * time.Minute): // a hang, not a measure of speed
		t.Fatal("Close waited for an execution that nobody ends")
	}
	for _, pid := range pids {
		require.Error(t, syscall.Kill(-pid, 0), "node process group %d still runs", pid)
	}
}
