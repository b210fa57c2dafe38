package mapper_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/models"
	"github.com/modelfuzz/modelfuzz/schedule"
	"github.com/modelfuzz/modelfuzz/tlc/sim"
)

// newSim loads an embedded model with the mapper's constants.
func newSim(t *testing.T, model string, consts []string) *sim.Simulator {
	t.Helper()
	m, err := models.Load(models.Spec{Model: model, Consts: consts})
	require.NoError(t, err)
	s, err := sim.New(m, 0)
	require.NoError(t, err)
	return s
}

// replay simulates mapped actions on the model from its initial state.
func replay(t *testing.T, s *sim.Simulator, acts []schedule.ModelAction) *sim.Result {
	t.Helper()
	no := false
	req := &sim.Request{Actions: make([]sim.Action, len(acts)), States: &no}
	for k, a := range acts {
		req.Actions[k] = sim.Action{Name: a.Name, Params: a.Params}
	}
	res, err := s.Simulate(req)
	require.NoError(t, err)
	return res
}
