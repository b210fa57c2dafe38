package guidance_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/guidance"
)

func TestLookupStrategy(t *testing.T) {
	require.Equal(t, "model, generated, line, trace, random, pct, pctcp, pos, dpos, tapct, model-pctcp, model-dpos, model-pctcp-tails, model-dpos-tails, model-pctcp-genome, model-dpos-genome, model-reorder, rounds, negrl, bonusmaxrl, waypointrl, walk", guidance.StrategyNames())
	for _, s := range guidance.Strategies {
		got, err := guidance.LookupStrategy(s.Name)
		require.NoError(t, err)
		require.Equal(t, s, got)
		require.NotEmpty(t, s.About)
	}
	_, err := guidance.LookupStrategy("bogus")
	require.EqualError(t, err, `unknown strategy "bogus" (known: model, generated, line, trace, random, pct, pctcp, pos, dpos, tapct, model-pctcp, model-dpos, model-pctcp-tails, model-dpos-tails, model-pctcp-genome, model-dpos-genome, model-reorder, rounds, negrl, bonusmaxrl, waypointrl, walk)`)
}
