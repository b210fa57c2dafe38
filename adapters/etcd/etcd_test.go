package etcd

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// etcdBinary is the etcd the tests run: $MODELFUZZ_TEST_ETCD, else
// Debian's. Tests that need one skip without it.
func etcdBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs a real etcd cluster")
	}
	bin := os.Getenv("MODELFUZZ_TEST_ETCD")
	if bin == "" {
		bin = DebianBinary
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("no etcd binary at %s (apt-get install etcd-server, or set MODELFUZZ_TEST_ETCD)", bin)
	}
	return bin
}

// newTestSystem makes a System of a three-member cluster with the state
// directory in the test's temporary directory.
func newTestSystem(t *testing.T, edit func(*Config)) *System {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Binary = etcdBinary(t)
	v, err := ServerVersion(cfg.Binary)
	require.NoError(t, err)
	cfg.ServerVersion = v
	if edit != nil {
		edit(&cfg)
	}
	f, err := NewFactory(cfg, Options{StateDir: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, f.Close()) })
	s, err := f.NewSystem()
	require.NoError(t, err)
	return s
}

func steps(ss ...schedule.Step) *schedule.Input { return &schedule.Input{Steps: ss} }

func deliverAll(rounds int) []schedule.Step {
	var out []schedule.Step
	for range rounds {
		for p := range 3 {
			out = append(out, schedule.Step{Process: p, Action: schedule.Deliver, Messages: 5})
		}
	}
	return out
}

// events returns the events of kind (and type, if not empty).
func events(tr schedule.Trace, kind, typ string) []schedule.Event {
	var out []schedule.Event
	for _, e := range tr {
		if e.Kind == kind && (typ == "" || e.Type == typ) {
			out = append(out, e)
		}
	}
	return out
}

func received(tr schedule.Trace, msg int) int {
	n := 0
	for _, e := range tr {
		if e.Kind == schedule.EvRecv && e.Msg == msg {
			n++
		}
	}
	return n
}

// A message dropped by the schedule never reaches its receiver, even
// after the network heals at the end: the appends dropped here included.
func TestDroppedAppendIsNeverReceived(t *testing.T) {
	s := newTestSystem(t, nil)
	var in []schedule.Step
	for p := range 3 {
		in = append(in, schedule.Step{Process: p, Action: schedule.Request, Value: 2 * (p + 1)})
	}
	for range 6 {
		for p := range 3 {
			in = append(in, schedule.Step{Process: p, Action: schedule.Drop, K: 1},
				schedule.Step{Process: p, Action: schedule.Deliver, Messages: 2})
		}
	}
	var appends int
	for try := 0; try < 3 && appends == 0; try++ {
		ex, err := s.Execute(steps(in...))
		require.NoError(t, err)
		drops := events(ex.Trace, schedule.EvDrop, "")
		require.NotEmpty(t, drops)
		for _, d := range drops {
			require.Zero(t, received(ex.Trace, d.Msg), "message %d (%s) was dropped, then received", d.Msg, d.Type)
			if d.Type == "MsgApp" {
				appends++
			}
		}
		require.Empty(t, ex.Failures)
	}
	require.NotZero(t, appends, "no append was pending to drop in 3 executions")
}

// A duplicated vote request is received twice, as two messages.
func TestDuplicatedVoteIsReceivedTwice(t *testing.T) {
	s := newTestSystem(t, func(c *Config) { c.PreVote = false })
	s.Begin()
	require.NoError(t, s.Err())
	// No deliveries: a follower's election timeout fires.
	var vote *schedule.Enabled
	for range 20 {
		require.True(t, s.Step(schedule.Step{Process: 0, Action: schedule.Tick, N: 4}))
		for _, ev := range s.Pending(nil) {
			if ev.Kind == schedule.KindRecv && ev.Type == "MsgVote" {
				vote = &ev
				break
			}
		}
		if vote != nil {
			break
		}
	}
	require.NotNil(t, vote, "no vote request within 8 election timeouts")
	require.True(t, s.Step(vote.DupStep))
	ex := s.End()
	var copyOf, copyMsg int
	for _, d := range events(ex.Trace, schedule.EvDuplicate, "MsgVote") {
		of, _ := argInt(d, schedule.ArgCopyOf)
		copyOf, copyMsg = int(of), d.Msg
	}
	require.NotZero(t, copyMsg)
	require.Equal(t, 1, received(ex.Trace, copyOf), "the original")
	require.Equal(t, 1, received(ex.Trace, copyMsg), "the copy")
	require.Empty(t, ex.Failures)
}

func argInt(e schedule.Event, key string) (int64, bool) {
	for _, a := range e.Args {
		if a.Key == key && !a.IsStr {
			return a.Int, true
		}
	}
	return 0, false
}

