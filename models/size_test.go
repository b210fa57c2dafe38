package models

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The abstractions of raft.tla, measured on the states within a few steps
// of the start: each view is at most as fine as the state, and OrderView,
// a function of the paper's View (values and term gaps forgotten), is
// coarser. ShapeView (symmetric, bounded logs, but every server's term
// rank and vote) is not comparable with them: it is finer near the start,
// where logs are empty, and saturates where they grow.
func TestRaftViewSizes(t *testing.T) {
	res, err := Size(Spec{Model: "raft.tla"}, []string{"View", "OrderView", "ShapeView"}, SizeOptions{MaxDepth: 7, Workers: 2})
	require.NoError(t, err)
	require.False(t, res.Complete)
	require.Equal(t, 7, res.Depth)
	require.Len(t, res.Views, 3)
	paper, order, shape := res.Views[0].Abstract, res.Views[1].Abstract, res.Views[2].Abstract
	require.LessOrEqual(t, paper, res.States)
	require.LessOrEqual(t, shape, res.States)
	require.Less(t, order, paper)
	require.Greater(t, shape, int64(10))

	_, err = Size(Spec{Model: "raft.tla"}, []string{"NoSuchView"}, SizeOptions{MaxDepth: 2})
	require.ErrorContains(t, err, "NoSuchView")
}
