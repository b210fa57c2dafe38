package fuzzer_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/adapters/microbench"
	"github.com/modelfuzz/modelfuzz/corpus"
	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/guidance"
	"github.com/modelfuzz/modelfuzz/record"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// stuckFactory makes systems that block for good (no Interrupt) on a
// request step with value 13, and otherwise run instantly.
type stuckFactory struct {
	release chan struct{}
	made    atomic.Int32
}

func (f *stuckFactory) Spec() *schedule.SystemSpec {
	return &schedule.SystemSpec{Name: "stuck", Processes: 1, Actions: []schedule.Action{schedule.Request}}
}
func (f *stuckFactory) Config() json.RawMessage { return json.RawMessage(`{}`) }
func (f *stuckFactory) New() (schedule.System, error) {
	f.made.Add(1)
	return stuckSystem{f}, nil
}

type stuckSystem struct{ f *stuckFactory }

func (s stuckSystem) Spec() *schedule.SystemSpec { return s.f.Spec() }
func (s stuckSystem) Execute(in *schedule.Input) (*schedule.Execution, error) {
	ex := &schedule.Execution{}
	for i, st := range in.Steps {
		ex.Trace = append(ex.Trace, schedule.Event{Step: i, Kind: schedule.EvRequest, Node: 0, Peer: -1, Type: "v"})
		if st.Value == 13 {
			<-s.f.release
		}
	}
	return ex, nil
}

// A system that hangs and cannot be interrupted is abandoned: the
// execution becomes a hang failure and the next one runs on a new system.
func TestAHangingSystemIsReplaced(t *testing.T) {
	fac := &stuckFactory{release: make(chan struct{})}
	defer close(fac.release)
	chk := fuzzer.NewChecker(fac, nil, 50*time.Millisecond)
	hang := &schedule.Input{Steps: []schedule.Step{{Action: schedule.Request, Value: 1}, {Action: schedule.Request, Value: 13}}}
	ex, _, err := chk.Run(hang)
	require.NoError(t, err)
	require.Len(t, ex.Failures, 1)
	require.Equal(t, schedule.FailureHang, ex.Failures[0].Kind)
	require.Equal(t, "hang: unknown step", ex.Failures[0].Signature)
	ok := &schedule.Input{Steps: []schedule.Step{{Action: schedule.Request, Value: 2}}}
	ex, _, err = chk.Run(ok)
	require.NoError(t, err)
	require.Empty(t, ex.Failures)
	require.Len(t, ex.Trace, 1)
	require.Equal(t, int32(3), fac.made.Load(), "the hung system is replaced, and so is the one that confirmed the hang")
}

// An interruptible system that hangs (microbench with the seeded hang) is
// interrupted: the failure names the step, the campaign goes on, and the
// hang is minimized like any bug. Exactly one hang is found however busy
// the machine: an execution that misses the deadline once because it was
// not scheduled in time finishes when the hang is confirmed by a second run,
// and an interrupted system has interruptGrace (seconds) to return.
func TestHangsAreBugsAndTheCampaignGoesOn(t *testing.T) {
	fac, err := microbench.NewFactory(microbench.Config{Workers: 3, Tasks: 5, Inject: microbench.InjectHangOnFlush})
	require.NoError(t, err)
	gen, err := schedule.NewGenerator(fac.Spec(), schedule.Shape{Steps: 50, MaxMessages: 5, Requests: 2})
	require.NoError(t, err)
	st, err := corpus.Open(t.TempDir(), corpus.Options{})
	require.NoError(t, err)
	defer st.Close()
	f, err := fuzzer.New(fuzzer.Options{Strategy: "trace", Guide: guidance.TraceMeasure{}, Measures: []fuzzer.Measure{guidance.TraceMeasure{}},
		Params: fuzzer.Params{Seed: 1, SeedPopulation: 20, ReseedEvery: 200, Mutations: 5, Pipeline: 8},
		Limits: fuzzer.Limits{Iterations: 600, Parallel: 2, ExecTimeout: 100 * time.Millisecond, Minimize: true,
			MinimizeBudget: schedule.MinimizeOptions{MaxTries: 300}}}, fac, gen, st)
	require.NoError(t, err)
	sum, err := f.Run(context.Background())
	require.NoError(t, err)
	require.Equal(t, int64(600), sum.Iterations)
	require.Len(t, sum.Bugs, 1, "one distinct hang")
	b := sum.Bugs[0]
	require.Equal(t, string(schedule.FailureHang), b.Kind)
	require.Equal(t, "hang: in a deliver step", b.Signature)
	require.NotNil(t, b.Minimized)
	require.Less(t, b.Minimized.Len(), b.Input.Len())
	chk := fuzzer.NewChecker(fac, nil, 100*time.Millisecond)
	again, err := chk.Reproduces(b.Minimized, b.Signature)
	require.NoError(t, err)
	require.True(t, again)
}

