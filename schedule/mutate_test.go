package schedule

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

var fullSpec = &SystemSpec{Name: "toy", Processes: 3, Actions: AllActions}

func countAction(in *Input, a Action) int {
	n := 0
	for _, s := range in.Steps {
		if s.Action == a {
			n++
		}
	}
	return n
}

func TestRandomRespectsParams(t *testing.T) {
	p := Shape{Steps: 40, MaxMessages: 4, CrashQuota: 3, Requests: 5}
	g, err := NewGenerator(fullSpec, p)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 500; i++ {
		in := g.Random(r)
		require.NoError(t, in.Validate(fullSpec))
		require.Len(t, in.Steps, p.Steps)
		require.Equal(t, p.Requests, countAction(in, Request))
		require.LessOrEqual(t, countAction(in, Crash), p.CrashQuota)
		for _, s := range in.Steps {
			if s.Action == Deliver {
				require.True(t, s.Messages >= 1 && s.Messages <= p.MaxMessages)
			}
		}
	}
}

// smallShape is a generator of 30-step inputs over every action, a source
// of randomness seeded with (s1, s2) and a first random input.
func smallShape(t *testing.T, s1, s2 uint64) (Shape, *Generator, *rand.Rand, *Input) {
	t.Helper()
	p := Shape{Steps: 30, MaxMessages: 5, CrashQuota: 2, Requests: 3}
	g, err := NewGenerator(fullSpec, p)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(s1, s2))
	return p, g, r, g.Random(r)
}

func TestMutantsStayValid(t *testing.T) {
	p, g, r, in := smallShape(t, 7, 7)
	changed := 0
	for i := 0; i < 5000; i++ {
		before := EncodeInput(in)
		m := g.Mutate(r, in)
		require.Equal(t, before, EncodeInput(in), "Mutate must not modify its argument")
		require.NoError(t, m.Validate(fullSpec))
		require.GreaterOrEqual(t, m.Len(), 1)
		require.LessOrEqual(t, m.Len(), p.Steps)
		require.LessOrEqual(t, countAction(m, Crash), p.CrashQuota)
		if string(EncodeInput(m)) != string(before) {
			changed++
		}
		in = m
	}
	require.Greater(t, changed, 4500, "almost every mutant differs from its parent")
}

func TestRegenerateKeepsAPrefixAndTheShape(t *testing.T) {
	p, g, r, in := smallShape(t, 3, 9)
	prefixes := map[int]bool{}
	for i := 0; i < 2000; i++ {
		before := EncodeInput(in)
		m := g.Regenerate(r, in, 0)
		require.Equal(t, before, EncodeInput(in), "Regenerate must not modify its argument")
		require.NoError(t, m.Validate(fullSpec))
		require.Len(t, m.Steps, p.Steps)
		require.LessOrEqual(t, countAction(m, Crash), p.CrashQuota)
		require.GreaterOrEqual(t, countAction(m, Request), p.Requests, "missing requests are put in the tail")
		k := 0
		for k < len(in.Steps) && in.Steps[k] == m.Steps[k] {
			k++
		}
		require.GreaterOrEqual(t, k, 1, "the first step is always kept")
		prefixes[min(k, 29)/10] = true
		values := map[int]bool{}
		for _, s := range m.Steps {
			if s.Action == Request {
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
	g, err := NewGenerator(fullSpec, Shape{Steps: 10, MaxMessages: 5, CrashQuota: 2})
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(3, 3))
	base := &Input{Steps: []Step{
		{Process: 0, Action: Deliver, Messages: 1},
		{Process: 1, Action: Crash},
		{Process: 2, Action: Deliver, Messages: 4},
		{Process: 1, Action: Restart},
		{Process: 2, Action: Crash},
		{Process: 0, Action: Request, Value: 1},
	}}
	for op := Op(0); op < numOps; op++ {
		t.Run(op.String(), func(t *testing.T) {
			for i := 0; i < 50; i++ {
				in := base.Clone()
				if !g.Apply(r, in, op) {
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
					require.Equal(t, countAction(base, Deliver), countAction(in, Deliver))
				case MoveCrashPair:
					// the crash still comes before the restart of process 1
					c, rs := -1, -1
					for k, s := range in.Steps {
						if s.Process == 1 && s.Action == Crash {
							c = k
						}
						if s.Process == 1 && s.Action == Restart {
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
	g, err := NewGenerator(fullSpec, Shape{Steps: 20, MaxMessages: 3, CrashQuota: 2, Requests: 2})
	require.NoError(t, err)
	gen := func() []byte {
		r := rand.New(rand.NewPCG(42, 0))
		in := g.Random(r)
		for i := 0; i < 10; i++ {
			in = g.Mutate(r, in)
		}
		return EncodeInput(in)
	}
	require.Equal(t, gen(), gen())
}

func TestParamsValidate(t *testing.T) {
	_, err := NewGenerator(fullSpec, Shape{Steps: 0, MaxMessages: 1})
	require.ErrorContains(t, err, "--steps must be at least 1")
	_, err = NewGenerator(fullSpec, Shape{Steps: 2, MaxMessages: 1, Requests: 3})
	require.ErrorContains(t, err, "--requests (3) cannot exceed --steps (2)")
	_, err = NewGenerator(&SystemSpec{Name: "x", Processes: 2, Actions: []Action{Deliver}}, Shape{Steps: 2, MaxMessages: 1, Requests: 1})
	require.ErrorContains(t, err, "does not take client requests")
}

// A given prefix length is kept exactly (capped at the input's length).
func TestRegenerateKeepsTheGivenPrefix(t *testing.T) {
	p, g, r, in := smallShape(t, 4, 2)
	for _, keep := range []int{1, 7, 29, 30, 45} {
		m := g.Regenerate(r, in, keep)
		require.NoError(t, m.Validate(fullSpec))
		require.Len(t, m.Steps, p.Steps)
		require.Equal(t, in.Steps[:min(keep, len(in.Steps))], m.Steps[:min(keep, len(in.Steps))], "keep %d", keep)
	}
}
