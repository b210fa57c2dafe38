package etcdraft

import (
	"strconv"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
	"go.etcd.io/raft/v3/tracker"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// What a leader does that no message shows: the entries it appends to its
// own log, and what it believes of each follower (its progress tracker).
// Both are reported as events so that a model can follow them.

// seenProgress is the last progress of a follower reported by its leader.
type seenProgress struct {
	match, next uint64
	state       tracker.StateType
	shown       bool // reported since the node became leader
	visited     bool // in the progress tracker at the last report
}

// appended reports the entries n, a leader, appended to its log since its
// last Ready (one append event): they are what its proposals became (an
// empty entry in place of a configuration change it refused, none for a
// proposal it dropped), with the entries the library appends by itself.
func (s *System) appended(n *node, ents []*pb.Entry) {
	start := len(s.args)
	s.buf = s.buf[:0]
	for i, e := range ents {
		if i > 0 {
			s.buf = append(s.buf, ',')
		}
		s.buf = strconv.AppendUint(s.buf, e.GetTerm(), 10)
		s.buf = append(s.buf, ':')
		s.buf = appendEntryData(s.buf, e)
	}
	s.args = append(s.args, schedule.I(schedule.ArgIndex, int64(ents[0].GetIndex())), schedule.S(schedule.ArgEntries, string(s.buf)))
	s.record(schedule.EvAppend, int(n.id)-1, -1, 0, schedule.EvAppend, start)
}

// reportProgress reports, when n is a leader, each follower whose progress
// changed since the last report (a progress event per follower). n must be
// leader both as reported (its role event) and in the library now: a
// leader that stepped down in a Ready its storage holds has reset its
// tracker already, and that belongs to its follower term.
func (s *System) reportProgress(n *node) {
	if n.rn == nil || n.role != raft.StateLeader || n.rn.BasicStatus().RaftState != raft.StateLeader {
		if n.progress != nil {
			clear(n.progress)
		}
		return
	}
	if n.progress == nil {
		n.progress = make([]seenProgress, len(s.nodes))
	}
	for k := range n.progress {
		n.progress[k].visited = false
	}
	n.rn.WithProgress(func(id uint64, _ raft.ProgressType, pr tracker.Progress) {
		q := int(id) - 1
		if id == n.id || q < 0 || q >= len(n.progress) {
			return
		}
		seen := &n.progress[q]
		seen.visited = true
		if seen.shown && seen.match == pr.Match && seen.next == pr.Next && seen.state == pr.State {
			return
		}
		*seen = seenProgress{match: pr.Match, next: pr.Next, state: pr.State, shown: true, visited: true}
		s.event(schedule.EvProgress, int(n.id)-1, q, progressStateName(pr.State),
			schedule.I(schedule.ArgMatch, int64(pr.Match)), schedule.I(schedule.ArgNext, int64(pr.Next)))
	})
	for k := range n.progress {
		if !n.progress[k].visited {
			// Not a member (any more): a new progress is reported anew.
			n.progress[k].shown = false
		}
	}
}

func progressStateName(st tracker.StateType) string {
	switch st {
	case tracker.StateReplicate:
		return schedule.ProgressReplicate
	case tracker.StateSnapshot:
		return schedule.ProgressSnapshot
	}
	return schedule.ProgressProbe
}
