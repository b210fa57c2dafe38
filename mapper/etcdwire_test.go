package mapper_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/mapper"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// wireTraces are traces of real etcd clusters under adapters/etcd (3.4.23
// and 3.6.16, random 30-step inputs, whole executions: the start, the
// steps and the final checks). etcd-rejected-appends.json has a follower
// that rejects appends of entries it never got, several answers to one
// index in a row: it diverged (HandleAppendRequest ~success) while a
// rejected append's entries counted as the follower's and a rejection
// stood for a success of the appends before it.
// etcd-3.4.23-refused-append-leader-crashed.json has a follower that gets
// an empty append beyond its log and the leader crashes before it is
// answered; the follower later answers an older append: that success
// stood for the refused one (HandleAppendRequest ~success).
func wireTraces(t *testing.T) map[string]schedule.Trace {
	t.Helper()
	files, err := filepath.Glob("testdata/etcdwire/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	out := map[string]schedule.Trace{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		tr, err := schedule.DecodeTrace(b)
		require.NoError(t, err)
		out[filepath.Base(f)] = tr
	}
	return out
}

// Every recorded execution of the correct etcd maps onto raft.tla without
// a divergence and visits states beyond the initial one.
func TestEtcdWireTracesFollowTheModel(t *testing.T) {
	m := mapper.NewEtcdWire(mapper.EtcdWireParams{Nodes: 3, PreVote: true})
	s := newSim(t, "raft.tla", m.Consts())
	for name, tr := range wireTraces(t) {
		acts, err := m.Map(nil, &schedule.Execution{Trace: tr})
		require.NoError(t, err, name)
		names := map[string]bool{}
		for _, a := range acts {
			names[a.Name] = true
			require.GreaterOrEqual(t, a.Event, 0, name)
			require.Less(t, a.Event, len(tr), name)
		}
		for _, want := range []string{"Timeout", "BecomeLeader", "HandleVoteRequest", "HandleAppendRequest", "HandleAppendResponse", "ClientRequest", "AdvanceCommit"} {
			require.True(t, names[want], "%s: no %s mapped", name, want)
		}
		res := replay(t, s, acts)
		require.Nil(t, res.Divergence, "%s: %+v", name, res.Divergence)
		require.Empty(t, res.Violations, name)
	}
	u := m.Unmapped()
	require.NotZero(t, u["client"])
	require.NotZero(t, u["send"])
}

// A fault on the wire that the model must see: an append sent by a member
// that was never elected (a real trace's first append, its sender
// rewritten) diverges.
func TestEtcdWireCorruptedTraceDiverges(t *testing.T) {
	m := mapper.NewEtcdWire(mapper.EtcdWireParams{Nodes: 3, PreVote: true})
	s := newSim(t, "raft.tla", m.Consts())
	for name, tr := range wireTraces(t) {
		// The leader's first append of the first term: rewrite it as sent
		// by another member, one that never won an election.
		tr = tr.Clone()
		k := -1
		for i, e := range tr {
			if e.Kind == schedule.EvSend && e.Type == schedule.MsgApp {
				k = i
				break
			}
		}
		require.GreaterOrEqual(t, k, 0, name)
		leader := tr[k].Node
		impostor := (leader + 1) % 3
		if tr[k].Peer == impostor {
			impostor = (leader + 2) % 3
		}
		msg := tr[k].Msg
		for i := range tr {
			if tr[i].Msg == msg {
				if tr[i].Kind == schedule.EvSend {
					tr[i].Node = impostor
				} else {
					tr[i].Peer = impostor
				}
			}
		}
		acts, err := m.Map(nil, &schedule.Execution{Trace: tr})
		require.NoError(t, err, name)
		res := replay(t, s, acts)
		require.NotNil(t, res.Divergence, "%s: an append from n%d, which was never elected, was accepted", name, impostor+1)
		require.True(t, strings.HasPrefix(res.Divergence.Action, "BecomeLeader") || strings.HasPrefix(res.Divergence.Action, "Handle"), "%s: %+v", name, res.Divergence)
	}
}

