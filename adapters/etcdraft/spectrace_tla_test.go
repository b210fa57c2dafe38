//go:build with_tla

package etcdraft

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// The library's own trace is part of an execution's determinism: the same
// input gives the same events, byte for byte, on the same instance and on
// another, whichever API drives the nodes; the Node driver's synchronizing
// messages are not in it; every event names the step it happened in.
func TestSpecTraceDeterministic(t *testing.T) {
	for _, api := range []string{APIRawNode, APIMixed} {
		cfg := DefaultConfig()
		cfg.PreVote, cfg.CheckQuorum, cfg.SpecTrace, cfg.API = false, false, true, api
		f, s1 := newSystem(t, cfg)
		_, s2 := newSystem(t, cfg)
		g, err := schedule.NewGenerator(f.Spec(), schedule.Shape{Steps: 80, MaxMessages: 5, CrashQuota: 2, Requests: 4})
		require.NoError(t, err)
		r := rand.New(rand.NewPCG(7, 8))
		runs := 30 // the library sleeps 1 ms per traced receive
		if raceEnabled {
			runs = 8
		}
		for i := 0; i < runs; i++ {
			in := g.Random(r)
			a, _ := run(t, s1, in)
			b, _ := run(t, s1, in)
			c, _ := run(t, s2, in)
			require.NotEmpty(t, a.Spec)
			require.Equal(t, specBytes(a), specBytes(b), "%s input %d", api, i)
			require.Equal(t, specBytes(a), specBytes(c), "%s input %d", api, i)
			last := 0
			for _, e := range a.Spec {
				require.True(t, json.Valid(e.JSON), "%s", e.JSON)
				require.False(t, bytes.Contains(e.JSON, []byte(`"`+noSuchPeerID+`"`)), "%s", e.JSON)
				require.GreaterOrEqual(t, e.Step, last)
				require.Less(t, e.Step, in.Len())
				last = e.Step
			}
		}
	}
}