// failingStore fails every commit after the first `after` ones, as a full
// disk would.
type failingStore struct {
	record.Store
	after int
	n     int
}

func (s *failingStore) Commit(b *record.Batch) error {
	s.n++
	if s.n > s.after {
		return fmt.Errorf("corpus: write failed: %w", syscall.ENOSPC)
	}
	return s.Store.Commit(b)
}

// A failing write stops the campaign with the error; what was committed
// before stays readable and the campaign continues from it.
func TestAFailingWriteStopsTheCampaign(t *testing.T) {
	dir := t.TempDir()
	fac, err := microbench.NewFactory(microbench.Config{Workers: 3, Tasks: 5})
	require.NoError(t, err)
	gen, err := schedule.NewGenerator(fac.Spec(), schedule.Shape{Steps: 50, MaxMessages: 5, Requests: 2})
	require.NoError(t, err)
	st, err := corpus.Open(dir, corpus.Options{})
	require.NoError(t, err)
	opt := fuzzer.Options{Strategy: "trace", Guide: guidance.TraceMeasure{}, Measures: []fuzzer.Measure{guidance.TraceMeasure{}},
		Params: fuzzer.Params{Seed: 1, SeedPopulation: 20, ReseedEvery: 200, Mutations: 5, Pipeline: 8},
		Limits: fuzzer.Limits{Iterations: 1000, Parallel: 2}}
	f, err := fuzzer.New(opt, fac, gen, &failingStore{Store: st, after: 100})
	require.NoError(t, err)
	_, err = f.Run(context.Background())
	require.Error(t, err)
	require.True(t, errors.Is(err, syscall.ENOSPC), "%v", err)
	require.Contains(t, err.Error(), "no space left on device")
	require.NoError(t, st.Close())

	st, err = corpus.Open(dir, corpus.Options{MustExist: true})
	require.NoError(t, err)
	defer st.Close()
	snap, err := st.Load(-1)
	require.NoError(t, err)
	require.Equal(t, int64(8*100), snap.Counters.Iterations, "every batch committed before the failure is kept (one commit a batch of 8)")
	f, err = fuzzer.New(opt, fac, gen, st)
	require.NoError(t, err)
	sum, err := f.Run(context.Background())
	require.NoError(t, err)
	require.Equal(t, int64(1000), sum.Iterations)
}

// watchedStore is a store that reports a fault of its medium between
// commits (record.FaultReporter), when the test trips it.
type watchedStore struct {
	record.Store
	fault   chan struct{}
	err     error
	commits atomic.Int64
}

func (s *watchedStore) Fault() <-chan struct{} { return s.fault }

func (s *watchedStore) Err() error {
	select {
	case <-s.fault:
		return s.err
	default:
		return nil
	}
}

func (s *watchedStore) trip(err error) { s.err = err; close(s.fault) }

func (s *watchedStore) Commit(b *record.Batch) error {
	if err := s.Err(); err != nil {
		return err
	}
	s.commits.Add(1)
	return s.Store.Commit(b)
}