// etcd's server sends only the last MsgAppResp of a Ready: the appends it
// stands for get an inferred answer, and the answer goes right after the
// append it names.
func TestEtcdWirePairsCoalescedAnswers(t *testing.T) {
	app := func(msg int, index int64, entries string) schedule.Event {
		return schedule.Event{Kind: schedule.EvRecv, Node: 1, Peer: 0, Msg: msg, Type: schedule.MsgApp,
			Args: []schedule.Arg{schedule.I("term", 2), schedule.I("logterm", 2), schedule.I("index", index), schedule.I("commit", 3),
				schedule.I("reject", 0), schedule.I("rejecthint", 0), schedule.S("entries", entries)}}
	}
	resp := schedule.Event{Kind: schedule.EvSend, Node: 1, Peer: 0, Msg: 9, Type: schedule.MsgAppResp,
		Args: []schedule.Arg{schedule.I("term", 2), schedule.I("logterm", 0), schedule.I("index", 5), schedule.I("commit", 0),
			schedule.I("reject", 0), schedule.I("rejecthint", 0), schedule.S("entries", "")}}
	// The first append follows the bootstrap's last entry (3), the second
	// the first's entry: the receiver's log holds what each follows.
	tr := schedule.Trace{app(1, 3, "2:v=1"), app(2, 4, "2:v=2"), resp}
	m := mapper.NewEtcdWire(mapper.EtcdWireParams{Nodes: 3})
	out, orig, _ := m.Normalize(tr)
	var kinds []string
	for _, e := range out {
		kinds = append(kinds, e.Kind+" "+e.Type)
	}
	require.Equal(t, []string{"recv MsgApp", "send MsgAppResp", "recv MsgApp", "send MsgAppResp"}, kinds)
	require.Equal(t, []int{0, 0, 1, 2}, orig)
	idx := func(e schedule.Event) int64 {
		for _, a := range e.Args {
			if a.Key == "index" {
				return a.Int
			}
		}
		return -1
	}
	// Each answer names the append it answers (indexes are etcd's).
	require.Equal(t, int64(4), idx(out[1]))
	require.Equal(t, int64(5), idx(out[3]))
}

// A send the proxy read after its sender was killed was on its way before
// the kill: it goes before the crash (a pre-vote sent by a crashed member
// would be a campaign of a server that is down).
func TestEtcdWireSendsOfACrashedMemberComeBeforeTheCrash(t *testing.T) {
	pv := func(msg, to int) schedule.Event {
		return schedule.Event{Step: 3, Kind: schedule.EvSend, Node: 2, Peer: to, Msg: msg, Type: schedule.MsgPreVote,
			Args: []schedule.Arg{schedule.I("term", 2), schedule.I("logterm", 1), schedule.I("index", 3), schedule.I("commit", 3),
				schedule.I("reject", 0), schedule.I("rejecthint", 0), schedule.S("entries", ""), schedule.I("vote", 2)}}
	}
	tr := schedule.Trace{
		{Step: 2, Kind: schedule.EvCrash, Node: 2, Peer: -1, Type: "crash"},
		pv(1, 0), pv(2, 1),
		{Step: 4, Kind: schedule.EvRestart, Node: 2, Peer: -1, Type: "restart"},
		pv(3, 0),
	}
	m := mapper.NewEtcdWire(mapper.EtcdWireParams{Nodes: 3, PreVote: true})
	out, orig, _ := m.Normalize(tr)
	var kinds []string
	for _, e := range out {
		kinds = append(kinds, e.Kind)
	}
	crash := slices.Index(kinds, schedule.EvCrash)
	require.Positive(t, crash, "%v", kinds)
	for i := range crash {
		require.Contains(t, []int{1, 2}, orig[i], "%v", kinds)
	}
	require.Equal(t, 4, orig[len(orig)-1], "the send after the restart stays after it")
	for i := 1; i < len(out); i++ {
		require.LessOrEqual(t, out[i-1].Step, out[i].Step)
	}
	s := newSim(t, "raft.tla", m.Consts())
	acts, err := m.Map(nil, &schedule.Execution{Trace: tr})
	require.NoError(t, err)
	require.Nil(t, replay(t, s, acts).Divergence)
}

