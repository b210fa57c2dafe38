// # The RedisRaft mapper
//
// Redisraft maps the traces of adapters/redisraft onto models/raft.tla:
// the RAFT.* messages the proxy saw on the wire and the node states INFO
// raft reported after each of them. Process p is server p+1 (RedisRaft's
// node id).
//
// Every execution starts from a cluster restarted from its template: every
// node a follower in the template's term T0 with the same B entries, no
// leader (the trace's first events, the states before the first step, say
// T0 and B). That is raft.tla's Init with Bootstrap "snapshot" shifted:
// term t of the system is term t-T0 of the model, index k (k >= B) is
// index k-B+1, and the template's entries are the model's bootstrap
// snapshot (index 1, term 1; an index below B maps to 1). Entries are records [term |-> t, value |-> v], v ""
// for a new leader's no-op and the client's commands for a client's entry
// ("SET k0 4"), as the adapter writes both.
//
// A cluster formed inside the execution (RedisraftParams.Form, the
// adapter's --redisraft-start form) is mapped from the moment it is formed
// (formEvent): the joins before it (RAFT.NODE ADD, the non-voting phase,
// the configuration entries) are counted unmapped as "formation", because
// raft.tla's configurations take effect when applied and RedisRaft's when
// appended. The formed cluster is then the template's start, its leader
// (if it has one) led through an election in the model's term 1 first, and
// a RAFT.AE that still carries entries of the formation is mapped from the
// formed log's last index on. A cluster of followers whose term had a
// leader during the formation (it crashed and restarted, or stepped down)
// is led the same way, and that leader then crashed and restarted (or
// stepped down) in the model, since its messages of the term may still
// arrive. A message of a term before the formed cluster's is stale at
// every node and counted unmapped ("recv formation message").
//
// Mapped events (the model action follows the event that shows it):
//
//   - recv RAFT.REQUESTVOTE (not a pre-vote) → HandleVoteRequest(i, j,
//     term, lastLogTerm, lastLogIndex, granted): granted as the receiver's
//     reply says.
//   - recv RAFT.REQUESTVOTE reply (a vote) → HandleVoteResponse(i, j,
//     term, granted); a pre-vote's reply of a higher term →
//     HandleVoteResponse(granted FALSE): the node takes the term.
//   - recv RAFT.AE → HandleAppendRequest(i, j, term, prevLogIndex,
//     prevLogTerm, entries, commit, success): success as the reply says.
//   - recv RAFT.AE reply → HandleAppendResponse(i, j, term, success, index,
//     rejectHint = index).
//   - recv RAFT.SNAPSHOT, its last chunk taken → HandleSnapshot(i, j, term,
//     index, snapTerm); its reply (last chunk, taken) →
//     HandleAppendResponse(success, index = the snapshot's).
//   - crash, and a node's own exit → Crash(i); restart → Restart(i).
//   - state changes (INFO raft): to candidate → Timeout(i) (a timeout
//     step's RAFT.TIMEOUT_NOW, or one from a leader handing over, or an
//     election timer won through a pre-vote); to pre-candidate →
//     BecomePreCandidate(i); to leader → BecomeLeader(i, term); leader to
//     follower in the same term → LeaderStepDown(i) (the module's quorum
//     check); at a leader, each new entry beyond the no-op →
//     ClientRequest(i, value) (the value the leader later sends it with,
//     or the request's commands), a commit → AdvanceCommit(i, index); a
//     snapshot not installed from a leader → Snapshot(i, index).
//
// Unmapped events (counted by Unmapped), and why:
//
//   - send, drop, duplicate: the model has no message bag; a message's
//     effect is mapped when it is received.
//   - recv of a stale reply (a term below the receiver's, or a vote reply
//     to an earlier candidacy, which RedisRaft ignores): raft.tla's no-op
//     branch for them is not enabled at a current candidate or leader
//     (see the etcdraft mapper's staleResponse).
//   - recv RAFT.REQUESTVOTE pre-votes and their granted replies: pre-votes
//     are not modelled (winning one shows as the state "candidate").
//   - recv of a snapshot chunk that is not the last, RAFT.TIMEOUT_NOW (the
//     receiver's campaign shows in its state) and its reply,
//     RAFT.NODESHUTDOWN, error replies (nothing changed).
//   - state changes a mapped message already explains (a higher term, a
//     follower's commit), requests at followers (redirected), reads (the
//     leader's quorum round is its messages), responses, redirects,
//     partitions, transfers, ticks, skips.
package mapper

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// RedisraftUnmappable are the actions of adapters/redisraft that raft.tla
// cannot map: none (the adapter has no configuration change).
var RedisraftUnmappable []schedule.Action

