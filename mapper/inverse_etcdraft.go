package mapper

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// EtcdraftInverse is the inverse of Etcdraft: raft.tla's actions as steps
// of adapters/etcdraft. A message handler of the model (HandleVoteRequest,
// HandleAppendRequest, ...) is the delivery, out of arrival order, of a
// message of that type from that sender that the system has pending,
// preferring one of the action's term; the model invents its messages
// from the senders' states, the system sends its own, so where the system
// has no such message the action cannot be taken. What etcd does by
// itself after a message (a candidate becoming leader, a leader
// committing, applying a configuration, reporting its followers'
// progress, compacting its log, confirming a read) takes no step.
type EtcdraftInverse struct {
	p EtcdraftParams
}

// Inverse returns the inverse of m.
func (m *Etcdraft) Inverse() Inverse { return EtcdraftInverse{p: m.p} }

// Prepare implements Inverse. With PreVote, a run of Timeouts of several
// servers in a row is preceded by the pre-vote phase of each
// (BecomePreCandidate): the library's candidates of one term each won a
// pre-vote first, which a server grants only while its term is below the
// pre-vote's (raft.go, Step, canVote), so the pre-votes of all of them are
// exchanged before any becomes a candidate. raft.tla's Timeout has no
// pre-vote; BecomePreCandidate changes only the server's role, which its
// Timeout sets, so the path ends in the same state.
func (inv EtcdraftInverse) Prepare(path []schedule.ModelAction) []schedule.ModelAction {
	if !inv.p.PreVote {
		return path
	}
	out := make([]schedule.ModelAction, 0, len(path))
	for k := 0; k < len(path); {
		end := k
		seen := map[any]bool{}
		for end < len(path) && path[end].Name == "Timeout" && !seen[fmt.Sprint(path[end].Params["i"])] {
			seen[fmt.Sprint(path[end].Params["i"])] = true
			end++
		}
		if end-k < 2 {
			out = append(out, path[k])
			k++
			continue
		}
		for _, a := range path[k:end] {
			out = append(out, schedule.ModelAction{Name: "BecomePreCandidate", Params: map[string]any{"i": a.Params["i"]}})
		}
		out = append(out, path[k:end]...)
		k = end
	}
	return out
}

// The message types each handler of raft.tla receives, in preference order.
var etcdraftMsgs = map[string][]string{
	"HandleVoteRequest":    {schedule.MsgVote},
	"HandleVoteResponse":   {schedule.MsgVoteResp, schedule.MsgPreVoteResp},
	"HandleAppendRequest":  {schedule.MsgApp, schedule.MsgHeartbeat},
	"HandleAppendResponse": {schedule.MsgAppResp, schedule.MsgHeartbeatResp},
	"HandleSnapshot":       {schedule.MsgSnap},
	"HandleReadIndex":      {schedule.MsgReadIndex},
	"UpdateTerm":           nil, // any message
}

// What etcd does by itself, after the steps of other actions.
var etcdraftOwn = map[string]bool{
	"AdvanceCommit": true, "ApplyConf": true, "ApplyConfAt": true,
	"FollowerProgress": true, "Snapshot": true, "ConfirmRead": true, "StaleAnswer": true,
}

// Steps implements Inverse.
func (inv EtcdraftInverse) Steps(a schedule.ModelAction, round int, pending []schedule.Enabled, tr schedule.Trace) ([]schedule.Step, bool, error) {
	if etcdraftOwn[a.Name] {
		return nil, true, nil
	}
	i, err := intParam(a, "i")
	if err != nil {
		return nil, false, err
	}
	p := i - 1
	one := func(act schedule.Action) ([]schedule.Step, bool, error) {
		return []schedule.Step{{Process: p, Action: act}}, true, nil
	}
	switch a.Name {
	case "Crash":
		return one(schedule.Crash)
	case "Restart":
		return one(schedule.Restart)
	case "ReadLocal", "SendReadIndex":
		return one(schedule.Read)
	case "ClientRequest":
		v, _ := a.Params["value"].(string)
		n, err := strconv.Atoi(strings.TrimPrefix(v, "v="))
		if err != nil || n < 1 {
			n = 1
		}
		return []schedule.Step{{Process: p, Action: schedule.Request, Value: n}}, true, nil
	case "Timeout", "BecomePreCandidate":
		return inv.campaign(a, p, round, pending, tr)
	case "BecomeLeader":
		return becomeLeader(p, pending, tr)
	case "LeaderStepDown":
		// CheckQuorum: a leader that heard from no quorum for an election
		// timeout steps down; ticks are what it counts.
		if roleOf(tr, p) != schedule.RoleLeader {
			if round > 0 {
				return nil, true, nil
			}
			return nil, false, fmt.Errorf("LeaderStepDown(%d): %d is not a leader", i, i)
		}
		if round > 0 || !inv.p.CheckQuorum {
			return nil, false, fmt.Errorf("LeaderStepDown(%d): the leader did not step down", i)
		}
		return []schedule.Step{{Process: p, Action: schedule.Tick, N: 64}}, false, nil
	case "DuplicateReadIndex", "DropReadIndex":
		es := pendingAt(pending, p, func(e *schedule.Enabled) bool {
			return e.Kind == schedule.KindRecv && e.Type == schedule.MsgReadIndex
		})
		if len(es) == 0 {
			return nil, false, fmt.Errorf("%s(%d): no MsgReadIndex is on its way to it", a.Name, i)
		}
		st := es[0].DupStep
		if a.Name == "DropReadIndex" {
			st = es[0].DropStep
		}
		if st.Action == "" {
			return nil, false, fmt.Errorf("%s(%d): the system cannot", a.Name, i)
		}
		return []schedule.Step{st}, true, nil
	}
	return inv.deliver(a, i, round, pending, tr)
}

