package fuzzer_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/adapters/microbench"
	"github.com/modelfuzz/modelfuzz/corpus"
	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/guidance"
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
	require.Equal(t, schedule.KindHang, ex.Failures[0].Kind)
	require.Equal(t, "hang: unknown step", ex.Failures[0].Signature)
	ok := &schedule.Input{Steps: []schedule.Step{{Action: schedule.Request, Value: 2}}}
	ex, _, err = chk.Run(ok)
	require.NoError(t, err)
	require.Empty(t, ex.Failures)
	require.Len(t, ex.Trace, 1)
	require.Equal(t, int32(2), fac.made.Load(), "the hung system is replaced")
}

// An interruptible system that hangs (microbench with the seeded hang) is
// interrupted: the failure names the step, the campaign goes on, and the
// hang is minimized like any bug.
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
	require.Equal(t, schedule.KindHang, b.Kind)
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
	fuzzer.Store
	after int
	n     int
}

func (s *failingStore) Commit(b *fuzzer.Batch) error {
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