// RedisraftParams is what the mapper needs to know of the cluster.
type RedisraftParams struct {
	Nodes int // processes 0..Nodes-1 are the model's servers 1..Nodes
	// Form: the executions form their cluster (RAFT.CLUSTER INIT and
	// JOIN) instead of starting from a template.
	Form bool
}

// Redisraft maps adapters/redisraft traces onto models/raft.tla. It is
// safe for concurrent use.
type Redisraft struct {
	p RedisraftParams

	mu       sync.Mutex
	unmapped map[string]int
}

// NewRedisraft returns the mapper for the traces of a cluster of p.Nodes.
func NewRedisraft(p RedisraftParams) *Redisraft {
	return &Redisraft{p: p, unmapped: map[string]int{}}
}

// Consts are the model's constants that must match the system.
func (m *Redisraft) Consts() []string {
	ids := make([]string, m.p.Nodes)
	for i := range ids {
		ids[i] = strconv.Itoa(i + 1)
	}
	return []string{"Servers={" + strings.Join(ids, ",") + "}", "InitVoters={" + strings.Join(ids, ",") + "}",
		"Bootstrap=\"snapshot\""}
}

// Note says how the system's numbers map onto the model's.
func (m *Redisraft) Note() string {
	return "terms and indexes are shifted: term t of the system is term t-T0 of the model and index k is index k-B+1 (the template's last entry is the bootstrap snapshot at index 1), T0 and B the term and last index of the cluster's template (its nodes' states before the first step)"
}

// Unmapped returns how many events of each kind the mapper left out, over
// all the traces it mapped (a copy).
func (m *Redisraft) Unmapped() map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]int, len(m.unmapped))
	for k, v := range m.unmapped {
		out[k] = v
	}
	return out
}

// rrNode is what the mapper knows of one node: its last state, and
// whether the model has it up.
type rrNode struct {
	role                      string
	term, index, commit, snap int64
	down                      bool
	installed                 bool // its last snapshot came from a leader
	known                     bool
	voters, leader            int64 // as INFO raft reports them (leader: a process, -1 for none)
}

// rrMap is the state of one Map call.
type rrMap struct {
	p        RedisraftParams
	t        schedule.Trace
	out      []schedule.ModelAction
	unmapped map[string]int
	nodes    []rrNode
	t0, base int64
	cur      int
	// forming: the cluster is formed inside the execution and not formed
	// yet (see formEvent); formedIdx is the last index of the formed
	// cluster's log, every entry up to which is inside the model's
	// bootstrap.
	forming    bool
	formedIdx  int64
	formedTerm int64 // the formed cluster's term (every node's when it formed)
	// ledBy is, for each term of the formation, the process a node's
	// state named its leader (a leader itself, or a follower's leader);
	// crashedIn holds the nodes that crashed in a term (a leader of the
	// term that did came back a follower; one that did not stepped down).
	ledBy     map[int64]int
	crashedIn map[[2]int64]bool
}

// Map implements schedule.Mapper.
func (m *Redisraft) Map(_ *schedule.Input, ex *schedule.Execution) ([]schedule.ModelAction, error) {
	st := &rrMap{p: m.p, t: ex.Trace, unmapped: map[string]int{}, nodes: make([]rrNode, m.p.Nodes), forming: m.p.Form,
		ledBy: map[int64]int{}, crashedIn: map[[2]int64]bool{}}
	if !st.forming {
		if err := st.initial(); err != nil {
			return nil, err
		}
	}
	for k := range st.t {
		st.cur = k
		if st.forming {
			if err := st.formEvent(k); err != nil {
				return nil, err
			}
			continue
		}
		if err := st.event(k); err != nil {
			return nil, err
		}
	}
	m.mu.Lock()
	for k, v := range st.unmapped {
		m.unmapped[k] += v
	}
	m.mu.Unlock()
	return st.out, nil
}

