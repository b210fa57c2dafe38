// # The etcdraft mapper
//
// Etcdraft maps the traces of adapters/etcdraft onto models/raft.tla.
// Process p is server p+1; the model's indexes and terms are the system's
// (its constant Bootstrap says how the cluster started). Entries are
// records [term |-> t, value |-> data], data "" for the empty entry a new
// leader appends and "v=<n>" for client requests; a configuration entry
// (data "conf:...") adds conf |-> [kind, voters, learners, remove], the
// change it makes (see parseConfData).
//
// Mapped events (the model action follows the event that shows it):
//
//   - recv MsgVote → HandleVoteRequest(i, j, term, lastLogTerm,
//     lastLogIndex, granted): granted when i answered with a MsgVoteResp
//     without reject before its next receive.
//   - recv MsgVoteResp → HandleVoteResponse(i, j, term, granted).
//   - recv MsgApp → HandleAppendRequest(i, j, term, prevLogIndex,
//     prevLogTerm, entries, commit, success): success when i answered with a
//     MsgAppResp of the request's term without reject.
//   - recv MsgHeartbeat → HandleAppendRequest with no entries and
//     prevLogIndex = commit: etcd's heartbeat carries min(match, commit), an
//     index the follower holds, and the follower commits up to it. The
//     term of that entry (prevLogTerm) is the event's committerm (the term
//     of that entry in the sender's log, which the adapter adds), or else
//     the term of the committed entry at that index known from earlier
//     apply, snapshot and install events.
//     success when i answered with a MsgHeartbeatResp.
//   - recv MsgAppResp → HandleAppendResponse(i, j, term, success, index,
//     rejectHint); also the answers to MsgSnap and, with CheckQuorum or
//     PreVote, to stale MsgApp and MsgHeartbeat.
//   - recv MsgSnap → HandleSnapshot(i, j, term, index, snapTerm, conf),
//     conf the snapshot's configuration (the bootstrap's when the adapter
//     does not report it).
//   - append at a leader (Appends) → ClientRequest(i, value) for each entry,
//     ProposeConf(i, value, conf) for a configuration change, except the
//     empty entry BecomeLeader appended.
//   - conf (a configuration entry applied) → ApplyConf(i, index, config),
//     config as the adapter reports it.
//   - progress → FollowerProgress(i, j, match, next, state).
//   - recv rejected MsgPreVoteResp of a term above the receiver's →
//     HandleVoteResponse(granted FALSE): etcd steps down to that term.
//   - recv of any other message of a term above the receiver's (an answer
//     to a heartbeat or a read, MsgTimeoutNow, a forwarded
//     MsgTransferLeader) → UpdateTerm(i, j, term) before what the message
//     itself maps to: etcd moves to every higher term it hears of, except
//     from pre-vote requests, granted pre-votes and vote requests it
//     ignores in a leader lease.
//   - timeout → Timeout(i) (without PreVote) or BecomePreCandidate(i) (with
//     PreVote), when i campaigned: it changed role or asked for votes in
//     the same step (etcd ignores the campaign of a leader, of a server
//     outside its configuration or a learner, and of one with
//     configuration entries committed and not applied).
//   - role "follower" at a leader whose term did not change →
//     LeaderStepDown(i): CheckQuorum saw no quorum active in an election
//     timeout (a step down to a higher term is part of the mapped message
//     that carried it).
//   - role "candidate" → Timeout(i) when the timeout did not already map to
//     it (PreVote: the pre-vote was won); role "precandidate" →
//     BecomePreCandidate(i) likewise; role "leader" → BecomeLeader(i, term)
//     (preceded by Timeout(i) when a single-node cluster skips the
//     candidate role event).
//   - without append events (the process adapter): request at a leader
//     and recv MsgProp at a leader, unless the next event says the leader
//     dropped the proposal (a leader transfer is under way) →
//     ClientRequest(i, "v=<n>"), once per proposed entry.
//   - commit at a leader → AdvanceCommit(i, index).
//   - snapshot → Snapshot(i, index).
//   - crash → Crash(i); restart → Restart(i).
//   - Reads (ReadIndex), counted: send MsgReadIndex to a live process →
//     SendReadIndex(i, j); duplicate and drop of a MsgReadIndex →
//     DuplicateReadIndex(i, late), DropReadIndex(i, late, twin); recv
//     MsgReadIndex → HandleReadIndex(i, j, late, copies, twin); read at a
//     leader → ReadLocal(i); a leader's send of MsgReadIndexResp, and a
//     read state at a leader that is not the answer to a MsgReadIndexResp
//     it received → ConfirmRead(i, stale, twin): stale when answers to the
//     heartbeats of the reads answered are still on their way, twin when
//     a late copy of one of those reads is too (see hbFlight).
//   - Stale answers: the end of one (its leader receives it, the network
//     drops it or the heartbeat it answers, a crash loses it, its
//     follower does not answer) → StaleAnswer(i, more, twin), i the
//     leader that sent the heartbeat.
//
// Unmapped events (counted by Unmapped), and why:
//
//   - send, and unsent (the messages of a Ready that a crash at the
//     after-persist point kept from leaving; they count as the receiver's
//     answer, which no one receives), except those of reads above: the
//     model has no message bag; a message's effect is mapped when it is
//     received. A MsgReadIndex sent to a crashed process is lost.
//   - drop and duplicate of other messages: seen when (if) received
//     (those of a stale answer's chain are followed, see above).
//   - read at a non-leader: forwarded (a send) or dropped (no leader
//     known); recv MsgReadIndexResp and the read state it gives: the
//     follower's side of a read its leader confirmed.
//   - recv MsgHeartbeatResp (of the receiver's term or below): the
//     leader's state the model tracks does not change (etcd only resumes
//     sending appends).
//   - recv MsgPreVote, granted MsgPreVoteResp and rejected MsgPreVoteResp
//     that do not raise the term: pre-vote messages are not modelled
//     (winning the pre-vote shows as the role event "candidate").
//   - recv MsgProp at a non-leader: forwarded (a send) or dropped.
//   - request at a non-leader: forwarded as MsgProp or dropped; with
//     append events, requests and MsgProp at all (what the leader
//     appended is the append event).
//   - propose-conf, conf-refused: the entry a leader appends is the
//     append event; whether the library takes it when it is applied, the
//     model says (raft.tla's Valid).
//   - commit at a non-leader: part of the HandleAppendRequest or
//     HandleSnapshot of the message that advanced it.
//   - install: part of HandleSnapshot.
//   - role "follower": the consequence of a mapped message (a higher term, a
//     lost vote); a precandidate losing its pre-vote has no model action and
//     stays "precandidate" in the model.
//   - recv MsgVote of a higher term that a CheckQuorum node ignores in its
//     leader lease (no answer, no new term): as if the message were lost.
//   - timeout at a leader: etcd ignores it.
//   - recv MsgVoteResp and MsgAppResp of a term below the receiver's (the
//     mapper tracks each node's term): etcd ignores them, and raft.tla's
//     no-op branch for them is not enabled at a current candidate (leader)
//     as written (see staleResponse).
//   - apply, proposal (dropped), skip: no protocol state changes.
//   - conf events of an entry the mapper saw applied before it and no
//     restart or snapshot since: none on the correct adapter.
//   - hold, held, waiting and persist (a node's storage holding its
//     writes): raft.tla's state is durable the moment a message is
//     handled; a message waiting for a held write counts as the answer of
//     the receive it answers, as an unsent one does.
//   - lost, and every event after it: a crash lost writes a node's
//     storage held, and raft.tla has no state for a node that comes back
//     without them; the execution is mapped up to there ("after a crash
//     lost held writes").
package mapper

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// EtcdraftParams is what the etcdraft mapper needs to know of the cluster
// that made a trace. The caller copies it from the system's configuration:
// the mapper does not import the adapters it maps.
type EtcdraftParams struct {
	// Nodes: processes 0..Nodes-1 are the voters of the bootstrap
	// configuration, the model's servers 1..Nodes (InitVoters).
	Nodes int
	// Spares: processes Nodes..Nodes+Spares-1 start outside it.
	Spares int `json:",omitempty"`
	// BootLog: the cluster starts from the library's bootstrap (one
	// configuration entry per voter), not from a snapshot at index 1.
	BootLog bool `json:",omitempty"`
	// Appends: the adapter reports what a leader appends (append events)
	// and what it believes of its followers (progress events), as
	// adapters/etcdraft does; without them (a process) proposals are
	// mapped from requests and MsgProp.
	Appends bool `json:",omitempty"`
	// PreVote: a timeout is BecomePreCandidate, not Timeout.
	PreVote bool
	// CheckQuorum: a vote request of a higher term that gets no answer was
	// ignored in a leader lease, not handled.
	CheckQuorum bool
	// ReadStates: the adapter reports every read state as a readindex
	// event (adapters/etcdraft does; a process may not). Without them a
	// leader's own reads are left out: their confirmation is not seen.
	ReadStates bool
}

