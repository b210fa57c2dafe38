package schedule

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func deliverStep(p, n int) Step { return Step{Process: p, Action: Deliver, Messages: n} }
func requestStep(p, v int) Step { return Step{Process: p, Action: Request, Value: v} }
func crashStep(p int) Step      { return Step{Process: p, Action: Crash} }
func restartStep(p int) Step    { return Step{Process: p, Action: Restart} }
func timeoutStep(p int) Step    { return Step{Process: p, Action: Timeout} }

// inOrder reports whether want occurs in steps as a subsequence.
func inOrder(steps []Step, want ...Step) bool {
	for _, s := range steps {
		if len(want) > 0 && s == want[0] {
			want = want[1:]
		}
	}
	return len(want) == 0
}

// crashesPaired reports whether every restart follows a crash of its
// process and no process is down at the end.
func crashesPaired(steps []Step) bool {
	down := map[int]bool{}
	for _, s := range steps {
		switch s.Action {
		case Crash:
			if down[s.Process] {
				return false
			}
			down[s.Process] = true
		case Restart:
			if !down[s.Process] {
				return false
			}
			down[s.Process] = false
		}
	}
	for _, d := range down {
		if d {
			return false
		}
	}
	return true
}

// bugKeeper turns a predicate into a keep function that records every input
// it is given and fails the test when one is given twice (the cache's job)
// or when Minimize hands it an invalid input.
type bugKeeper struct {
	t     *testing.T
	bug   func([]Step) bool
	calls []string
	seen  map[string]bool
}

func newBugKeeper(t *testing.T, bug func([]Step) bool) *bugKeeper {
	return &bugKeeper{t: t, bug: bug, seen: map[string]bool{}}
}

func (k *bugKeeper) keep(in *Input) (bool, error) {
	key := string(in.AppendJSON(nil, false))
	require.False(k.t, k.seen[key], "keep ran twice on %s", key)
	require.NoError(k.t, in.Validate(nil))
	k.seen[key] = true
	k.calls = append(k.calls, key)
	ok := k.bug(in.Steps)
	// Minimize must not depend on what keep does with its argument.
	for i := range in.Steps {
		in.Steps[i].Process += 100
	}
	return ok, nil
}

// noiseSteps returns n valid noise steps on processes 0..2; request values
// count up from 1.
func noiseSteps(r *rand.Rand, n int) []Step {
	steps := make([]Step, 0, n)
	value := 0
	for range n {
		p := r.IntN(3)
		switch r.IntN(5) {
		case 0:
			steps = append(steps, deliverStep(p, 1+r.IntN(3)))
		case 1:
			value++
			steps = append(steps, requestStep(p, value))
		case 2:
			steps = append(steps, crashStep(p))
		case 3:
			steps = append(steps, restartStep(p))
		default:
			steps = append(steps, timeoutStep(p))
		}
	}
	return steps
}

// bugMarkers are steps the noise of noiseSteps never contains.
var bugMarkers = []Step{requestStep(1, 1001), deliverStep(2, 7), requestStep(0, 1002)}

// hundredSteps is 100 steps of noise with the bugMarkers at random places, in order.
func hundredSteps(seed uint64) *Input {
	r := rand.New(rand.NewPCG(seed, 1))
	steps := noiseSteps(r, 100-len(bugMarkers))
	at := r.Perm(100)[:len(bugMarkers)]
	slices.Sort(at)
	for i, pos := range at {
		steps = slices.Insert(steps, pos, bugMarkers[i])
	}
	return &Input{Steps: steps}
}

func needsMarkers(steps []Step) bool { return inOrder(steps, bugMarkers...) }

// checkedMinimize runs Minimize and checks what holds for every run: the caller's
// input is unchanged, the stats match, and the result (if any) keeps the bug.
func checkedMinimize(t *testing.T, ctx context.Context, in *Input, k *bugKeeper, opt MinimizeOptions) (*Input, MinimizeStats, error) {
	t.Helper()
	orig := in.Clone()
	out, st, err := Minimize(ctx, in, k.keep, opt)
	require.Equal(t, orig, in, "Minimize changed its input")
	require.Equal(t, len(k.calls), st.Tries)
	require.Equal(t, len(in.Steps), st.Before)
	if out != nil {
		require.True(t, k.bug(out.Steps), "the result lost the bug: %v", out.Steps)
		require.Equal(t, len(out.Steps), st.After)
	}
	return out, st, err
}