// initial reads the template's term and last index from the states the
// trace starts with.
func (st *rrMap) initial() error {
	seen := 0
	for i := range st.t {
		e := &st.t[i]
		if e.Kind != schedule.RREvState || e.Step != 0 {
			break
		}
		v, err := st.need(e, schedule.ArgTerm, schedule.ArgIndex)
		if err != nil {
			return err
		}
		if seen > 0 && (v[0] != st.t0 || v[1] != st.base) {
			return fmt.Errorf("redisraft mapper: the nodes do not start alike (n%d: term %d, index %d; n1: term %d, index %d)", e.Node+1, v[0], v[1], st.t0, st.base)
		}
		st.t0, st.base = v[0], v[1]
		seen++
	}
	if seen != st.p.Nodes {
		return fmt.Errorf("redisraft mapper: the trace starts with %d node states, want one per node (%d)", seen, st.p.Nodes)
	}
	return nil
}

func (st *rrMap) add(e *schedule.Event, name string, params map[string]any) {
	st.out = append(st.out, schedule.ModelAction{Name: name, Params: params, Step: e.Step, Event: st.cur})
}

func (st *rrMap) skip(key string) { st.unmapped[key]++ }

func (st *rrMap) need(e *schedule.Event, keys ...string) ([]int64, error) {
	vs := make([]int64, len(keys))
	for i, k := range keys {
		v, ok := arg(e, k)
		if !ok {
			return nil, fmt.Errorf("redisraft mapper: %s event %s of n%d has no %q", e.Kind, e.Type, e.Node+1, k)
		}
		vs[i] = v
	}
	return vs, nil
}

// mTerm is the model's term of the system's term t.
func (st *rrMap) mTerm(t int64) int64 { return max(t-st.t0, 0) }

// mIndex is the model's index of the system's index k: the template's
// last entry is the model's bootstrap snapshot at index 1, and an index
// inside the template (identical at every node) is that snapshot too.
func (st *rrMap) mIndex(k int64) int64 { return max(k-st.base+1, 1) }

// mEntryTerm is the model's term of the system's entry (k, t): the
// template's entries are the bootstrap snapshot's, term 1.
func (st *rrMap) mEntryTerm(k, t int64) int64 {
	if k <= st.base {
		return 1
	}
	return st.mTerm(t)
}

func (st *rrMap) event(k int) error {
	e := &st.t[k]
	switch e.Kind {
	case schedule.EvRecv:
		return st.recv(k)
	case schedule.RREvState:
		if e.Step == 0 && !st.nodes[e.Node].known {
			// The initial state: raft.tla's Init.
			return st.learn(e)
		}
		return st.state(k)
	case schedule.EvCrash, schedule.EvExit:
		st.add(e, "Crash", map[string]any{"i": server(e.Node)})
		st.nodes[e.Node].down = true
		st.nodes[e.Node].role = schedule.RRFollower
	case schedule.EvRestart:
		st.add(e, "Restart", map[string]any{"i": server(e.Node)})
		st.nodes[e.Node].down = false
		st.nodes[e.Node].role = schedule.RRFollower
	default:
		st.skip(e.Kind)
	}
	return nil
}

// learn records a node's state.
func (st *rrMap) learn(e *schedule.Event) error {
	v, err := st.need(e, schedule.ArgTerm, schedule.ArgIndex, schedule.ArgCommit, schedule.ArgSnapIndex)
	if err != nil {
		return err
	}
	n := &st.nodes[e.Node]
	n.role, n.term, n.index, n.commit, n.snap, n.known = e.Type, v[0], v[1], v[2], v[3], true
	n.voters, _ = arg(e, schedule.RRArgVoters)
	n.leader = -1
	if l, ok := arg(e, schedule.RRArgLeader); ok {
		n.leader = l
	}
	return nil
}