// Etcdraft maps adapters/etcdraft traces onto models/raft.tla. It is safe
// for concurrent use.
type Etcdraft struct {
	p EtcdraftParams

	mu       sync.Mutex
	unmapped map[string]int
}

// NewEtcdraft returns the mapper for the traces of a cluster with the
// parameters p.
func NewEtcdraft(p EtcdraftParams) *Etcdraft {
	return &Etcdraft{p: p, unmapped: map[string]int{}}
}

// Consts are the model's constants that must match the system: its
// servers, the bootstrap's voters and how it starts.
func (m *Etcdraft) Consts() []string {
	ids := make([]string, m.p.Nodes+m.p.Spares)
	for i := range ids {
		ids[i] = strconv.Itoa(i + 1)
	}
	boot := "snapshot"
	if m.p.BootLog {
		boot = "log"
	}
	return []string{"Servers={" + strings.Join(ids, ",") + "}", "InitVoters={" + strings.Join(ids[:m.p.Nodes], ",") + "}",
		"Bootstrap=\"" + boot + "\""}
}

// processes is how many processes the cluster has.
func (p EtcdraftParams) processes() int { return p.Nodes + p.Spares }

// bootIndex is the last index of the bootstrap: its snapshot's, or its
// last configuration entry's.
func (p EtcdraftParams) bootIndex() int64 {
	if p.BootLog {
		return int64(p.Nodes)
	}
	return 1
}

// Unmapped returns how many events of each kind the mapper left out, over
// all the traces it mapped (a copy).
func (m *Etcdraft) Unmapped() map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]int, len(m.unmapped))
	for k, v := range m.unmapped {
		out[k] = v
	}
	return out
}

