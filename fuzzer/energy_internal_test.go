package fuzzer

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestItemStepsFindsTheFirstStep(t *testing.T) {
	obs := Observation{Items: []uint64{1, 2, 1, 3}, Steps: []int{-1, 4, 6, 8}}
	require.Equal(t, []int{8, -1, 4}, itemSteps(obs, []uint64{3, 1, 2}))
	require.Equal(t, []int{-1}, itemSteps(obs, []uint64{9}))
	require.Nil(t, itemSteps(Observation{Items: []uint64{1}}, []uint64{1}))
}
