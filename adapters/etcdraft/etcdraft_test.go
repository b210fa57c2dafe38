package etcdraft

import (
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/linearize"
	"github.com/modelfuzz/modelfuzz/mutate"
	"github.com/modelfuzz/modelfuzz/schedule"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func newSystem(t testing.TB, cfg Config) (*Factory, schedule.System) {
	f, err := NewFactory(cfg)
	require.NoError(t, err)
	s, err := f.New()
	require.NoError(t, err)
	return f, s
}

func run(t testing.TB, s schedule.System, in *schedule.Input) (*schedule.Execution, []byte) {
	ex, err := s.Execute(in)
	require.NoError(t, err)
	return ex, schedule.EncodeTrace(ex.Trace)
}

func cfgWith(inject string) Config {
	c := ClassicConfig()
	c.Inject = inject
	return c
}

// Schedule helpers.
func d(p, n int) schedule.Step {
	return schedule.Step{Process: p, Action: schedule.Deliver, Messages: n}
}
func to(p int) schedule.Step    { return schedule.Step{Process: p, Action: schedule.Timeout} }
func crash(p int) schedule.Step { return schedule.Step{Process: p, Action: schedule.Crash} }
func rs(p int) schedule.Step    { return schedule.Step{Process: p, Action: schedule.Restart} }
func req(p, v int) schedule.Step {
	return schedule.Step{Process: p, Action: schedule.Request, Value: v}
}

func TestDeterministicTraces(t *testing.T) {
	for ci, cfg := range []Config{DefaultConfig(), ClassicConfig(), asyncMixed(), {Nodes: 3, SnapshotEvery: 2, PreVote: true, CheckQuorum: true}} {
		f, s1 := newSystem(t, cfg)
		_, s2 := newSystem(t, cfg)
		g, err := schedule.NewGenerator(f.Spec(), schedule.Shape{Steps: 100, MaxMessages: 5, CrashQuota: 3, Requests: 5})
		require.NoError(t, err)
		r := rand.New(rand.NewPCG(1, 1))
		runs := 1000
		if ci == 0 {
			runs = 2000 // the defaults: every action, both APIs, both Ready loops
		}
		if raceEnabled {
			runs = 200
		}
		for i := 0; i < runs; i++ {
			in := g.Random(r)
			_, a := run(t, s1, in)
			_, b := run(t, s1, in) // same instance, reused buffers
			_, c := run(t, s2, in) // another instance
			require.Equal(t, a, b)
			require.Equal(t, a, c)
		}
	}
}

func TestCorrectSystemNeverFails(t *testing.T) {
	n := 10000
	if testing.Short() || raceEnabled {
		n = 1000 // the race detector makes executions ~10x slower
	}
	for ci, cfg := range []Config{DefaultConfig(), asyncMixed(), ClassicConfig(), {Nodes: 3, SnapshotEvery: 2, PreVote: true, CheckQuorum: true}, {Nodes: 5, SnapshotEvery: 3, PreVote: true}} {
		f, s := newSystem(t, cfg)
		g, err := schedule.NewGenerator(f.Spec(), schedule.Shape{Steps: 100, MaxMessages: 6, CrashQuota: 4, Requests: 6})
		require.NoError(t, err)
		r := rand.New(rand.NewPCG(2, uint64(ci)))
		in := g.Random(r)
		runs := n
		if ci > 0 {
			runs = n / 5
		}
		leaders, applies, snaps, installs := 0, 0, 0, 0
		for i := 0; i < runs; i++ {
			if i%10 == 0 {
				in = g.Random(r)
			} else {
				in = mutate.New(g).Mutate(r, in)
			}
			ex, _ := run(t, s, in)
			require.Empty(t, ex.Failures, "config %+v input %s\n%s", cfg, schedule.EncodeInput(in), schedule.Timeline(f.Spec(), in, ex))
			for _, e := range ex.Trace {
				switch {
				case e.Kind == "role" && e.Type == "leader":
					leaders++
				case e.Kind == "apply":
					applies++
				case e.Kind == "snapshot":
					snaps++
				case e.Kind == "install":
					installs++
				}
			}
		}
		t.Logf("config %+v: %d runs, %d leaders, %d applies, %d snapshots, %d installs", cfg, runs, leaders, applies, snaps, installs)
		require.Positive(t, leaders)
		require.Positive(t, applies)
		if ci == 0 {
			require.Positive(t, snaps)
			require.Positive(t, installs, "the schedules should make MsgSnap happen")
		}
	}
}

// asyncMixed is the default configuration with AsyncStorageWrites, two
// spares and lease reads at odd node IDs.
func asyncMixed() Config {
	c := DefaultConfig()
	c.AsyncStorageWrites, c.Spares, c.ReadOnly = "on", 2, ReadMixed
	return c
}

// Every new action shows in the timeline, and a crash point fires inside
// the Ready handling it names.
func TestNewActions(t *testing.T) {
	in, err := schedule.DecodeInput([]byte(`{"version":1,"steps":[
{"process":0,"action":"timeout"},{"process":1,"action":"deliver","messages":3},{"process":2,"action":"deliver","messages":3},
{"process":0,"action":"deliver","messages":5},{"process":1,"action":"duplicate","k":1},{"process":1,"action":"deliver","messages":5},
{"process":2,"action":"drop","k":1},{"process":0,"action":"deliver","messages":5},{"process":0,"action":"request","value":1},
{"process":1,"action":"deliver","messages":5},{"process":0,"action":"deliver","messages":5},{"process":0,"action":"read"},
{"process":1,"action":"deliver","messages":5},{"process":0,"action":"deliver","messages":5},
{"process":0,"action":"conf-change","conf":"add-voter 3"},{"process":0,"action":"partition","set":[2]},
{"process":1,"action":"deliver-one","k":2},{"process":0,"action":"deliver","messages":5},{"process":1,"action":"deliver","messages":5},
{"process":0,"action":"deliver","messages":5},{"process":0,"action":"heal"},{"process":3,"action":"deliver","messages":5},
{"process":0,"action":"deliver","messages":5},{"process":3,"action":"deliver","messages":5},
{"process":0,"action":"transfer-leader","to":1},{"process":1,"action":"deliver","messages":5},{"process":1,"action":"tick","n":3},
{"process":1,"action":"crash","point":"after-send"},{"process":1,"action":"request","value":2},{"process":0,"action":"deliver","messages":5}
]}`))
	require.NoError(t, err)
	cfg := DefaultConfig()
	cfg.HeartbeatTick = 1 // the schedule was written for a heartbeat per step
	cfg.AsyncStorageWrites = "off"
	cfg.Bootstrap = BootstrapSnapshot // the schedule was written for a cluster that starts at index 1
	f, s := newSystem(t, cfg)
	ex, _ := run(t, s, in)
	require.Empty(t, ex.Failures)
	tl := schedule.Timeline(f.Spec(), in, ex)
	for _, want := range []string{"DUPLICATE MsgVote", "DROP MsgVote", "PARTITION set={2}", "HEAL", "deliver-one(2)",
		"PROPOSE-CONF conf changes=add-voter 3", "CONF index=", "config=voters=1,2,3,4", "TRANSFER", "MsgTimeoutNow",
		"TICK n=3", "ARM crash point=after-send", "CRASH point=after-send", "READ op=1 kind=index", "RESPONSE read op=1"} {
		require.Contains(t, tl, want)
	}
}

// The linearizability oracle reports a read of a value older than a put
// that finished before the read began.
func TestStaleReadFails(t *testing.T) {
	_, sys := newSystem(t, DefaultConfig())
	s := sys.(*System)
	s.ex = &schedule.Execution{}
	s.reads = 1
	s.hist = []linearize.Op{
		{Put: true, Key: "v", Arg: "1", Call: 1, Return: 2},
		{Put: true, Key: "v", Arg: "2", Call: 3, Return: 4},
		{Key: "v", Out: "1", Call: 5, Return: 6, Step: 3, RetStep: 3},
	}
	s.checkHistory(4)
	require.Len(t, s.ex.Failures, 1)
	require.Equal(t, schedule.FailureLinearizability, s.ex.Failures[0].Kind)
	s.ex = &schedule.Execution{}
	s.hist[2].Out = "2"
	s.checkHistory(4)
	require.Empty(t, s.ex.Failures)
}

// The read-index oracle reports a ReadIndex answered below an index that
// was committed before the read began, at safe reads only.
func TestStaleReadIndexFails(t *testing.T) {
	for _, tc := range []struct {
		read  string
		index uint64
		fails bool
	}{
		{ReadSafe, 3, true}, {ReadSafe, 4, false}, {ReadSafe, 5, false}, {"", 3, true}, {ReadLease, 3, false},
	} {
		cfg := DefaultConfig()
		cfg.ReadOnly = tc.read
		_, sys := newSystem(t, cfg)
		s := sys.(*System)
		s.ex = &schedule.Execution{}
		n := &node{id: 2}
		s.checkReadIndex(n, &pendingRead{op: 7, index: tc.index, known: true, floor: 4})
		if !tc.fails {
			require.Empty(t, s.ex.Failures, "%+v", tc)
			continue
		}
		require.Len(t, s.ex.Failures, 1, "%+v", tc)
		require.Equal(t, "safety: stale read index", s.ex.Failures[0].Signature)
		require.Contains(t, s.ex.Failures[0].Message, "n2 answered read op 7 at index 3, but index 4 was committed before the read began")
	}
}

// elect makes n1 leader of term 1 with n2's vote.
var elect = []schedule.Step{to(0), d(1, 1), d(0, 1)}

func steps(parts ...[]schedule.Step) *schedule.Input {
	var s []schedule.Step
	for _, p := range parts {
		s = append(s, p...)
	}
	return &schedule.Input{Steps: s}
}

func requireFailure(t *testing.T, cfg Config, in *schedule.Input, sig string) {
	t.Helper()
	f, s := newSystem(t, cfg)
	ex, _ := run(t, s, in)
	require.NotEmpty(t, ex.Failures, "want %q\n%s", sig, schedule.Timeline(f.Spec(), in, ex))
	require.Equal(t, schedule.FailureSafety, ex.Failures[0].Kind)
	require.Equal(t, sig, ex.Failures[0].Signature, "%s", schedule.Timeline(f.Spec(), in, ex))

	clean := cfg
	clean.Inject = ""
	f, s = newSystem(t, clean)
	ex, _ = run(t, s, in)
	require.Empty(t, ex.Failures, "without the injection\n%s", schedule.Timeline(f.Spec(), in, ex))
}

func TestInjectForgetHardState(t *testing.T) {
	// n1 wins term 1 with n2's vote and crashes; n2 restarts without its
	// vote and votes for n3 in term 1 too.
	in := steps(elect, []schedule.Step{crash(0), crash(1), rs(1), crash(2), rs(2), to(2), d(1, 5), d(2, 5)})
	requireFailure(t, cfgWith(InjectForgetHardState), in, "safety: two leaders in one term")
}

func TestInjectSendBeforePersist(t *testing.T) {
	// n2's vote leaves before it is durable; n2 crashes and votes again.
	in := steps(elect, []schedule.Step{crash(0), crash(1), rs(1), crash(2), rs(2), to(2), d(1, 5), d(2, 5)})
	requireFailure(t, cfgWith(InjectSendBeforePersist), in, "safety: two leaders in one term")
}

func TestInjectApplyUncommitted(t *testing.T) {
	// n1 applies its uncommitted entries, crashes; n2 becomes leader of
	// term 2 and applies its own empty entry at index 2.
	in := steps(elect, []schedule.Step{req(0, 1), crash(0), crash(2), rs(2), to(1), d(2, 20), d(1, 50)})
	requireFailure(t, cfgWith(InjectApplyUncommitted), in, "safety: different entries applied at one index")
}

func TestInjectDropSnapshotOnRestart(t *testing.T) {
	// n1 and n2 commit and apply 3 entries; n2 snapshots, restarts without
	// its snapshot (and log) and votes for n3, whose log lacks them.
	in := steps(elect, []schedule.Step{req(0, 1), req(0, 2), d(1, 50), d(0, 50), d(1, 50), d(0, 50), d(1, 50),
		crash(0), crash(1), rs(1), to(2), to(2), d(1, 50), d(2, 100)})
	requireFailure(t, cfgWith(InjectDropSnapshotOnRestart), in, "safety: committed entry lost")
}

func TestRestartKeepsDurableState(t *testing.T) {
	// n2 votes for n1 in term 1, crashes and restarts: term and vote
	// survive, so it refuses n3 in term 1.
	in := steps(elect, []schedule.Step{crash(1), rs(1)})
	_, s := newSystem(t, ClassicConfig())
	ex, _ := run(t, s, in)
	last := ex.Trace[len(ex.Trace)-1]
	for i := len(ex.Trace) - 1; i >= 0; i-- {
		if ex.Trace[i].Kind == schedule.EvRestart {
			last = ex.Trace[i]
			break
		}
	}
	require.Equal(t, schedule.EvRestart, last.Kind)
	require.Equal(t, "restart term=1 vote=0 commit=1 snapindex=1 lastindex=1", last.Label())

	_, s = newSystem(t, cfgWith(InjectForgetHardState))
	ex, _ = run(t, s, in)
	for i := len(ex.Trace) - 1; i >= 0; i-- {
		if ex.Trace[i].Kind == schedule.EvRestart {
			require.Equal(t, "restart term=0 vote=-1 commit=1 snapindex=1 lastindex=1", ex.Trace[i].Label())
			break
		}
	}
}

func TestTimelineGolden(t *testing.T) {
	in := steps(elect, []schedule.Step{d(1, 2), d(2, 2), d(0, 5), req(1, 7), d(0, 3), d(2, 5), d(0, 5),
		d(1, 10), d(2, 10), crash(2), req(0, 8), d(0, 5), d(1, 20), rs(2), d(0, 20), d(2, 20), d(0, 20), d(2, 20), to(1)})
	f, s := newSystem(t, ClassicConfig())
	ex, _ := run(t, s, in)
	require.Empty(t, ex.Failures)
	got := schedule.Timeline(f.Spec(), in, ex)
	path := filepath.Join("testdata", "timeline.txt")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(want), got)
}