// state maps the changes of a node's state that no mapped message shows.
func (st *rrMap) state(k int) error {
	e := &st.t[k]
	p := e.Node
	i := server(p)
	n := st.nodes[p]
	v, err := st.need(e, schedule.ArgTerm, schedule.ArgIndex, schedule.ArgCommit, schedule.ArgSnapIndex)
	if err != nil {
		return err
	}
	term, index, commit, snap := v[0], v[1], v[2], v[3]
	mapped := false
	if e.Type == schedule.RRCandidate && n.role == schedule.RRCandidate && term > n.term {
		// A candidate whose election timed out (or a timeout step) starts
		// the next one.
		st.add(e, "Timeout", map[string]any{"i": i})
		mapped = true
	}
	if e.Type != n.role {
		switch e.Type {
		case schedule.RRPreCandidate:
			st.add(e, "BecomePreCandidate", map[string]any{"i": i})
			mapped = true
		case schedule.RRCandidate:
			st.add(e, "Timeout", map[string]any{"i": i})
			mapped = true
		case schedule.RRLeader:
			if n.role != schedule.RRCandidate {
				st.add(e, "Timeout", map[string]any{"i": i})
			}
			st.add(e, "BecomeLeader", map[string]any{"i": i, "term": st.mTerm(term)})
			n.index++ // the no-op the model's BecomeLeader appends
			mapped = true
		case schedule.RRFollower:
			if n.role == schedule.RRLeader && term == n.term {
				st.add(e, "LeaderStepDown", map[string]any{"i": i})
				mapped = true
			}
		}
	}
	if e.Type == schedule.RRLeader && term == n.term || e.Type == schedule.RRLeader && n.role != schedule.RRLeader {
		for x := n.index + 1; x <= index; x++ {
			st.add(e, "ClientRequest", map[string]any{"i": i, "value": st.entryValue(k, p, term, x)})
			mapped = true
		}
		if commit > n.commit && commit > st.base {
			st.add(e, "AdvanceCommit", map[string]any{"i": i, "index": st.mIndex(commit)})
			mapped = true
		}
	}
	if snap > n.snap && !n.installed && snap > st.base {
		st.add(e, "Snapshot", map[string]any{"i": i, "index": st.mIndex(snap)})
		mapped = true
	}
	if !mapped {
		st.skip("state")
	}
	installed := n.installed && snap == n.snap
	if err := st.learn(e); err != nil {
		return err
	}
	st.nodes[p].installed = installed
	return nil
}

// entryValue is the value of the entry at index x that leader p appended
// in term: as the first RAFT.AE of p in that term that carries it says
// (from the step of event k on),
// else the commands of the request p took in the step of event k.
func (st *rrMap) entryValue(k, p int, term, x int64) string {
	// The leader's state is polled after the step's sends: look from the
	// step's first event.
	from := k
	for from > 0 && st.t[from-1].Step == st.t[k].Step {
		from--
	}
	for j := from; j < len(st.t); j++ {
		e := &st.t[j]
		if e.Kind != schedule.EvSend || e.Node != p || e.Type != schedule.RRAppendEntries {
			continue
		}
		t, _ := arg(e, schedule.ArgTerm)
		if t != term {
			if t > term {
				break
			}
			continue
		}
		prev, _ := arg(e, schedule.ArgIndex)
		s, _ := sarg(e, schedule.ArgEntries)
		ents := rrSplitEntries(s)
		if x > prev && x-prev <= int64(len(ents)) {
			_, val, _ := strings.Cut(ents[x-prev-1], ":")
			return val
		}
	}
	for j := k; j >= 0 && st.t[j].Step == st.t[k].Step; j-- {
		if e := &st.t[j]; e.Kind == schedule.EvRequest && e.Node == p {
			if c, ok := sarg(e, schedule.RRArgCmd); ok {
				return c
			}
		}
	}
	return "?"
}

