package raftkv

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	pb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

// TestInterception runs three replicas under a fake fuzzer that delivers
// their messages by hand: replica 1 times out and wins the election, a PUT
// is answered once its entry is replicated, a follower serves a
// linearizable GET, and a restarted follower reports its durable state and
// applies its log again.
func TestInterception(t *testing.T) {
	f := newFakeFuzzer(t)
	c := newFuzzedCluster(t, f, 3, "")
	f.mu.Lock()
	require.Len(t, f.regs, 3)
	require.Equal(t, Registration{ID: "2", Addr: c.peer[2], Ready: true, Info: f.regs[1].Info}, f.regs[1])
	require.Contains(t, f.regs[1].Info, "pid")
	f.mu.Unlock()

	// Nothing happens without the fuzzer: no clock ticks.
	time.Sleep(50 * time.Millisecond)
	require.Empty(t, f.sentMessages())

	f.timeout(c.peer[1])
	require.Equal(t, []string{
		`timeout {"term":0}`,
		`role {"role":"candidate","term":1}`,
	}, f.eventsOf(1))
	sent := f.sentMessages()
	require.Len(t, sent, 2)
	vote := sent[0]
	require.Equal(t, "1", vote.From)
	require.Equal(t, "2", vote.To)
	require.Equal(t, "MsgVote", vote.Type)
	require.Equal(t, "1-1", vote.ID)
	require.Equal(t, `{"commit":0,"entries":"","index":1,"logterm":1,"reject":0,"rejecthint":0,"term":1,"vote":0}`, showParams(vote.Params))
	m := &pb.Message{}
	require.NoError(t, proto.Unmarshal(vote.Data, m))
	require.Equal(t, pb.MsgVote, m.GetType())
	require.Equal(t, "1-2", sent[1].ID)

	// The votes and the leader's first appends.
	f.deliverAll(nil)
	require.Equal(t, "leader", c.srvs[1].Status().Role)
	for _, e := range f.sentMessages() {
		if e.Type == "MsgVoteResp" {
			require.Equal(t, `{"commit":0,"entries":"","index":0,"logterm":0,"reject":0,"rejecthint":0,"term":1}`, showParams(e.Params))
		}
	}

	put := async(t, http.MethodPut, "http://"+c.client[1]+"/kv/k0", "7")
	a := f.deliverUntil(put, nil)
	require.NoError(t, a.err)
	require.Equal(t, http.StatusOK, a.code, a.body)
	require.JSONEq(t, `{"ok":true}`, a.body)
	f.deliverAll(nil) // the followers learn the commit

	require.Equal(t, []string{
		`timeout {"term":0}`,
		`role {"role":"candidate","term":1}`,
		`role {"role":"leader","term":1}`,
		`commit {"index":2}`,
		`apply {"data":"","index":2,"term":1}`,
		`request {"value":7}`,
		`commit {"index":3}`,
		`apply {"data":"v=7","index":3,"key":"k0","term":1}`,
	}, f.eventsOf(1))
	require.Equal(t, []string{ // a follower in term 0 stays one in term 1: no role event
		`commit {"index":2}`,
		`apply {"data":"","index":2,"term":1}`,
		`commit {"index":3}`,
		`apply {"data":"v=7","index":3,"key":"k0","term":1}`,
	}, f.eventsOf(2))
	var apps int
	for _, e := range f.sentMessages() {
		if e.Type == "MsgApp" && e.Params["entries"] == "1:v=7" {
			apps++
			require.Equal(t, `{"commit":2,"entries":"1:v=7","index":2,"logterm":1,"reject":0,"rejecthint":0,"term":1}`, showParams(e.Params))
		}
	}
	require.Equal(t, 2, apps, "one MsgApp with the entry per follower")

	// A linearizable read at a follower goes through the leader.
	got := async(t, http.MethodGet, "http://"+c.client[3]+"/kv/k0", "")
	a = f.deliverUntil(got, nil)
	require.Equal(t, http.StatusOK, a.code, a.body)
	require.JSONEq(t, `{"value":"7","found":true}`, a.body)
	types := map[string]bool{}
	for _, e := range f.sentMessages() {
		types[e.Type] = true
	}
	require.True(t, types["MsgReadIndex"] && types["MsgReadIndexResp"], "read index messages: %v", types)

	// A restarted follower reports its durable state and applies its
	// committed entries again; its message ids stay unique.
	c.stop(2)
	c.start(2)
	evs := f.eventsOf(2)
	require.Equal(t, []string{
		`restart {"commit":3,"lastindex":3,"snapindex":1,"term":1,"vote":0}`,
		`apply {"data":"","index":2,"term":1}`,
		`apply {"data":"v=7","index":3,"key":"k0","term":1}`,
	}, evs[len(evs)-3:])
	f.mu.Lock()
	require.Len(t, f.regs, 4)
	f.mu.Unlock()
	// Without ticks there are no heartbeats: the restarted replica knows no
	// leader, so its PUT waits until the leader's next append tells it.
	put = async(t, http.MethodPut, "http://"+c.client[2]+"/kv/w", "x")
	require.Eventually(t, func() bool { return len(f.eventsOf(2, "proposal")) == 1 }, 5*time.Second, time.Millisecond)
	a = f.deliverUntil(async(t, http.MethodPut, "http://"+c.client[1]+"/kv/v", "8"), nil)
	require.Equal(t, http.StatusOK, a.code, a.body)
	a = f.deliverUntil(put, nil)
	require.Equal(t, http.StatusOK, a.code, a.body)
	ids := map[string]bool{}
	for _, e := range f.sentMessages() {
		require.False(t, ids[e.ID], "message id %s used twice", e.ID)
		ids[e.ID] = true
	}
	require.True(t, ids["2-1000001"], "the second start of replica 2 numbers its messages from 1000001")
	require.Equal(t, []string{`request {"value":"x"}`, `request {"retry":1,"value":"x"}`}, f.eventsOf(2, "request"))
}