func TestConfigErrors(t *testing.T) {
	_, err := NewFactory(Config{Nodes: 0, SnapshotEvery: 1})
	require.ErrorContains(t, err, "--nodes must be at least 1")
	_, err = NewFactory(Config{Nodes: 3, SnapshotEvery: 0})
	require.ErrorContains(t, err, "--snapshot-every must be at least 1")
	_, err = NewFactory(Config{Nodes: 3, SnapshotEvery: 1, Inject: "nope"})
	require.ErrorContains(t, err, `unknown --inject "nope"`)
	f, err := NewFactory(ClassicConfig())
	require.NoError(t, err)
	g, err := FactoryFromConfig(f.Config())
	require.NoError(t, err)
	require.Equal(t, f.Cfg(), g.Cfg())
	_, s := newSystem(t, ClassicConfig())
	_, err = s.Execute(&schedule.Input{Steps: []schedule.Step{d(5, 1)}})
	require.ErrorContains(t, err, "process 5 out of range")
}

func TestSkips(t *testing.T) {
	_, s := newSystem(t, ClassicConfig())
	ex, _ := run(t, s, steps([]schedule.Step{rs(0), crash(0), crash(0), d(0, 1), to(0), req(0, 1), rs(0)}))
	require.Equal(t, 5, ex.Skipped) // restart of a live node, then crash, deliver, timeout, request at a crashed one
}

