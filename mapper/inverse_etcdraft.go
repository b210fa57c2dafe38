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

// Prepare implements Inverse: raft.tla's paths are taken as they are.
func (EtcdraftInverse) Prepare(path []schedule.ModelAction) []schedule.ModelAction { return path }

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
	"BecomeLeader": true, "AdvanceCommit": true, "ApplyConf": true, "ApplyConfAt": true,
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
	case "LeaderStepDown":
		// CheckQuorum: a leader that heard from no quorum for an election
		// timeout steps down; ticks are what it counts.
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
	if round > 0 && a.Name == "HandleAppendRequest" {
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
// pre-vote round it must win first (its requests delivered, their answers
// received) until it is a candidate. etcd ignores a timeout while the
// node has configuration entries committed and not applied (the
// library's bootstrap, at first): it is fired again, after the node's
// own work of that step.
func (inv EtcdraftInverse) campaign(a schedule.ModelAction, p, round int, pending []schedule.Enabled, tr schedule.Trace) ([]schedule.Step, bool, error) {
	timeout := []schedule.Step{{Process: p, Action: schedule.Timeout}}
	if round == 0 {
		return timeout, false, nil
	}
	switch roleOf(tr, p) {
	case schedule.RoleCandidate:
		return nil, true, nil
	case schedule.RolePreCandidate:
		if a.Name == "BecomePreCandidate" {
			return nil, true, nil
		}
		for k := range pending {
			e := &pending[k]
			if e.Kind == schedule.KindRecv && (e.From == p && e.Type == schedule.MsgPreVote || e.Process == p && e.Type == schedule.MsgPreVoteResp) {
				return []schedule.Step{e.Step}, false, nil
			}
		}
		return nil, false, fmt.Errorf("Timeout(%d): its pre-vote was not won", p+1)
	case schedule.RoleLeader:
		return nil, false, fmt.Errorf("%s(%d): a leader does not campaign", a.Name, p+1)
	}
	return timeout, false, nil
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