// UnmappedKeys returns the keys of Unmapped, sorted.
func (m *Etcdraft) UnmappedKeys() []string {
	u := m.Unmapped()
	keys := make([]string, 0, len(u))
	for k := range u {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func sarg(e *schedule.Event, key string) (string, bool) {
	for _, a := range e.Args {
		if a.Key == key && a.IsStr {
			return a.Str, true
		}
	}
	return "", false
}

// staleResponse counts the vote and append responses of a term below the
// receiver's, which etcd ignores. raft.tla means to allow them without a
// change (the last disjunct of HandleVoteResponse and HandleAppendResponse)
// but writes "term < currentTerm[i] \/ term = currentTerm[i] /\ role[i] #
// R" without parentheses, which parses as "(... \/ ...) /\ role[i] # R": a
// stale response to a current candidate (leader) is not enabled. Leaving
// them out is the intended no-op.
const staleResponse = "recv stale MsgVoteResp/MsgAppResp (ignored by etcd)"

// outsideResponse counts the responses from outside the receiver's
// configuration, which the library drops (etcdMembers).
const outsideResponse = "recv a response from outside the receiver's configuration (dropped by RawNode.Step)"

// etcdMap is the state of one Map call.
type etcdMap struct {
	p        EtcdraftParams
	t        schedule.Trace
	out      []schedule.ModelAction
	unmapped map[string]int
	role     []string
	term     []int64
	// leaderTerm is the term in which each process last became leader.
	leaderTerm []int64
	// committed is the term of the committed entry at each system index,
	// from apply, snapshot and install events.
	committed map[int64]int64
	// down marks the crashed processes: a message sent to one is lost.
	down []bool
	// reads follows the ReadIndex requests in flight: each message's
	// request (the id of its first send), and per request its receiver,
	// its copies in flight and whether one has been received.
	reads readFlight
	// answered counts the MsgReadIndexResp each process received whose
	// read state has not shown yet: that read state is a follower's
	// answer, not a read its own leadership confirmed.
	answered []int
	// hb follows the heartbeats that confirm reads and their answers,
	// to tell the stale answers (raft.tla's readStale).
	hb hbFlight
	// emptyEntry marks the leaders whose append event will show the empty
	// entry of their term, which BecomeLeader appended in the model.
	emptyEntry []bool
	// lost: a crash lost writes a node's storage held; the rest of the
	// trace is not mapped (afterLostWrites).
	lost bool
	// cur is the index of the event being mapped.
	cur int
	// members follows each node's progress tracker, whose responses
	// from outside it the library drops.
	members etcdMembers
}

// afterLostWrites counts the events after a crash lost writes that a
// node's storage held (hold-writes): raft.tla's state is durable the
// moment a message is handled, so it has no state for a node that comes
// back without them, and the rest of such an execution is not mapped.
const afterLostWrites = "after a crash lost held writes"

// Map implements schedule.Mapper.
func (m *Etcdraft) Map(_ *schedule.Input, ex *schedule.Execution) ([]schedule.ModelAction, error) {
	n := m.p.processes()
	st := &etcdMap{p: m.p, t: ex.Trace, unmapped: map[string]int{},
		role: make([]string, n), term: make([]int64, n), leaderTerm: make([]int64, n), committed: map[int64]int64{0: 0},
		down: make([]bool, n), answered: make([]int, n),
		reads: newReadFlight(), hb: newHBFlight(), emptyEntry: make([]bool, n), members: newEtcdMembers(m.p, n)}
	for i := range st.role {
		st.role[i] = schedule.RoleFollower
	}
	// The bootstrap's entries (or its snapshot) have term 1, and the
	// library's bootstrap puts its voters in term 1.
	for k := int64(1); k <= m.p.bootIndex(); k++ {
		st.committed[k] = 1
	}
	if m.p.BootLog {
		for p := 0; p < m.p.Nodes; p++ {
			st.term[p] = 1
		}
	}
	for k := range st.t {
		st.cur = k
		if st.lost {
			st.skip(afterLostWrites)
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

// add maps event e, the event being mapped (st.cur), to an action.
func (st *etcdMap) add(e *schedule.Event, name string, params map[string]any) {
	st.out = append(st.out, schedule.ModelAction{Name: name, Params: params, Step: e.Step, Event: st.cur})
}

func (st *etcdMap) skip(key string) { st.unmapped[key]++ }

func (st *etcdMap) need(e *schedule.Event, keys ...string) ([]int64, error) {
	vs := make([]int64, len(keys))
	for i, k := range keys {
		v, ok := arg(e, k)
		if !ok {
			return nil, fmt.Errorf("etcdraft mapper: %s event %s of n%d has no %q", e.Kind, e.Type, e.Node+1, k)
		}
		vs[i] = v
	}
	return vs, nil
}

// response finds the message of type typ that the receiver of the recv
// event k sent back to the sender while handling it: the adapter processes
// the receiver's Ready right after each receive, before anything else
// happens in the cluster. An answer that waits for a write the receiver's
// storage holds (EvWaiting) is the answer, whether the write becomes
// durable later or a crash loses it, as is one a crash kept from leaving
// (EvUnsent). What follows a write of the receiver becoming durable
// (EvPersist: a hold that ended in this step) answers earlier receives.
func (st *etcdMap) response(k int, typ string) *schedule.Event {
	r := &st.t[k]
	for x := k + 1; x < len(st.t); x++ {
		e := &st.t[x]
		if e.Step != r.Step || e.Kind == schedule.EvRecv || e.Kind == schedule.EvPersist || e.Node != r.Node {
			return nil
		}
		if (e.Kind == schedule.EvSend || e.Kind == schedule.EvUnsent || e.Kind == schedule.EvWaiting) && e.Peer == r.Peer && e.Type == typ {
			return e
		}
	}
	return nil
}

// dropped reports whether the event after k says that k's proposal was
// dropped (the adapter's "dropped" event, at the same node).
func (st *etcdMap) dropped(k int) bool {
	return k+1 < len(st.t) && st.t[k+1].Kind == schedule.EvDropped && st.t[k+1].Node == st.t[k].Node
}

// raise records that process p is at least in term t.
func (st *etcdMap) raise(p int, t int64) {
	if p >= 0 && p < len(st.term) && t > st.term[p] {
		st.term[p] = t
	}
}

func parseEntries(s string) ([]any, error) {
	ents := []any{}
	if s == "" {
		return ents, nil
	}
	for _, part := range strings.Split(s, ",") {
		ts, data, ok := strings.Cut(part, ":")
		if !ok {
			return nil, fmt.Errorf("etcdraft mapper: bad entry %q in %q", part, s)
		}
		t, err := strconv.ParseInt(ts, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("etcdraft mapper: bad entry term %q in %q", ts, s)
		}
		e := map[string]any{"term": t, "value": data}
		if c, ok := strings.CutPrefix(data, "conf:"); ok {
			if e["conf"], err = parseConfData(c); err != nil {
				return nil, fmt.Errorf("etcdraft mapper: entry %q: %v", part, err)
			}
		}
		ents = append(ents, e)
	}
	return ents, nil
}

// parseConfData reads a configuration entry's changes as the adapter
// writes them after "conf:" ("v4", "joint v4 r2", "auto v4 l2", "leave"):
// raft.tla's change record, its kind and the servers it makes voters,
// learners or removes, each in increasing order.
func parseConfData(s string) (map[string]any, error) {
	ch := map[string]any{"kind": "simple"}
	var voters, learners, remove []int64
	if s == "leave" {
		ch["kind"], s = "leave", ""
	} else if rest, ok := strings.CutPrefix(s, "joint "); ok {
		ch["kind"], s = "joint", rest
	} else if rest, ok := strings.CutPrefix(s, "auto "); ok {
		ch["kind"], s = "auto", rest
	}
	for _, tok := range strings.Fields(s) {
		id, err := strconv.ParseInt(tok[1:], 10, 64)
		if err != nil || id < 1 {
			return nil, fmt.Errorf("bad change %q", tok)
		}
		switch tok[0] {
		case 'v':
			voters = append(voters, id)
		case 'l':
			learners = append(learners, id)
		case 'r':
			remove = append(remove, id)
		default:
			return nil, fmt.Errorf("change %q: raft.tla models voters (v), learners (l) and removals (r)", tok)
		}
	}
	ch["voters"], ch["learners"], ch["remove"] = sortedIDs(voters), sortedIDs(learners), sortedIDs(remove)
	return ch, nil
}

func sortedIDs(ids []int64) []any {
	slices.Sort(ids)
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}

// parseConfig reads a configuration as the adapter reports it ("voters=1,2,3
// outgoing=1,2 learners=4 learners_next=5 autoleave"): the record raft.tla's
// AsConfig reads.
func parseConfig(s string) (map[string]any, error) {
	lists := map[string][]int64{}
	auto := false
	for _, f := range strings.Fields(s) {
		if f == "autoleave" {
			auto = true
			continue
		}
		key, ids, ok := strings.Cut(f, "=")
		if !ok || (key != "voters" && key != "outgoing" && key != "learners" && key != "learners_next") {
			return nil, fmt.Errorf("etcdraft mapper: bad configuration %q", s)
		}
		for _, x := range strings.Split(ids, ",") {
			id, err := strconv.ParseInt(x, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("etcdraft mapper: bad configuration %q", s)
			}
			lists[key] = append(lists[key], id)
		}
	}
	return map[string]any{"voters": sortedIDs(lists["voters"]), "outgoing": sortedIDs(lists["outgoing"]),
		"learners": sortedIDs(lists["learners"]), "learnersNext": sortedIDs(lists["learners_next"]), "auto": auto}, nil
}

// server is the model's server of process p.
func server(p int) int64 { return int64(p + 1) }

// event maps event k of the trace, by its kind.
func (st *etcdMap) event(k int) error {
	e := &st.t[k]
	st.members.event(e)
	switch e.Kind {
	case schedule.EvSend, schedule.EvUnsent:
		st.sent(k)
	case schedule.EvDuplicate, schedule.EvDrop:
		return st.copiedOrDropped(e)
	case schedule.EvRead:
		st.readStarted(e)
	case schedule.EvReadIndex:
		st.readState(e)
	case schedule.EvRecv:
		if err := st.recv(k); err != nil {
			return err
		}
		st.heartbeatRecv(k)
	case schedule.EvCrash:
		st.crashed(e)
	case schedule.EvRestart:
		return st.restarted(e)
	case schedule.EvTimeout:
		st.timedOut(k)
	case schedule.EvRequest:
		return st.requested(k)
	case schedule.EvAppend:
		return st.appended(e)
	case schedule.EvConf:
		return st.confApplied(e)
	case schedule.EvProgress:
		return st.progressed(e)
	case schedule.EvRole:
		return st.roleChanged(e)
	case schedule.EvCommit:
		return st.commitAdvanced(e)
	case schedule.EvSnapshot:
		return st.snapshotted(e)
	case schedule.EvInstall, schedule.EvApply:
		return st.entryCommitted(e)
	case schedule.EvLost:
		st.lost = true
		st.skip(afterLostWrites)
	default:
		st.skip(e.Kind)
	}
	return nil
}

// sent maps a send (or an unsent message): the sender's term, a read
// request to a live process, a follower's read confirmed by its leader.
func (st *etcdMap) sent(k int) {
	e := &st.t[k]
	p := e.Node
	if t, ok := arg(e, schedule.ArgTerm); ok && e.Type != schedule.MsgProp && e.Type != schedule.MsgPreVote && e.Type != schedule.MsgPreVoteResp && e.Type != schedule.MsgReadIndex {
		st.raise(p, t)
	}
	st.heartbeatSent(k)
	switch {
	case e.Type == schedule.MsgReadIndex && e.Kind == schedule.EvSend && e.Peer >= 0 && e.Peer < len(st.down) && !st.down[e.Peer]:
		st.reads.send(e.Msg, e.Peer)
		st.add(e, "SendReadIndex", map[string]any{"i": server(p), "j": server(e.Peer)})
	case e.Type == schedule.MsgReadIndexResp && st.role[p] == schedule.RoleLeader:
		// A follower's read, confirmed (sent, or kept from leaving
		// by a crash: confirmed all the same).
		st.add(e, "ConfirmRead", st.readConfirmed(p))
	default:
		st.skip(e.Kind)
	}
}

// copiedOrDropped maps the network's copy or loss of a message: those of
// a read round's heartbeats and answers, and of read requests, are
// followed.
func (st *etcdMap) copiedOrDropped(e *schedule.Event) error {
	p := e.Node
	if isHeartbeat(e.Type) {
		return st.heartbeatCopied(e)
	}
	if e.Type != schedule.MsgReadIndex {
		st.skip(e.Kind)
		return nil
	}
	if e.Kind == schedule.EvDrop {
		// A message the mapper does not follow was never in flight:
		// the process adapter reports a message to a crashed process
		// as sent, then dropped.
		if late, ok := st.reads.drop(e.Msg); ok {
			st.add(e, "DropReadIndex", map[string]any{"i": server(p), "late": late, "twin": st.twin(p)})
		} else {
			st.skip("drop of a MsgReadIndex never in flight")
		}
		return nil
	}
	of, ok := arg(e, schedule.ArgCopyOf)
	if !ok {
		return fmt.Errorf("etcdraft mapper: duplicate event of n%d has no %q", p+1, schedule.ArgCopyOf)
	}
	if late, ok := st.reads.copy(int(of), e.Msg); ok {
		st.add(e, "DuplicateReadIndex", map[string]any{"i": server(p), "late": late})
	} else {
		st.skip("duplicate of a MsgReadIndex never in flight")
	}
	return nil
}

// readStarted maps a client read: a leader's own read (ReadLocal).
func (st *etcdMap) readStarted(e *schedule.Event) {
	switch {
	case st.role[e.Node] != schedule.RoleLeader:
		st.skip("read at a non-leader")
	case !st.p.ReadStates:
		st.skip("read at a leader (the adapter reports no read states)")
	default:
		st.add(e, "ReadLocal", map[string]any{"i": server(e.Node)})
	}
}

// readState maps a read state: a leader's read confirmed, unless it is
// the answer of a MsgReadIndexResp.
func (st *etcdMap) readState(e *schedule.Event) {
	p := e.Node
	switch {
	case st.answered[p] > 0:
		st.answered[p]--
		st.skip("readindex answered by a leader")
	case st.role[p] == schedule.RoleLeader:
		st.add(e, "ConfirmRead", st.readConfirmed(p))
	default:
		st.skip("readindex at a non-leader")
	}
}

func (st *etcdMap) crashed(e *schedule.Event) {
	p := e.Node
	st.add(e, "Crash", map[string]any{"i": server(p)})
	st.role[p] = schedule.RoleFollower
	st.down[p], st.answered[p] = true, 0
	st.reads.lose(p)
	st.heartbeatCrash(e, p)
}

func (st *etcdMap) restarted(e *schedule.Event) error {
	p := e.Node
	v, err := st.need(e, schedule.ArgTerm)
	if err != nil {
		return err
	}
	st.term[p] = v[0]
	st.add(e, "Restart", map[string]any{"i": server(p)})
	st.down[p] = false
	st.role[p] = schedule.RoleFollower
	return nil
}

// campaigned says whether the node of timeout event k campaigned: in the
// same step, it changed role or asked for (pre-)votes (a message kept from
// leaving by a crash counts).
func (st *etcdMap) campaigned(k int) bool {
	t := &st.t[k]
	for x := k + 1; x < len(st.t) && st.t[x].Step == t.Step; x++ {
		e := &st.t[x]
		if e.Node != t.Node {
			continue
		}
		switch {
		case e.Kind == schedule.EvRole && e.Type != schedule.RoleFollower,
			(e.Kind == schedule.EvSend || e.Kind == schedule.EvUnsent) && (e.Type == schedule.MsgVote || e.Type == schedule.MsgPreVote):
			return true
		case e.Kind == schedule.EvRecv, e.Kind == schedule.EvCrash:
			return false
		}
	}
	return false
}

// timedOut maps a timeout: a campaign, or a pre-campaign with PreVote;
// a leader, and a node that may not campaign, ignore it.
func (st *etcdMap) timedOut(k int) {
	e := &st.t[k]
	p := e.Node
	switch {
	case st.role[p] == schedule.RoleLeader:
		st.skip("timeout at a leader")
	case !st.campaigned(k):
		st.skip("timeout without a campaign")
	case st.p.PreVote:
		st.add(e, "BecomePreCandidate", map[string]any{"i": server(p)})
		st.role[p] = schedule.RolePreCandidate
	default:
		st.add(e, "Timeout", map[string]any{"i": server(p)})
		st.role[p] = schedule.RoleCandidate
		st.term[p]++
	}
}

// requested maps the client request of event k: a leader's proposal,
// unless the leader dropped it.
func (st *etcdMap) requested(k int) error {
	e := &st.t[k]
	v, err := st.need(e, schedule.ArgValue)
	if err != nil {
		return err
	}
	if st.p.Appends {
		st.skip("request (the leader's append shows it)")
		return nil
	}
	if st.role[e.Node] != schedule.RoleLeader {
		st.skip("request at a non-leader")
		return nil
	}
	if st.dropped(k) {
		st.skip("proposal dropped by a leader")
		return nil
	}
	st.add(e, "ClientRequest", map[string]any{"i": server(e.Node), "value": "v=" + strconv.FormatInt(v[0], 10)})
	return nil
}

// roleChanged maps a role change the mapped messages did not already
// show: a won (pre-)vote, a new leader, a CheckQuorum step down.
func (st *etcdMap) roleChanged(e *schedule.Event) error {
	p := e.Node
	i := server(p)
	v, err := st.need(e, schedule.ArgTerm)
	if err != nil {
		return err
	}
	switch e.Type {
	case schedule.RoleCandidate:
		if st.role[p] != schedule.RoleCandidate {
			st.add(e, "Timeout", map[string]any{"i": i})
		} else {
			st.skip("role candidate")
		}
	case schedule.RolePreCandidate:
		if st.role[p] != schedule.RolePreCandidate {
			st.add(e, "BecomePreCandidate", map[string]any{"i": i})
		} else {
			st.skip("role precandidate")
		}
	case schedule.RoleLeader:
		if st.role[p] != schedule.RoleCandidate {
			st.add(e, "Timeout", map[string]any{"i": i})
		}
		st.add(e, "BecomeLeader", map[string]any{"i": i, "term": v[0]})
		st.hb.newTerm(p)
		st.leaderTerm[p] = v[0]
		st.emptyEntry[p] = true
	case schedule.RoleFollower:
		if st.role[p] == schedule.RoleLeader && v[0] == st.leaderTerm[p] {
			// A leader steps down in its own term: CheckQuorum found no
			// quorum active in an election timeout.
			st.add(e, "LeaderStepDown", map[string]any{"i": i})
		} else {
			st.skip("role follower")
		}
	default:
		st.skip("role " + e.Type)
	}
	st.role[p] = e.Type
	st.term[p] = v[0]
	return nil
}

// commitAdvanced maps a leader's commit (a follower's is part of the
// message that advanced it).
func (st *etcdMap) commitAdvanced(e *schedule.Event) error {
	v, err := st.need(e, schedule.ArgIndex)
	if err != nil {
		return err
	}
	if st.role[e.Node] != schedule.RoleLeader {
		st.skip("commit at a non-leader")
		return nil
	}
	st.add(e, "AdvanceCommit", map[string]any{"i": server(e.Node), "index": v[0]})
	return nil
}

func (st *etcdMap) snapshotted(e *schedule.Event) error {
	v, err := st.need(e, schedule.ArgIndex, schedule.ArgTerm)
	if err != nil {
		return err
	}
	st.committed[v[0]] = v[1]
	st.add(e, "Snapshot", map[string]any{"i": server(e.Node), "index": v[0]})
	return nil
}

// entryCommitted learns the term of a committed entry from an install or
// an apply, which map to no action of their own.
func (st *etcdMap) entryCommitted(e *schedule.Event) error {
	v, err := st.need(e, schedule.ArgIndex, schedule.ArgTerm)
	if err != nil {
		return err
	}
	st.committed[v[0]] = v[1]
	st.skip(e.Kind)
	return nil
}

// msgFields are the fields every received Raft message carries, and its
// receiver i and sender j as the model's servers.
type msgFields struct {
	i, j                               int64
	term, logterm, index, commit, hint int64
	reject                             bool
}

// recv maps the receipt of event k's message, by its type.
func (st *etcdMap) recv(k int) error {
	e := &st.t[k]
	v, err := st.need(e, schedule.ArgTerm, schedule.ArgLogTerm, schedule.ArgIndex, schedule.ArgCommit, schedule.ArgReject, schedule.ArgRejectHint)
	if err != nil {
		return err
	}
	m := msgFields{i: server(e.Node), j: server(e.Peer),
		term: v[0], logterm: v[1], index: v[2], commit: v[3], reject: v[4] != 0, hint: v[5]}
	if st.members.dropsResponse(e.Node, e.Peer, e.Type) {
		// RawNode.Step drops it before raft.Step: the network lost it.
		st.skip(outsideResponse)
		return nil
	}
	switch e.Type {
	case schedule.MsgVote:
		st.recvVote(k, m)
	case schedule.MsgVoteResp:
		st.recvVoteResp(e, m)
	case schedule.MsgPreVoteResp:
		st.recvPreVoteResp(e, m)
	case schedule.MsgApp:
		return st.recvApp(k, m)
	case schedule.MsgHeartbeat:
		st.recvHeartbeat(k, m)
	case schedule.MsgAppResp:
		st.recvAppResp(e, m)
	case schedule.MsgSnap:
		return st.recvSnap(e, m)
	case schedule.MsgPreVote:
		// A pre-vote request never moves the receiver's term: its term is
		// the one the sender would campaign in.
		st.skip("recv " + e.Type)
	case schedule.MsgReadIndex:
		st.updateTerm(e, m)
		st.recvReadIndex(e, m)
	case schedule.MsgReadIndexResp:
		st.recvReadIndexResp(e, m)
	case schedule.MsgProp:
		st.updateTerm(e, m)
		return st.recvProp(k, m)
	default:
		st.updateTerm(e, m)
		st.skip("recv " + e.Type)
	}
	return nil
}

// updateTerm maps what etcd does first with every message of a higher
// term than the receiver's (raft.go, Step), but for those whose own action
// above carries the term (vote and append requests and their answers,
// snapshots, rejected pre-votes) and those that never move it (pre-vote
// requests, granted pre-votes, a vote request ignored in a leader lease):
// the receiver becomes a follower in that term (UpdateTerm). The answers
// to heartbeats and reads, a leader transfer's MsgTimeoutNow and a
// forwarded MsgTransferLeader do it too.
func (st *etcdMap) updateTerm(e *schedule.Event, m msgFields) {
	p := e.Node
	if m.term <= st.term[p] {
		return
	}
	st.add(e, "UpdateTerm", map[string]any{"i": m.i, "j": m.j, "term": m.term})
	st.term[p] = m.term
	st.role[p] = schedule.RoleFollower
}

func (st *etcdMap) recvVote(k int, m msgFields) {
	e := &st.t[k]
	p := e.Node
	r := st.response(k, schedule.MsgVoteResp)
	if r == nil && st.p.CheckQuorum && m.term > st.term[p] {
		// In its leader lease, a CheckQuorum node ignores the request
		// altogether (no new term, no answer): as if it were lost.
		st.skip("recv MsgVote ignored in a CheckQuorum lease")
		return
	}
	granted := false
	if r != nil {
		rj, _ := arg(r, schedule.ArgReject)
		granted = rj == 0
	}
	st.add(e, "HandleVoteRequest", map[string]any{"i": m.i, "j": m.j, "term": m.term,
		"lastLogTerm": m.logterm, "lastLogIndex": m.index, "granted": granted})
	if r != nil { // with CheckQuorum, a vote request in the lease is ignored: no answer, no new term
		st.raise(p, m.term)
	}
}

func (st *etcdMap) recvVoteResp(e *schedule.Event, m msgFields) {
	if m.term < st.term[e.Node] {
		st.skip(staleResponse)
		return
	}
	st.add(e, "HandleVoteResponse", map[string]any{"i": m.i, "j": m.j, "term": m.term, "granted": !m.reject})
	st.raise(e.Node, m.term)
}

// recvPreVoteResp maps a rejected pre-vote answer of a higher term: etcd
// steps down to that term.
func (st *etcdMap) recvPreVoteResp(e *schedule.Event, m msgFields) {
	if m.reject && m.term > st.term[e.Node] {
		st.add(e, "HandleVoteResponse", map[string]any{"i": m.i, "j": m.j, "term": m.term, "granted": false})
		st.raise(e.Node, m.term)
		return
	}
	st.skip("recv MsgPreVoteResp")
}

func (st *etcdMap) recvApp(k int, m msgFields) error {
	e := &st.t[k]
	s, _ := sarg(e, schedule.ArgEntries)
	ents, err := parseEntries(s)
	if err != nil {
		return err
	}
	r := st.response(k, schedule.MsgAppResp)
	success := false
	if r != nil {
		rj, _ := arg(r, schedule.ArgReject)
		rt, _ := arg(r, schedule.ArgTerm)
		success = rj == 0 && rt == m.term
	}
	st.add(e, "HandleAppendRequest", map[string]any{"i": m.i, "j": m.j, "term": m.term,
		"prevLogIndex": m.index, "prevLogTerm": m.logterm,
		"entries": ents, "commit": m.commit, "success": success})
	st.raise(e.Node, m.term)
	return nil
}

// recvHeartbeat maps a heartbeat as an append request with no entries at
// the commit index it carries (see the package documentation).
func (st *etcdMap) recvHeartbeat(k int, m msgFields) {
	e := &st.t[k]
	commit := m.commit
	ct, ok := st.committed[commit]
	if t, known := arg(e, schedule.ArgCommitTerm); known {
		ct, ok = t, true // the adapter read it in the sender's log
	}
	if commit == 0 {
		ct, ok = 0, true
	}
	if !ok {
		// Not seen applied: cannot happen on the correct adapter (the
		// leader applied everything it committed before it ticks).
		st.skip("heartbeat with an unknown commit term")
		ct = m.term
	}
	success := st.response(k, schedule.MsgHeartbeatResp) != nil
	st.add(e, "HandleAppendRequest", map[string]any{"i": m.i, "j": m.j, "term": m.term,
		"prevLogIndex": commit, "prevLogTerm": ct,
		"entries": []any{}, "commit": commit, "success": success})
	st.raise(e.Node, m.term)
}

func (st *etcdMap) recvAppResp(e *schedule.Event, m msgFields) {
	if m.term < st.term[e.Node] {
		st.skip(staleResponse)
		return
	}
	idx, h := m.index, m.hint
	st.add(e, "HandleAppendResponse", map[string]any{"i": m.i, "j": m.j, "term": m.term,
		"success": !m.reject, "index": idx, "rejectHint": min(h, idx)})
	st.raise(e.Node, m.term)
}

func (st *etcdMap) recvSnap(e *schedule.Event, m msgFields) error {
	sv, err := st.need(e, schedule.ArgSnapIndex, schedule.ArgSnapTerm)
	if err != nil {
		return err
	}
	text, ok := sarg(e, schedule.ArgConfig)
	if !ok {
		// A system that does not report it changes no configuration: the
		// bootstrap's voters.
		ids := make([]string, st.p.Nodes)
		for i := range ids {
			ids[i] = strconv.Itoa(i + 1)
		}
		text = "voters=" + strings.Join(ids, ",")
	}
	conf, err := parseConfig(text)
	if err != nil {
		return err
	}
	st.members.offer(e.Node, conf)
	st.add(e, "HandleSnapshot", map[string]any{"i": m.i, "j": m.j, "term": m.term,
		"index": sv[0], "snapTerm": sv[1], "conf": conf})
	st.raise(e.Node, m.term)
	return nil
}

// appended maps the entries a leader appended: one ClientRequest (or
// ProposeConf) each, but for the empty entry of its term, which
// BecomeLeader appended.
func (st *etcdMap) appended(e *schedule.Event) error {
	p := e.Node
	s, _ := sarg(e, schedule.ArgEntries)
	ents, err := parseEntries(s)
	if err != nil {
		return err
	}
	for k, x := range ents {
		ent := x.(map[string]any)
		if k == 0 && st.emptyEntry[p] && ent["value"] == "" && ent["term"] == st.leaderTerm[p] {
			st.emptyEntry[p] = false
			continue
		}
		if ch, ok := ent["conf"]; ok {
			st.add(e, "ProposeConf", map[string]any{"i": server(p), "value": ent["value"], "ch": ch})
		} else {
			st.add(e, "ClientRequest", map[string]any{"i": server(p), "value": ent["value"]})
		}
	}
	st.emptyEntry[p] = false
	return nil
}

// confApplied maps the application of a configuration entry.
func (st *etcdMap) confApplied(e *schedule.Event) error {
	v, err := st.need(e, schedule.ArgIndex)
	if err != nil {
		return err
	}
	text, _ := sarg(e, schedule.ArgConfig)
	conf, err := parseConfig(text)
	if err != nil {
		return err
	}
	st.add(e, "ApplyConf", map[string]any{"i": server(e.Node), "index": v[0], "reported": conf})
	return nil
}

// progressed maps what a leader believes of a follower.
func (st *etcdMap) progressed(e *schedule.Event) error {
	v, err := st.need(e, schedule.ArgMatch, schedule.ArgNext)
	if err != nil {
		return err
	}
	st.add(e, "FollowerProgress", map[string]any{"i": server(e.Node), "j": server(e.Peer),
		"match": v[0], "next": v[1], "state": e.Type})
	return nil
}

func (st *etcdMap) recvReadIndex(e *schedule.Event, m msgFields) {
	p := e.Node
	if q, ok := st.reads.request(e.Msg); ok && st.role[p] == schedule.RoleLeader {
		st.hb.taken[p] = append(st.hb.taken[p], q)
	}
	late, copies := st.reads.recv(e.Msg)
	st.add(e, "HandleReadIndex", map[string]any{"i": m.i, "j": m.j, "late": late, "copies": int64(copies), "twin": st.twin(p)})
}

// recvReadIndexResp counts the answers that will show as a follower's read
// state; the follower's side of a read is not mapped.
func (st *etcdMap) recvReadIndexResp(e *schedule.Event, m msgFields) {
	p := e.Node
	// A follower (or anyone, when the answer raises its term) turns
	// it into a read state; a stale one, or one at a candidate or
	// leader of the same term, is ignored.
	if m.term > st.term[p] || m.term == st.term[p] && st.role[p] == schedule.RoleFollower {
		st.answered[p]++
	}
	st.updateTerm(e, m)
	st.skip("recv MsgReadIndexResp")
}

// recvProp maps a proposal forwarded to a leader: one ClientRequest per
// entry, unless the leader dropped it.
func (st *etcdMap) recvProp(k int, m msgFields) error {
	e := &st.t[k]
	if st.p.Appends {
		st.skip("recv MsgProp (the leader's append shows it)")
		return nil
	}
	if st.role[e.Node] != schedule.RoleLeader {
		st.skip("recv MsgProp at a non-leader")
		return nil
	}
	if st.dropped(k) {
		st.skip("proposal dropped by a leader")
		return nil
	}
	s, _ := sarg(e, schedule.ArgEntries)
	ents, err := parseEntries(s)
	if err != nil {
		return err
	}
	for _, x := range ents {
		st.add(e, "ClientRequest", map[string]any{"i": m.i, "value": x.(map[string]any)["value"]})
	}
	return nil
}

// readFlight follows the ReadIndex requests in flight, so that a copy of a
// request its receiver has already taken is told apart (raft.tla's
// readLate): the network's copies carry the id of the message copied. A
// request is a family of messages, named by the id of its first send.
type readFlight struct {
	msgs flight
	at   map[int]*readReq // request → its state
}

type readReq struct {
	to       int  // the receiver
	received bool // one of its messages has arrived
}

func newReadFlight() readFlight { return readFlight{msgs: newFlight(), at: map[int]*readReq{}} }

func (f *readFlight) send(msg, to int) {
	f.msgs.add(msg, msg, to)
	f.at[msg] = &readReq{to: to}
}

// copy records msg, a copy of message of; it says whether the copy is
// late, and whether of is a message in flight it follows.
func (f *readFlight) copy(of, msg int) (late, ok bool) {
	q, ok := f.msgs.copy(of, msg)
	return ok && f.at[q].received, ok
}

// drop records the loss of msg; it says whether msg was late, and whether
// it is a message in flight it follows.
func (f *readFlight) drop(msg int) (late, ok bool) {
	q, ok := f.msgs.end(msg)
	return ok && f.at[q].received, ok
}

// recv records the receipt of msg: whether it is late, and otherwise how
// many copies of its request are still on their way (late from now on).
func (f *readFlight) recv(msg int) (late bool, copies int) {
	q, ok := f.msgs.end(msg)
	switch {
	case !ok:
		return false, 0
	case f.at[q].received:
		return true, 0
	}
	f.at[q].received = true
	return false, f.msgs.inFlight(q)
}

// request is the request of message msg, if it is one in flight.
func (f *readFlight) request(msg int) (int, bool) {
	q, ok := f.msgs.fam[msg]
	return q, ok
}

// lateTo says whether late copies of request q are on their way to p.
func (f *readFlight) lateTo(q, p int) bool {
	r, ok := f.at[q]
	return ok && r.to == p && r.received && f.msgs.inFlight(q) > 0
}

// lose forgets the requests in flight to process p (it crashed: its inbox
// is lost).
func (f *readFlight) lose(p int) {
	for _, msg := range f.msgs.held(p) {
		f.msgs.end(msg)
	}
}