func specBytes(ex *schedule.Execution) []byte {
	var b bytes.Buffer
	for _, e := range ex.Spec {
		b.Write(e.JSON)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// A restart is traced as one InitState with the state the node comes back
// with: the term, vote, commit index, log and configuration its last Ready
// made durable (every crash point is after the Ready's writes), not the
// empty state newRaft traces before it loads them.
func TestSpecTraceRestart(t *testing.T) {
	for _, api := range []string{APIRawNode, APIMixed} {
		cfg := DefaultConfig()
		cfg.PreVote, cfg.CheckQuorum, cfg.SpecTrace, cfg.API = false, false, true, api
		cfg.SnapshotEvery, cfg.MaxSizePerMsg = NeverSnapshot, 0
		f, s := newSystem(t, cfg)
		g, err := schedule.NewGenerator(f.Spec(), schedule.Shape{Steps: 80, MaxMessages: 5, CrashQuota: 4, Requests: 4,
			Actions: "deliver,timeout,request,crash,restart"})
		require.NoError(t, err)
		r := rand.New(rand.NewPCG(9, 10))
		restarts := 0
		for i := 0; i < 20; i++ {
			ex, _ := run(t, s, g.Random(r))
			last := map[string]tracedEvent{} // each node's last Ready (or first start)
			for _, e := range ex.Spec {
				var ev tracedEvent
				require.NoError(t, json.Unmarshal(e.JSON, &ev))
				switch {
				case ev.Event.Name == "Ready" || ev.Event.Name == "InitState" && e.Step == 0:
					last[ev.Event.Nid] = ev
				case ev.Event.Name == "InitState" && e.Step > 0:
					restarts++
					ready, ok := last[ev.Event.Nid]
					require.True(t, ok, "%s input %d: n%s restarted without starting first", api, i, ev.Event.Nid)
					require.Equal(t, ready.Event.State, ev.Event.State, "%s input %d: %s", api, i, e.JSON)
					require.Equal(t, ready.Event.Log, ev.Event.Log, "%s input %d: %s", api, i, e.JSON)
					require.Equal(t, ready.Event.Conf, ev.Event.Conf, "%s input %d: %s", api, i, e.JSON)
					require.Equal(t, "StateFollower", ev.Event.Role)
				}
			}
		}
		require.Greater(t, restarts, 5, api)
	}
}

type tracedEvent struct {
	Event struct {
		Name  string `json:"name"`
		Nid   string `json:"nid"`
		Role  string `json:"role"`
		Log   uint64 `json:"log"`
		State struct {
			Term   uint64 `json:"term"`
			Vote   string `json:"vote"`
			Commit uint64 `json:"commit"`
		} `json:"state"`
		Conf [2][]string `json:"conf"`
	} `json:"event"`
}

// With PreVote, the trace shows a pre-candidate as the follower the spec
// knows: no event has the library's pre-candidate role, and a candidate
// that becomes a pre-candidate steps down to follower in its term.
func TestSpecTracePreCandidateIsFollower(t *testing.T) {
	cfg := DefaultConfig()
	cfg.CheckQuorum, cfg.SpecTrace, cfg.API = false, true, APIMixed
	cfg.SnapshotEvery, cfg.MaxSizePerMsg = NeverSnapshot, 0
	f, s := newSystem(t, cfg)
	g, err := schedule.NewGenerator(f.Spec(), schedule.Shape{Steps: 80, MaxMessages: 5, Requests: 4, Actions: "deliver,timeout,request,drop"})
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(11, 12))
	pre, downs := 0, 0
	for i := 0; i < 30; i++ {
		ex, _ := run(t, s, g.Random(r))
		for _, e := range ex.Trace {
			if e.Kind == schedule.EvRole && e.Type == schedule.RolePreCandidate {
				pre++
			}
		}
		role := map[string]tracedEvent{}
		for _, e := range ex.Spec {
			require.NotContains(t, string(e.JSON), "StatePreCandidate")
			var ev tracedEvent
			require.NoError(t, json.Unmarshal(e.JSON, &ev))
			before, ok := role[ev.Event.Nid]
			role[ev.Event.Nid] = ev
			if ok && ev.Event.Name == "BecomeFollower" && before.Event.Role == "StateCandidate" && before.Event.State.Term == ev.Event.State.Term {
				downs++
			}
		}
	}
	require.Greater(t, pre, 10, "pre-candidates")
	require.Greater(t, downs, 0, "candidates that became pre-candidates")
}

// With CheckQuorum, a vote request that a node ignores (it heard from its
// leader within an election timeout) is not traced as received: every
// traced receipt of a vote request of a higher term is followed by the
// receiver taking that term.
func TestSpecTraceIgnoredVoteRequest(t *testing.T) {
	cfg := DefaultConfig()
	cfg.PreVote, cfg.SpecTrace, cfg.API = false, true, APIMixed
	cfg.SnapshotEvery, cfg.MaxSizePerMsg = NeverSnapshot, 0
	f, s := newSystem(t, cfg)
	g, err := schedule.NewGenerator(f.Spec(), schedule.Shape{Steps: 80, MaxMessages: 5, Requests: 4, Actions: "deliver,timeout,request,deliver-one"})
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(13, 14))
	ignored := 0
	for i := 0; i < 30; i++ {
		ex, _ := run(t, s, g.Random(r))
		for _, e := range ex.Trace {
			if e.Kind == schedule.EvRecv && e.Type == "MsgVote" {
				ignored++ // counted again below when traced
			}
		}
		var pending *tracedEvent
		var msgTerm uint64
		for _, e := range ex.Spec {
			var ev struct {
				tracedEvent
				Event struct {
					Msg *struct {
						Type string `json:"type"`
						Term uint64 `json:"term"`
					} `json:"msg"`
				} `json:"event"`
			}
			require.NoError(t, json.Unmarshal(e.JSON, &ev.tracedEvent))
			require.NoError(t, json.Unmarshal(e.JSON, &ev))
			te := ev.tracedEvent
			if pending != nil && te.Event.Nid == pending.Event.Nid {
				require.Equal(t, msgTerm, te.Event.State.Term, "input %d: the receiver of a vote request of term %d did not take it: %s", i, msgTerm, e.JSON)
				pending = nil
			}
			if te.Event.Name == "ReceiveRequestVoteRequest" {
				ignored--
				if ev.Event.Msg.Term > te.Event.State.Term {
					pending, msgTerm = &te, ev.Event.Msg.Term
				}
			}
		}
	}
	require.Greater(t, ignored, 0, "vote requests ignored in a lease")
}
