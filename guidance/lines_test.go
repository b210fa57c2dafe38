package guidance

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/adapters/microbench"
	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// fakeCounters stand for Go's coverage counters, which a test binary does
// not have: Covered reports one item, the number of resets so far. The
// test fails when two executions use the counters at once.
type fakeCounters struct {
	resets  atomic.Int64
	using   atomic.Bool
	overlap atomic.Bool
}

func (c *fakeCounters) Reset() error {
	if c.using.Swap(true) {
		c.overlap.Store(true)
	}
	c.resets.Add(1)
	return nil
}

func (c *fakeCounters) Covered(dst []uint64) ([]uint64, error) {
	c.using.Store(false)
	return append(dst, uint64(c.resets.Load())), nil
}

func withFakeCounters(t *testing.T, fac schedule.Factory) schedule.Factory {
	c := &fakeCounters{}
	t.Cleanup(func() { require.False(t, c.overlap.Load(), "two executions used the counters at once") })
	return &lineFactory{Factory: fac, lines: c}
}

// blockFactory makes systems that block on a request step with value 13
// until release is closed, and otherwise run at once; they cannot be
// interrupted. running counts the executions under way.
type blockFactory struct {
	release chan struct{}
	made    atomic.Int32
	running atomic.Int32
	overlap atomic.Bool
	closed  bool
}

func (f *blockFactory) Spec() *schedule.SystemSpec {
	return &schedule.SystemSpec{Name: "block", Processes: 1, Actions: []schedule.Action{schedule.Request}}
}
func (f *blockFactory) Config() json.RawMessage { return json.RawMessage(`{"block":true}`) }
func (f *blockFactory) Close() error            { f.closed = true; return nil }
func (f *blockFactory) New() (schedule.System, error) {
	f.made.Add(1)
	return blockSystem{f}, nil
}

type blockSystem struct{ f *blockFactory }

func (s blockSystem) Spec() *schedule.SystemSpec { return s.f.Spec() }
func (s blockSystem) Execute(in *schedule.Input) (*schedule.Execution, error) {
	if s.f.running.Add(1) > 1 {
		s.f.overlap.Store(true)
	}
	defer s.f.running.Add(-1)
	ex := &schedule.Execution{}
	for i, st := range in.Steps {
		ex.Trace = append(ex.Trace, schedule.Event{Step: i, Kind: schedule.EvRequest, Node: 0, Peer: -1, Type: "v"})
		if st.Value == 13 {
			<-s.f.release
		}
		time.Sleep(100 * time.Microsecond) // long enough to overlap, were executions not serialized
	}
	return ex, nil
}

func requests(vs ...int) *schedule.Input {
	in := &schedule.Input{}
	for _, v := range vs {
		in.Steps = append(in.Steps, schedule.Step{Action: schedule.Request, Value: v})
	}
	return in
}

// The wrapped factory is the factory, and every execution records its
// lines; executions on different systems and goroutines take turns.
func TestLineCoverageRecordsLinesOneExecutionAtATime(t *testing.T) {
	bf := &blockFactory{release: make(chan struct{})}
	fac := withFakeCounters(t, bf)
	require.Equal(t, bf.Spec(), fac.Spec())
	require.Equal(t, bf.Config(), fac.Config())
	require.NoError(t, fac.(interface{ Close() error }).Close())
	require.True(t, bf.closed)

	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			chk := fuzzer.NewChecker(fac, []fuzzer.Measure{UnitsMeasure{}}, time.Minute)
			for i := 0; i < 20; i++ {
				ex, obs, err := chk.Run(requests(1, 2, 3))
				if !assert.NoError(t, err) {
					return
				}
				assert.Len(t, ex.Trace, 3)
				assert.Len(t, ex.Units, 1)
				assert.Equal(t, ex.Units, obs[0].Items)
			}
		}()
	}
	wg.Wait()
	require.False(t, bf.overlap.Load(), "executions overlapped")
	require.Equal(t, int32(4), bf.made.Load())
}

// A system that hangs and cannot be interrupted does not keep the
// counters: the execution is a hang, the lines counted so far are kept,
// and the next execution, on this system (which takes a new one) or any
// other, runs while the hung one is still blocked.
func TestLineCoverageGivesUpAHungSystem(t *testing.T) {
	bf := &blockFactory{release: make(chan struct{})}
	defer close(bf.release)
	fac := withFakeCounters(t, bf)
	chk := fuzzer.NewChecker(fac, nil, 50*time.Millisecond)
	ex, _, err := chk.Run(requests(1, 13))
	require.NoError(t, err)
	require.Len(t, ex.Failures, 1)
	require.Equal(t, "hang: unknown step", ex.Failures[0].Signature)
	require.Len(t, ex.Units, 1, "the lines counted until the system was given up")

	start := time.Now()
	ex, _, err = chk.Run(requests(2))
	require.NoError(t, err)
	require.Empty(t, ex.Failures)
	require.Len(t, ex.Trace, 1)
	require.Equal(t, int32(3), bf.made.Load(), "the hung system is replaced, and so is the one that confirmed the hang")
	other := fuzzer.NewChecker(fac, nil, 0)
	ex, _, err = other.Run(requests(3))
	require.NoError(t, err)
	require.Empty(t, ex.Failures)
	require.Less(t, time.Since(start), interruptGrace, "nobody waited for the hung system")
	require.Equal(t, int32(2), bf.running.Load(), "the hung execution and its confirmation are still blocked")
}