// A leader's append read after its own campaign for a later term was sent
// before it (a leader that campaigns no longer leads): it goes before the
// campaign's first request, pre-vote or vote.
func TestEtcdWireLeaderSendsComeBeforeItsCampaign(t *testing.T) {
	msg := func(id int, typ string, to int, term, index, logterm int64, entries string) schedule.Event {
		return schedule.Event{Step: 1, Kind: schedule.EvSend, Node: 0, Peer: to, Msg: id, Type: typ,
			Args: []schedule.Arg{schedule.I("term", term), schedule.I("logterm", logterm), schedule.I("index", index), schedule.I("commit", 3),
				schedule.I("reject", 0), schedule.I("rejecthint", 0), schedule.S("entries", entries)}}
	}
	for _, campaign := range []string{schedule.MsgPreVote, schedule.MsgVote} {
		tr := schedule.Trace{
			msg(1, schedule.MsgApp, 1, 2, 3, 1, "2:"),
			msg(2, campaign, 1, 3, 4, 2, ""),
			msg(3, schedule.MsgApp, 2, 2, 4, 2, "2:v=1"),
		}
		m := mapper.NewEtcdWire(mapper.EtcdWireParams{Nodes: 3, PreVote: campaign == schedule.MsgPreVote})
		_, orig, _ := m.Normalize(tr)
		require.Less(t, slices.Index(orig, 2), slices.Index(orig, 1), "%s: %v", campaign, orig)
	}
}

// A leader's append that follows an entry no message on the wire showed
// (etcd dropped the leader's messages while its links were down) cannot
// be mapped: the execution is mapped up to there and the rest counted.
func TestEtcdWireStopsAtAnEntryTheWireDidNotShow(t *testing.T) {
	app := func(id int, to int, index int64, entries string) schedule.Event {
		return schedule.Event{Step: 1, Kind: schedule.EvSend, Node: 0, Peer: to, Msg: id, Type: schedule.MsgApp,
			Args: []schedule.Arg{schedule.I("term", 2), schedule.I("logterm", 2), schedule.I("index", index), schedule.I("commit", 3),
				schedule.I("reject", 0), schedule.I("rejecthint", 0), schedule.S("entries", entries)}}
	}
	first := app(1, 1, 3, "2:")
	first.Args[1] = schedule.I("logterm", 1)
	// Entry 4 was shown; entry 5 never was, and the third append follows it.
	tr := schedule.Trace{first, app(2, 2, 3, "2:"), app(3, 1, 5, "2:v=2"), app(4, 2, 5, "2:v=2")}
	tr[1].Args[1] = schedule.I("logterm", 1)
	m := mapper.NewEtcdWire(mapper.EtcdWireParams{Nodes: 3, PreVote: true})
	_, orig, skipped := m.Normalize(tr)
	require.Equal(t, 2, skipped["after a leader's entry the wire did not show"])
	require.NotEmpty(t, orig)
	for _, o := range orig {
		require.Less(t, o, 2, "%v", orig)
	}
}

