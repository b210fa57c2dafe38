package mutate

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/schedule"
)

var fullSpec = &schedule.SystemSpec{Name: "toy", Processes: 3, Actions: schedule.AllActions}

func countAction(in *schedule.Input, a schedule.Action) int {
	n := 0
	for _, s := range in.Steps {
		if s.Action == a {
			n++
		}
	}
	return n
}

// smallShape is a generator of 30-step inputs over every action, its
// mutator, a source of randomness seeded with (s1, s2) and a first random input.
func smallShape(t *testing.T, s1, s2 uint64) (schedule.Shape, *schedule.Generator, *Mutator, *rand.Rand, *schedule.Input) {
	t.Helper()
	p := schedule.Shape{Steps: 30, MaxMessages: 5, CrashQuota: 2, Requests: 3}
	g, err := schedule.NewGenerator(fullSpec, p)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(s1, s2))
	return p, g, New(g), r, g.Random(r)
}

func TestMutantsStayValid(t *testing.T) {
	p, _, mu, r, in := smallShape(t, 7, 7)
	requireValidChain(t, p, in, "Mutate", func(in *schedule.Input) *schedule.Input { return mu.Mutate(r, in) })
}

// requireValidChain mutates in 5,000 times in a chain (each mutant the
// next one's parent): no mutant changes its parent, each is valid within
// the shape and its crash quota, and almost every one differs from its
// parent.
func requireValidChain(t *testing.T, p schedule.Shape, in *schedule.Input, what string, mutate func(*schedule.Input) *schedule.Input) {
	t.Helper()
	changed := 0
	for i := 0; i < 5000; i++ {
		before := schedule.EncodeInput(in)
		m := mutate(in)
		require.Equal(t, before, schedule.EncodeInput(in), "%s must not modify its argument", what)
		require.NoError(t, m.Validate(fullSpec))
		require.GreaterOrEqual(t, m.Len(), 1)
		require.LessOrEqual(t, m.Len(), p.Steps)
		require.LessOrEqual(t, countAction(m, schedule.Crash), p.CrashQuota)
		if string(schedule.EncodeInput(m)) != string(before) {
			changed++
		}
		in = m
	}
	require.Greater(t, changed, 4500, "almost every mutant of %s differs from its parent", what)
}

func TestTailKeepsAPrefixAndTheShape(t *testing.T) {
	p, g, mu, r, in := smallShape(t, 3, 9)
	prefixes := map[int]bool{}
	for i := 0; i < 2000; i++ {
		before := schedule.EncodeInput(in)
		m := mu.Tail(r, in, 0)
		require.Equal(t, before, schedule.EncodeInput(in), "Tail must not modify its argument")
		require.NoError(t, m.Validate(fullSpec))
		require.Len(t, m.Steps, p.Steps)
		require.LessOrEqual(t, countAction(m, schedule.Crash), p.CrashQuota)
		require.GreaterOrEqual(t, countAction(m, schedule.Request), p.Requests, "missing requests are put in the tail")
		k := 0
		for k < len(in.Steps) && in.Steps[k] == m.Steps[k] {
			k++
		}
		require.GreaterOrEqual(t, k, 1, "the first step is always kept")
		prefixes[min(k, 29)/10] = true
		values := map[int]bool{}
		for _, s := range m.Steps {
			if s.Action == schedule.Request {
				require.False(t, values[s.Value], "request values stay distinct")
				values[s.Value] = true
			}
		}
		if i%10 == 0 {
			in = g.Random(r)
		} else {
			in = m
		}
	}
	require.Len(t, prefixes, 3, "prefixes of every length are kept")
}

