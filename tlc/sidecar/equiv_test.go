package sidecar

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/tlc/sim"
)

// TestSidecarAnswersAsInProcess runs the same requests in process, through
// an HTTP server in this process, and on a launched sidecar: every answer
// (keys, states, divergence, violations, choices) is the same.
func TestSidecarAnswersAsInProcess(t *testing.T) {
	valid := microbenchTrace(300, 2)
	mb := []*sim.Request{
		{Actions: valid},
		{Actions: valid, States: boolp(false)},
		{Actions: valid[:40], States: boolp(true)},
		{},
		{Actions: []sim.Action{act("Start", "p", 1), act("RecvRegister", "p", 2)}}, // not enabled
		{Actions: append(valid[:3:3], act("Foo"), act("Start", "p", 1))},           // unknown action: 422
		{Actions: append(valid[:3:3], append([]sim.Action{act("RecvRegister", "p", 2)}, valid[3:9]...)...), Resync: true},
		{Actions: append(valid[:6:6], act("Serve", "v", 1, "r", 1))},                 // missing parameter
		{Actions: append(valid[:6:6], act("Serve", "v", 1, "r", 1, "w", 2, "x", 0))}, // unknown parameter
		{Actions: []sim.Action{act("Start", "p", []any{1, "a", true, map[string]any{"f": 1}})}},
		{Actions: []sim.Action{act("Start", "p", nil)}},
		{Actions: []sim.Action{act("WorkerOf", "r", 1)}}, // a definition, not an action
		{Actions: valid[:6], Init: map[string]any{"rejected": 0}},
		{Actions: valid[:6], Init: map[string]any{"rejected": 7}},
		{Actions: valid[:6], Init: map[string]any{"nosuch": 0}},
	}
	counter := []*sim.Request{
		{Actions: []sim.Action{act("Jump"), act("Jump"), act("Inc", "n", 2), act("Shout"), act("Inc", "n", 1)}},
		{Actions: []sim.Action{act("Inc", "n", 1)}, Init: map[string]any{"x": 10}},
		{Actions: []sim.Action{act("Twice", "n", 1)}},
		{Actions: []sim.Action{act("Inc", "n", 9223372036854775807), act("Inc", "n", 1)}},
	}
	for _, tc := range []struct {
		model  string
		consts []string
		reqs   []*sim.Request
	}{
		{"microbench.tla", microbenchConsts, mb},
		{"testdata/counter.tla", nil, counter},
	} {
		t.Run(tc.model, func(t *testing.T) {
			ctx := context.Background()
			s := newSim(t, tc.model, tc.consts...)
			_, client := newTestServer(t, s, ServerOptions{})
			others := map[string]Simulator{"client": client}
			if binary != "" {
				args := []string{"--model", tc.model}
				for _, c := range tc.consts {
					args = append(args, "--const", c)
				}
				others["sidecar"] = launch(t, LaunchOptions{}, args...)
			}
			for i, req := range tc.reqs {
				want, err := InProc{s}.Simulate(ctx, req)
				require.NoError(t, err, "request %d", i)
				for name, o := range others {
					got, err := o.Simulate(ctx, req)
					require.NoError(t, err, "request %d, %s", i, name)
					assert.Equal(t, want, got, "request %d, %s", i, name)
				}
			}
		})
	}
}

// The requests above cover what they claim to.
func TestEquivalenceRequestsCoverTheResult(t *testing.T) {
	ctx := context.Background()
	s := InProc{newSim(t, "testdata/counter.tla")}
	res, err := s.Simulate(ctx, &sim.Request{Actions: []sim.Action{act("Jump"), act("Jump"), act("Inc", "n", 2), act("Shout"), act("Inc", "n", 1)}})
	require.NoError(t, err)
	assert.NotEmpty(t, res.Choices)
	assert.NotEmpty(t, res.Violations)
	assert.Nil(t, res.Divergence)

	m := InProc{newSim(t, "microbench.tla", microbenchConsts...)}
	res, err = m.Simulate(ctx, &sim.Request{Actions: microbenchTrace(300, 2)})
	require.NoError(t, err)
	assert.Nil(t, res.Divergence, "the trace is valid")
	assert.Greater(t, len(res.Keys), 100)

	valid := microbenchTrace(300, 2)
	res, err = m.Simulate(ctx, &sim.Request{Actions: append(valid[:3:3], append([]sim.Action{act("RecvRegister", "p", 2)}, valid[3:9]...)...), Resync: true})
	require.NoError(t, err)
	assert.NotNil(t, res.Divergence)
	assert.Equal(t, 1, res.Skipped, "the resync request skips one action")
}