// TestInterceptionDroppedProposal: a PUT at a replica that knows no leader
// is dropped, waits, and is proposed again once a leader is known.
func TestInterceptionDroppedProposal(t *testing.T) {
	f := newFakeFuzzer(t)
	c := newFuzzedCluster(t, f, 3, "")
	put := async(t, http.MethodPut, "http://"+c.client[2]+"/kv/v", "3")
	require.Eventually(t, func() bool { return len(f.eventsOf(2, "proposal")) == 1 }, 5*time.Second, time.Millisecond)
	require.Equal(t, []string{`request {"value":3}`, `proposal {"value":3}`}, f.eventsOf(2))
	c.elect(f, 1)
	a := f.deliverUntil(put, nil)
	require.Equal(t, http.StatusOK, a.code, a.body)
	require.Contains(t, f.eventsOf(2, "request"), `request {"retry":1,"value":3}`)
	require.Contains(t, f.eventsOf(1, "apply"), `apply {"data":"v=3","index":3,"key":"v","term":1}`)
}

// TestStaleRead builds a follower that has not yet heard of an
// acknowledged write: with stale-read its GET returns the old value; the
// correct replica answers only after the read index is applied.
func TestStaleRead(t *testing.T) {
	for _, inject := range []string{"", InjectStaleRead} {
		t.Run("inject="+inject, func(t *testing.T) {
			f := newFakeFuzzer(t)
			c := newFuzzedCluster(t, f, 3, inject)
			c.elect(f, 1)
			a := f.deliverUntil(async(t, http.MethodPut, "http://"+c.client[1]+"/kv/k", "1"), nil)
			require.Equal(t, http.StatusOK, a.code, a.body)
			f.deliverAll(nil)

			// k=2 is acknowledged with replica 2 only; replica 3 hears nothing.
			a = f.deliverUntil(async(t, http.MethodPut, "http://"+c.client[1]+"/kv/k", "2"), between(1, 2))
			require.Equal(t, http.StatusOK, a.code, a.body)

			got := async(t, http.MethodGet, "http://"+c.client[3]+"/kv/k", "")
			if inject == InjectStaleRead {
				a = <-got
				require.Equal(t, http.StatusOK, a.code, a.body)
				require.JSONEq(t, `{"value":"1","found":true}`, a.body, "a stale read: k=2 was acknowledged before the GET")
				return
			}
			f.deliverAll(between(1, 2))
			select {
			case a := <-got:
				t.Fatalf("GET answered before replica 3 could know k=2: %+v", a)
			case <-time.After(100 * time.Millisecond):
			}
			a = f.deliverUntil(got, nil)
			require.Equal(t, http.StatusOK, a.code, a.body)
			require.JSONEq(t, `{"value":"2","found":true}`, a.body)
		})
	}
}

