package mapper_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/mapper"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// wireBuilder writes etcd wire traces by hand: sends, their receipts
// (same message ID), crashes and restarts, in the order the proxy
// recorded them.
type wireBuilder struct {
	tr   schedule.Trace
	id   int
	step int
	sent map[int]schedule.Event
}

func newWireBuilder() *wireBuilder { return &wireBuilder{sent: map[int]schedule.Event{}} }

// send records member from's message to member to; it returns the message ID.
func (b *wireBuilder) send(from, to int, typ string, term, logterm, index, commit, reject int64, entries string) int {
	b.id++
	args := []schedule.Arg{schedule.I("term", term), schedule.I("logterm", logterm), schedule.I("index", index), schedule.I("commit", commit),
		schedule.I("reject", reject), schedule.I("rejecthint", 0), schedule.S("entries", entries)}
	if typ == schedule.MsgVote || typ == schedule.MsgPreVote {
		args = append(args, schedule.I("vote", int64(from)))
	}
	e := schedule.Event{Step: b.step, Kind: schedule.EvSend, Node: from, Peer: to, Msg: b.id, Type: typ, Args: args}
	b.tr = append(b.tr, e)
	b.sent[b.id] = e
	return b.id
}

// recv records the receipt of message id.
func (b *wireBuilder) recv(id int) {
	s := b.sent[id]
	r := s
	r.Step, r.Kind, r.Node, r.Peer = b.step, schedule.EvRecv, s.Peer, s.Node
	r.Args = append([]schedule.Arg(nil), s.Args...)
	b.tr = append(b.tr, r)
}

func (b *wireBuilder) crash(p int) {
	b.tr = append(b.tr, schedule.Event{Step: b.step, Kind: schedule.EvCrash, Node: p, Peer: -1, Type: "crash"})
}

// vote: a granted (or rejected) answer of term to a (pre-)vote request.
func (b *wireBuilder) answer(from, to int, typ string, term int64, reject bool) int {
	rej := int64(0)
	if reject {
		rej = 1
	}
	return b.send(from, to, typ, term, 0, 0, 0, rej, "")
}

// A candidate's vote request read after its candidacy ended in the same
// term (it lost to another candidate, whose append made it a follower):
// the proxy reads each peer's stream on its own, so one of the requests
// can come long after the other. It is no second campaign: read as one,
// the model's candidate moved to the next term, and its election there
// later was a leader of a term the model had left (BecomeLeader(i, term):
// currentTerm[i] = term).
func TestEtcdWireVoteRequestReadAfterItsCandidacyEnded(t *testing.T) {
	b := newWireBuilder()
	n1, n2, n3 := 0, 1, 2
	// n1 and n3 both win a pre-vote at n2 and ask for votes in term 2.
	p := b.send(n1, n2, schedule.MsgPreVote, 2, 1, 3, 3, 0, "")
	b.recv(p)
	b.recv(b.answer(n2, n1, schedule.MsgPreVoteResp, 2, false))
	p = b.send(n3, n2, schedule.MsgPreVote, 2, 1, 3, 3, 0, "")
	b.recv(p)
	b.recv(b.answer(n2, n3, schedule.MsgPreVoteResp, 2, false))
	v12 := b.send(n1, n2, schedule.MsgVote, 2, 1, 3, 3, 0, "")
	v32 := b.send(n3, n2, schedule.MsgVote, 2, 1, 3, 3, 0, "")
	v31 := b.send(n3, n1, schedule.MsgVote, 2, 1, 3, 3, 0, "")
	// n2 votes for n3, which leads term 2.
	b.recv(v32)
	b.recv(b.answer(n2, n3, schedule.MsgVoteResp, 2, false))
	a1 := b.send(n3, n1, schedule.MsgApp, 2, 1, 3, 3, 0, "2:")
	a2 := b.send(n3, n2, schedule.MsgApp, 2, 1, 3, 3, 0, "2:")
	// n1 (a candidate of term 2) and n2 refuse each other's requests.
	b.recv(v31)
	r13 := b.answer(n1, n3, schedule.MsgVoteResp, 2, true)
	b.recv(v12)
	b.recv(b.answer(n2, n1, schedule.MsgVoteResp, 2, true))
	// n3's append makes n1 its follower.
	b.recv(a1)
	ar1 := b.send(n1, n3, schedule.MsgAppResp, 2, 0, 4, 0, 0, "")
	// Only now does the proxy read n1's vote request to n3.
	v13 := b.send(n1, n3, schedule.MsgVote, 2, 1, 3, 3, 0, "")
	b.recv(r13)
	b.recv(v13)
	b.recv(b.answer(n3, n1, schedule.MsgVoteResp, 2, true))
	b.recv(ar1)
	b.recv(a2)
	b.recv(b.send(n2, n3, schedule.MsgAppResp, 2, 0, 4, 0, 0, ""))
	// n3 is killed; n1 wins term 3.
	b.step = 1
	b.crash(n3)
	p = b.send(n1, n2, schedule.MsgPreVote, 3, 2, 4, 3, 0, "")
	b.recv(p)
	b.recv(b.answer(n2, n1, schedule.MsgPreVoteResp, 3, false))
	v := b.send(n1, n2, schedule.MsgVote, 3, 2, 4, 3, 0, "")
	b.recv(v)
	b.recv(b.answer(n2, n1, schedule.MsgVoteResp, 3, false))
	a := b.send(n1, n2, schedule.MsgApp, 3, 2, 4, 3, 0, "3:")
	b.recv(a)

	m := mapper.NewEtcdWire(mapper.EtcdWireParams{Nodes: 3, PreVote: true})
	names, acts := mapWireWithoutDivergence(t, m, b.tr)
	require.Equal(t, 2, names["BecomeLeader"], "%v", acts)
	require.Equal(t, 3, names["Timeout"], "one campaign each of n1 and n3 in term 2, n1's in term 3: %v", acts)
}