// deliver is the step of a message handler of raft.tla at server i: the
// delivery of the pending message of the handler's type from the sender,
// of the action's term if one is.
func (inv EtcdraftInverse) deliver(a schedule.ModelAction, i, round int, pending []schedule.Enabled, tr schedule.Trace) ([]schedule.Step, bool, error) {
	p := i - 1
	types, ok := etcdraftMsgs[a.Name]
	if !ok {
		return nil, false, fmt.Errorf("%s: no inverse (the generator does not make the system take it)", a.Name)
	}
	j, err := intParam(a, "j")
	if err != nil {
		return nil, false, err
	}
	term, hasTerm := -1, a.Params["term"] != nil
	if hasTerm {
		if term, err = intParam(a, "term"); err != nil {
			return nil, false, err
		}
	}
	sends := sendsByID(tr)
	var best *schedule.Enabled
	bestScore := -1
	for _, e := range pendingAt(pending, p, func(e *schedule.Enabled) bool { return e.Kind == schedule.KindRecv && e.From == j-1 }) {
		rank := len(types)
		for k, t := range types {
			if e.Type == t {
				rank = k
			}
		}
		if len(types) > 0 && rank == len(types) {
			continue
		}
		score := 2 * (len(types) - rank)
		if s := sends[e.ID]; hasTerm && s != nil {
			if t, ok := argInt(s, schedule.ArgTerm); ok && t == int64(term) {
				score += 2*len(types) + 2
			}
		}
		if score > bestScore {
			best, bestScore = e, score
		}
	}
	if best != nil {
		return []schedule.Step{best.Step}, inv.appendDone(a, best, sends), nil
	}
	if round > 0 && a.Name == "HandleAppendRequest" && lastStepReceived(tr, p, j-1) {
		return nil, true, nil // the entries came in as many messages as there were
	}
	// A heartbeat is what a leader sends on its ticks: ask for one.
	if a.Name == "HandleAppendRequest" && round == 0 && roleOf(tr, j-1) == schedule.RoleLeader {
		return []schedule.Step{{Process: j - 1, Action: schedule.Tick, N: 5}}, false, nil
	}
	return nil, false, fmt.Errorf("%s(%d, %d): the system has no %s from %d on its way to %d", a.Name, i, j, strings.Join(types, "/"), j, i)
}

// appendDone says whether delivering e takes the whole of a, an append
// request: the library sends at most MaxSizePerMsg bytes of entries in one
// MsgApp, so the entries the model hands over at once come in several
// messages of the leader, delivered one per round (each the oldest of
// the term still pending) until the last of a's entries is in.
func (EtcdraftInverse) appendDone(a schedule.ModelAction, e *schedule.Enabled, sends map[int]*schedule.Event) bool {
	ents, _ := a.Params["entries"].([]any)
	prev, err := intParam(a, "prevLogIndex")
	s := sends[e.ID]
	if a.Name != "HandleAppendRequest" || e.Type != schedule.MsgApp || len(ents) == 0 || err != nil || s == nil {
		return true
	}
	idx, _ := argInt(s, schedule.ArgIndex)
	got := 0
	for _, a := range s.Args {
		if a.Key == schedule.ArgEntries {
			got = countEntries(a.Str)
		}
	}
	return int(idx)+got >= prev+len(ents)
}

// countEntries counts the entries of an entries arg, "term:data,..."
// (data may hold commas; a term is digits before a colon).
func countEntries(s string) int {
	n := 0
	for _, f := range strings.Split(s, ",") {
		t, _, ok := strings.Cut(f, ":")
		if _, err := strconv.Atoi(t); ok && err == nil {
			n++
		}
	}
	return n
}

