package guidance

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/schedule"
)

func q(l *Learning, table int, s uint64, a string) float64 {
	return l.tables[qkey{table, s}].actions[a].q
}

// Algorithm 2's update, by hand: Q <- (1-α)Q + α·max(1/t, γ·max Q(s',·)),
// the last step with max(1/t, 0), Q starting at 1.
func TestBonusMaxUpdate(t *testing.T) {
	l, err := NewLearning("bonusmaxrl", LearningParams{Alpha: 0.5, Gamma: 0.9}, schedule.Harness{}, nil)
	require.NoError(t, err)
	ep := []step{{s: 1, next: 2, a: "x", available: []string{"y"}}, {s: 2, next: 3, a: "y"}}
	l.process(ep, -1)
	require.Equal(t, 1.0, q(l, 0, 2, "y"))
	require.Equal(t, 1.0, q(l, 0, 1, "x"))
	l.process(ep, -1)
	require.InDelta(t, 0.75, q(l, 0, 2, "y"), 1e-12)   // 0.5·1 + 0.5·max(1/2, 0)
	require.InDelta(t, 0.8375, q(l, 0, 1, "x"), 1e-12) // 0.5·1 + 0.5·max(1/2, 0.9·0.75)
	require.Equal(t, uint64(2), l.tables[qkey{0, 1}].actions["x"].visits)
}

// NegRLVisits: the reward is minus the visits of the state reached, Q
// starting at 0.
func TestNegRLUpdate(t *testing.T) {
	l, err := NewLearning("negrl", LearningParams{}, schedule.Harness{}, nil)
	require.NoError(t, err)
	require.Equal(t, 0.3, l.Params.Alpha)
	require.Equal(t, 0.7, l.Params.Gamma)
	l.process([]step{{s: 1, next: 2, a: "x"}}, -1)
	require.InDelta(t, -0.3, q(l, 0, 1, "x"), 1e-12)
	l.process([]step{{s: 1, next: 2, a: "x"}}, -1)
	require.InDelta(t, 0.7*-0.3+0.3*-2, q(l, 0, 1, "x"), 1e-12)
}

// WaypointRL: passing the next waypoint is rewarded 2, and 2γ^d more when
// the episode reached the last one d steps later (Algorithm 4).
func TestWaypointUpdate(t *testing.T) {
	w := &Waypoints{Names: []string{"A", "B"}}
	l, err := NewLearning("waypointrl", LearningParams{Alpha: 0.5, Gamma: 0.9}, schedule.Harness{}, w)
	require.NoError(t, err)
	l.process([]step{
		{s: 1, next: 2, a: "x", p: 0, pNext: 1, available: []string{"y"}},
		{s: 2, next: 3, a: "y", p: 1, pNext: 1, available: []string{"z"}},
		{s: 3, next: 4, a: "z", p: 1, pNext: 2},
	}, -1)
	require.Equal(t, int64(1), l.reached)
	// the last step passes B: 0.5·1 + 0.5·max(1, 0.9·(2 + 2γ^0))
	require.InDelta(t, 0.5+0.5*0.9*4, q(l, 1, 3, "z"), 1e-12)
	// within table 1, no progress: the exploration bonus or the future
	require.InDelta(t, 0.5+0.5*max(1, 0.9*q(l, 1, 3, "z")), q(l, 1, 2, "y"), 1e-12)
	// the first step passes A, the last waypoint reached 2 steps later (d = 1)
	require.InDelta(t, 0.5+0.5*0.9*(2+math.Pow(0.9, 1)*2), q(l, 0, 1, "x"), 1e-12)
}

func TestLearnedRoundTrip(t *testing.T) {
	l, err := NewLearning("bonusmaxrl", LearningParams{}, schedule.Harness{}, nil)
	require.NoError(t, err)
	l.process([]step{{s: 1, next: 2, a: "recv/0/1/MsgApp", available: []string{"timeout/1/-1/timeout"}}, {s: 2, next: 1, a: "timeout/1/-1/timeout"}}, -1)
	got := l.Learned()
	require.Len(t, got, 2)
	require.Empty(t, l.Learned(), "nothing changed since")
	m, err := NewLearning("bonusmaxrl", LearningParams{}, schedule.Harness{}, nil)
	require.NoError(t, err)
	require.NoError(t, m.Restore(got))
	require.Equal(t, l.tables, m.tables)
	// another strategy's tables are not ours
	n, err := NewLearning("negrl", LearningParams{}, schedule.Harness{}, nil)
	require.NoError(t, err)
	require.NoError(t, n.Restore(got))
	require.Empty(t, n.tables)
	got[0].Value = got[0].Value[:len(got[0].Value)-1]
	require.ErrorContains(t, m.Restore(got), "truncated")
}

// The system's state is a multiset of the processes' colors: swapping two
// processes' states gives the same state; a crash changes it.
func TestSystemState(t *testing.T) {
	role := func(node int, r string, term int64) schedule.Event {
		return schedule.Event{Kind: "role", Node: node, Peer: -1, Type: r, Args: []schedule.Arg{schedule.I("term", term)}}
	}
	a := NewSystemState(3)
	a.Observe(schedule.Trace{role(0, "leader", 2), role(1, "follower", 2), {Kind: schedule.EvSend, Node: 0, Peer: 1, Type: "MsgApp"}})
	b := NewSystemState(3)
	b.Observe(schedule.Trace{role(1, "leader", 2), role(0, "follower", 2)})
	require.Equal(t, a.Key(), b.Key())
	before := b.Key()
	tr := schedule.Trace{role(1, "leader", 2), role(0, "follower", 2), {Kind: schedule.EvCrash, Node: 1, Peer: -1, Type: "crash"}}
	b.Observe(tr)
	require.NotEqual(t, before, b.Key())
	c := NewSystemState(3)
	c.Observe(schedule.Trace{role(0, "leader", 3), role(1, "follower", 2)})
	require.NotEqual(t, a.Key(), c.Key())
}
