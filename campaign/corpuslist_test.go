package campaign

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/corpus"
	"github.com/modelfuzz/modelfuzz/record"
)

func TestIDRanges(t *testing.T) {
	require.Equal(t, "3, 7-12, 20", idRanges([]uint64{3, 7, 8, 9, 10, 11, 12, 20}))
	require.Equal(t, "", idRanges(nil))
}

// The stats table has a column per measure that any snapshot has, and
// zeros where a snapshot lacks one.
func TestStatsTableColumns(t *testing.T) {
	recs := []*record.StatsRecord{
		{Seq: 1, Time: "t1", Iterations: 10, Coverage: map[string]int{"traces": 4}},
		{Seq: 2, Time: "t2", Iterations: 20, Coverage: map[string]int{"traces": 6, "model": 3}, Queue: 5},
	}
	b, err := StatsTable(recs, false)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	require.Equal(t, []string{
		"seq,time,run_seconds,session,iterations,execs_per_sec,corpus,bugs,failures,model,traces,rss_bytes,heap_bytes,queue,pool,dropped",
		"1,t1,0,0,10,0,0,0,0,0,4,0,0,0,0,0",
		"2,t2,0,0,20,0,0,0,0,3,6,0,0,5,0,0",
	}, lines)
	b, err = StatsTable(recs, true)
	require.NoError(t, err)
	require.Len(t, strings.Split(strings.TrimSpace(string(b)), "\n"), 2)
}

func TestLookupRecord(t *testing.T) {
	st, err := corpus.Open(t.TempDir(), corpus.Options{})
	require.NoError(t, err)
	defer st.Close()
	_, err = LookupRecord(st, "x")
	require.EqualError(t, err, `"x" is neither an input id (12) nor a bug id (B1)`)
	_, err = LookupRecord(st, "12")
	require.Error(t, err)
	_, err = LookupRecord(st, "B1")
	require.Error(t, err)
}
