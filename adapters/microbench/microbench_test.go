package microbench

import (
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

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

func TestDeterministicTraces(t *testing.T) {
	f, s1 := newSystem(t, Config{Workers: 3, Tasks: 5, Inject: InjectFlushBeforeLast})
	_, s2 := newSystem(t, Config{Workers: 3, Tasks: 5, Inject: InjectFlushBeforeLast})
	g, err := schedule.NewGenerator(f.Spec(), schedule.Shape{Steps: 50, MaxMessages: 5, Requests: 2})
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 2000; i++ {
		in := g.Random(r)
		_, a := run(t, s1, in)
		_, b := run(t, s1, in) // same instance, reused buffers
		_, c := run(t, s2, in) // another instance
		require.Equal(t, a, b)
		require.Equal(t, a, c)
	}
}

func TestCorrectSystemNeverFails(t *testing.T) {
	f, s := newSystem(t, Config{Workers: 3, Tasks: 5})
	g, err := schedule.NewGenerator(f.Spec(), schedule.Shape{Steps: 60, MaxMessages: 5, Requests: 3})
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(2, 2))
	in := g.Random(r)
	for i := 0; i < 20000; i++ {
		if i%10 == 0 {
			in = g.Random(r)
		} else {
			in = mutate.New(g).Mutate(r, in)
		}
		ex, _ := run(t, s, in)
		require.Empty(t, ex.Failures, "input %s", schedule.EncodeInput(in))
	}
}

func TestInjectedBugCrashesTheWorker(t *testing.T) {
	d := func(p, n int) schedule.Step { return schedule.Step{Process: p, Action: schedule.Deliver, Messages: n} }
	// The terminator and both workers start and register; a request is
	// served by worker-1 (process 2) with 3 tasks.
	prefix := []schedule.Step{
		d(1, 1), d(2, 1), d(3, 1), d(0, 5),
		{Process: 0, Action: schedule.Request, Value: 9}, d(0, 1), // serve: execute 1 -> worker-1, terminate -> terminator
	}
	// Worker-1 runs tasks 1 and 2, then the flush arrives after task 3 is
	// queued: not the bug.
	in := &schedule.Input{Steps: append(append([]schedule.Step(nil), prefix...), d(2, 2), d(1, 1), d(2, 5))}
	_, s := newSystem(t, Config{Workers: 2, Tasks: 3, Inject: InjectFlushBeforeLast})
	ex, _ := run(t, s, in)
	require.Empty(t, ex.Failures, "flush after the last execute is fine")

	// The flush arrives while task 2 is queued: the worker handles task 2,
	// the flush, then task 3, the last: the bug.
	in = &schedule.Input{Steps: append(append([]schedule.Step(nil), prefix...), d(2, 1), d(1, 1), d(2, 5))}
	ex, _ = run(t, s, in)
	require.Len(t, ex.Failures, 1)
	f := ex.Failures[0]
	require.Equal(t, schedule.FailurePanic, f.Kind)
	require.Equal(t, 8, f.Step)
	require.Equal(t, "panic: worker-N: flush processed right before the last execute (request N, task N) @ microbench.(*System).handleWorker < microbench.(*System).handle < microbench.(*System).run", f.Signature)

	// Without the injection the same schedule is fine.
	_, s = newSystem(t, Config{Workers: 2, Tasks: 3})
	ex, _ = run(t, s, in)
	require.Empty(t, ex.Failures)
}

func TestTimelineGolden(t *testing.T) {
	d := func(p, n int) schedule.Step { return schedule.Step{Process: p, Action: schedule.Deliver, Messages: n} }
	in := &schedule.Input{Steps: []schedule.Step{
		{Process: 0, Action: schedule.Request, Value: 1}, d(0, 2), d(1, 1), d(2, 1),
		{Process: 0, Action: schedule.Request, Value: 2}, d(0, 3), d(2, 1), d(1, 1), d(0, 1), d(2, 3), d(0, 2),
		{Process: 1, Action: schedule.Request, Value: 3},
	}}
	f, s := newSystem(t, Config{Workers: 1, Tasks: 2})
	ex, _ := run(t, s, in)
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
	_, err := NewFactory(Config{Workers: 0, Tasks: 1})
	require.ErrorContains(t, err, "--workers must be at least 1")
	_, err = NewFactory(Config{Workers: 1, Tasks: 1, Inject: "nope"})
	require.ErrorContains(t, err, `unknown --inject "nope"`)
	_, s := newSystem(t, Config{Workers: 1, Tasks: 1})
	_, err = s.Execute(&schedule.Input{Steps: []schedule.Step{{Process: 5, Action: schedule.Deliver, Messages: 1}}})
	require.ErrorContains(t, err, "process 5 out of range")
}

func BenchmarkExecute(b *testing.B) {
	f, s := newSystem(b, Config{Workers: 3, Tasks: 5})
	g, _ := schedule.NewGenerator(f.Spec(), schedule.Shape{Steps: 50, MaxMessages: 5, Requests: 2})
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