// A heartbeat answer answers a heartbeat of its own term: a member that
// moved on answers an older heartbeat otherwise (or not at all).
func TestEtcdWireHeartbeatAnswerOfItsTerm(t *testing.T) {
	hb := func(id int, term int64) schedule.Event {
		return schedule.Event{Step: 1, Kind: schedule.EvRecv, Node: 1, Peer: 0, Msg: id, Type: schedule.MsgHeartbeat,
			Args: []schedule.Arg{schedule.I("term", term), schedule.I("logterm", 0), schedule.I("index", 0), schedule.I("commit", 3),
				schedule.I("reject", 0), schedule.I("rejecthint", 0), schedule.S("entries", "")}}
	}
	resp := schedule.Event{Step: 1, Kind: schedule.EvSend, Node: 1, Peer: 0, Msg: 9, Type: schedule.MsgHeartbeatResp,
		Args: []schedule.Arg{schedule.I("term", 3), schedule.I("logterm", 0), schedule.I("index", 0), schedule.I("commit", 0),
			schedule.I("reject", 0), schedule.I("rejecthint", 0), schedule.S("entries", "")}}
	m := mapper.NewEtcdWire(mapper.EtcdWireParams{Nodes: 3})
	_, orig, _ := m.Normalize(schedule.Trace{hb(1, 2), hb(2, 3), resp})
	at := slices.Index(orig, 2)
	require.Positive(t, at, "%v", orig)
	require.Equal(t, 1, orig[at-1], "the answer follows the heartbeat of term 3: %v", orig)
}

// A member's vote request read after the receipt of a pre-vote rejection
// of the same term: the member had become a candidate first (a candidate
// ignores pre-vote answers), so the rejection did not move it. Read in
// the proxy's order, the rejection made it a follower of the term and its
// campaign a second one, and its election a leader in a term the model
// had left (seen at a cluster's start: BecomeLeader(i=1, term=2) not
// enabled, currentTerm[i] = term).
func TestEtcdWireVoteRequestReadAfterAPreVoteRejection(t *testing.T) {
	id := 0
	ev := func(kind string, node, peer int, typ string, term, logterm, index int64, reject int64, entries string) schedule.Event {
		id++
		args := []schedule.Arg{schedule.I("term", term), schedule.I("logterm", logterm), schedule.I("index", index), schedule.I("commit", 3),
			schedule.I("reject", reject), schedule.I("rejecthint", 0), schedule.S("entries", entries)}
		if typ == schedule.MsgVote || typ == schedule.MsgPreVote {
			v := node
			if kind == schedule.EvRecv {
				v = peer
			}
			args = append(args, schedule.I("vote", int64(v)))
		}
		return schedule.Event{Step: 0, Kind: kind, Node: node, Peer: peer, Msg: id, Type: typ, Args: args}
	}
	send := func(from, to int, typ string, term, logterm, index, reject int64, entries string) (schedule.Event, schedule.Event) {
		s := ev(schedule.EvSend, from, to, typ, term, logterm, index, reject, entries)
		r := s
		r.Kind, r.Node, r.Peer = schedule.EvRecv, to, from
		if typ == schedule.MsgVote || typ == schedule.MsgPreVote {
			r.Args = slices.Clone(s.Args)
		}
		return s, r
	}
	var tr schedule.Trace
	// n3 wins a pre-vote and asks for votes in term 2.
	s1, r1 := send(2, 1, schedule.MsgPreVote, 2, 1, 3, 0, "")
	a1, ra1 := send(1, 2, schedule.MsgPreVoteResp, 2, 0, 0, 0, "")
	tr = append(tr, s1, r1, a1, ra1)
	v31, _ := send(2, 0, schedule.MsgVote, 2, 1, 3, 0, "")
	v32, _ := send(2, 1, schedule.MsgVote, 2, 1, 3, 0, "")
	tr = append(tr, v31, v32)
	// n1 pre-campaigns too: n2 grants, n3 (a candidate of term 2) rejects.
	p12, rp12 := send(0, 1, schedule.MsgPreVote, 2, 1, 3, 0, "")
	p13, rp13 := send(0, 2, schedule.MsgPreVote, 2, 1, 3, 0, "")
	g21, rg21 := send(1, 0, schedule.MsgPreVoteResp, 2, 0, 0, 0, "")
	j31, rj31 := send(2, 0, schedule.MsgPreVoteResp, 2, 0, 0, 1, "")
	tr = append(tr, p12, p13, rp12, g21, rp13, j31, rg21, rj31)
	// n1's vote requests, sent on n2's grant, reach the proxy after the
	// rejection was delivered; n2 grants, n1 leads term 2.
	v12, rv12 := send(0, 1, schedule.MsgVote, 2, 1, 3, 0, "")
	v13, _ := send(0, 2, schedule.MsgVote, 2, 1, 3, 0, "")
	g, rg := send(1, 0, schedule.MsgVoteResp, 2, 0, 0, 0, "")
	app, rapp := send(0, 1, schedule.MsgApp, 2, 1, 3, 0, "2:")
	tr = append(tr, v12, v13, rv12, g, rg, app, rapp)

	m := mapper.NewEtcdWire(mapper.EtcdWireParams{Nodes: 3, PreVote: true})
	_, orig, _ := m.Normalize(tr)
	vote := slices.Index(orig, slices.IndexFunc(tr, func(e schedule.Event) bool { return e.Msg == v12.Msg }))
	rejection := slices.Index(orig, slices.IndexFunc(tr, func(e schedule.Event) bool { return e.Msg == j31.Msg && e.Kind == schedule.EvRecv }))
	require.Less(t, vote, rejection, "the vote request goes before the rejection it was sent before: %v", orig)
	names, acts := mapWireWithoutDivergence(t, m, tr)
	require.Equal(t, 1, names["BecomeLeader"], "%v", acts)
}