func TestMinimizeKeepsTwoStepsInOrder(t *testing.T) {
	a, b := requestStep(0, 1), deliverStep(2, 1)
	in := &Input{Steps: []Step{
		timeoutStep(1), b, deliverStep(0, 3), crashStep(2), a, restartStep(2),
		timeoutStep(0), requestStep(1, 2), b, deliverStep(1, 2), timeoutStep(2),
	}}
	k := newBugKeeper(t, func(s []Step) bool { return inOrder(s, a, b) })
	out, st, err := checkedMinimize(t, context.Background(), in, k, MinimizeOptions{})
	require.NoError(t, err)
	require.Equal(t, []Step{a, b}, out.Steps)
	require.Equal(t, MinimizeStats{Tries: st.Tries, Complete: true, Before: 11, After: 2}, st)
}

func TestMinimizeLowersDeliveredMessages(t *testing.T) {
	in := &Input{Steps: []Step{
		deliverStep(0, 5), timeoutStep(1), deliverStep(1, 9), requestStep(1, 1),
		deliverStep(2, 7), crashStep(0), deliverStep(1, 1),
	}}
	k := newBugKeeper(t, func(s []Step) bool {
		return slices.ContainsFunc(s, func(s Step) bool { return s.Action == Deliver && s.Process == 1 && s.Messages >= 2 })
	})
	out, st, err := checkedMinimize(t, context.Background(), in, k, MinimizeOptions{})
	require.NoError(t, err)
	require.True(t, st.Complete)
	require.Equal(t, []Step{deliverStep(1, 2)}, out.Steps)
	// A single message is tried first: it is the usual answer.
	one := slices.Index(k.calls, string((&Input{Steps: []Step{deliverStep(1, 1)}}).AppendJSON(nil, false)))
	two := slices.Index(k.calls, string(out.AppendJSON(nil, false)))
	require.True(t, one >= 0 && one < two, "tried 1 message at %d, 2 at %d", one, two)
}

// A bug that extra steps can mask is not monotone: here no single chunk of
// the input can go, yet one chunk alone shows the bug.
func TestMinimizeTriesSingleChunks(t *testing.T) {
	var steps []Step
	for p := range 6 {
		steps = append(steps, timeoutStep(p))
	}
	alone := steps[1:3]
	k := newBugKeeper(t, func(s []Step) bool { return slices.Equal(s, steps) || slices.Equal(s, alone) })
	out, st, err := checkedMinimize(t, context.Background(), &Input{Steps: steps}, k, MinimizeOptions{})
	require.NoError(t, err)
	require.True(t, st.Complete)
	require.Equal(t, alone, out.Steps)
}

func TestMinimizeLowersRequestValuesKeepingThemDistinct(t *testing.T) {
	in := &Input{Steps: []Step{
		requestStep(1, 3), requestStep(0, 40), timeoutStep(0), requestStep(0, 17), deliverStep(0, 2),
	}}
	k := newBugKeeper(t, func(s []Step) bool {
		var vals []int
		for _, s := range s {
			if s.Action == Request && s.Process == 0 && !slices.Contains(vals, s.Value) {
				vals = append(vals, s.Value)
			}
		}
		return len(vals) >= 2
	})
	out, st, err := checkedMinimize(t, context.Background(), in, k, MinimizeOptions{})
	require.NoError(t, err)
	require.True(t, st.Complete)
	require.Equal(t, []Step{requestStep(0, 1), requestStep(0, 2)}, out.Steps)
}

