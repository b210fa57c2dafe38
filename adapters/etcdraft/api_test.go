package etcdraft

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// A library assertion inside a raft.Node's goroutine is a failure of the
// execution, with the signature the same assertion has in a RawNode, and
// the goroutine is gone.
func TestNodeAPIPanicIsAFailure(t *testing.T) {
	cfg := DefaultConfig()
	cfg.API = APIMixed // n1 a RawNode, n2 a raft.Node
	_, sys := newSystem(t, cfg)
	s := sys.(*System)
	before := runtime.NumGoroutine()
	forged := func() *pb.Message {
		// A heartbeat of the current term whose commit index is beyond the
		// follower's log: the library panics ("tocommit(N) is out of range").
		return &pb.Message{Type: pb.MsgHeartbeat.Enum(), From: new(uint64(3)), To: new(uint64(1)), Term: new(uint64(1)), Commit: new(uint64(100))}
	}
	var sigs []string
	for _, p := range []int{0, 1} {
		f := schedule.Guard(&s.step, func() {
			s.reset()
			m := forged()
			m.To = new(uint64(p + 1))
			_ = s.nodes[p].rn.Step(m)
		})
		require.NotNil(t, f, "node %d", p+1)
		require.Equal(t, schedule.FailurePanic, f.Kind)
		require.Contains(t, f.Message, "is out of range")
		sigs = append(sigs, f.Signature)
		s.stopNodes()
	}
	_, isGo := s.nodes[1].rn.(*goNode)
	require.False(t, isGo, "stopped")
	require.Equal(t, sigs[0], sigs[1], "the same assertion, RawNode and raft.Node")
	require.Contains(t, sigs[1], "commitTo")
	t.Log(sigs[1])
	// Every node's goroutine has ended (the failed one exited).
	requireNoMoreGoroutines(t, before)
}

// A panic of the library that does not go through its logger, raised in
// raft.Node's own goroutine (--inject unchecked-conf: the application
// applies a change that removes every voter, and the loop's
// applyConfChange panics), is a failure of the execution with the loop's
// stack, not the end of the process; the system then runs the next
// executions as before, and no goroutine is left behind.
func TestNodeGoroutinePanicIsAFailure(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "node-goroutine-panic.json"))
	require.NoError(t, err)
	in, err := schedule.DecodeInput(raw)
	require.NoError(t, err)
	before := runtime.NumGoroutine()
	cfg := DefaultConfig()
	cfg.API, cfg.Inject = APINode, InjectUncheckedConf
	f, sys := newSystem(t, cfg)
	g, err := schedule.NewGenerator(f.Spec(), schedule.Shape{Steps: 150, MaxMessages: 5, CrashQuota: 4, Requests: 8})
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(1, 1))
	for round := range 3 {
		ex, _ := run(t, sys, in)
		require.Len(t, ex.Failures, 1, "round %d", round)
		fl := ex.Failures[0]
		require.Equal(t, schedule.FailurePanic, fl.Kind)
		require.Equal(t, "removed all voters", fl.Message)
		require.Equal(t, len(in.Steps)-1, fl.Step)
		require.Contains(t, fl.Signature, "applyConfChange")
		require.Contains(t, fl.Detail, "go.etcd.io/raft/v3.(*node).run", "the stack is the loop's")
		for range 20 {
			ex, _ := run(t, sys, g.Random(r))
			for _, fl := range ex.Failures {
				require.NotEqual(t, schedule.FailurePanic, fl.Kind, "a later execution: %s", fl.Signature)
			}
		}
	}
	// Without the seeded bug the application refuses the change.
	cfg.Inject = ""
	_, sys = newSystem(t, cfg)
	ex, _ := run(t, sys, in)
	require.Empty(t, ex.Failures)
	requireNoMoreGoroutines(t, before)
}

// requireNoMoreGoroutines fails unless the goroutines that executions
// started have ended (those of stopped nodes may take a moment to return).
func requireNoMoreGoroutines(t *testing.T, before int) {
	// Polled here: require.Eventually runs its condition in goroutines of
	// its own.
	for deadline := time.Now().Add(time.Minute); runtime.NumGoroutine() > before && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	require.LessOrEqual(t, runtime.NumGoroutine(), before)
}

// Both APIs and both bootstraps run the same schedules deterministically,
// and an execution leaves no goroutine behind.
func TestNodeAPIDeterministic(t *testing.T) {
	before := runtime.NumGoroutine()
	for _, api := range []string{APINode, APIMixed} {
		for _, boot := range []string{BootstrapLog, BootstrapSnapshot} {
			cfg := DefaultConfig()
			cfg.API, cfg.Bootstrap = api, boot
			f, s1 := newSystem(t, cfg)
			_, s2 := newSystem(t, cfg)
			g, err := schedule.NewGenerator(f.Spec(), schedule.Shape{Steps: 150, MaxMessages: 5, CrashQuota: 4, Requests: 8})
			require.NoError(t, err)
			r := rand.New(rand.NewPCG(2, 2))
			for seed := range 100 {
				in := g.Random(r)
				ex1, t1 := run(t, s1, in)
				_, t2 := run(t, s2, in)
				require.Equal(t, string(t1), string(t2), "%s/%s seed %d", api, boot, seed)
				require.Empty(t, ex1.Failures, "%s/%s seed %d", api, boot, seed)
			}
		}
	}
	requireNoMoreGoroutines(t, before)
}

// The crash-point bugs: each minimized reproducer (found by a random
// campaign, minimized by modelfuzz minimize) fails with its crash point,
// and the same schedule with a plain crash there does not: only a crash
// inside the Ready handling exposes them.
func TestCrashPointBugs(t *testing.T) {
	for _, tc := range []struct {
		file, inject string
		maxSize      uint64
		point        string
	}{
		{"crashpoint-send-then-persist.json", InjectSendThenPersist, 0, schedule.AfterSend},
		{"crashpoint-applied-index-first-after-persist.json", InjectAppliedIndexFirst, 0, schedule.AfterPersist},
		{"crashpoint-applied-index-first-after-send.json", InjectAppliedIndexFirst, 0, schedule.AfterSend},
		{"crashpoint-applied-index-first-mid-apply.json", InjectAppliedIndexFirst, 1 << 20, schedule.MidApply},
	} {
		t.Run(tc.file, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata", tc.file))
			require.NoError(t, err)
			in, err := schedule.DecodeInput(raw)
			require.NoError(t, err)
			cfg := DefaultConfig()
			cfg.Inject = tc.inject
			if tc.maxSize > 0 {
				cfg.MaxSizePerMsg = tc.maxSize
			}
			_, sys := newSystem(t, cfg)
			ex, _ := run(t, sys, in)
			require.NotEmpty(t, ex.Failures, "the reproducer fails")
			plain := *in
			plain.Steps = slices.Clone(in.Steps)
			found := false
			for i, st := range plain.Steps {
				if st.Action == schedule.Crash && st.Point == tc.point {
					plain.Steps[i].Point = ""
					found = true
				}
			}
			require.True(t, found, "the reproducer has a crash at %s", tc.point)
			ex, _ = run(t, sys, &plain)
			require.Empty(t, ex.Failures, "with a plain crash the schedule passes")
			// Without the seeded bug, the reproducer passes too.
			cfg.Inject = ""
			_, sys = newSystem(t, cfg)
			ex, _ = run(t, sys, in)
			require.Empty(t, ex.Failures)
		})
	}
}
