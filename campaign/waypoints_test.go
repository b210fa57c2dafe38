package campaign

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/adapters/etcdraft"
	"github.com/modelfuzz/modelfuzz/mapper"
	"github.com/modelfuzz/modelfuzz/models"
	"github.com/modelfuzz/modelfuzz/schedule"
)

const waypointsFile = "../tests/etcdraft/raft_waypoints.tla"

func TestWaypointsAlongAnExecution(t *testing.T) {
	cfg := etcdraft.ClassicConfig()
	fac, err := etcdraft.NewFactory(cfg)
	require.NoError(t, err)
	sys, err := fac.New()
	require.NoError(t, err)
	mp := mapper.NewEtcdraft(EtcdraftMapperParams(cfg))
	spec := models.Spec{Model: "raft.tla", Consts: mp.Consts()}
	w, err := LoadWaypoints(spec, waypointsFile+":TwoRestarts", mp)
	require.NoError(t, err)
	require.Equal(t, []string{"SomeoneDown", "AllLive", "SomeoneDown", "AllLive", "SomeLeader"}, w.Names)

	st := func(p int, a schedule.Action) schedule.Step {
		s := schedule.Step{Process: p, Action: a}
		if a == schedule.Deliver {
			s.Messages = 5
		}
		return s
	}
	in := &schedule.Input{Steps: []schedule.Step{
		st(2, schedule.Crash), st(2, schedule.Restart), // 0, 1: the first restart
		st(0, schedule.Timeout), st(1, schedule.Deliver), // 2, 3: n1 campaigns
		st(1, schedule.Crash), st(1, schedule.Restart), // 4, 5: the second restart
		st(2, schedule.Deliver), st(0, schedule.Deliver), // 6, 7: n3 votes, n1 leads
	}}
	ex, err := sys.Execute(in)
	require.NoError(t, err)
	p, err := w.Passage(in, ex)
	require.NoError(t, err)
	require.Equal(t, 5, p.Reached, "%s", schedule.Timeline(fac.Spec(), in, ex))
	require.True(t, w.Done(p))
	require.Equal(t, []int{0, 1, 4, 5, 7}, p.Steps)

	// Without the second restart the sequence stops after its second waypoint.
	short := &schedule.Input{Steps: append(append([]schedule.Step{}, in.Steps[:4]...), in.Steps[6:]...)}
	ex, err = sys.Execute(short)
	require.NoError(t, err)
	p, err = w.Passage(short, ex)
	require.NoError(t, err)
	require.Equal(t, 2, p.Reached)
	require.False(t, w.Done(p))
}

// The shipped module's default, Waypoints == CommitThenNewTerm, names a
// tuple defined above it: its value is what counts, and the waypoints are
// named after that tuple's elements. A tuple the engine computes gets
// numbered names.
func TestWaypointsByValue(t *testing.T) {
	mp := mapper.NewEtcdraft(mapper.EtcdraftParams{Nodes: 3})
	spec := models.Spec{Model: "raft.tla", Consts: mp.Consts()}
	w, err := LoadWaypoints(spec, waypointsFile, mp)
	require.NoError(t, err)
	require.Equal(t, []string{"SomeCommit", "LeaderTerm2"}, w.Names)

	p := filepath.Join(t.TempDir(), "w.tla")
	require.NoError(t, os.WriteFile(p, []byte("---- MODULE w ----\nEXTENDS raft\nAllLive == live = Servers\nA == AllLive\nB == <<A, TRUE>>\nC == B\n"+
		"Both == <<AllLive>> \\o <<live = {}>>\nWaypoints == C\n====\n"), 0o644))
	w, err = LoadWaypoints(spec, p, mp)
	require.NoError(t, err)
	require.Equal(t, []string{"A", "Waypoints[2]"}, w.Names, "names through two aliases; TRUE is no name")
	w, err = LoadWaypoints(spec, p+":Both", mp)
	require.NoError(t, err)
	require.Equal(t, []string{"Both[1]", "Both[2]"}, w.Names)
	last, err := w.Last(nil)
	require.NoError(t, err)
	require.Equal(t, []bool{true, false}, last, "evaluated in the initial state: all live")
}

func TestWaypointsErrors(t *testing.T) {
	mp := mapper.NewEtcdraft(mapper.EtcdraftParams{Nodes: 3})
	spec := models.Spec{Model: "raft.tla", Consts: mp.Consts()}
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
		return p
	}
	for _, c := range []struct{ file, src, arg, want string }{
		{"a.tla", "---- MODULE a ----\nEXTENDS raft\nX == TRUE\n====\n", "", "module a defines no Waypoints"},
		{"b.tla", "---- MODULE b ----\nEXTENDS raft\nWaypoints == TRUE\n====\n", "", "b.tla:3:1: Waypoints is not a tuple of predicates: its value is TRUE"},
		{"b2.tla", "---- MODULE b2 ----\nEXTENDS raft\nT == <<live = Servers, 1>>\nWaypoints == T\n====\n", "", "b2.tla:4:1: Waypoints is not a tuple of predicates: its element 2 is 1"},
		{"b3.tla", "---- MODULE b3 ----\nEXTENDS raft\nWaypoints == <<>>\n====\n", "", "b3.tla:3:1: Waypoints is not a tuple of predicates: its value is <<>>"},
		{"b4.tla", "---- MODULE b4 ----\nEXTENDS raft\nW(x) == <<x>>\n====\n", ":W", "b4.tla:3:1: W takes parameters"},
		{"c.tla", "---- MODULE c ----\nEXTENDS Naturals\nWaypoints == <<TRUE>>\n====\n", "", "module c does not extend the model raft"},
		{"d.tla", "---- MODULE d ----\nEXTENDS raft\nVARIABLE z\nWaypoints == <<TRUE>>\n====\n", "", "d.tla:3:1: module d declares a variable"},
		{"e.tla", "---- MODULE e ----\nEXTENDS raft\nW == <<Nope>>\n====\n", ":W", "Nope"},
	} {
		p := write(c.file, c.src)
		_, err := LoadWaypoints(spec, p+c.arg, mp)
		require.Error(t, err, c.file)
		require.Contains(t, err.Error(), c.want, c.file)
		require.False(t, strings.Contains(err.Error(), "\n"), "one line: %q", err)
	}
}
