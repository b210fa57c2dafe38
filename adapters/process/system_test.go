package process

import (
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/internal/osproc"
	"github.com/modelfuzz/modelfuzz/internal/testutil"
	"github.com/modelfuzz/modelfuzz/mapper"
	"github.com/modelfuzz/modelfuzz/schedule"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// shapeInput exercises every action and the interesting states: a
// campaign, deliveries both ways, a put and a get, a crash, a message to
// the crashed replica, a restart, and skipped steps.
var shapeInput = input(
	to(0), d(1, 1), d(2, 1), d(0, 5), req(0, 2), req(1, 3),
	crash(2), to(0), d(2, 1), crash(2), rs(2), rs(2), d(1, 3), d(0, 3), to(2),
)

func TestTraceShape(t *testing.T) {
	_, s := newFake(t, fakeCluster(3, nil), nil)
	ex, tr := execute(t, s, shapeInput)
	require.Empty(t, ex.Failures)
	require.Equal(t, 3, ex.Skipped) // deliver to, crash of a crashed process; restart of a live one

	golden := filepath.Join("testdata", "shape.trace.json")
	if *update {
		require.NoError(t, os.WriteFile(golden, tr, 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	require.Equal(t, string(want), string(tr))

	// Every recv names an earlier send of the same message to the same
	// process; the drop is of a message to the crashed replica.
	sends := map[int]schedule.Event{}
	kinds := map[string]int{}
	for _, e := range ex.Trace {
		kinds[e.Kind]++
		switch e.Kind {
		case schedule.EvSend:
			sends[e.Msg] = e
		case schedule.EvRecv, "drop":
			snd, ok := sends[e.Msg]
			require.True(t, ok, "recv of an unknown message %d", e.Msg)
			require.Equal(t, snd.Peer, e.Node)
			require.Equal(t, snd.Node, e.Peer)
			require.Equal(t, snd.Type, e.Type)
		}
	}
	for _, k := range []string{schedule.EvSend, schedule.EvRecv, schedule.EvCrash, schedule.EvRestart, schedule.EvTimeout,
		schedule.EvRequest, "read", schedule.EvResponse, schedule.EvSkip, "drop", "role", "commit"} {
		require.NotZero(t, kinds[k], "no %s event", k)
	}

	// The raft mapper reads the trace (the fake is no raft, so the actions
	// mean nothing; what matters is that every field it needs is there).
	_, err = mapper.NewEtcdraft(mapper.EtcdraftParams{Nodes: 3}).Map(shapeInput, ex)
	require.NoError(t, err)

	// Nothing of the execution is left: processes and directories.
	ents, err := os.ReadDir(s.runDir)
	require.NoError(t, err)
	require.Empty(t, ents)
	require.Len(t, s.Output(), 3)
	require.Contains(t, s.Output()[2].Stdout, "--- modelfuzz: restart ---\nready\n")
}

// TestReplayRate replays under CPU load (two busy processes besides the
// test's): steps end on the replicas' acknowledgements, not on time.
func TestReplayRate(t *testing.T) {
	burnCPU(t, 2)
	fac, _ := newFake(t, fakeCluster(3, nil), nil)
	r, err := ReplayRate(fac, shapeInput, 10)
	require.NoError(t, err)
	require.Equal(t, 10, r.Runs)
	require.Equal(t, 10, r.Identical, "first difference in run %d:\n%s\nvs\n%s", r.FirstDiff, r.First, r.Diff)
}

// burnCPU starts n processes that spin until the test ends.
func burnCPU(t *testing.T, n int) {
	for range n {
		c := exec.Command("sh", "-c", "while :; do :; done")
		require.NoError(t, c.Start())
		t.Cleanup(func() {
			_ = c.Process.Kill()
			_ = c.Wait()
		})
	}
}

// TestSlowReplicaKeepsTheTrace: a replica that takes far longer than the
// quiet period to take in a client request gives the same trace, since the
// step ends when the replica says it is idle; a replica without POST /idle
// is still driven, step by step after quiet periods.
func TestSlowReplicaKeepsTheTrace(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("testdata", "shape.trace.json"))
	require.NoError(t, err)
	_, s := newFake(t, fakeCluster(3, nil, "-slow-request", "150ms"), nil)
	_, tr := execute(t, s, shapeInput)
	require.Equal(t, string(want), string(tr))

	var log testutil.SyncBuffer
	_, s = newFake(t, fakeCluster(3, nil, "-idle=false"), &log)
	_, tr = execute(t, s, shapeInput)
	require.Equal(t, string(want), string(tr))
	require.Contains(t, log.String(), "do not acknowledge idleness")
}

func TestCrashKillsTheGroupAndRestartRegisters(t *testing.T) {
	_, s := newFake(t, fakeCluster(3, nil, "-grandchild"), nil)
	s.execMu.Lock()
	defer s.execMu.Unlock()
	e, err := s.begin(t.Context())
	require.NoError(t, err)
	defer e.teardown()

	pids := func(p int) (int, int) {
		e.mu.Lock()
		defer e.mu.Unlock()
		var info struct{ Pid, Child int }
		require.NoError(t, json.Unmarshal(e.reps[p].info, &info))
		return info.Pid, info.Child
	}
	pid, child := pids(1)
	require.True(t, running(pid))
	require.True(t, running(child))
	st, ok := osproc.ProcStat(child)
	require.True(t, ok)
	require.Equal(t, pid, st.Pgrp, "the child is in the replica's group")

	e.runStep(0, crash(1))
	require.False(t, running(pid), "the replica survived its crash")
	require.Eventually(t, func() bool { return !running(child) }, 2*time.Second, 10*time.Millisecond,
		"the replica's child survived the crash")

	e.runStep(1, rs(1))
	e.mu.Lock()
	ready, p := e.reps[1].isReady, e.reps[1].proc
	e.mu.Unlock()
	require.True(t, ready)
	require.NotNil(t, p)
	pid2, child2 := pids(1)
	require.NotEqual(t, pid, pid2)
	require.True(t, running(pid2))

	e.teardown()
	require.False(t, running(pid2))
	require.Eventually(t, func() bool { return !running(child2) }, 2*time.Second, 10*time.Millisecond)
	for _, r := range e.reps {
		require.Nil(t, r.proc)
	}
}

func TestBadRequestsAreRefusedAndTheRunGoesOn(t *testing.T) {
	var log testutil.SyncBuffer
	_, s := newFake(t, fakeCluster(3, nil, "-misbehave"), &log)
	ex, _ := execute(t, s, input(crash(1), to(0), d(2, 1), d(0, 1)))
	require.Empty(t, ex.Failures)

	// The fake logs the answers it got: 400 with the problem.
	errs := s.Output()[0].Stderr
	require.Contains(t, errs, `post /event: 400 Bad Request: {"error":"malformed JSON: line 1, column 2: want a key in double quotes, found 'n'"}`)
	require.Contains(t, errs, `post /event: 400 Bad Request: {"error":"replica: unknown replica \"9\" (known: 1..3)"}`)
	require.Contains(t, errs, `post /message: 400 Bad Request: {"error":"to: replica 2 is crashed; message dropped"}`)
	require.Contains(t, log.String(), "interception server: bad request")
	require.Contains(t, log.String(), `unknown replica \"9\"`)

	// The run went on: the vote to n3 was delivered and answered.
	var kinds []string
	for _, e := range ex.Trace {
		if e.Step >= 1 {
			kinds = append(kinds, e.Kind+" "+e.Type)
		}
	}
	require.Equal(t, []string{
		"timeout timeout", "role candidate", "send MsgVote", "drop MsgVote", "send MsgVote",
		"recv MsgVote", "commit commit", "send MsgVoteResp",
		"recv MsgVoteResp", "commit commit",
	}, kinds)
}

func TestExitIsAFailure(t *testing.T) {
	_, s := newFake(t, fakeCluster(3, nil, "-panic-after", "1"), nil)
	ex, _ := execute(t, s, input(to(0), d(1, 1), d(1, 1), to(1), rs(1), to(1)))
	require.Len(t, ex.Failures, 1)
	f := ex.Failures[0]
	require.Equal(t, schedule.FailureExit, f.Kind)
	require.Equal(t, "exit: panic: fake N: received N messages", f.Signature)
	require.Equal(t, 1, f.Step)
	require.Contains(t, f.Detail, "== n2 stderr ==\npanic: fake 2: received 1 messages")
	var tail []string
	for _, e := range ex.Trace {
		if e.Step >= 1 && e.Node == 1 {
			tail = append(tail, e.Kind+" "+e.Type)
		}
	}
	// n2 is crashed after its exit: the next deliver and timeout are
	// skipped, the restart works.
	require.Equal(t, []string{"recv MsgVote", "exit exit", "skip deliver to a crashed process",
		"skip timeout at a crashed process", "restart restart", "timeout timeout", "role candidate",
		"send MsgVote", "send MsgVote"}, tail)
}

func TestInterrupt(t *testing.T) {
	// The timeout's answer takes 60 s: the interrupt comes while the cluster
	// starts or during the first step, and Execute must return long before
	// the answer would (the bounds tell the two apart on a loaded machine).
	_, s := newFake(t, fakeCluster(3, nil, "-hang", "60s"), nil)
	done := make(chan *schedule.Execution)
	go func() {
		ex, err := s.Execute(input(to(0), d(1, 1), d(2, 1)))
		require.NoError(t, err)
		done <- ex
	}()
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	s.Interrupt()
	select {
	case ex := <-done:
		require.Less(t, time.Since(start), 30*time.Second, "Execute waited for the step's answer")
		require.LessOrEqual(t, len(ex.Trace), 4)
	case <-time.After(45 * time.Second):
		t.Fatal("Execute did not return after Interrupt")
	}
	// Usable again.
	ex, _ := execute(t, s, input())
	require.Empty(t, ex.Trace)
}

func TestSystemsRunConcurrently(t *testing.T) {
	fac, _ := newFake(t, fakeCluster(3, nil), nil)
	var wg sync.WaitGroup
	traces := make([][]byte, 4)
	for i := range traces {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := fac.New()
			require.NoError(t, err)
			for k := 0; k < 2; k++ {
				_, traces[i] = execute(t, s, shapeInput)
			}
		}()
	}
	wg.Wait()
	for _, tr := range traces[1:] {
		require.Equal(t, string(traces[0]), string(tr))
	}
	require.NoError(t, fac.Close())
	ents, err := os.ReadDir(fac.reg.Dir())
	if err == nil { // the registry directory goes with the last factory
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		require.NotContains(t, strings.Join(names, " "), "sys-")
	}
}

func TestUnresponsiveReplica(t *testing.T) {
	_, s := newFake(t, fakeCluster(3, func(c map[string]any) { c["call_timeout"] = "200ms" }, "-hang", "1s"), nil)
	ex, _ := execute(t, s, input(to(0), to(1)))
	// Once per execution: n2 does not answer either.
	require.Len(t, ex.Failures, 1)
	require.Equal(t, schedule.Failure{Kind: schedule.FailureUnresponsive, Signature: "unresponsive: timeout", Step: 0,
		Message: "n1 did not answer POST /timeout within 200ms", Detail: ex.Failures[0].Detail}, ex.Failures[0])
	require.Equal(t, "timeout", ex.Trace[1].Kind, "the run went on")
	require.Equal(t, 1, ex.Trace[1].Step)
}

func TestWithoutRegistration(t *testing.T) {
	_, s := newFake(t, fakeCluster(2, func(c map[string]any) { c["ready"] = map[string]any{"register": false} }), nil)
	ex, _ := execute(t, s, input(req(0, 2), crash(0), rs(0), req(0, 3)))
	require.Empty(t, ex.Failures)
	var kinds []string
	for _, e := range ex.Trace {
		kinds = append(kinds, e.Kind)
	}
	require.Equal(t, []string{"request", "crash", "restart", "read", "response", "response"}, kinds)
	require.Equal(t, `read value=3 key=k1`, ex.Trace[3].Label())
	require.Equal(t, `put value=2 key=k1 status=200`, ex.Trace[4].Label())
	require.Equal(t, `get value=3 key=k1 status=200 out=2`, ex.Trace[5].Label())
	require.Equal(t, 4, ex.Trace[5].Step, "answers are recorded after the last step")
}