// A fault the store finds between commits stops the campaign at once,
// even while it waits for an execution that hangs (here for a minute):
// the executions in flight are interrupted, and the campaign reports how
// many executions since its last commit were not stored. What was
// committed before stays, and the campaign continues from it.
func TestAStoreFaultStopsTheCampaignAtOnce(t *testing.T) {
	for _, lost := range []bool{false, true} {
		dir := t.TempDir()
		fac, err := microbench.NewFactory(microbench.Config{Workers: 3, Tasks: 5, Inject: microbench.InjectHangOnFlush})
		require.NoError(t, err)
		gen, err := schedule.NewGenerator(fac.Spec(), schedule.Shape{Steps: 50, MaxMessages: 5, Requests: 2})
		require.NoError(t, err)
		st, err := corpus.Open(dir, corpus.Options{})
		require.NoError(t, err)
		ws := &watchedStore{Store: st, fault: make(chan struct{})}
		opt := fuzzer.Options{Strategy: "trace", Guide: guidance.TraceMeasure{}, Measures: []fuzzer.Measure{guidance.TraceMeasure{}},
			Params: fuzzer.Params{Seed: 1, SeedPopulation: 20, ReseedEvery: 200, Mutations: 5, Pipeline: 8},
			Limits: fuzzer.Limits{Duration: 5 * time.Minute, Parallel: 2, ExecTimeout: time.Minute, Minimize: true}}
		f, err := fuzzer.New(opt, fac, gen, ws)
		require.NoError(t, err)
		type result struct {
			sum *fuzzer.Summary
			err error
		}
		done := make(chan result, 1)
		go func() {
			sum, err := f.Run(context.Background())
			done <- result{sum, err}
		}()
		// Wait (at most 20 s) until commits stop for half a second: the
		// campaign waits for a hung execution.
		last, since := int64(-1), time.Now()
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if n := ws.commits.Load(); n != last {
				last, since = n, time.Now()
			} else if n > 0 && time.Since(since) > 500*time.Millisecond {
				break
			}
		}
		t.Logf("lost=%v: %d commits, none for %v when the fault came", lost, last, time.Since(since).Round(time.Millisecond))
		cause := errors.New("the medium failed")
		if lost {
			cause = fmt.Errorf("%w: %w", cause, record.ErrStoreLost)
		}
		start := time.Now()
		ws.trip(cause)
		var r result
		select {
		case r = <-done:
		case <-time.After(30 * time.Second):
			t.Fatal("the campaign did not stop within 30 s of the store's fault")
		}
		t.Logf("stopped %v after the fault", time.Since(start).Round(time.Millisecond))
		var se *fuzzer.StoreError
		require.ErrorAs(t, r.err, &se)
		require.ErrorIs(t, r.err, cause)
		require.Greater(t, se.Unstored, int64(0), "the hung batch was not stored")
		require.Equal(t, se.Committed, r.sum.Iterations, "the summary counts what the store holds")
		require.Equal(t, se.Unstored, r.sum.Unstored)
		require.Equal(t, lost, r.sum.StoreLost)
		require.Contains(t, r.err.Error(), fmt.Sprintf("the campaign stopped: %d execution(s) since its last commit (iteration %d) were not stored", se.Unstored, se.Committed))
		require.NoError(t, st.Close())

		st, err = corpus.Open(dir, corpus.Options{MustExist: true})
		require.NoError(t, err)
		snap, err := st.Load(0)
		require.NoError(t, err)
		require.Equal(t, se.Committed, snap.Counters.Iterations)
		opt.Iterations, opt.Duration, opt.Minimize = se.Committed+100, 0, false
		opt.ExecTimeout = 100 * time.Millisecond
		f, err = fuzzer.New(opt, fac, gen, st)
		require.NoError(t, err)
		sum, err := f.Run(context.Background())
		require.NoError(t, err)
		require.Equal(t, se.Committed+100, sum.Iterations)
		require.NoError(t, st.Close())
	}
}

// An interrupted campaign stops whatever it is doing: executions that hang
// with no timeout to stop them (the seeded hang, --exec-timeout 0) are
// stopped StopGrace after the interrupt and recorded nowhere; what was
// recorded is intact and the campaign goes on from it.
func TestInterruptStopsExecutionsThatHang(t *testing.T) {
	fac, err := microbench.NewFactory(microbench.Config{Workers: 3, Tasks: 5, Inject: microbench.InjectHangOnFlush})
	require.NoError(t, err)
	gen, err := schedule.NewGenerator(fac.Spec(), schedule.Shape{Steps: 50, MaxMessages: 5, Requests: 2})
	require.NoError(t, err)
	dir := t.TempDir()
	st, err := corpus.Open(dir, corpus.Options{})
	require.NoError(t, err)
	opt := fuzzer.Options{Strategy: "trace", Guide: guidance.TraceMeasure{}, Measures: []fuzzer.Measure{guidance.TraceMeasure{}},
		Params: fuzzer.Params{Seed: 1, SeedPopulation: 20, ReseedEvery: 200, Mutations: 5, Pipeline: 8},
		Limits: fuzzer.Limits{Parallel: 2, Minimize: true, MinimizeBudget: schedule.MinimizeOptions{MaxTries: 300}}}
	var iterations atomic.Int64
	opt.Progress = func(s fuzzer.Stats) { iterations.Store(s.Iterations) }
	opt.ProgressEvery = time.Millisecond
	f, err := fuzzer.New(opt, fac, gen, st)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	type result struct {
		sum *fuzzer.Summary
		err error
	}
	done := make(chan result, 1)
	go func() {
		sum, err := f.Run(ctx)
		done <- result{sum, err}
	}()
	// Soon every worker is stuck in a hang: nothing more is recorded. An
	// iteration takes milliseconds, so a second without one is the hang
	// (on a loaded machine the first executions may take a while to come).
	last, since := int64(-1), time.Now()
	require.Eventually(t, func() bool {
		if n := iterations.Load(); n != last {
			last, since = n, time.Now()
			return false
		}
		return last > 0 && time.Since(since) > time.Second
	}, 2*time.Minute, 10*time.Millisecond)
	cancel()
	var res result
	select {
	case res = <-done:
	case <-time.After(time.Minute): // a hang, not a measure of speed
		t.Fatal("the interrupted campaign did not stop")
	}
	require.NoError(t, res.err)
	require.True(t, res.sum.Interrupted)
	require.Positive(t, res.sum.Abandoned, "the hung executions were stopped")
	require.NoError(t, st.Close())

	st, err = corpus.Open(dir, corpus.Options{})
	require.NoError(t, err)
	defer st.Close()
	snap, err := st.Load(0)
	require.NoError(t, err)
	require.Equal(t, res.sum.Iterations, snap.Counters.Iterations, "the summary counts what was recorded")
	opt.ExecTimeout = 100 * time.Millisecond
	opt.Iterations = res.sum.Iterations + 50
	opt.Progress = nil
	f, err = fuzzer.New(opt, fac, gen, st)
	require.NoError(t, err)
	sum, err := f.Run(context.Background())
	require.NoError(t, err)
	require.Equal(t, opt.Iterations, sum.Iterations, "the campaign goes on")
}

