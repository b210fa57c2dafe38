package raftkv

import (
	"strconv"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/internal/testutil"
)

// TestStandaloneCluster runs three replicas that talk to each other over
// loopback with a real clock: they elect a leader, serve writes and
// linearizable reads on every replica, and keep their data across crashes
// of a follower, of the leader and of all of them.
func TestStandaloneCluster(t *testing.T) {
	var logs testutil.SyncBuffer
	logger := hclog.New(&hclog.LoggerOptions{Level: hclog.Debug, Output: &logs})
	c := newCluster(t, 3, Config{Tick: 10 * time.Millisecond, SnapshotEvery: 5, Logger: logger})
	for i := 1; i <= 3; i++ {
		c.start(i)
	}
	lead := c.leader()
	put(t, c.client[1], "x", "1")
	for i := 1; i <= 3; i++ {
		require.Equal(t, GetResponse{"1", true}, get(t, c.client[i], "x"), "replica %d", i)
	}
	require.Equal(t, GetResponse{"", false}, get(t, c.client[2], "nothing"))

	// A follower crashes and misses enough writes to need a snapshot.
	follower := lead%3 + 1
	applied := c.srvs[follower].Status().Applied
	c.stop(follower)
	for k := range 12 {
		put(t, c.client[lead], "y"+strconv.Itoa(k), strconv.Itoa(k))
	}
	put(t, c.client[lead], "x", "2")
	s := c.start(follower)
	require.GreaterOrEqual(t, s.Status().Applied, applied, "the follower re-applied its log from disk")
	require.Equal(t, GetResponse{"2", true}, get(t, c.client[follower], "x"))
	require.Equal(t, GetResponse{"11", true}, get(t, c.client[follower], "y11"))
	require.Contains(t, logs.String(), "type=install", "the leader had compacted the entries the follower missed")

	// The leader crashes; the others elect a new one and go on.
	c.stop(lead)
	newLead := c.leader()
	require.NotEqual(t, lead, newLead)
	other := 6 - lead - newLead
	put(t, c.client[other], "x", "3")
	require.Equal(t, GetResponse{"3", true}, get(t, c.client[newLead], "x"))
	c.start(lead)
	require.Equal(t, GetResponse{"3", true}, get(t, c.client[lead], "x"))

	// Everything lives on disk: a restart of the whole cluster keeps it.
	for i := 1; i <= 3; i++ {
		c.stop(i)
	}
	for i := 1; i <= 3; i++ {
		c.start(i)
	}
	c.leader()
	for i := 1; i <= 3; i++ {
		require.Equal(t, GetResponse{"3", true}, get(t, c.client[i], "x"), "replica %d", i)
		require.Equal(t, GetResponse{"5", true}, get(t, c.client[i], "y5"), "replica %d", i)
	}
}
