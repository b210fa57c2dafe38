package etcdraft

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/proto"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// The network: one inbox per node, in arrival order. A partition holds the
// messages that cross it (they stay in the inbox, not deliverable, until
// heal); drop, duplicate and deliver-one pick a message by its position.

// held reports whether a message from process from to process to crosses
// the partition.
func (s *System) held(from, to int) bool {
	return s.cut != 0 && s.cut.Has(from) != s.cut.Has(to)
}

// deliverable returns the inbox position of process p's k-th deliverable
// message (k counted modulo their number), or -1 when there is none.
func (s *System) deliverable(p, k int) int {
	in := s.nodes[p].inbox
	count := 0
	for _, e := range in {
		if !s.held(e.from, p) {
			count++
		}
	}
	if count == 0 {
		return -1
	}
	k = (k-1)%count + 1
	for i, e := range in {
		if !s.held(e.from, p) {
			if k--; k == 0 {
				return i
			}
		}
	}
	return -1
}

// receive takes the message at inbox position i and steps n with it.
func (s *System) receive(n *node, i int) {
	p := int(n.id) - 1
	e := n.inbox[i]
	n.inbox = append(n.inbox[:i], n.inbox[i+1:]...)
	s.msgEvent(schedule.EvRecv, p, e.from, e.id, e.m, e.extra()...)
	if e.m.GetType() == pb.MsgSnap {
		s.reportSnapshot(e, raft.SnapshotFinish)
	}
	// Every receipt decodes the message from its wire form, as a real
	// transport does: the receiver shares no memory with the sender.
	m := &pb.Message{}
	if err := proto.Unmarshal(e.wire, m); err != nil {
		panic(fmt.Sprintf("etcdraft: message %d does not decode: %v", e.id, err))
	}
	var mark int
	var term uint64
	if e.received != nil {
		*e.received++
	}
	if s.tlaTrace != nil {
		mark, term = s.tlaTrace.mark(), n.rn.BasicStatus().GetTerm()
		s.tlaTrace.redelivery = e.received != nil && *e.received > 1
		s.tlaTrace.prevote = m.GetType() == pb.MsgPreVote || m.GetType() == pb.MsgPreVoteResp
	}
	err := n.rn.Step(m)
	if s.tlaTrace != nil {
		s.tlaTrace.redelivery, s.tlaTrace.prevote = false, false
	}
	if s.tlaTrace != nil && m.GetTerm() > term && n.rn != nil && n.rn.BasicStatus().GetTerm() < m.GetTerm() {
		// The node ignored a message of a higher term: with CheckQuorum, a
		// node that heard from its leader within an election timeout
		// disregards a vote request (leader stickiness, thesis section
		// 4.2.3). The library traced its receipt before deciding so; the
		// spec's servers always take a higher term, and a message nobody
		// acts on is, to the spec, one the network lost.
		s.tlaTrace.ignored(mark)
	}
	if errors.Is(err, raft.ErrProposalDropped) {
		// A leader refused a forwarded proposal (a leader transfer is
		// under way); other errors are for local or unknown-peer messages.
		s.event(schedule.EvDropped, p, e.from, schedule.TypeProposal)
	}
	s.drain(n)
	s.checkProgress(n)
}

// dropOrDuplicate loses, or receives twice, the k-th pending message of n's
// inbox (held ones included). Proposals forwarded to the leader (MsgProp)
// are not duplicated: the library leaves deduplicating client commands to
// the application, and a transport that resends them is not one etcd has.
func (s *System) dropOrDuplicate(n *node, st schedule.Step) {
	p := st.Process
	var idx []int
	for i, e := range n.inbox {
		if st.Action == schedule.Drop || e.m.GetType() != pb.MsgProp {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		s.skip(p, "no pending message to "+string(st.Action))
		return
	}
	i := idx[(st.K-1)%len(idx)]
	e := n.inbox[i]
	typ := msgTypeName(e.m.GetType())
	if st.Action == schedule.Drop {
		n.inbox = append(n.inbox[:i], n.inbox[i+1:]...)
		s.record(schedule.EvDrop, p, e.from, e.id, typ, len(s.args))
		if e.m.GetType() == pb.MsgSnap {
			s.reportSnapshot(e, raft.SnapshotFailure)
		}
		return
	}
	// The copy is a message of its own (a new id), as a transport that
	// sends a message twice puts two on the wire; its receipt says it is
	// a copy.
	s.nextMsg++
	if e.received == nil {
		e.received = new(int)
		n.inbox[i].received = e.received
	}
	c := e
	c.id, c.copy = s.nextMsg, true
	n.inbox = append(n.inbox, c)
	start := len(s.args)
	s.args = append(s.args, schedule.I(schedule.ArgCopyOf, int64(e.id)))
	s.record(schedule.EvDuplicate, p, e.from, c.id, typ, start)
}

// send puts m, sent by process from, in its receiver's inbox; a message to
// a crashed node is lost.
func (s *System) send(from int, m *pb.Message) {
	s.nextMsg++
	to := int(m.GetTo()) - 1
	wire, err := proto.Marshal(m)
	if err != nil {
		panic(fmt.Sprintf("etcdraft: a %s does not encode: %v", m.GetType(), err))
	}
	e := envelope{id: s.nextMsg, from: from, m: m, wire: wire, commitTerm: -1}
	if m.GetType() == pb.MsgHeartbeat {
		e.commitTerm = s.termAt(s.nodes[from], m.GetCommit())
	}
	s.msgEvent(schedule.EvSend, from, to, s.nextMsg, m, e.extra()...)
	if to >= 0 && to < len(s.nodes) && s.nodes[to].rn != nil {
		s.nodes[to].inbox = append(s.nodes[to].inbox, e)
		return
	}
	// The transport tells the sender, as etcd's does when a peer is down;
	// a snapshot that did not arrive is reported as failed.
	if sender := s.nodes[from].rn; sender != nil && to >= 0 {
		sender.ReportUnreachable(uint64(to + 1))
		if m.GetType() == pb.MsgSnap {
			sender.ReportSnapshot(uint64(to+1), raft.SnapshotFailure)
		}
	}
}

// reportSnapshot tells the sender of a MsgSnap whether it arrived, as the
// library asks of the application (RawNode.ReportSnapshot).
func (s *System) reportSnapshot(e envelope, status raft.SnapshotStatus) {
	if sender := s.nodes[e.from].rn; sender != nil {
		sender.ReportSnapshot(e.m.GetTo(), status)
	}
}

// extra are the event args the adapter adds to a message's own fields: for
// a heartbeat, committerm, the term of the entry at its commit index in the
// sender's log (what the receiver commits; the message does not carry it).
// A duplicate's copy also says copy=1.
func (e envelope) extra() []schedule.Arg {
	var out []schedule.Arg
	if e.m.GetType() == pb.MsgHeartbeat && e.commitTerm >= 0 {
		out = append(out, schedule.I(schedule.ArgCommitTerm, e.commitTerm))
	}
	if e.copy {
		out = append(out, schedule.I(schedule.ArgCopy, 1))
	}
	return out
}

// termAt is the term of the entry at index i in n's log, -1 if unknown.
func (s *System) termAt(n *node, i uint64) int64 {
	if t, ok := s.logTerm(n, i); ok {
		return int64(t)
	}
	if snap, err := n.live.Snapshot(); err == nil && snap.GetMetadata().GetIndex() == i {
		return int64(snap.GetMetadata().GetTerm())
	}
	return -1
}
