//go:build with_tla

package etcdraft

import (
	"strconv"
	"strings"

	"go.etcd.io/raft/v3"
)

// SpecTraceBuilt says whether this build has the library's trace points
// (the with_tla build tag), which Config.SpecTrace needs.
const SpecTraceBuilt = true

type tlaLogger struct{ t *specTrace }

var (
	preCandidate = raft.StatePreCandidate.String()
	candidate    = raft.StateCandidate.String()
	follower     = raft.StateFollower.String()
)

func (l tlaLogger) TraceEvent(ev *raft.TracingEvent) {
	t := l.t
	if t.held[ev.NodeID] {
		return // a restart under way (hold)
	}
	if t.roles == nil {
		t.roles, t.terms = map[string]string{}, map[string]uint64{}
	}
	note := ""
	was, term := t.roles[ev.NodeID], t.terms[ev.NodeID]
	t.roles[ev.NodeID], t.terms[ev.NodeID] = ev.Role, ev.State.Term
	if ev.Role == preCandidate || was == preCandidate {
		// PreVote (thesis section 9.6): a pre-candidate asks whether it
		// could win an election before it disrupts the cluster; it keeps
		// its term and vote, and the library traces neither its pre-votes
		// nor its becoming one. The spec has no such state: to it the node
		// is a follower. So its events show it as one; a candidate that
		// becomes a pre-candidate steps down to follower in its term (the
		// spec's StepDownToFollower), and a pre-candidate's return to
		// follower in its term changes nothing.
		// Such events say "precandidate":true.
		note = `"precandidate":true`
		switch {
		case ev.Role == preCandidate && was == candidate:
			down := *ev
			down.Name, down.Role, down.Message, down.Properties = "BecomeFollower", follower, nil, nil
			t.add(&down, "", note)
		case ev.Name == "BecomeFollower" && was == preCandidate && ev.State.Term == term:
			return
		}
		if ev.Role == preCandidate {
			e := *ev
			e.Role = follower
			ev = &e
		}
	}
	if t.redelivery && strings.HasPrefix(ev.Name, "Receive") {
		t.redelivery = false
		note = joinNote(note, `"duplicate":true`)
	}
	if t.prevote {
		note = joinNote(note, `"prevote":true`)
	}
	from := ""
	if ev.Message != nil {
		from = ev.Message.From
	}
	t.add(ev, from, note)
}

func (t *specTrace) logger() raft.TraceLogger { return tlaLogger{t} }

// joinNote adds the fields b to the fields a of a line's note.
func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "," + b
}

// restarted ends hold and traces the restarted node's InitState: its term,
// vote and commit index, its configuration and role, and the last index of
// its log (lastIndex), as the library reports them now.
func (t *specTrace) restarted(n raftNode, id, lastIndex uint64) {
	t.release(id)
	st := n.Status()
	nid := strconv.FormatUint(id, 10)
	if t.roles == nil {
		t.roles, t.terms = map[string]string{}, map[string]uint64{}
	}
	t.roles[nid], t.terms[nid] = st.RaftState.String(), st.HardState.GetTerm()
	t.add(&raft.TracingEvent{
		Name:    "InitState",
		NodeID:  nid,
		State:   raft.TracingState{Term: st.HardState.GetTerm(), Vote: strconv.FormatUint(st.HardState.GetVote(), 10), Commit: st.HardState.GetCommit()},
		Role:    st.RaftState.String(),
		LogSize: lastIndex,
		Conf:    [2][]string{idStrings(st.Config.Voters[0].Slice()), idStrings(st.Config.Voters[1].Slice())},
	}, "", "")
}

// idStrings formats node ids as the library's trace does (an empty list,
// not null, for none).
func idStrings(ids []uint64) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = strconv.FormatUint(id, 10)
	}
	return out
}