func rrSplitEntries(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// reply finds the answer the receiver of the recv event k sent back: the
// next send of the reply type from the receiver to the sender in the same
// step (the proxy reads it before anything else happens).
func (st *rrMap) reply(k int) *schedule.Event {
	r := &st.t[k]
	want := r.Type + schedule.RRReplySuffix
	for x := k + 1; x < len(st.t); x++ {
		e := &st.t[x]
		if e.Step != r.Step {
			return nil
		}
		if e.Kind == schedule.EvSend && e.Node == r.Node && e.Peer == r.Peer && e.Type == want {
			return e
		}
	}
	return nil
}

// recv maps the receipt of a message, by its type.
func (st *rrMap) recv(k int) error {
	e := &st.t[k]
	if _, isErr := sarg(e, schedule.RRArgError); isErr {
		st.skip("recv error reply")
		return nil
	}
	if t, ok := arg(e, schedule.ArgTerm); ok && st.formedTerm > 0 && t < st.formedTerm {
		// A message of a term of the formation, before the formed
		// cluster's: stale at every node (all were in the formed term),
		// and of a term the model never had.
		st.skip("recv formation message")
		return nil
	}
	switch e.Type {
	case schedule.RRRequestVote:
		return st.recvVote(k)
	case schedule.RRRequestVote + schedule.RRReplySuffix:
		return st.recvVoteReply(e)
	case schedule.RRAppendEntries:
		return st.recvAE(k)
	case schedule.RRAppendEntries + schedule.RRReplySuffix:
		return st.recvAEReply(e)
	case schedule.RRSnapshot:
		return st.recvSnapshot(k)
	case schedule.RRSnapshot + schedule.RRReplySuffix:
		return st.recvSnapshotReply(e)
	}
	st.skip("recv " + e.Type)
	return nil
}

func (st *rrMap) recvVote(k int) error {
	e := &st.t[k]
	v, err := st.need(e, schedule.ArgTerm, schedule.ArgLogTerm, schedule.ArgIndex, schedule.RRArgPrevote)
	if err != nil {
		return err
	}
	if v[3] != 0 {
		st.skip("recv pre-vote")
		return nil
	}
	granted := false
	if r := st.reply(k); r != nil {
		g, _ := arg(r, schedule.RRArgGranted)
		granted = g != 0
	}
	st.add(e, "HandleVoteRequest", map[string]any{"i": server(e.Node), "j": server(e.Peer), "term": st.mTerm(v[0]),
		"lastLogTerm": st.mEntryTerm(v[2], v[1]), "lastLogIndex": st.mIndex(v[2]), "granted": granted})
	return nil
}

func (st *rrMap) recvVoteReply(e *schedule.Event) error {
	v, err := st.need(e, schedule.ArgTerm, schedule.RRArgGranted, schedule.RRArgReqTerm, schedule.RRArgPrevote)
	if err != nil {
		return err
	}
	n := st.nodes[e.Node]
	term := v[0]
	switch {
	case term > n.term:
		// A higher term: the receiver takes it, whatever the answer.
		st.add(e, "HandleVoteResponse", map[string]any{"i": server(e.Node), "j": server(e.Peer), "term": st.mTerm(term), "granted": false})
	case v[3] != 0:
		st.skip("recv pre-vote reply")
	case term < n.term || v[2] != n.term || n.role != schedule.RRCandidate:
		st.skip("recv stale RAFT.REQUESTVOTE reply")
	default:
		st.add(e, "HandleVoteResponse", map[string]any{"i": server(e.Node), "j": server(e.Peer), "term": st.mTerm(term), "granted": v[1] != 0})
	}
	return nil
}

func (st *rrMap) recvAE(k int) error {
	e := &st.t[k]
	v, err := st.need(e, schedule.ArgTerm, schedule.ArgLogTerm, schedule.ArgIndex, schedule.ArgCommit)
	if err != nil {
		return err
	}
	s, _ := sarg(e, schedule.ArgEntries)
	all := rrSplitEntries(s)
	if v[2] < st.formedIdx {
		// Entries of the formation, which every node holds (the
		// bootstrap's): left out, the message starts at its end.
		drop := min(st.formedIdx-v[2], int64(len(all)))
		all = all[drop:]
		v[2], v[1] = st.formedIdx, st.formedTerm
	}
	var ents []any
	for x, ent := range all {
		ts, val, ok := strings.Cut(ent, ":")
		t, err := strconv.ParseInt(ts, 10, 64)
		if !ok || err != nil {
			return fmt.Errorf("redisraft mapper: bad entry %q in %q", ent, s)
		}
		ents = append(ents, map[string]any{"term": st.mEntryTerm(v[2]+int64(x)+1, t), "value": val})
	}
	if ents == nil {
		ents = []any{}
	}
	success := false
	if r := st.reply(k); r != nil {
		ok, _ := arg(r, schedule.RRArgSuccess)
		success = ok != 0
	}
	st.add(e, "HandleAppendRequest", map[string]any{"i": server(e.Node), "j": server(e.Peer), "term": st.mTerm(v[0]),
		"prevLogIndex": st.mIndex(v[2]), "prevLogTerm": st.mEntryTerm(v[2], v[1]),
		"entries": ents, "commit": st.mIndex(v[3]), "success": success})
	return nil
}

func (st *rrMap) recvAEReply(e *schedule.Event) error {
	v, err := st.need(e, schedule.ArgTerm, schedule.RRArgSuccess, schedule.ArgIndex)
	if err != nil {
		return err
	}
	n := st.nodes[e.Node]
	if v[0] < n.term || v[0] == n.term && n.role != schedule.RRLeader {
		st.skip("recv stale RAFT.AE reply")
		return nil
	}
	idx := st.mIndex(v[2])
	st.add(e, "HandleAppendResponse", map[string]any{"i": server(e.Node), "j": server(e.Peer), "term": st.mTerm(v[0]),
		"success": v[1] != 0, "index": idx, "rejectHint": idx})
	return nil
}

func (st *rrMap) recvSnapshot(k int) error {
	e := &st.t[k]
	v, err := st.need(e, schedule.ArgTerm, schedule.ArgSnapIndex, schedule.ArgSnapTerm, schedule.RRArgLast)
	if err != nil {
		return err
	}
	r := st.reply(k)
	ok := int64(0)
	if r != nil {
		ok, _ = arg(r, schedule.RRArgSuccess)
	}
	if v[3] == 0 || ok == 0 {
		st.skip("recv RAFT.SNAPSHOT chunk")
		return nil
	}
	st.add(e, "HandleSnapshot", map[string]any{"i": server(e.Node), "j": server(e.Peer), "term": st.mTerm(v[0]),
		"index": st.mIndex(v[1]), "snapTerm": st.mEntryTerm(v[1], v[2]), "conf": st.allVoters()})
	st.nodes[e.Node].installed = true
	return nil
}

func (st *rrMap) recvSnapshotReply(e *schedule.Event) error {
	v, err := st.need(e, schedule.ArgTerm, schedule.RRArgSuccess, schedule.ArgSnapIndex, schedule.RRArgLast)
	if err != nil {
		return err
	}
	n := st.nodes[e.Node]
	if v[1] == 0 || v[3] == 0 || v[0] < n.term || v[0] == n.term && n.role != schedule.RRLeader {
		st.skip("recv RAFT.SNAPSHOT reply")
		return nil
	}
	idx := st.mIndex(v[2])
	st.add(e, "HandleAppendResponse", map[string]any{"i": server(e.Node), "j": server(e.Peer), "term": st.mTerm(v[0]),
		"success": true, "index": idx, "rejectHint": idx})
	return nil
}

// allVoters is the model's configuration of the cluster (every node a
// voter), as a snapshot's conf parameter reports it.
func (st *rrMap) allVoters() map[string]any {
	ids := make([]int64, st.p.Nodes)
	for i := range ids {
		ids[i] = int64(i + 1)
	}
	return map[string]any{"voters": ids, "outgoing": []int64{}, "learners": []int64{},
		"learnersNext": []int64{}, "auto": false}
}

// formEvent handles event k of an execution that forms its cluster
// (RedisraftParams.Form), until the cluster is formed: every node up, a
// voter of a configuration of all of them, all in one term with logs of
// one length, and either all followers or one leader that has committed
// its whole log, the others following it. Until then nothing is mapped
// (the events are counted as "formation": raft.tla's configurations are
// etcd's, applied when committed, where RedisRaft's take effect when
// appended, so joins are not mapped onto its reconfiguration actions).
// The formed cluster is the model's Init: its log is the bootstrap
// snapshot; all followers, its term is the model's term 0 (the template's
// mapping); with a leader L of term T, the model is first led through L's
// election in term 1 and the commit of its no-op at index 2, which stands
// for the log's last entry (of term T: L appended it, after its own no-op).
func (st *rrMap) formEvent(k int) error {
	e := &st.t[k]
	st.skip("formation")
	switch e.Kind {
	case schedule.RREvState:
		if err := st.learn(e); err != nil {
			return err
		}
		n := st.nodes[e.Node]
		switch {
		case n.role == schedule.RRLeader:
			st.ledBy[n.term] = e.Node
		case n.leader >= 0 && int(n.leader) < len(st.nodes):
			if _, seen := st.ledBy[n.term]; !seen {
				st.ledBy[n.term] = int(n.leader)
			}
		}
	case schedule.EvCrash, schedule.EvExit:
		st.nodes[e.Node].down = true
		st.crashedIn[[2]int64{st.nodes[e.Node].term, int64(e.Node)}] = true
		return nil
	case schedule.EvRestart:
		st.nodes[e.Node].down, st.nodes[e.Node].known = false, false
		return nil
	default:
		return nil
	}
	leader, ok := st.formedNow()
	if !ok {
		return nil
	}
	st.unmapped["formation"]--
	st.forming = false
	n0 := st.nodes[0]
	st.formedIdx, st.formedTerm = n0.index, n0.term
	st.t0, st.base = n0.term, n0.index
	// A cluster of followers in a term that had a leader (the leader
	// crashed and came back, or stepped down, while the formation was
	// going on) is led in that term all the same: the leader's messages
	// of the term may still be in flight, and the model must have it as
	// the term's leader to take them.
	l0, demoted := leader, false
	if leader < 0 {
		if l, led := st.ledBy[n0.term]; led {
			l0, demoted = l, true
		}
	}
	if l0 < 0 {
		return nil
	}
	// Term T is the model's 1, index B its 2.
	st.t0, st.base = n0.term-1, n0.index-1
	st.leadFormed(e, l0)
	if demoted {
		li := server(l0)
		if st.crashedIn[[2]int64{n0.term, int64(l0)}] {
			st.add(e, "Crash", map[string]any{"i": li})
			st.add(e, "Restart", map[string]any{"i": li})
		} else {
			st.add(e, "LeaderStepDown", map[string]any{"i": li})
		}
	}
	return nil
}

// leadFormed leads the model through the election of the formed
// cluster's leader (process leader) in term 1 and the commit of its no-op
// at index 2, which stands for the formed log's last entry.
func (st *rrMap) leadFormed(e *schedule.Event, leader int) {
	l := server(leader)
	st.add(e, "Timeout", map[string]any{"i": l})
	for p := range st.nodes {
		if p == leader {
			continue
		}
		st.add(e, "HandleVoteRequest", map[string]any{"i": server(p), "j": l, "term": int64(1),
			"lastLogTerm": int64(1), "lastLogIndex": int64(1), "granted": true})
		st.add(e, "HandleVoteResponse", map[string]any{"i": l, "j": server(p), "term": int64(1), "granted": true})
	}
	st.add(e, "BecomeLeader", map[string]any{"i": l, "term": int64(1)})
	noop := []any{map[string]any{"term": int64(1), "value": ""}}
	for p := range st.nodes {
		if p == leader {
			continue
		}
		st.add(e, "HandleAppendRequest", map[string]any{"i": server(p), "j": l, "term": int64(1),
			"prevLogIndex": int64(1), "prevLogTerm": int64(1), "entries": noop, "commit": int64(1), "success": true})
		st.add(e, "HandleAppendResponse", map[string]any{"i": l, "j": server(p), "term": int64(1),
			"success": true, "index": int64(2), "rejectHint": int64(2)})
	}
	st.add(e, "AdvanceCommit", map[string]any{"i": l, "index": int64(2)})
	for p := range st.nodes {
		if p == leader {
			continue
		}
		st.add(e, "HandleAppendRequest", map[string]any{"i": server(p), "j": l, "term": int64(1),
			"prevLogIndex": int64(2), "prevLogTerm": int64(1), "entries": []any{}, "commit": int64(2), "success": true})
	}
}

// formedNow says whether the nodes' last states are those of a formed
// cluster (see formEvent), and its leader's process (-1 for none).
func (st *rrMap) formedNow() (int, bool) {
	leader := -1
	first := st.nodes[0]
	for p, n := range st.nodes {
		if !n.known || n.down || n.voters != int64(st.p.Nodes) || n.term != first.term || n.index != first.index || n.index == 0 {
			return -1, false
		}
		switch n.role {
		case schedule.RRFollower:
		case schedule.RRLeader:
			if leader >= 0 {
				return -1, false
			}
			leader = p
		default:
			return -1, false
		}
	}
	if leader >= 0 {
		if st.nodes[leader].commit != st.nodes[leader].index {
			return -1, false
		}
		for p, n := range st.nodes {
			if p != leader && n.leader != int64(leader) {
				return -1, false
			}
		}
	}
	return leader, true
}
