// # The etcd wire mapper
//
// EtcdWire maps the traces of adapters/etcd (production etcd members
// behind the peer-transport proxy) onto models/raft.tla. The adapter sees
// only what crosses the wire: the raft messages the proxy decodes, and
// its own steps (crash, restart, client operations). A member's local
// transitions (a campaign, winning an election, a leader's new entry or
// commit) are inferred from the messages it sends, the trace is rewritten
// into the shape of adapters/etcdraft's, and the etcdraft mapper maps it.
//
// Inferred (each event put before the message that shows it):
//
//   - MsgPreVote sent by a member that is not a pre-candidate → role
//     "precandidate" (BecomePreCandidate); MsgVote sent by a member that is
//     not a candidate of that term → role "candidate" (Timeout), after a
//     timeout event when a candidate campaigns again. A leader that sends
//     either first steps down (role "follower" of its own term:
//     LeaderStepDown, etcd's CheckQuorum).
//   - MsgApp, MsgHeartbeat, MsgSnap or MsgTimeoutNow sent in term T by a
//     member not known as T's leader → role "leader" (BecomeLeader, after
//     Timeout when no campaign was seen).
//   - An entry of the leader's own term with data, first seen in one of its
//     MsgApps → a request event (ClientRequest) with the entry's number
//     ("v=n"); a MsgApp whose commit index is above the highest the leader
//     sent before → a commit event (AdvanceCommit).
//   - A received message of a higher term (but MsgPreVote, and a granted
//     MsgPreVoteResp; a MsgVote only when it was answered: a leader in its
//     CheckQuorum lease ignores it) makes a candidate, pre-candidate or
//     leader a follower; so does an append, heartbeat or snapshot of its
//     term at a candidate or pre-candidate.
//   - The answer to a received MsgVote, MsgPreVote, MsgApp, MsgSnap or
//     MsgHeartbeat is the first send of the answer's type from the receiver
//     back to the sender after it (for votes: the latest request of a term
//     not above the answer's), moved right after the receipt: etcd answers
//     asynchronously, in real time, so the answer can come after later
//     events.
//   - A restart → the member applies the bootstrap's configuration
//     entries again (conf events: ApplyConf), as etcd does from its WAL
//     before it may campaign.
//   - The term of the entry at a heartbeat's commit index (committerm) is
//     the term the sender's log held there, from the appends it sent and
//     received.
//
// Numbers: etcd bootstraps each member with one configuration entry per
// member (indexes 1..N, term 1, committed) and starts in term 1, as the
// model does with Bootstrap = "log": indexes and terms are etcd's.
//
// Left out of the view, counted by Unmapped: what happens after the last
// step (the adapter opens the network for its final checks and delivers
// as fast as it can), client operations and their
// answers (the model's values are the entries the wire shows, not the
// requests), MsgProp (a forwarded proposal shows as the leader's new
// entry), MsgReadIndex and MsgReadIndexResp (the wire does not say which
// client read each one answers, so linearizable reads are not modelled),
// partitions, heals, ticks and leader transfers (their effect shows in
// the messages), skipped steps.
package mapper

