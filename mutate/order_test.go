package mutate

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/schedule"
)

func TestOrderingMutantsStayValid(t *testing.T) {
	p, _, mu, r, in := smallShape(t, 5, 11)
	requireValidChain(t, p, in, "Reorder", func(in *schedule.Input) *schedule.Input { return mu.Reorder(r, in, r.IntN(len(in.Steps)+1)) })
}

func TestDeepDeliverOneReachesPastMaxMessages(t *testing.T) {
	p, _, mu, r, in := smallShape(t, 2, 4)
	ks := map[int]bool{}
	for i := 0; i < 500; i++ {
		m := in.Clone()
		require.True(t, mu.ApplyOrder(r, m, DeepDeliverOne, 0))
		require.Equal(t, in.Len()+1, m.Len())
		n := countAction(m, schedule.DeliverOne) - countAction(in, schedule.DeliverOne)
		require.Equal(t, 1, n, "one deliver-one is added")
		for _, s := range m.Steps {
			if s.Action == schedule.DeliverOne && s.K > p.MaxMessages {
				require.LessOrEqual(t, s.K, DeepK)
				ks[s.K] = true
			}
		}
	}
	require.Greater(t, len(ks), DeepK-p.MaxMessages-5, "k spreads over the deep part of the inbox")
}

func TestStarveHoldsOneProcessDeliveries(t *testing.T) {
	p := schedule.Shape{Steps: 120, MaxMessages: 5, CrashQuota: 2, Requests: 3}
	g, err := schedule.NewGenerator(fullSpec, p)
	require.NoError(t, err)
	mu := New(g)
	// Deliveries only, round robin over the processes: every stretch
	// holds deliveries of each.
	in := &schedule.Input{}
	for i := 0; i < 90; i++ {
		in.Steps = append(in.Steps, schedule.Step{Process: i % 3, Action: schedule.Deliver, Messages: 1 + i%5})
	}
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		m := in.Clone()
		require.True(t, mu.ApplyOrder(r, m, Starve, 10))
		require.Equal(t, in.Len()+1, m.Len())
		require.Equal(t, in.Steps[:10], m.Steps[:10], "the steps before from are untouched")
		// The deep deliver-one ends the stretch; the process's held
		// deliveries follow it, and before it the stretch's other
		// steps, of the other processes only (round robin: at least two
		// for each held one, but for the stretch's ends).
		d := -1
		for i, s := range m.Steps {
			if s.Action == schedule.DeliverOne {
				d = i
			}
		}
		require.GreaterOrEqual(t, d, 10)
		q := m.Steps[d].Process
		require.Greater(t, m.Steps[d].K, p.MaxMessages)
		h := 0
		for _, s := range m.Steps[d+1:] {
			if s.Process != q {
				break
			}
			h++
		}
		for i := max(10, d-(2*h-2)); i < d; i++ {
			require.NotEqual(t, q, m.Steps[i].Process, "step %d: process %d was to be starved (held %d)", i, q, h)
		}
		if d < 80 {
			require.Greater(t, h, 0, "a stretch of at least %d steps holds a delivery of every process", starveMin)
		}
		// Nothing lost: the same steps, one deliver-one more.
		require.Equal(t, countAction(in, schedule.Deliver), countAction(m, schedule.Deliver))
	}
}

func TestCrashInJointFallsInsideTheWindow(t *testing.T) {
	p := schedule.Shape{Steps: 80, MaxMessages: 5, CrashQuota: 2, Requests: 3}
	g, err := schedule.NewGenerator(fullSpec, p)
	require.NoError(t, err)
	mu := New(g)
	r := rand.New(rand.NewPCG(3, 5))
	for trial := 0; trial < 500; trial++ {
		in := g.Random(r)
		m := in.Clone()
		if !mu.ApplyOrder(r, m, CrashInJoint, 0) {
			continue
		}
		require.LessOrEqual(t, countAction(m, schedule.Crash), p.CrashQuota)
		// Some crash lies after a joint conf change with no conf change
		// between them, and its process restarts after it.
		found := false
		for k, s := range m.Steps {
			if s.Action != schedule.Crash {
				continue
			}
			c := -1
			for i := k - 1; i >= 0; i-- {
				if m.Steps[i].Action == schedule.ConfChange {
					c = i
					break
				}
			}
			if c < 0 || !isJoint(m.Steps[c].Conf) {
				continue
			}
			for _, after := range m.Steps[k+1:] {
				if after.Process == s.Process && after.Action == schedule.Restart {
					found = true
				}
			}
		}
		require.True(t, found, "trial %d: no crash and restart inside a joint window:\n%v", trial, m.Steps)
	}
}
