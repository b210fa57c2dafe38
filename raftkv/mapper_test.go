package raftkv

import (
	"net/http"
	"slices"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/mapper"
	"github.com/modelfuzz/modelfuzz/models"
	"github.com/modelfuzz/modelfuzz/schedule"
	"github.com/modelfuzz/modelfuzz/tlc/sim"
)

func toArgs(t *testing.T, params map[string]any, order []string) []schedule.Arg {
	var keys []string
	var rest []string
	for k := range params {
		if !slices.Contains(order, k) {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range order {
		if _, ok := params[k]; ok {
			keys = append(keys, k)
		}
	}
	var out []schedule.Arg
	for _, k := range append(keys, rest...) {
		switch v := params[k].(type) {
		case float64:
			out = append(out, schedule.I(k, int64(v)))
		case string:
			out = append(out, schedule.S(k, v))
		default:
			t.Fatalf("param %s=%v is neither a number nor a string", k, v)
		}
	}
	return out
}

func process(t *testing.T, id string) int {
	n, err := strconv.Atoi(id)
	require.NoError(t, err)
	return n - 1
}

// trace turns what the fake fuzzer saw into a trace of the etcdraft
// adapter's shape, as adapters/process records it.
func (f *fakeFuzzer) trace(t *testing.T) schedule.Trace {
	f.mu.Lock()
	defer f.mu.Unlock()
	msgNo := map[string]int{}
	var tr schedule.Trace
	for _, it := range f.log {
		switch {
		case it.crash != "":
			tr = append(tr, schedule.Event{Step: it.step, Kind: schedule.EvCrash, Node: process(t, it.crash), Peer: -1, Type: schedule.EvCrash})
		case it.env != nil:
			e := it.env
			no, ok := msgNo[e.ID]
			if !ok {
				no = len(msgNo) + 1
				msgNo[e.ID] = no
			}
			ev := schedule.Event{Step: it.step, Kind: schedule.EvSend, Node: process(t, e.From), Peer: process(t, e.To), Msg: no,
				Type: e.Type, Args: toArgs(t, e.Params, schedule.RaftMessageArgs())}
			if it.recv {
				ev.Kind, ev.Node, ev.Peer = schedule.EvRecv, ev.Peer, ev.Node
			}
			tr = append(tr, ev)
		case it.ev != nil:
			kind, typ := it.ev.Type, it.ev.Type
			params := map[string]any{}
			for k, v := range it.ev.Params {
				params[k] = v
			}
			switch kind {
			case schedule.EvRole:
				typ = params[schedule.ArgRole].(string)
				delete(params, schedule.ArgRole)
			case schedule.TypeProposal:
				kind = schedule.EvDropped
			}
			// The order of params in trace args, as the etcdraft adapter
			// writes them.
			order, _ := schedule.RaftEventArgs(it.ev.Type)
			tr = append(tr, schedule.Event{Step: it.step, Kind: kind, Node: process(t, it.ev.Replica), Peer: -1, Type: typ,
				Args: toArgs(t, params, order)})
		}
	}
	return tr
}

// settle waits until the fuzzer saw what ok looks for, then until the
// replica's handler let go of the node: the request's synchronous part is
// over before the next step.
func (f *fakeFuzzer) settle(s *Server, ok func() bool) {
	f.t.Helper()
	require.Eventually(f.t, ok, 5*time.Second, time.Millisecond)
	s.Status()
}

func (f *fakeFuzzer) sentType(from, typ string) func() bool {
	n := 0
	for _, e := range f.sentMessages() {
		if e.From == from && e.Type == typ {
			n++
		}
	}
	return func() bool {
		k := 0
		for _, e := range f.sentMessages() {
			if e.From == from && e.Type == typ {
				k++
			}
		}
		return k > n
	}
}

// TestTraceReplaysOnModel: a raftkv execution under the fuzzer (elections,
// writes at the leader and at a follower, a read at a follower, a crash and
// restart, a second leader) maps with mapper.Etcdraft onto models/raft.tla
// and replays there without divergence.
func TestTraceReplaysOnModel(t *testing.T) {
	f := newFakeFuzzer(t)
	c := newFuzzedClusterConfig(t, f, 3, Config{SnapshotEvery: 3})
	putAt := func(i int, key, value, sends string) {
		f.nextStep()
		sent := f.sentType(strconv.Itoa(i), sends)
		ch := async(t, http.MethodPut, "http://"+c.client[i]+"/kv/"+key, value)
		f.settle(c.srvs[i], sent)
		a := f.deliverUntil(ch, nil)
		require.Equal(t, http.StatusOK, a.code, a.body)
		f.deliverAll(nil)
	}

	c.elect(f, 1)
	putAt(1, "k0", "2", "MsgApp")
	putAt(2, "k1", "4", "MsgProp")

	f.nextStep()
	sent := f.sentType("3", "MsgReadIndex")
	get := async(t, http.MethodGet, "http://"+c.client[3]+"/kv/k0", "")
	f.settle(c.srvs[3], sent)
	a := f.deliverUntil(get, nil)
	require.JSONEq(t, `{"value":"2","found":true}`, a.body)
	f.deliverAll(nil)

	// Replica 2 misses entries the leader compacts meanwhile: it gets a
	// snapshot.
	c.stop(2)
	f.crashed(2)
	for _, v := range []string{"6", "10", "14"} {
		putAt(1, "k0", v, "MsgApp")
	}
	f.nextStep()
	c.start(2)
	putAt(1, "k1", "12", "MsgApp")
	require.Contains(t, f.eventsOf(2, "install"), `install {"index":7,"term":1}`)

	f.timeout(c.peer[3])
	f.deliverAll(nil)
	require.Equal(t, "leader", c.srvs[3].Status().Role)
	putAt(3, "k1", "8", "MsgApp")

	tr := f.trace(t)
	mp := mapper.NewEtcdraft(mapper.EtcdraftParams{Nodes: 3})
	acts, err := mp.Map(nil, &schedule.Execution{Trace: tr})
	require.NoError(t, err)
	var names []string
	for _, a := range acts {
		names = append(names, a.Name)
		if a.Name == "ClientRequest" {
			require.Contains(t, []string{"v=2", "v=4", "v=6", "v=10", "v=14", "v=12", "v=8"}, a.Params["value"])
		}
	}
	for _, want := range []string{"Timeout", "HandleVoteRequest", "HandleVoteResponse", "BecomeLeader", "ClientRequest",
		"HandleAppendRequest", "HandleAppendResponse", "AdvanceCommit", "Crash", "Restart", "Snapshot", "HandleSnapshot"} {
		require.Contains(t, names, want)
	}

	m, err := models.Load(models.Spec{Model: "raft.tla", Consts: mp.Consts()})
	require.NoError(t, err)
	s, err := sim.New(m, 0)
	require.NoError(t, err)
	no := false
	req := &sim.Request{Actions: make([]sim.Action, len(acts)), States: &no}
	for k, a := range acts {
		req.Actions[k] = sim.Action{Name: a.Name, Params: a.Params}
	}
	res, err := s.Simulate(req)
	require.NoError(t, err)
	if d := res.Divergence; d != nil {
		for _, e := range tr {
			t.Logf("trace step %d n%d %s %s peer %d %v", e.Step, e.Node+1, e.Kind, e.Type, e.Peer+1, e.Args)
		}
		for k, a := range acts[:d.Index+1] {
			t.Logf("act %d step %d %s %v", k, a.Step, a.Name, a.Params)
		}
		t.Fatalf("the trace diverges from the model at action %d %s: %s", d.Index, d.Action, d.Reason)
	}
	require.Empty(t, res.Violations)
	t.Logf("%d model actions; unmapped: %v", len(acts), mp.Unmapped())
}