// A partition stops every message between the two sides, both ways,
// until it heals.
func TestPartitionCutsBothWaysUntilHealed(t *testing.T) {
	s := newTestSystem(t, nil)
	in := []schedule.Step{{Process: 0, Action: schedule.Partition, Set: 1}}
	in = append(in, deliverAll(4)...)
	in = append(in, schedule.Step{Process: 0, Action: schedule.Tick, N: 12})
	in = append(in, deliverAll(4)...)
	in = append(in, schedule.Step{Process: 0, Action: schedule.Heal})
	in = append(in, deliverAll(4)...)
	ex, err := s.Execute(steps(in...))
	require.NoError(t, err)
	healAt := len(in) - 13
	across := func(e schedule.Event) bool { return (e.Node == 0) != (e.Peer == 0) }
	var cutSends, after int
	for _, e := range ex.Trace {
		if e.Kind == schedule.EvSend && across(e) && e.Step >= 1 && e.Step < healAt {
			cutSends++
		}
		if e.Kind != schedule.EvRecv || !across(e) {
			continue
		}
		require.False(t, e.Step >= 1 && e.Step < healAt, "n%d received %s from n%d at step %d, inside the partition", e.Node+1, e.Type, e.Peer+1, e.Step)
		if e.Step >= healAt {
			after++
		}
	}
	require.NotZero(t, cutSends, "nothing was sent across the cut")
	require.NotZero(t, after, "nothing crossed after the heal")
	require.Empty(t, ex.Failures)
}

// SIGKILL of every member after a put was acknowledged: the put is
// durable (etcd's WAL is synced before the answer), and the
// linearizability oracle, which checks the read after the restarts,
// passes.
//
// The schedule here is one that lets the cluster work on a loaded
// machine: the proxy holds every message until a step delivers it, and a
// leader heartbeats each follower every heartbeat interval, so rounds of
// five messages per member fall behind (a leader's inbox once held 500
// heartbeat answers) and a read's ReadIndex round, which waits behind
// them, outlasted every timeout. Heartbeats every 100 ms, deliveries that
// drain what is held, and a 10 s client timeout keep the answers within
// reach; the test fails, never skips, when the put or the read after the
// restarts gets no answer.
func TestSIGKILLKeepsWhatTheWALSynced(t *testing.T) {
	s := newTestSystem(t, func(c *Config) {
		c.HeartbeatMS, c.ElectionMS, c.RequestTimeoutMS = 100, 1000, 10000
	})
	s.Begin()
	require.NoError(t, s.Err())
	drain := func() {
		for p := range 3 {
			require.True(t, s.Step(schedule.Step{Process: p, Action: schedule.Deliver, Messages: 100}))
		}
	}
	op := func(k int) Op {
		s.ex.mu.Lock()
		defer s.ex.mu.Unlock()
		if k < 0 {
			k += len(s.ex.history)
		}
		return s.ex.history[k]
	}
	// ask issues one operation and delivers until its call returns; a
	// call that returned without an answer (a timeout while no leader
	// was elected) is asked again, up to 10 times.
	ask := func(what string, st schedule.Step) Op {
		for attempt := 0; ; attempt++ {
			if attempt == 10 {
				t.Fatalf("10 %ss got no answer (the last: %s)", what, op(-1).Err)
			}
			require.True(t, s.Step(st))
			for round := 0; op(-1).Return == 0; round++ {
				require.Less(t, round, 100, "a %s did not return in 100 rounds of deliveries", what)
				drain()
			}
			if o := op(-1); !o.Pending {
				return o
			}
		}
	}
	put := ask("put", schedule.Step{Process: 0, Action: schedule.Request, Value: 2})
	require.Equal(t, "v2", put.Arg)
	for p := range 3 {
		require.True(t, s.Step(schedule.Step{Process: p, Action: schedule.Crash}))
	}
	for p := range 3 {
		require.True(t, s.Step(schedule.Step{Process: p, Action: schedule.Restart}))
	}
	// The restarted members elect a leader before a read is answered: a
	// read asked before that times out and is asked again (an unanswered
	// read changes nothing in the history's meaning).
	ask("read", schedule.Step{Process: 1, Action: schedule.Read})
	ex := s.End()
	require.NoError(t, s.Err())
	require.Empty(t, ex.Failures)
	h := s.History()
	read := h[len(h)-1]
	require.True(t, read.Found, "the acknowledged put was lost: %s", read)
	require.Equal(t, "v2", read.Out)
	require.Equal(t, "k1", read.Key)
	require.Len(t, events(ex.Trace, schedule.EvCrash, ""), 3)
}

