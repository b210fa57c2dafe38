package hub

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/fuzzer"
)

// The visits and choices a worker shares reach the others, added up over
// its messages (one larger than a message holds too), and not itself.
func TestWorkersShareVisits(t *testing.T) {
	h := startHub(t, t.TempDir(), "127.0.0.1:0")
	defer h.Close()
	a, err := join(t, h.URL(), "a", "/c/a", `{}`)
	require.NoError(t, err)
	defer a.Close(time.Second)
	b, err := join(t, h.URL(), "b", "/c/b", `{}`)
	require.NoError(t, err)
	defer b.Close(time.Second)

	a.ShareVisits(fuzzer.Visits{Items: map[uint64]uint32{7: 2, 9: 1}, Chosen: map[uint64]uint32{7: 1}})
	a.ShareVisits(fuzzer.Visits{Items: map[uint64]uint32{7: 3, ^uint64(0): ^uint32(0)}})
	a.ShareVisits(fuzzer.Visits{Chosen: map[uint64]uint32{7: 2, 11: 1}})
	many := map[uint64]uint32{}
	for x := uint64(1000); x < 1000+maxVisitsEntries+5; x++ {
		many[x] = 1
	}
	a.ShareVisits(fuzzer.Visits{Items: many})
	require.NoError(t, a.nc.Flush())
	got, chosen := map[uint64]uint32{}, map[uint64]uint32{}
	require.Eventually(t, func() bool {
		in := b.Incoming().Visits
		for x, n := range in.Items {
			got[x] += n
		}
		for x, n := range in.Chosen {
			chosen[x] += n
		}
		return len(got) == 3+len(many) && len(chosen) == 2
	}, time.Minute, 10*time.Millisecond)
	require.Equal(t, map[uint64]uint32{7: 3, 11: 1}, chosen)
	require.Equal(t, uint32(5), got[7])
	require.Equal(t, uint32(1), got[9])
	require.Equal(t, ^uint32(0), got[^uint64(0)])
	require.Equal(t, uint32(1), got[1000+maxVisitsEntries+4])
	require.Empty(t, a.Incoming().Visits.Items, "a worker's own visits come back to it")
}
