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

func TestParamsValidate(t *testing.T) {
	_, err := NewGenerator(fullSpec, Shape{Steps: 0, MaxMessages: 1})
	require.ErrorContains(t, err, "--steps must be at least 1")
	_, err = NewGenerator(fullSpec, Shape{Steps: 2, MaxMessages: 1, Requests: 3})
	require.ErrorContains(t, err, "--requests (3) cannot exceed --steps (2)")
	_, err = NewGenerator(&SystemSpec{Name: "x", Processes: 2, Actions: []Action{Deliver}}, Shape{Steps: 2, MaxMessages: 1, Requests: 1})
	require.ErrorContains(t, err, "does not take client requests")
}