// TestSendBeforePersist: a follower acknowledges an entry; with
// send-before-persist the entry is not yet on its disk, so a crash loses
// what the leader counts on.
func TestSendBeforePersist(t *testing.T) {
	for _, inject := range []string{"", InjectSendBeforePersist} {
		t.Run("inject="+inject, func(t *testing.T) {
			f := newFakeFuzzer(t)
			c := newFuzzedCluster(t, f, 3, inject)
			c.elect(f, 1)
			f.deliverAll(nil)
			put := async(t, http.MethodPut, "http://"+c.client[1]+"/kv/k", "5")
			require.Eventually(t, func() bool {
				for _, e := range f.sentMessages() {
					if e.Type == "MsgApp" && e.To == "2" && e.Params["entries"] == "1:v=5" {
						return true
					}
				}
				return false
			}, 5*time.Second, time.Millisecond)
			f.deliverAll(func(e Envelope) bool { return e.To == "2" })
			var acked bool
			for _, e := range f.sentMessages() {
				if e.Type == "MsgAppResp" && e.From == "2" && e.Params["index"] == float64(3) && e.Params["reject"] == float64(0) {
					acked = true
				}
			}
			require.True(t, acked, "replica 2 acknowledged entry 3")

			c.stop(2)
			d, st, err := OpenDisk(c.dirs[2], bootstrapSnapshot(3))
			require.NoError(t, err)
			require.NoError(t, d.Close())
			want := []string{"2/1/", "3/1/v=5"}
			if inject == InjectSendBeforePersist {
				want = want[:1]
			}
			var got []string
			for _, e := range st.Entries {
				got = append(got, fmt.Sprintf("%d/%d/%s", e.GetIndex(), e.GetTerm(), renderData(e.GetData())))
			}
			require.Equal(t, want, got)
			a := f.deliverUntil(put, func(e Envelope) bool { return e.To != "2" && e.From != "2" })
			require.Equal(t, http.StatusOK, a.code, a.body)
		})
	}
}

// TestMessageEndpointRejects: a message that is not for the replica or not
// a message is answered 400.
func TestMessageEndpointRejects(t *testing.T) {
	f := newFakeFuzzer(t)
	c := newFuzzedCluster(t, f, 3, "")
	data, err := proto.Marshal(&pb.Message{Type: pb.MsgHeartbeat.Enum(), To: new(uint64(2)), From: new(uint64(1))})
	require.NoError(t, err)
	for _, body := range []string{
		`{`,
		`{"from":"1","to":"2","type":"MsgHeartbeat","id":"1-1","data":"` + base64.StdEncoding.EncodeToString(data) + `"}`,
		`{"from":"1","to":"1","type":"MsgHeartbeat","id":"1-1","data":"!!"}`,
	} {
		code, resp, err := httpDo(t.Context(), http.MethodPost, "http://"+c.peer[1]+"/message", body)
		require.NoError(t, err)
		require.Equal(t, http.StatusBadRequest, code, body)
		require.Contains(t, string(resp), `"error"`)
	}
	code, resp, err := httpDo(t.Context(), http.MethodPost, "http://"+c.peer[1]+"/directive", `{"action":"STOP"}`)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, code)
	require.JSONEq(t, `{"ok":true}`, string(resp))
}

// TestPanicStopsReplica: a panic of the library (here at a heartbeat that
// commits beyond the log) stops the replica and is reported on Fatal,
// instead of being swallowed by the HTTP server.
func TestPanicStopsReplica(t *testing.T) {
	f := newFakeFuzzer(t)
	c := newFuzzedCluster(t, f, 3, "")
	data, err := proto.Marshal(&pb.Message{Type: pb.MsgHeartbeat.Enum(), To: new(uint64(2)), From: new(uint64(1)),
		Term: new(uint64(1)), Commit: new(uint64(50))})
	require.NoError(t, err)
	body := `{"from":"1","to":"2","type":"MsgHeartbeat","id":"1-1","data":"` + base64.StdEncoding.EncodeToString(data) + `"}`
	code, _, err := httpDo(t.Context(), http.MethodPost, "http://"+c.peer[2]+"/message", body)
	require.NoError(t, err)
	require.Equal(t, http.StatusServiceUnavailable, code)
	select {
	case err := <-c.srvs[2].Fatal():
		require.ErrorContains(t, err, "panic: tocommit(50) is out of range")
	case <-time.After(5 * time.Second):
		t.Fatal("no fatal error")
	}
}