import (
	"strconv"
	"strings"
	"sync"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// EtcdWireUnmappable are the actions of adapters/etcd that raft.tla
// cannot map: none (etcd's adapter has no conf-change).
var EtcdWireUnmappable []schedule.Action

// EtcdWireParams describes the cluster that made a trace.
type EtcdWireParams struct {
	Nodes   int  // members 0..Nodes-1 are the model's servers 1..Nodes
	PreVote bool // --pre-vote: every campaign begins with a pre-vote
}

// EtcdWire maps adapters/etcd traces onto models/raft.tla. It is safe for
// concurrent use.
type EtcdWire struct {
	p     EtcdWireParams
	inner *Etcdraft

	mu       sync.Mutex
	unmapped map[string]int
}

// NewEtcdWire returns the mapper for the traces of a cluster with p.
func NewEtcdWire(p EtcdWireParams) *EtcdWire {
	return &EtcdWire{p: p, inner: NewEtcdraft(EtcdraftParams{Nodes: p.Nodes, BootLog: true, PreVote: p.PreVote, CheckQuorum: true}),
		unmapped: map[string]int{}}
}

// Consts are the model's constants that must match the cluster.
func (m *EtcdWire) Consts() []string { return m.inner.Consts() }

// KeepsTrace says that a divergence keeps the trace it was computed from
// (guidance.ModelMeasure): etcd runs on real time, so a replay of the
// input seldom delivers the same messages in the same order, and the
// wire trace is what shows whether the divergence is etcd's or the
// mapper's (it becomes a golden trace under testdata/etcdwire).
func (m *EtcdWire) KeepsTrace() bool { return true }

// Note says how the system's numbers map onto the model's.
func (m *EtcdWire) Note() string {
	return "log indexes and terms are etcd's (the model starts as etcd does, in term 1 with one configuration entry per member); member states the wire does not show are inferred from the messages they send"
}

// Unmapped returns how many events of each kind were left out, over all
// the traces mapped.
func (m *EtcdWire) Unmapped() map[string]int {
	out := m.inner.Unmapped()
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, v := range m.unmapped {
		out[k] += v
	}
	return out
}

// Map implements schedule.Mapper.
func (m *EtcdWire) Map(in *schedule.Input, ex *schedule.Execution) ([]schedule.ModelAction, error) {
	tr := ex.Trace
	var tail int
	if in != nil {
		// After the last step the adapter opens the network for its final
		// checks, delivering as fast as it can: not the schedule's doing,
		// and in an order the wire does not keep.
		for i := range tr {
			if tr[i].Step >= len(in.Steps) {
				tail = len(tr) - i
				tr = tr[:i]
				break
			}
		}
	}
	t, orig, skipped := m.Normalize(tr)
	if tail > 0 {
		skipped["after the last step (the network opened for the final checks)"] += tail
	}
	acts, err := m.inner.Map(in, &schedule.Execution{Trace: t})
	if err != nil {
		return nil, err
	}
	for i := range acts {
		if e := acts[i].Event; e >= 0 && e < len(orig) {
			acts[i].Event = orig[e]
		}
	}
	m.mu.Lock()
	for k, v := range skipped {
		m.unmapped[k] += v
	}
	m.mu.Unlock()
	return acts, nil
}

// wireState is what the rewriting knows of each member.
type wireState struct {
	p        EtcdWireParams
	out      schedule.Trace
	orig     []int
	skipped  map[string]int
	role     []string
	term     []int64
	down     []bool
	commit   []int64
	log      []map[int64]int64 // each member's log as its appends show: index → term
	known    []map[[2]int64]bool
	hbTerm   map[int]int64 // heartbeat message → the term of its commit entry
	answered map[int]bool  // request messages that got an answer
}

// Normalize rewrites an adapters/etcd trace into the etcdraft trace shape
// (see the package documentation), returning it, the index of the
// original event each event comes from, and the events left out by kind.
func (m *EtcdWire) Normalize(t schedule.Trace) (schedule.Trace, []int, map[string]int) {
	n := m.p.Nodes
	st := &wireState{p: m.p, skipped: map[string]int{}, role: make([]string, n), term: make([]int64, n),
		down: make([]bool, n), commit: make([]int64, n), log: make([]map[int64]int64, n), known: make([]map[[2]int64]bool, n),
		hbTerm: map[int]int64{}, answered: map[int]bool{}}
	for i := range n {
		st.role[i], st.term[i], st.commit[i] = schedule.RoleFollower, 1, int64(n)
		st.log[i], st.known[i] = map[int64]int64{}, map[[2]int64]bool{}
	}
	t, first := hoistPostMortem(t, n)
	t, order := hoistStale(t, n)
	for i, o := range order {
		order[i] = first[o]
	}
	after, moved := pairAnswers(t)
	failed := failedDeliveries(t)
	for k := range t {
		if moved[k] || failed[k] {
			continue
		}
		if st.unseenEntry(&t[k]) {
			st.skipped["after a leader's entry the wire did not show"] += len(t) - k
			break
		}
		st.event(t, k)
		for _, a := range after[k] {
			st.answered[t[k].Msg] = true
			e := a.ev
			e.Step = t[k].Step
			if a.from < 0 {
				if !st.holdsPrev(&t[k]) {
					// A success cannot stand for this append: the
					// receiver's log lacks the entry it follows, so it
					// refused it, and that refusal was lost (its leader
					// crashed, say) or coalesced away.
					st.skip("append refused, its answer not on the wire")
					continue
				}
				st.emit(e, k)
				st.skip("inferred answer (etcd sends the last MsgAppResp of a Ready)")
				continue
			}
			st.emit(e, a.from)
			st.sent(t, a.from, &st.out[len(st.out)-1])
		}
		if len(after[k]) == 0 {
			st.unanswered(t, k)
		}
		st.afterRecv(t, k)
	}
	for i, o := range st.orig {
		st.orig[i] = order[o]
	}
	return st.out, st.orig, st.skipped
}

// unseenEntry says whether e is an append whose sender holds an entry
// (the one its new entries follow) that no message on the wire showed:
// etcd drops a message it has no open link for, so a leader elected
// before its links were up can append a proposal no peer ever saw. The
// model cannot know that entry; the execution is mapped up to there.
func (st *wireState) unseenEntry(e *schedule.Event) bool {
	p := e.Node
	if e.Kind != schedule.EvSend || e.Type != schedule.MsgApp || p < 0 || p >= len(st.log) {
		return false
	}
	prev, _ := arg(e, schedule.ArgIndex)
	if prev <= int64(st.p.Nodes) {
		return false
	}
	_, ok := st.log[p][prev]
	return !ok
}

// hoistPostMortem puts a member's sends that the proxy read after the
// member was killed (they were on their way: the proxy reads each stream
// on its own) just before the crash, in the crash's step. It returns the
// trace reordered and, per event, its index in t.
func hoistPostMortem(t schedule.Trace, n int) (schedule.Trace, []int) {
	order := make([]int, 0, len(t))
	crashAt := make([]int, n) // position in order of the member's crash; -1 while it runs
	for i := range crashAt {
		crashAt[i] = -1
	}
	for k := range t {
		e := &t[k]
		p := e.Node
		if p < 0 || p >= n {
			order = append(order, k)
			continue
		}
		switch {
		case e.Kind == schedule.EvCrash || e.Kind == schedule.EvExit:
			if crashAt[p] < 0 {
				crashAt[p] = len(order)
			}
		case e.Kind == schedule.EvRestart:
			crashAt[p] = -1
		case e.Kind == schedule.EvSend && crashAt[p] >= 0:
			at := crashAt[p]
			order = append(order, 0)
			copy(order[at+1:], order[at:])
			order[at] = k
			for q := range crashAt {
				if crashAt[q] >= at {
					crashAt[q]++
				}
			}
			continue
		}
		order = append(order, k)
	}
	out := make(schedule.Trace, len(t))
	for i, o := range order {
		out[i] = t[o]
	}
	// Steps stay in order: a hoisted send takes the step of what follows it.
	for i := len(out) - 2; i >= 0; i-- {
		if out[i].Step > out[i+1].Step {
			out[i].Step = out[i+1].Step
		}
	}
	return out, order
}

// hoistStale puts back in place the sends the proxy saw after a receipt
// that the sender had not handled yet when it sent them (etcd's
// transport hands messages over asynchronously, so a member's send can
// reach the proxy after the next delivery to it): a send whose term is
// below what its sender had learned from a receipt (a MsgVote: at or
// below) moves to just before the first receipt that raised its sender's
// term past the send's (a leader's heartbeat of term 2 read after the
// vote request of term 3 it was about to handle; a vote request of term
// 2 read after a pre-vote rejection of term 2 that reached the member
// once it was a candidate, which ignores it). It returns
// the trace reordered and, per event, its index in t.
func hoistStale(t schedule.Trace, n int) (schedule.Trace, []int) {
	order := make([]int, len(t))
	for i := range order {
		order[i] = i
	}
	type raise struct {
		pos          int // in order
		before, term int64
		// self: the member's own campaign (its first vote request of a
		// term, or pre-vote request from a term: term is then the term it
		// was in), not a receipt.
		self, pre bool
	}
	term := make([]int64, n)
	for i := range term {
		term[i] = 1
	}
	raises := make([][]raise, n)
	lastReceipt := func(p int) (raise, bool) {
		for j := len(raises[p]) - 1; j >= 0; j-- {
			if !raises[p][j].self {
				return raises[p][j], true
			}
		}
		return raise{}, false
	}
	// move puts the event at position i of order at position at (< i).
	move := func(i, at int) {
		x := order[i]
		copy(order[at+1:i+1], order[at:i])
		order[at] = x
		for q := range raises {
			for j := range raises[q] {
				if raises[q][j].pos >= at && raises[q][j].pos < i {
					raises[q][j].pos++
				}
			}
		}
	}
	for i := 0; i < len(order); i++ {
		e := &t[order[i]]
		p := e.Node
		if p < 0 || p >= n {
			continue
		}
		mt, _ := arg(e, schedule.ArgTerm)
		switch e.Kind {
		case schedule.EvRecv:
			// A pre-vote request never moves the receiver's term, nor does
			// a granted pre-vote; a rejected one does (etcd's Step: the
			// member becomes a follower of the rejection's term).
			rej, _ := arg(e, schedule.ArgReject)
			if mt <= term[p] || leftOut(e.Type) || e.Type == schedule.MsgPreVote || e.Type == schedule.MsgPreVoteResp && rej == 0 {
				continue
			}
			raises[p] = append(raises[p], raise{pos: i, before: term[p], term: mt})
			term[p] = mt
		case schedule.EvSend:
			if leftOut(e.Type) || mt == 0 || e.Type == schedule.MsgPreVoteResp {
				continue // a granted pre-vote carries the candidate's next term
			}
			own := mt // the sender's term when it sent e
			if e.Type == schedule.MsgPreVote {
				own = mt - 1
			}
			// A leader's message (of a term it led) after its own
			// campaign from that term or a later one was sent before the
			// campaign: a member that campaigns no longer leads.
			leads := e.Type == schedule.MsgApp || e.Type == schedule.MsgHeartbeat || e.Type == schedule.MsgSnap || e.Type == "MsgTimeoutNow"
			campaigned := false
			if leads {
				for _, r := range raises[p] {
					if r.self && (r.pre && r.term >= own || !r.pre && r.term > own) {
						campaigned = true
						break
					}
				}
			}
			// A vote request of a term whose campaign the member had begun
			// already was sent with that campaign's first one (etcd sends
			// a campaign's requests in one Ready, and never campaigns
			// twice in a term): the proxy read it late, maybe after the
			// member lost that election, and it goes back beside the first.
			if e.Type == schedule.MsgVote {
				at := -1
				for _, r := range raises[p] {
					if r.self && !r.pre && r.term == own {
						at = r.pos + 1
						break
					}
				}
				if at >= 0 {
					if at < i {
						move(i, at)
					}
					continue
				}
			}
			lr, ok := lastReceipt(p)
			stale := own < term[p] || campaigned || e.Type == schedule.MsgVote && own == term[p] && ok && lr.term == own
			if !stale {
				switch {
				case e.Type == schedule.MsgVote && own > term[p]:
					raises[p] = append(raises[p], raise{pos: i, before: term[p], term: own, self: true})
				case e.Type == schedule.MsgPreVote:
					seen := false
					for _, r := range raises[p] {
						seen = seen || r.self && r.pre && r.term == own
					}
					if !seen {
						raises[p] = append(raises[p], raise{pos: i, before: own, term: own, self: true, pre: true})
					}
				}
				if own > term[p] {
					term[p] = own
				}
				continue
			}
			// The earliest receipt that took the sender past own (for a
			// vote request, to own: a member raised to a term by a
			// receipt does not campaign in it), or the earliest campaign
			// of its own that did (for a leader's message, from own).
			at := -1
			for _, r := range raises[p] {
				var before bool
				switch {
				case r.self && r.pre:
					before = leads && r.term >= own
				case r.self:
					before = r.term > own
				default:
					before = r.term > own || r.term == own && e.Type == schedule.MsgVote
				}
				if before {
					at = r.pos
					break
				}
			}
			if at < 0 {
				continue
			}
			move(i, at)
		}
	}
	out := make(schedule.Trace, len(t))
	for i, o := range order {
		out[i] = t[o]
	}
	return out, order
}

func (st *wireState) emit(e schedule.Event, from int) {
	st.out = append(st.out, e)
	st.orig = append(st.orig, from)
}

func (st *wireState) infer(at *schedule.Event, from int, kind, typ string, args ...schedule.Arg) {
	st.emit(schedule.Event{Step: at.Step, Kind: kind, Node: at.Node, Peer: -1, Type: typ, Args: args}, from)
}

func (st *wireState) skip(key string) { st.skipped[key]++ }

// readMessage: the ReadIndex messages are left out (see the package
// documentation), as are proposals.
func leftOut(typ string) bool {
	return typ == schedule.MsgReadIndex || typ == schedule.MsgReadIndexResp || typ == schedule.MsgProp
}

func (st *wireState) event(t schedule.Trace, k int) {
	e := t[k]
	switch e.Kind {
	case schedule.EvSend:
		if leftOut(e.Type) {
			st.skip("send " + e.Type)
			return
		}
		st.emit(e, k)
		st.sent(t, k, &st.out[len(st.out)-1])
	case schedule.EvRecv:
		if leftOut(e.Type) {
			st.skip("recv " + e.Type)
			return
		}
		if h, ok := st.hbTerm[e.Msg]; ok && e.Type == schedule.MsgHeartbeat {
			e.Args = append(append([]schedule.Arg(nil), e.Args...), schedule.I(schedule.ArgCommitTerm, h))
		}
		st.emit(e, k)
		if e.Type == schedule.MsgApp || e.Type == schedule.MsgSnap || e.Type == schedule.MsgHeartbeat {
			st.learn(e.Node, &e)
		}
	case schedule.EvDrop, schedule.EvDuplicate:
		if leftOut(e.Type) {
			st.skip(e.Kind + " " + e.Type)
			return
		}
		st.emit(e, k)
	case schedule.EvCrash, schedule.EvExit:
		p := e.Node
		if st.down[p] {
			st.skip(e.Kind + " of a crashed member")
			return
		}
		st.down[p], st.role[p] = true, schedule.RoleFollower
		st.emit(schedule.Event{Step: e.Step, Kind: schedule.EvCrash, Node: p, Peer: -1, Type: "crash"}, k)
	case schedule.EvRestart:
		p := e.Node
		st.down[p], st.role[p] = false, schedule.RoleFollower
		st.emit(schedule.Event{Step: e.Step, Kind: schedule.EvRestart, Node: p, Peer: -1, Type: "restart",
			Args: []schedule.Arg{schedule.I(schedule.ArgTerm, st.term[p])}}, k)
		// A restarted member replays its WAL and applies the bootstrap's
		// configuration entries (committed from the start) before it may
		// campaign; the wire shows none of it.
		var ids []string
		for x := range len(st.role) {
			ids = append(ids, strconv.Itoa(x+1))
			st.infer(&e, k, schedule.EvConf, "conf", schedule.I(schedule.ArgIndex, int64(x+1)),
				schedule.S(schedule.ArgConfig, "voters="+strings.Join(ids, ",")))
		}
	default:
		st.skip(e.Kind)
	}
}

// sent infers what a member's send shows of its state; e is the emitted
// copy, placed last in st.out: inferred events go before it.
func (st *wireState) sent(t schedule.Trace, k int, _ *schedule.Event) {
	e := t[k]
	p := e.Node
	if p < 0 || p >= len(st.role) {
		return
	}
	term, _ := arg(&e, schedule.ArgTerm)
	var pre []schedule.Event
	add := func(kind, typ string, args ...schedule.Arg) {
		pre = append(pre, schedule.Event{Step: e.Step, Kind: kind, Node: p, Peer: -1, Type: typ, Args: args})
	}
	switch e.Type {
	case schedule.MsgPreVote, schedule.MsgVote:
		if st.role[p] == schedule.RoleLeader {
			add(schedule.EvRole, schedule.RoleFollower, schedule.I(schedule.ArgTerm, st.term[p]))
			st.role[p] = schedule.RoleFollower
		}
		if e.Type == schedule.MsgPreVote {
			if st.role[p] != schedule.RolePreCandidate {
				add(schedule.EvRole, schedule.RolePreCandidate, schedule.I(schedule.ArgTerm, st.term[p]))
				st.role[p] = schedule.RolePreCandidate
			}
			break
		}
		if st.role[p] == schedule.RoleCandidate && term > st.term[p] {
			add(schedule.EvTimeout, "timeout", schedule.I(schedule.ArgTerm, st.term[p]))
		}
		if st.role[p] != schedule.RoleCandidate || term > st.term[p] {
			add(schedule.EvRole, schedule.RoleCandidate, schedule.I(schedule.ArgTerm, term))
			st.role[p], st.term[p] = schedule.RoleCandidate, term
		}
	case schedule.MsgApp, schedule.MsgHeartbeat, schedule.MsgSnap, "MsgTimeoutNow":
		if st.role[p] != schedule.RoleLeader || st.term[p] != term {
			add(schedule.EvRole, schedule.RoleLeader, schedule.I(schedule.ArgTerm, term))
			st.role[p], st.term[p] = schedule.RoleLeader, term
		}
		switch e.Type {
		case schedule.MsgApp:
			idx, _ := arg(&e, schedule.ArgIndex)
			ents, _ := sarg(&e, schedule.ArgEntries)
			for j, en := range splitEntries(ents) {
				at := idx + 1 + int64(j)
				st.log[p][at] = en.term
				key := [2]int64{en.term, at}
				if en.term != term || en.data == "" || st.known[p][key] {
					continue
				}
				st.known[p][key] = true
				v, ok := strings.CutPrefix(en.data, "v=")
				n, err := strconv.ParseInt(v, 10, 64)
				if !ok || err != nil {
					st.skip("entry " + en.data)
					continue
				}
				add(schedule.EvRequest, "request", schedule.I(schedule.ArgValue, n))
			}
			if c, _ := arg(&e, schedule.ArgCommit); c > st.commit[p] {
				add(schedule.EvCommit, "commit", schedule.I(schedule.ArgIndex, c))
				st.commit[p] = c
			}
		case schedule.MsgHeartbeat:
			c, _ := arg(&e, schedule.ArgCommit)
			if ct, ok := st.log[p][c]; ok {
				st.hbTerm[e.Msg] = ct
			} else if c <= int64(st.p.Nodes) {
				st.hbTerm[e.Msg] = 1
			}
		}
	}
	if len(pre) == 0 {
		return
	}
	last := st.out[len(st.out)-1]
	from := st.orig[len(st.orig)-1]
	st.out, st.orig = st.out[:len(st.out)-1], st.orig[:len(st.orig)-1]
	for _, x := range pre {
		st.emit(x, from)
	}
	st.emit(last, from)
}

// unanswered infers the answer to a received append, heartbeat or
// snapshot that no answer on the wire was paired with: etcd's transport
// can lose or delay an answer (a stream to a peer that crashed, a
// pipeline retried), so a receipt without one is not a refusal. The
// member takes it if its term is not below the member's and, for an
// append, the member's log (as the appends it sent and received show it)
// holds the entry it follows.
func (st *wireState) unanswered(t schedule.Trace, k int) {
	e := &t[k]
	if e.Kind != schedule.EvRecv || e.Node < 0 || e.Node >= len(st.role) || st.down[e.Node] {
		return
	}
	p := e.Node
	term, _ := arg(e, schedule.ArgTerm)
	if term < st.term[p] {
		return
	}
	var ans schedule.Event
	switch e.Type {
	case schedule.MsgHeartbeat:
		ans = schedule.Event{Step: e.Step, Kind: schedule.EvSend, Node: p, Peer: e.Peer, Type: schedule.MsgHeartbeatResp,
			Args: []schedule.Arg{schedule.I(schedule.ArgTerm, term), schedule.I(schedule.ArgLogTerm, 0), schedule.I(schedule.ArgIndex, 0),
				schedule.I(schedule.ArgCommit, 0), schedule.I(schedule.ArgReject, 0), schedule.I(schedule.ArgRejectHint, 0), schedule.S(schedule.ArgEntries, "")}}
	case schedule.MsgApp:
		if !st.holdsPrev(e) {
			return
		}
		ans = inferredAppResp(e, term)
	case schedule.MsgSnap:
		ans = inferredAppResp(e, term)
	default:
		return
	}
	st.emit(ans, k)
	st.skip("inferred answer (not seen on the wire)")
}

// holdsPrev reports whether the receiver of the append e holds, as the
// appends it sent and received show its log, the entry e follows (the
// bootstrap's configuration entries it always holds).
func (st *wireState) holdsPrev(e *schedule.Event) bool {
	if e.Type != schedule.MsgApp {
		return true
	}
	prev, _ := arg(e, schedule.ArgIndex)
	lt, _ := arg(e, schedule.ArgLogTerm)
	got, ok := st.log[e.Node][prev]
	return prev <= int64(st.p.Nodes) || ok && got == lt
}

// afterRecv infers a role change the receipt of event k caused.
func (st *wireState) afterRecv(t schedule.Trace, k int) {
	e := t[k]
	if e.Kind != schedule.EvRecv || leftOut(e.Type) {
		return
	}
	p := e.Node
	term, _ := arg(&e, schedule.ArgTerm)
	reject, _ := arg(&e, schedule.ArgReject)
	raises := term > st.term[p]
	switch e.Type {
	case schedule.MsgPreVote:
		raises = false
	case schedule.MsgPreVoteResp:
		raises = raises && reject != 0
	case schedule.MsgVote:
		raises = raises && st.answered[e.Msg]
	}
	toFollower := raises && st.role[p] != schedule.RoleFollower
	if !raises && term == st.term[p] && (st.role[p] == schedule.RoleCandidate || st.role[p] == schedule.RolePreCandidate) &&
		(e.Type == schedule.MsgApp || e.Type == schedule.MsgHeartbeat || e.Type == schedule.MsgSnap) {
		toFollower = true
	}
	if !raises && st.role[p] == schedule.RolePreCandidate && term > st.term[p] &&
		(e.Type == schedule.MsgApp || e.Type == schedule.MsgHeartbeat || e.Type == schedule.MsgSnap) {
		toFollower = true
	}
	if raises {
		st.term[p] = term
	}
	if toFollower {
		st.role[p] = schedule.RoleFollower
		st.infer(&e, k, schedule.EvRole, schedule.RoleFollower, schedule.I(schedule.ArgTerm, st.term[p]))
	}
}

// learn records the entries and the commit index an append, heartbeat or
// snapshot gave member p (an append only when p's log holds the entry it
// follows).
func (st *wireState) learn(p int, e *schedule.Event) {
	idx, _ := arg(e, schedule.ArgIndex)
	c, _ := arg(e, schedule.ArgCommit)
	if e.Type == schedule.MsgApp && idx > int64(st.p.Nodes) {
		// An append that does not follow what p holds is rejected: it
		// gives p nothing (its entries are not p's).
		lt, _ := arg(e, schedule.ArgLogTerm)
		if got, ok := st.log[p][idx]; !ok || got != lt {
			return
		}
	}
	ents, _ := sarg(e, schedule.ArgEntries)
	es := splitEntries(ents)
	for j, en := range es {
		st.log[p][idx+1+int64(j)] = en.term
	}
	switch e.Type {
	case schedule.MsgApp:
		c = min(c, idx+int64(len(es)))
	case schedule.MsgSnap:
		si, _ := arg(e, schedule.ArgSnapIndex)
		stm, _ := arg(e, schedule.ArgSnapTerm)
		st.log[p][si] = stm
		c = si
	}
	st.commit[p] = max(st.commit[p], c)
}

type wireEntry struct {
	term int64
	data string
}

func splitEntries(s string) []wireEntry {
	if s == "" {
		return nil
	}
	var out []wireEntry
	for _, part := range strings.Split(s, ",") {
		ts, data, _ := strings.Cut(part, ":")
		t, _ := strconv.ParseInt(ts, 10, 64)
		out = append(out, wireEntry{term: t, data: data})
	}
	return out
}

// answerOf is the type of the answer to a request type.
var answerOf = map[string]string{
	schedule.MsgVote: schedule.MsgVoteResp, schedule.MsgPreVote: schedule.MsgPreVoteResp,
	schedule.MsgApp: schedule.MsgAppResp, schedule.MsgSnap: schedule.MsgAppResp,
	schedule.MsgHeartbeat: schedule.MsgHeartbeatResp,
}

// answer is an answer put right after the request it answers: the
// answer sent (at index from of the trace), or one inferred (from -1).
type answer struct {
	from int
	ev   schedule.Event
}

// pairAnswers finds each received request's answer (see the package
// documentation): after[k] are the answers to put after event k, moved
// the events moved there.
//
// etcd's server sends only the last MsgAppResp of a Ready to a peer
// (etcdserver's processMessages), so a MsgAppResp may answer several
// appends: it is the answer of the latest one it can be (the append whose
// last index it names, or for a rejection the append at the index it
// names), and the appends of its term received before that one get an
// inferred successful answer at their own last index.
func pairAnswers(t schedule.Trace) (after map[int][]answer, moved map[int]bool) {
	after, moved = map[int][]answer{}, map[int]bool{}
	type link struct{ from, to int }
	pending := map[link]map[string][]int{} // requests received, by answer type, in order
	for k := range t {
		e := &t[k]
		switch e.Kind {
		case schedule.EvCrash, schedule.EvExit:
			for l := range pending {
				if l.to == e.Node {
					delete(pending, l)
				}
			}
		case schedule.EvRecv:
			ans, ok := answerOf[e.Type]
			if !ok {
				continue
			}
			l := link{from: e.Peer, to: e.Node}
			if pending[l] == nil {
				pending[l] = map[string][]int{}
			}
			pending[l][ans] = append(pending[l][ans], k)
		case schedule.EvSend:
			l := link{from: e.Peer, to: e.Node} // an answer goes back on the request's link
			q := pending[l][e.Type]
			if len(q) == 0 {
				continue
			}
			term, _ := arg(e, schedule.ArgTerm)
			at := 0
			switch e.Type {
			case schedule.MsgVoteResp, schedule.MsgPreVoteResp:
				// The latest request of a term not above the answer's.
				at = -1
				for i := len(q) - 1; i >= 0; i-- {
					if rt, _ := arg(&t[q[i]], schedule.ArgTerm); rt <= term {
						at = i
						break
					}
				}
			case schedule.MsgAppResp:
				at = appAnswered(t, q, e)
			case schedule.MsgHeartbeatResp:
				// A heartbeat answer carries the heartbeat's term: a member
				// in a later term answers an older heartbeat with a
				// MsgAppResp of its own term, or not at all.
				at = -1
				for i, r := range q {
					if rt, _ := arg(&t[r], schedule.ArgTerm); rt == term {
						at = i
						break
					}
				}
			}
			if at < 0 {
				continue
			}
			rej, _ := arg(e, schedule.ArgReject)
			for _, r := range q[:at] {
				// The appends before the one answered get a successful
				// answer only when the answer is one: a rejection says
				// nothing of them (each may have been rejected too, its
				// answer coalesced away), and unanswered infers from the
				// receiver's log what each one met.
				if e.Type != schedule.MsgAppResp || rej != 0 {
					break
				}
				if rt, _ := arg(&t[r], schedule.ArgTerm); rt == term {
					after[r] = append(after[r], answer{from: -1, ev: inferredAppResp(&t[r], term)})
				}
			}
			r := q[at]
			pending[l][e.Type] = q[at+1:]
			after[r] = append(after[r], answer{from: k, ev: *e})
			moved[k] = true
		}
	}
	return after, moved
}

// lastIndex is the index of the last entry an append (or snapshot) puts
// in the receiver's log.
func lastIndex(e *schedule.Event) int64 {
	if si, ok := arg(e, schedule.ArgSnapIndex); ok {
		return si
	}
	idx, _ := arg(e, schedule.ArgIndex)
	ents, _ := sarg(e, schedule.ArgEntries)
	return idx + int64(len(splitEntries(ents)))
}

// appAnswered is which of the appends q the MsgAppResp a answers, -1 if
// none.
func appAnswered(t schedule.Trace, q []int, a *schedule.Event) int {
	idx, _ := arg(a, schedule.ArgIndex)
	rej, _ := arg(a, schedule.ArgReject)
	for i := len(q) - 1; i >= 0; i-- {
		r := &t[q[i]]
		ri, _ := arg(r, schedule.ArgIndex)
		if rej != 0 && ri == idx || rej == 0 && lastIndex(r) == idx {
			return i
		}
	}
	if rej == 0 {
		// An append already held: the answer names the follower's last index.
		for i := len(q) - 1; i >= 0; i-- {
			if lastIndex(&t[q[i]]) <= idx {
				return i
			}
		}
	}
	return -1
}

// inferredAppResp is the successful answer etcd's server did not send to
// the append r (a later answer of the same Ready replaced it).
func inferredAppResp(r *schedule.Event, term int64) schedule.Event {
	return schedule.Event{Step: r.Step, Kind: schedule.EvSend, Node: r.Node, Peer: r.Peer, Type: schedule.MsgAppResp,
		Args: []schedule.Arg{schedule.I(schedule.ArgTerm, term), schedule.I(schedule.ArgLogTerm, 0),
			schedule.I(schedule.ArgIndex, lastIndex(r)), schedule.I(schedule.ArgCommit, 0), schedule.I(schedule.ArgReject, 0),
			schedule.I(schedule.ArgRejectHint, 0), schedule.S(schedule.ArgEntries, "")}}
}

// failedDeliveries are the receipts the adapter recorded before a
// delivery that failed (a drop event of the same message with a "why").
func failedDeliveries(t schedule.Trace) map[int]bool {
	out := map[int]bool{}
	last := map[int]int{}
	for k := range t {
		e := &t[k]
		switch {
		case e.Kind == schedule.EvRecv:
			last[e.Msg] = k
		case e.Kind == schedule.EvDrop:
			if _, why := sarg(e, "why"); why {
				if r, ok := last[e.Msg]; ok {
					out[r] = true
					out[k] = true
				}
			}
		}
	}
	return out
}