// An interruptible system that hangs is interrupted through the wrapper:
// its partial trace names the step, with the lines it covered.
func TestLineCoverageInterruptsAnInterruptibleSystem(t *testing.T) {
	mb, err := microbench.NewFactory(microbench.Config{Workers: 2, Tasks: 2, Inject: microbench.InjectHangOnFlush})
	require.NoError(t, err)
	fac := withFakeCounters(t, mb)
	// Find an input that hangs.
	gen, err := schedule.NewGenerator(mb.Spec(), schedule.Shape{Steps: 50, MaxMessages: 5, Requests: 2})
	require.NoError(t, err)
	plain := fuzzer.NewChecker(mb, nil, 100*time.Millisecond)
	chk := fuzzer.NewChecker(fac, nil, 100*time.Millisecond)
	r := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 2000; i++ {
		in := gen.Random(r)
		want, _, err := plain.Run(in)
		require.NoError(t, err)
		if len(want.Failures) == 0 || want.Failures[0].Kind != schedule.FailureHang {
			continue
		}
		got, _, err := chk.Run(in)
		require.NoError(t, err)
		require.Equal(t, want.Failures, got.Failures)
		require.Equal(t, want.Trace, got.Trace)
		require.Len(t, got.Units, 1)
		again, _, err := chk.Run(requests())
		require.NoError(t, err)
		require.Empty(t, again.Failures, "the interrupted system is usable again")
		return
	}
	t.Fatal("no input hangs")
}

// An execution waiting for the counters can be stopped too: it returns at
// once, as a hang that never started.
func TestLineCoverageStopsAnExecutionWaitingForTheCounters(t *testing.T) {
	bf := &blockFactory{release: make(chan struct{})}
	defer close(bf.release)
	fac := withFakeCounters(t, bf)
	lineSlot <- struct{}{} // held by someone else
	chk := fuzzer.NewChecker(fac, nil, 50*time.Millisecond)
	start := time.Now()
	ex, _, err := chk.Run(requests(1))
	<-lineSlot
	require.NoError(t, err)
	require.Less(t, time.Since(start), interruptGrace)
	require.Len(t, ex.Failures, 1)
	require.Equal(t, schedule.FailureHang, ex.Failures[0].Kind)
	require.Empty(t, ex.Trace)
	require.Zero(t, bf.running.Load(), "it never started")
	ex, _, err = chk.Run(requests(2))
	require.NoError(t, err)
	require.Empty(t, ex.Failures)
}

// fakeUnits stand for linecov's counters behind a lineTracker: execution
// k covers the units 1000+k%5 and 2000, each spanning two lines of f.go.
type fakeUnits struct{ resets atomic.Int64 }

func (c *fakeUnits) Reset() error { c.resets.Add(1); return nil }
func (c *fakeUnits) Covered(dst []uint64) ([]uint64, error) {
	return append(dst, uint64(1000+c.resets.Load()%5), 2000), nil
}
func (c *fakeUnits) Lines(u uint64) (string, int, int, bool) { return "f.go", int(u), int(u) + 1, true }

// The units behind the lines of every execution, on every goroutine, are
// gathered once each for the session (CoveredUnits).
func TestLineCoverageGathersTheSessionsUnits(t *testing.T) {
	lt := &lineTracker{t: &fakeUnits{}, lines: map[uint64][]uint64{}, seen: map[uint64]struct{}{}}
	fac := &lineFactory{Factory: &blockFactory{release: make(chan struct{})}, lines: lt}
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			chk := fuzzer.NewChecker(fac, []fuzzer.Measure{UnitsMeasure{}}, time.Minute)
			for i := 0; i < 10; i++ {
				ex, _, err := chk.Run(requests(1))
				if !assert.NoError(t, err) {
					return
				}
				assert.Len(t, ex.Units, 4, "two lines a unit")
				_ = CoveredUnits() // read while executions run (go test -race)
			}
		}()
	}
	wg.Wait()
	var got []uint64
	for _, u := range CoveredUnits() {
		if u >= 1000 {
			got = append(got, u)
		}
	}
	slices.Sort(got)
	require.Equal(t, []uint64{1000, 1001, 1002, 1003, 1004, 2000}, got)
}
