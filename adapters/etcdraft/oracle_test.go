package etcdraft

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
	"go.etcd.io/raft/v3/tracker"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// An answer that acknowledges an index beyond the leader's log (forged: no
// follower sends one) moves the follower's Match and Next past the log;
// the leader, which cannot find the entry before Next, falls back to a
// snapshot at its own snapshot's index, below that Match. The progress
// oracle sees it right after the message, at both APIs.
func TestProgressOracleSeesNextBeyondTheLog(t *testing.T) {
	for _, api := range []string{APIRawNode, APINode} {
		cfg := ClassicConfig()
		cfg.API = api
		_, sys := newSystem(t, cfg)
		s := sys.(*System)
		s.Begin()
		for _, st := range []schedule.Step{to(0), d(1, 5), d(2, 5), d(0, 5), d(1, 5), d(2, 5), d(0, 5)} {
			require.True(t, s.Step(st))
		}
		require.Empty(t, s.ex.Failures)
		require.Equal(t, raft.StateLeader, s.nodes[0].rn.BasicStatus().RaftState)
		f := schedule.Guard(&s.step, func() {
			s.send(1, &pb.Message{Type: pb.MsgAppResp.Enum(), From: new(uint64(2)), To: new(uint64(1)), Term: new(uint64(1)),
				Index: new(s.nodes[0].lastIndex + 5)})
			s.receive(s.nodes[0], len(s.nodes[0].inbox)-1)
		})
		require.Nil(t, f)
		ex := s.End()
		require.Len(t, ex.Failures, 1, api)
		require.Equal(t, sigMatchBelowNext, ex.Failures[0].Signature)
		require.Contains(t, ex.Failures[0].Message, "leader n1 has Match 7 >= Next 2 for n2 (StateSnapshot")
	}
}

// A stale rejection that reaches a leader whose follower waits for a
// snapshot lowers Next below the pending snapshot (MaybeDecrTo does not
// look at the state), against the tracker's own comment ("In
// StateSnapshot, Next == PendingSnapshot + 1"); the snapshot's report
// restores it. The correct library does it, so the oracle does not check
// it: the input passes, and it does reach that state.
func TestProgressStaleRejectInSnapshot(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "progress-stale-reject-in-snapshot.json"))
	require.NoError(t, err)
	in, err := schedule.DecodeInput(raw)
	require.NoError(t, err)
	_, sys := newSystem(t, DefaultConfig())
	s := sys.(*System)
	s.Begin()
	reached := false
	for _, st := range in.Steps {
		require.True(t, s.Step(st))
		if n := s.nodes[0]; n.rn != nil && n.rn.BasicStatus().RaftState == raft.StateLeader {
			for _, pr := range n.rn.Status().Progress {
				if pr.State == tracker.StateSnapshot && pr.Next <= pr.PendingSnapshot {
					reached = true
				}
			}
		}
	}
	ex := s.End()
	require.Empty(t, ex.Failures)
	require.True(t, reached, "a follower in StateSnapshot with Next at or below its pending snapshot")
}
