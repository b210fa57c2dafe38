package mapper

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A family's messages: copies join it in the same inbox, every end counts
// down once, and a crash's inbox lists its messages in sending order.
func TestFlightFollowsFamilies(t *testing.T) {
	f := newFlight()
	f.add(5, 5, 1)
	f.add(6, 5, 2)
	fam, ok := f.copy(5, 9)
	require.True(t, ok)
	require.Equal(t, 5, fam)
	require.Equal(t, 3, f.inFlight(5))
	require.Equal(t, []int{5, 9}, f.held(1))
	_, ok = f.copy(7, 10)
	require.False(t, ok, "not a message it follows")
	fam, ok = f.end(6)
	require.True(t, ok)
	require.Equal(t, 5, fam)
	_, ok = f.end(6)
	require.False(t, ok, "a message ends once")
	f.end(5)
	f.end(9)
	require.Zero(t, f.inFlight(5))
	require.Empty(t, f.count)
	require.Empty(t, f.held(1))
}