// Each oracle sees the fault seeded for it.
func TestOraclesSeeInjectedFaults(t *testing.T) {
	in := []schedule.Step{{Process: 0, Action: schedule.Request, Value: 2}, {Process: 1, Action: schedule.Request, Value: 3}}
	in = append(in, deliverAll(4)...)
	t.Run("linearizability", func(t *testing.T) {
		s := newTestSystem(t, func(c *Config) { c.Inject = InjectCorruptRead; c.Keys = 1 })
		in := []schedule.Step{{Process: 0, Action: schedule.Request, Value: 2}}
		in = append(in, deliverAll(4)...)
		in = append(in, schedule.Step{Process: 1, Action: schedule.Read})
		ex, err := s.Execute(steps(in...))
		require.NoError(t, err)
		requireFailure(t, ex, schedule.FailureLinearizability, "linearizability: etcd kv")
	})
	t.Run("key spaces", func(t *testing.T) {
		s := newTestSystem(t, func(c *Config) { c.Inject = InjectCorruptMember })
		ex, err := s.Execute(steps(in...))
		require.NoError(t, err)
		requireFailure(t, ex, schedule.FailureSafety, "safety: members' key spaces differ")
	})
	t.Run("exit", func(t *testing.T) {
		wrapper, err := filepath.Abs("testdata/panicking-etcd.sh")
		require.NoError(t, err)
		bin := etcdBinary(t)
		t.Setenv("MODELFUZZ_TEST_ETCD", bin)
		s := newTestSystem(t, func(c *Config) { c.Binary = wrapper })
		var ticks []schedule.Step
		for range 10 {
			ticks = append(ticks, schedule.Step{Process: 0, Action: schedule.Tick, N: 40})
		}
		ex, err := s.Execute(steps(ticks...))
		require.NoError(t, err)
		requireFailure(t, ex, schedule.FailureExit, "exit: panic: injected by the test wrapper")
	})
}

// A member that does not come back after a restart is a failure of its
// own kind.
func TestMemberThatNeverRejoinsFails(t *testing.T) {
	wrapper, err := filepath.Abs("testdata/stuck-restart-etcd.sh")
	require.NoError(t, err)
	bin := etcdBinary(t)
	t.Setenv("MODELFUZZ_TEST_ETCD", bin)
	s := newTestSystem(t, func(c *Config) { c.Binary = wrapper; c.StartTimeoutMS = 3000; c.SettleMS = 3000 })
	in := []schedule.Step{{Process: 2, Action: schedule.Crash}, {Process: 2, Action: schedule.Restart}}
	in = append(in, deliverAll(2)...)
	ex, err := s.Execute(steps(in...))
	require.NoError(t, err)
	var got []string
	for _, f := range ex.Failures {
		if f.Kind == schedule.FailureRestart {
			return
		}
		got = append(got, f.Signature)
	}
	t.Fatalf("no restart failure; failures: %q", got)
}

func requireFailure(t *testing.T, ex *schedule.Execution, kind schedule.FailureKind, sig string) {
	t.Helper()
	var got []string
	for _, f := range ex.Failures {
		if f.Kind == kind && f.Signature == sig {
			return
		}
		got = append(got, f.Signature)
	}
	t.Fatalf("no %s failure %q; failures: %q", kind, sig, got)
}

// The correct cluster, with every action, shows no failure.
func TestNoFalseAlarm(t *testing.T) {
	s := newTestSystem(t, nil)
	g, err := schedule.NewGenerator(s.Spec(), schedule.Shape{Steps: 30, MaxMessages: 5, Requests: 6, CrashQuota: 3})
	require.NoError(t, err)
	r := newRand(7)
	for range 2 {
		ex, err := s.Execute(g.Random(r))
		require.NoError(t, err)
		for _, f := range ex.Failures {
			t.Errorf("%s: %s", f.Signature, f.Message)
		}
	}
}

// Executions leave no member running and no directory behind.
func TestNothingLeftBehind(t *testing.T) {
	s := newTestSystem(t, nil)
	_, err := s.Execute(steps(schedule.Step{Process: 0, Action: schedule.Request, Value: 2}))
	require.NoError(t, err)
	out, _ := exec.Command("pgrep", "-f", s.runDir).Output()
	require.Empty(t, strings.TrimSpace(string(out)), "members still running")
	ents, err := os.ReadDir(s.runDir)
	require.NoError(t, err)
	require.Empty(t, ents)
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed)) }

// A binary that is not there, or not a program, is named in one line
// before anything runs it.
func TestServerVersionOfNoProgram(t *testing.T) {
	for _, bad := range []string{"/nonexistent/etcd", t.TempDir()} {
		_, err := ServerVersion(bad)
		require.EqualError(t, err, "etcd: "+bad+" is not an executable file")
	}
}