func TestEachOpDoesWhatItSays(t *testing.T) {
	g, err := schedule.NewGenerator(fullSpec, schedule.Shape{Steps: 10, MaxMessages: 5, CrashQuota: 2})
	require.NoError(t, err)
	mu := New(g)
	r := rand.New(rand.NewPCG(3, 3))
	base := &schedule.Input{Steps: []schedule.Step{
		{Process: 0, Action: schedule.Deliver, Messages: 1},
		{Process: 1, Action: schedule.Crash},
		{Process: 2, Action: schedule.Deliver, Messages: 4},
		{Process: 1, Action: schedule.Restart},
		{Process: 2, Action: schedule.Crash},
		{Process: 0, Action: schedule.Request, Value: 1},
	}}
	for op := Op(0); op < numOps; op++ {
		t.Run(op.String(), func(t *testing.T) {
			for i := 0; i < 50; i++ {
				in := base.Clone()
				if !mu.Apply(r, in, op) {
					continue
				}
				require.NoError(t, in.Validate(fullSpec))
				switch op {
				case SwapProcesses, SwapCrashes, SwapMessageCounts, ChangeCount, MoveStep, MoveCrashPair:
					require.Len(t, in.Steps, len(base.Steps))
				case InsertStep:
					require.Len(t, in.Steps, len(base.Steps)+1)
				case DeleteStep:
					require.Len(t, in.Steps, len(base.Steps)-1)
				}
				switch op {
				case SwapMessageCounts, ChangeCount:
					require.Equal(t, countAction(base, schedule.Deliver), countAction(in, schedule.Deliver))
				case MoveCrashPair:
					// the crash still comes before the restart of process 1
					c, rs := -1, -1
					for k, s := range in.Steps {
						if s.Process == 1 && s.Action == schedule.Crash {
							c = k
						}
						if s.Process == 1 && s.Action == schedule.Restart {
							rs = k
						}
					}
					if c >= 0 && rs >= 0 {
						require.Less(t, c, rs)
					}
				}
			}
		})
	}
}

func TestSameSeedSameInputs(t *testing.T) {
	g, err := schedule.NewGenerator(fullSpec, schedule.Shape{Steps: 20, MaxMessages: 3, CrashQuota: 2, Requests: 2})
	require.NoError(t, err)
	mu := New(g)
	gen := func() []byte {
		r := rand.New(rand.NewPCG(42, 0))
		in := g.Random(r)
		for i := 0; i < 10; i++ {
			in = mu.Mutate(r, in)
		}
		return schedule.EncodeInput(in)
	}
	require.Equal(t, gen(), gen())
}

// A given prefix length is kept exactly (capped at the input's length).
func TestTailKeepsTheGivenPrefix(t *testing.T) {
	p, _, mu, r, in := smallShape(t, 4, 2)
	for _, keep := range []int{1, 7, 29, 30, 45} {
		m := mu.Tail(r, in, keep)
		require.NoError(t, m.Validate(fullSpec))
		require.Len(t, m.Steps, p.Steps)
		require.Equal(t, in.Steps[:min(keep, len(in.Steps))], m.Steps[:min(keep, len(in.Steps))], "keep %d", keep)
	}
}

// Random inputs and mutants use every action the system supports.
func TestMutantsUseEveryAction(t *testing.T) {
	spec := &schedule.SystemSpec{Name: "x", Processes: 4, Actions: schedule.AllActions, CrashPoints: schedule.CrashPoints}
	g, err := schedule.NewGenerator(spec, schedule.Shape{Steps: 100, MaxMessages: 4, CrashQuota: 5, Requests: 5})
	require.NoError(t, err)
	mu := New(g)
	r := rand.New(rand.NewPCG(3, 3))
	seen := map[schedule.Action]int{}
	points := 0
	for i := 0; i < 200; i++ {
		in := g.Random(r)
		for j := 0; j < 3; j++ {
			in = mu.Mutate(r, in)
		}
		require.NoError(t, in.Validate(spec))
		for _, s := range in.Steps {
			seen[s.Action]++
			if s.Point != "" {
				points++
			}
		}
	}
	for _, a := range schedule.AllActions {
		require.Positive(t, seen[a], "action %s never generated", a)
	}
	require.Positive(t, points)
}
