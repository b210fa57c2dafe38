package mapper

import (
	"fmt"
	"slices"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// hbFlight follows the heartbeats a leader sends to confirm reads (those
// that carry a read context: the adapter's read=1) and their answers, so
// that the answers still on their way after the reads they were for have
// been answered are told apart: raft.tla's readStale, a stale answer of the
// kind that made etcd raft answer a read with a stale index before
// go.etcd.io/raft 63903dd.
//
// A round is the heartbeats one leader sends in a row (one broadcast);
// a chain is one of its heartbeats, then the answer to it, then copies
// of either. A round is spent when its leader answers a read right after
// an answer of the same round, or of a later one, arrived: the library
// confirms reads in order, so the reads of every earlier round are
// answered too. Chains of spent rounds still on their way are the stale
// answers. A round also knows the ReadIndex requests its leader had taken
// and not yet seen confirmed when it was sent: the reads it confirms. When
// a late copy of one of those is on its way to the leader too, the stale
// answers are twins of it (raft.tla's readTwin): before 63903dd the
// library took the copy as a new read with the old context, and the stale
// answers, which carry that context, confirmed it and every read queued
// before it.
type hbFlight struct {
	msgs  flight           // a round's heartbeats and answers: a family named by its first heartbeat
	at    map[int]*hbRound // round → its state, while some of it is in flight
	last  map[int]int      // process → the round of the answer it received last, in this step
	taken map[int][]int    // leader process → the requests it took and has not seen confirmed
}

type hbRound struct {
	leader int
	spent  bool
	reqs   []int // the requests its leader had taken and not seen confirmed
}

func newHBFlight() hbFlight {
	return hbFlight{msgs: newFlight(), at: map[int]*hbRound{}, last: map[int]int{}, taken: map[int][]int{}}
}

func isHeartbeat(typ string) bool {
	return typ == schedule.MsgHeartbeat || typ == schedule.MsgHeartbeatResp
}

// stale says whether answers of leader p's spent rounds are on their way
// (a round is kept while some of it is).
func (f *hbFlight) stale(p int) bool {
	for _, r := range f.at {
		if r.leader == p && r.spent {
			return true
		}
	}
	return false
}

// twin says whether one of the reads that leader p's spent rounds with
// stale answers confirmed has a late copy on its way to p.
func (st *etcdMap) twin(p int) bool {
	for _, r := range st.hb.at {
		if r.leader != p || !r.spent {
			continue
		}
		for _, q := range r.reqs {
			if st.reads.lateTo(q, p) {
				return true
			}
		}
	}
	return false
}

// end ends message msg; it says whose round it was and whether that round
// was spent (a stale answer ended).
func (f *hbFlight) end(msg int) (leader int, spent, ok bool) {
	id, ok := f.msgs.end(msg)
	r := f.at[id]
	if !ok || r == nil {
		return 0, false, false
	}
	if f.msgs.inFlight(id) == 0 {
		delete(f.at, id) // nothing of it left to be stale
	}
	return r.leader, r.spent, true
}

// staleEnded maps the end of a stale answer's chain: StaleAnswer(leader,
// more, twin).
func (st *etcdMap) staleEnded(e *schedule.Event, leader int) {
	st.add(e, "StaleAnswer", map[string]any{"i": int64(leader + 1), "more": st.hb.stale(leader), "twin": st.twin(leader)})
}

// heartbeatSent follows a heartbeat of a read round, sent to a live process.
func (st *etcdMap) heartbeatSent(k int) {
	e := &st.t[k]
	if e.Kind != schedule.EvSend || e.Type != schedule.MsgHeartbeat || e.Peer < 0 || e.Peer >= len(st.down) || st.down[e.Peer] {
		return
	}
	if r, _ := arg(e, schedule.ArgRead); r != 1 {
		return
	}
	id := e.Msg
	if k > 0 {
		// A heartbeat right after another of the same leader's, in the
		// same step, is part of its broadcast.
		prev := &st.t[k-1]
		if prev.Kind == schedule.EvSend && prev.Type == schedule.MsgHeartbeat && prev.Node == e.Node && prev.Step == e.Step {
			if pid, ok := st.hb.msgs.fam[prev.Msg]; ok {
				id = pid
			}
		}
	}
	if id == e.Msg {
		st.hb.at[id] = &hbRound{leader: e.Node, reqs: append([]int(nil), st.hb.taken[e.Node]...)}
	}
	st.hb.msgs.add(e.Msg, id, e.Peer)
}

// heartbeatCopied follows the network's copy, or loss, of a heartbeat or
// an answer of a read round.
func (st *etcdMap) heartbeatCopied(e *schedule.Event) error {
	if e.Kind == schedule.EvDrop {
		if leader, spent, ok := st.hb.end(e.Msg); ok && spent {
			st.staleEnded(e, leader)
		}
		return nil
	}
	of, ok := arg(e, schedule.ArgCopyOf)
	if !ok {
		return fmt.Errorf("etcdraft mapper: duplicate event of n%d has no %q", e.Node+1, schedule.ArgCopyOf)
	}
	st.hb.msgs.copy(int(of), e.Msg)
	return nil
}

// heartbeatRecv follows the receipt of a heartbeat (the chain goes on with
// the answer, if one leaves) or of an answer (the chain ends at the
// leader: a stale answer, or one that may confirm reads).
func (st *etcdMap) heartbeatRecv(k int) {
	e := &st.t[k]
	p := e.Node
	delete(st.hb.last, p)
	id, followed := st.hb.msgs.fam[e.Msg]
	if !followed {
		return
	}
	if e.Type == schedule.MsgHeartbeat {
		if r := st.response(k, schedule.MsgHeartbeatResp); r != nil && r.Kind == schedule.EvSend &&
			r.Peer >= 0 && r.Peer < len(st.down) && !st.down[r.Peer] {
			st.hb.msgs.add(r.Msg, id, r.Peer) // the answer goes on before the heartbeat ends
			st.hb.msgs.end(e.Msg)
			return
		}
	}
	leader, spent, ok := st.hb.end(e.Msg)
	switch {
	case !ok: // a round of a leader that crashed since
	case spent:
		st.staleEnded(e, leader)
	case e.Type == schedule.MsgHeartbeatResp && leader == p:
		st.hb.last[p] = id
	}
}

// readConfirmed gives the parameters of ConfirmRead at p: whether stale
// answers are on their way to p once this read is answered (the rounds up
// to that of the answer p just received are spent), and whether they are
// twins of a late copy.
func (st *etcdMap) readConfirmed(p int) map[string]any {
	if last, ok := st.hb.last[p]; ok {
		for id, r := range st.hb.at {
			if r.leader == p && id <= last && !r.spent {
				r.spent = true
				st.hb.confirmed(p, r.reqs)
			}
		}
	}
	return map[string]any{"i": int64(p + 1), "stale": st.hb.stale(p), "twin": st.twin(p)}
}

// confirmed forgets reqs from the requests leader p waits to see confirmed.
func (f *hbFlight) confirmed(p int, reqs []int) {
	left := f.taken[p][:0]
	for _, q := range f.taken[p] {
		if !slices.Contains(reqs, q) {
			left = append(left, q)
		}
	}
	f.taken[p] = left
}

// newTerm forgets the requests leader p took before its new term (the
// library dropped them when it stepped down).
func (f *hbFlight) newTerm(p int) { delete(f.taken, p) }

// heartbeatCrash follows the crash of process p: its rounds are gone (the
// model clears its readStale), and the chains in its inbox end.
func (st *etcdMap) heartbeatCrash(e *schedule.Event, p int) {
	for id, r := range st.hb.at {
		if r.leader == p {
			delete(st.hb.at, id)
		}
	}
	delete(st.hb.last, p)
	delete(st.hb.taken, p)
	for _, msg := range st.hb.msgs.held(p) {
		if leader, spent, ok := st.hb.end(msg); ok && spent {
			st.staleEnded(e, leader)
		}
	}
}