func TestMinimizeKeepsACrashRestartPair(t *testing.T) {
	in := &Input{Steps: []Step{
		crashStep(0), deliverStep(2, 2), crashStep(1), timeoutStep(2), restartStep(0),
		requestStep(2, 1), restartStep(1), crashStep(1), timeoutStep(0),
	}}
	k := newBugKeeper(t, func(s []Step) bool { return inOrder(s, crashStep(1), restartStep(1)) })
	out, st, err := checkedMinimize(t, context.Background(), in, k, MinimizeOptions{})
	require.NoError(t, err)
	require.True(t, st.Complete)
	require.Equal(t, []Step{crashStep(1), restartStep(1)}, out.Steps)
}

// Neither the crash nor the restart can go alone (the process would stay
// down, or restart while up), and the needed request between them keeps
// ddmin's chunks from taking both at once.
func TestMinimizeRemovesACrashWithItsRestart(t *testing.T) {
	a, b := requestStep(0, 1), requestStep(2, 2)
	in := &Input{Steps: []Step{
		timeoutStep(0), crashStep(1), timeoutStep(2), a, deliverStep(0, 1), restartStep(1), timeoutStep(1), b,
	}}
	k := newBugKeeper(t, func(s []Step) bool { return crashesPaired(s) && inOrder(s, a, b) })
	out, st, err := checkedMinimize(t, context.Background(), in, k, MinimizeOptions{})
	require.NoError(t, err)
	require.True(t, st.Complete)
	require.Equal(t, []Step{a, b}, out.Steps)
}

func TestMinimizeFindsThreeStepsAmongAHundred(t *testing.T) {
	for seed := range uint64(5) {
		k := newBugKeeper(t, needsMarkers)
		out, st, err := checkedMinimize(t, context.Background(), hundredSteps(seed), k, MinimizeOptions{})
		require.NoError(t, err)
		require.True(t, st.Complete)
		require.Equal(t, bugMarkers, out.Steps)
		t.Logf("seed %d: 100 -> 3 steps in %d tries", seed, st.Tries)
		require.Less(t, st.Tries, 1500)
	}
}

func TestMinimizeStopsAtMaxTries(t *testing.T) {
	for _, budget := range []int{1, 2, 20} {
		k := newBugKeeper(t, needsMarkers)
		out, st, err := checkedMinimize(t, context.Background(), hundredSteps(1), k, MinimizeOptions{MaxTries: budget})
		require.NoError(t, err)
		require.False(t, st.Complete)
		require.Equal(t, budget, st.Tries)
		switch budget {
		case 1:
			require.Equal(t, hundredSteps(1), out, "one try only confirms the input")
		case 20:
			require.Less(t, st.After, st.Before)
		}
	}
}

func TestMinimizeStopsAtMaxTime(t *testing.T) {
	k := newBugKeeper(t, needsMarkers)
	keep := func(in *Input) (bool, error) {
		time.Sleep(time.Millisecond)
		return k.keep(in)
	}
	out, st, err := Minimize(context.Background(), hundredSteps(2), keep, MinimizeOptions{MaxTime: 10 * time.Millisecond})
	require.NoError(t, err)
	require.False(t, st.Complete)
	require.True(t, needsMarkers(out.Steps))
	require.Equal(t, len(k.calls), st.Tries)
	// A complete minimization takes well over 100 tries (1ms each).
	require.Less(t, st.Tries, 100)
}

func TestMinimizeStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	k := newBugKeeper(t, needsMarkers)
	keep := func(in *Input) (bool, error) {
		if len(k.calls) == 9 {
			cancel()
		}
		return k.keep(in)
	}
	in := hundredSteps(3)
	out, st, err := Minimize(ctx, in, keep, MinimizeOptions{})
	require.NoError(t, err)
	require.False(t, st.Complete)
	require.Equal(t, 10, st.Tries)
	require.True(t, needsMarkers(out.Steps))
	require.Less(t, len(out.Steps), 100)
	require.Equal(t, len(out.Steps), st.After)

	// Cancelled before it starts: nothing is confirmed, so nothing is returned.
	k = newBugKeeper(t, needsMarkers)
	out, st, err = checkedMinimize(t, ctx, in, k, MinimizeOptions{})
	require.ErrorIs(t, err, context.Canceled)
	require.Nil(t, out)
	require.Zero(t, st.Tries)
}