// A campaign whose live heap passes its memory limit stops, as if
// interrupted, with a MemoryError that says so: it never grows past it
// until the system kills it. What it recorded is kept.
func TestMemoryLimitStopsTheCampaign(t *testing.T) {
	dir := t.TempDir()
	f, st := newCampaign(t, dir, campaignSetup{workers: 3, tasks: 5, strategy: "trace", seed: 1, memoryLimit: 1 << 10})
	sum, err := f.Run(context.Background())
	var me *fuzzer.MemoryError
	require.ErrorAs(t, err, &me)
	require.ErrorIs(t, err, fuzzer.ErrMemoryLimit)
	require.Equal(t, int64(1<<10), me.Limit)
	require.Greater(t, me.Live, me.Limit)
	require.Contains(t, err.Error(), "raise --memory-limit")
	require.False(t, sum.Interrupted)
	require.Equal(t, "the live heap passed --memory-limit", sum.StoppedEarly)
	require.NoError(t, st.Close())
	st, err = corpus.Open(dir, corpus.Options{})
	require.NoError(t, err)
	defer st.Close()
	snap, err := st.Load(0)
	require.NoError(t, err)
	require.Equal(t, sum.Iterations, snap.Counters.Iterations)
}

// failingFactory wraps the micro-benchmark: every fourth execution fails
// in the harness.
type failingFactory struct {
	schedule.Factory
	calls atomic.Int64
}

func (f *failingFactory) New() (schedule.System, error) {
	s, err := f.Factory.New()
	if err != nil {
		return nil, err
	}
	return failingSystem{s, f}, nil
}

type failingSystem struct {
	schedule.System
	f *failingFactory
}

func (s failingSystem) Execute(in *schedule.Input) (*schedule.Execution, error) {
	if s.f.calls.Add(1)%4 == 0 {
		return nil, errors.New("the cluster did not start")
	}
	return s.System.Execute(in)
}

// Iterations lost to the harness are counted in the summary and each is
// logged, not passed over in silence.
func TestHarnessErrorsAreCountedAndLogged(t *testing.T) {
	mb, err := microbench.NewFactory(microbench.Config{Workers: 3, Tasks: 5})
	require.NoError(t, err)
	fac := &failingFactory{Factory: mb}
	gen, err := schedule.NewGenerator(fac.Spec(), schedule.Shape{Steps: 30, MaxMessages: 5, Requests: 2})
	require.NoError(t, err)
	st, err := corpus.Open(t.TempDir(), corpus.Options{})
	require.NoError(t, err)
	defer st.Close()
	var logged atomic.Int64
	opt := fuzzer.Options{Strategy: "trace", Measures: []fuzzer.Measure{guidance.TraceMeasure{}}, Guide: guidance.TraceMeasure{},
		Params: fuzzer.Params{Seed: 1, SeedPopulation: 20, ReseedEvery: 200, Mutations: 5, FreshShare: 0.1},
		Limits: fuzzer.Limits{Iterations: 40},
		Logf: func(format string, args ...any) {
			if msg := fmt.Sprintf(format, args...); strings.Contains(msg, "harness: the cluster did not start") {
				logged.Add(1)
			}
		}}
	f, err := fuzzer.New(opt, fac, gen, st)
	require.NoError(t, err)
	sum, err := f.Run(context.Background())
	require.NoError(t, err)
	require.Equal(t, int64(40), sum.Iterations)
	require.Equal(t, int64(10), sum.HarnessErrors)
	require.Equal(t, int64(10), logged.Load())
}