// campaign makes server p+1 campaign: a timeout, and with PreVote the
// pre-vote round it must win first until it is a candidate. The pre-vote
// requests still on their way are delivered first (one per receiver a
// round): p's, and those of other pre-candidates to a server that is no
// candidate or leader (one would answer a pre-vote of its own term with a
// rejection); then the grants to p, never a rejection: one of a higher
// term makes p a follower of that term. etcd ignores a timeout while the node has
// configuration entries committed and not applied (the library's
// bootstrap, at first): it is fired again, after the node's own work of
// that step. A pre-candidate's Timeout fires none: its pre-vote is under way.
func (inv EtcdraftInverse) campaign(a schedule.ModelAction, p, round int, pending []schedule.Enabled, tr schedule.Trace) ([]schedule.Step, bool, error) {
	timeout := []schedule.Step{{Process: p, Action: schedule.Timeout}}
	role := roleOf(tr, p)
	if round == 0 && !(a.Name == "Timeout" && role == schedule.RolePreCandidate) {
		return timeout, false, nil
	}
	switch role {
	case schedule.RoleCandidate:
		return nil, true, nil
	case schedule.RolePreCandidate:
		if a.Name == "BecomePreCandidate" {
			return nil, true, nil
		}
		roles := map[int]string{}
		at := func(q int) string {
			if r, ok := roles[q]; ok {
				return r
			}
			roles[q] = roleOf(tr, q)
			return roles[q]
		}
		// One delivery per receiver a round: a step names a message by
		// its place in the receiver's inbox, which a delivery changes.
		var steps []schedule.Step
		busy := map[int]bool{}
		for k := range pending {
			e := &pending[k]
			if e.Kind == schedule.KindRecv && e.Type == schedule.MsgPreVote && !busy[e.Process] && at(e.From) == schedule.RolePreCandidate &&
				(e.From == p || at(e.Process) != schedule.RoleCandidate && at(e.Process) != schedule.RoleLeader) {
				steps, busy[e.Process] = append(steps, e.Step), true
			}
		}
		if len(steps) > 0 {
			return steps, false, nil
		}
		sends := sendsByID(tr)
		for k := range pending {
			e := &pending[k]
			if e.Kind == schedule.KindRecv && e.Process == p && e.Type == schedule.MsgPreVoteResp {
				if s := sends[e.ID]; s != nil {
					if rj, _ := arg(s, schedule.ArgReject); rj == 0 {
						return []schedule.Step{e.Step}, false, nil
					}
				}
			}
		}
		return nil, false, fmt.Errorf("Timeout(%d): its pre-vote was not won", p+1)
	case schedule.RoleLeader:
		return nil, false, fmt.Errorf("%s(%d): a leader does not campaign", a.Name, p+1)
	}
	return timeout, false, nil
}

// becomeLeader makes candidate p a leader: etcd takes BecomeLeader by
// itself when the votes of a quorum arrive, so the steps are the
// deliveries of its vote requests and of the answers to them, one a round,
// until it is the leader (the model may have counted votes the system has
// not delivered yet, or a quorum of the candidate alone).
func becomeLeader(p int, pending []schedule.Enabled, tr schedule.Trace) ([]schedule.Step, bool, error) {
	switch roleOf(tr, p) {
	case schedule.RoleLeader:
		return nil, true, nil
	case schedule.RoleCandidate:
		for k := range pending {
			e := &pending[k]
			if e.Kind == schedule.KindRecv && (e.From == p && e.Type == schedule.MsgVote || e.Process == p && e.Type == schedule.MsgVoteResp) {
				return []schedule.Step{e.Step}, false, nil
			}
		}
		return nil, false, fmt.Errorf("BecomeLeader(%d): the candidate did not win its vote", p+1)
	}
	return nil, false, fmt.Errorf("BecomeLeader(%d): %d is not a candidate", p+1, p+1)
}

// lastStepReceived says whether the trace's last step delivered process p
// a message from q.
func lastStepReceived(tr schedule.Trace, p, q int) bool {
	if len(tr) == 0 {
		return false
	}
	last := tr[len(tr)-1].Step
	for k := len(tr) - 1; k >= 0 && tr[k].Step == last; k-- {
		if e := &tr[k]; e.Kind == schedule.EvRecv && e.Node == p && e.Peer == q {
			return true
		}
	}
	return false
}

// roleOf is the role of process p after the trace ("" before any role
// event: a follower).
func roleOf(tr schedule.Trace, p int) string {
	for k := len(tr) - 1; k >= 0; k-- {
		if e := &tr[k]; e.Node == p && (e.Kind == schedule.EvRole || e.Kind == schedule.EvCrash) {
			if e.Kind == schedule.EvCrash {
				return ""
			}
			return e.Type
		}
	}
	return ""
}

// sendsByID indexes the trace's send events by message id.
func sendsByID(tr schedule.Trace) map[int]*schedule.Event {
	out := map[int]*schedule.Event{}
	for k := range tr {
		if e := &tr[k]; e.Kind == schedule.EvSend {
			out[e.Msg] = e
		}
	}
	return out
}

func argInt(e *schedule.Event, key string) (int64, bool) { return arg(e, key) }