// mapWireWithoutDivergence maps a wire trace onto raft.tla, requires the
// model to follow it, and counts the actions by name.
func mapWireWithoutDivergence(t *testing.T, m *mapper.EtcdWire, tr schedule.Trace) (map[string]int, []schedule.ModelAction) {
	t.Helper()
	s := newSim(t, "raft.tla", m.Consts())
	acts, err := m.Map(nil, &schedule.Execution{Trace: tr})
	require.NoError(t, err)
	res := replay(t, s, acts)
	require.Nil(t, res.Divergence, "%+v", res.Divergence)
	names := map[string]int{}
	for _, a := range acts {
		names[a.Name]++
	}
	return names, acts
}

// A later success does not stand for an append whose receiver lacks the
// entry it follows: that append was refused and its refusal lost (in the
// recorded etcd-3.4.23-refused-append-leader-crashed.json the leader
// crashed before it could be answered), so it gets no answer, not an
// inferred success (which diverged: HandleAppendRequest ~success).
func TestEtcdWireRefusedAppendGetsNoInferredSuccess(t *testing.T) {
	app := func(msg int, index int64, entries string) schedule.Event {
		return schedule.Event{Kind: schedule.EvRecv, Node: 1, Peer: 0, Msg: msg, Type: schedule.MsgApp,
			Args: []schedule.Arg{schedule.I("term", 2), schedule.I("logterm", 2), schedule.I("index", index), schedule.I("commit", 3),
				schedule.I("reject", 0), schedule.I("rejecthint", 0), schedule.S("entries", entries)}}
	}
	resp := schedule.Event{Kind: schedule.EvSend, Node: 1, Peer: 0, Msg: 9, Type: schedule.MsgAppResp,
		Args: []schedule.Arg{schedule.I("term", 2), schedule.I("logterm", 0), schedule.I("index", 4), schedule.I("commit", 0),
			schedule.I("reject", 0), schedule.I("rejecthint", 0), schedule.S("entries", "")}}
	// An empty append at index 5 the receiver cannot take (it holds up to
	// 3), then the append of entry 4, answered.
	tr := schedule.Trace{app(1, 5, ""), app(2, 3, "2:v=1"), resp}
	m := mapper.NewEtcdWire(mapper.EtcdWireParams{Nodes: 3})
	out, _, _ := m.Normalize(tr)
	var kinds []string
	for _, e := range out {
		kinds = append(kinds, e.Kind+" "+e.Type)
	}
	require.Equal(t, []string{"recv MsgApp", "recv MsgApp", "send MsgAppResp"}, kinds)
}