func BenchmarkExecute(b *testing.B) {
	benchExecute(b, ClassicConfig(), schedule.Shape{Steps: 100, MaxMessages: 5, CrashQuota: 3, Requests: 5})
}

// The defaults (half the nodes through raft.Node), and the same with
// RawNodes only: what the Node API costs.
func BenchmarkExecuteDefaults(b *testing.B) {
	shape := schedule.Shape{Steps: 150, MaxMessages: 5, CrashQuota: 4, Requests: 8}
	b.Run("api=mixed", func(b *testing.B) { benchExecute(b, DefaultConfig(), shape) })
	b.Run("api=rawnode", func(b *testing.B) {
		c := DefaultConfig()
		c.API, c.Bootstrap = APIRawNode, BootstrapSnapshot
		benchExecute(b, c, shape)
	})
}

func benchExecute(b *testing.B, cfg Config, shape schedule.Shape) {
	f, s := newSystem(b, cfg)
	g, _ := schedule.NewGenerator(f.Spec(), shape)
	r := rand.New(rand.NewPCG(1, 1))
	ins := make([]*schedule.Input, 256)
	for i := range ins {
		ins[i] = g.Random(r)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Execute(ins[i%len(ins)]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "execs/s")
}

// The defaults make progress in random inputs: leaders are elected, entries
// committed, reads answered, configurations changed, snapshots installed.
// The figures are logged (docs/benchmarks.md cites them).
func TestDefaultsMakeProgress(t *testing.T) {
	for _, c := range []struct {
		name  string
		cfg   Config
		shape schedule.Shape
	}{
		{"defaults", DefaultConfig(), schedule.Shape{Steps: 150, MaxMessages: 5, CrashQuota: 4, Requests: 8}},
		{"classic", ClassicConfig(), schedule.Shape{Steps: 100, MaxMessages: 5, CrashQuota: 10, Requests: 5, Actions: "deliver,crash,restart,timeout,request"}},
	} {
		f, s := newSystem(t, c.cfg)
		g, err := schedule.NewGenerator(f.Spec(), c.shape)
		require.NoError(t, err)
		r := rand.New(rand.NewPCG(1, 2))
		n := 2000
		if raceEnabled {
			n = 300
		}
		count := map[string]int{}
		for i := 0; i < n; i++ {
			ex, _ := run(t, s, g.Random(r))
			require.Empty(t, ex.Failures)
			for _, e := range ex.Trace {
				k := e.Kind
				if k == "role" {
					k += " " + e.Type
				}
				count[k]++
			}
		}
		per := func(k string) float64 { return float64(count[k]) / float64(n) }
		t.Logf("%s, %d random inputs, per input: %.2f leaders, %.2f commits, %.2f applies, %.3f reads answered, %.3f configuration changes, %.3f snapshots installed",
			c.name, n, per("role leader"), per("commit"), per("apply"), per(schedule.EvResponse), per("conf"), per("install"))
		if c.name == "defaults" {
			require.Greater(t, per("commit"), 1.0)
			require.Positive(t, count[schedule.EvResponse])
			require.Positive(t, count["conf"])
			require.Positive(t, count["install"])
		}
	}
}