func TestMinimizeRejectsAnInputWithoutTheBug(t *testing.T) {
	in := &Input{Steps: []Step{timeoutStep(0), deliverStep(1, 2)}}
	k := newBugKeeper(t, needsMarkers)
	out, st, err := checkedMinimize(t, context.Background(), in, k, MinimizeOptions{})
	require.ErrorIs(t, err, ErrNotReproduced)
	require.Nil(t, out)
	require.Equal(t, 1, st.Tries)

	_, _, err = Minimize(context.Background(), nil, k.keep, MinimizeOptions{})
	require.Error(t, err)
}

func TestMinimizeReturnsErrorsOfKeep(t *testing.T) {
	boom := errors.New("harness broke")
	for _, failAt := range []int{1, 5} {
		k := newBugKeeper(t, needsMarkers)
		keep := func(in *Input) (bool, error) {
			if len(k.calls) == failAt-1 {
				k.calls = append(k.calls, "failed")
				return false, boom
			}
			return k.keep(in)
		}
		out, st, err := Minimize(context.Background(), hundredSteps(4), keep, MinimizeOptions{})
		require.ErrorIs(t, err, boom)
		require.False(t, st.Complete)
		require.Equal(t, failAt, st.Tries)
		if failAt == 1 {
			require.Nil(t, out)
			continue
		}
		require.True(t, needsMarkers(out.Steps), "the best input so far")
		require.Equal(t, len(out.Steps), st.After)
	}
}

func TestMinimizeIsDeterministic(t *testing.T) {
	run := func() (*Input, MinimizeStats, []string) {
		k := newBugKeeper(t, func(s []Step) bool { return needsMarkers(s) && crashesPaired(s) })
		in := hundredSteps(5)
		in.Steps = slices.DeleteFunc(in.Steps, func(s Step) bool { return s.Action == Crash || s.Action == Restart })
		in.Steps = slices.Insert(in.Steps, 10, crashStep(0), crashStep(1))
		in.Steps = append(in.Steps, restartStep(1), restartStep(0))
		out, st, err := checkedMinimize(t, context.Background(), in, k, MinimizeOptions{})
		require.NoError(t, err)
		return out, st, k.calls
	}
	out1, st1, calls1 := run()
	out2, st2, calls2 := run()
	require.Equal(t, out1, out2)
	require.Equal(t, st1, st2)
	require.Equal(t, calls1, calls2, "the same candidates in the same order")
	require.Equal(t, bugMarkers, out1.Steps)
}

// The result of a complete minimization is 1-minimal: dropping any single
// step, or any crash with the next restart of its process, loses the bug.
func TestMinimizeResultIsOneMinimal(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for trial := range 50 {
		steps := noiseSteps(r, 10+r.IntN(50))
		// The bug: some steps of the input, in order, and (for half of the
		// trials) some message counts delivered to process 0.
		var want []Step
		for _, s := range steps {
			if r.IntN(8) == 0 {
				want = append(want, s)
			}
		}
		need := 0
		if trial%2 == 1 {
			for _, s := range steps {
				if s.Action == Deliver && s.Process == 0 {
					need += s.Messages
				}
			}
			need = r.IntN(need + 1)
		}
		bug := func(s []Step) bool {
			got := 0
			for _, s := range s {
				if s.Action == Deliver && s.Process == 0 {
					got += s.Messages
				}
			}
			return got >= need && inOrder(s, want...)
		}
		k := newBugKeeper(t, bug)
		out, st, err := checkedMinimize(t, context.Background(), &Input{Steps: steps}, k, MinimizeOptions{})
		require.NoError(t, err)
		require.True(t, st.Complete)
		for i := range out.Steps {
			require.False(t, bug(slices.Delete(slices.Clone(out.Steps), i, i+1)), "trial %d: step %d of %v can go", trial, i, out.Steps)
			if out.Steps[i].Action == Deliver && out.Steps[i].Messages > 1 {
				fewer := slices.Clone(out.Steps)
				fewer[i].Messages--
				require.False(t, bug(fewer), "trial %d: step %d of %v can deliver fewer", trial, i, out.Steps)
			}
		}
	}
}
