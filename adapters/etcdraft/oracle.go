package etcdraft

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/modelfuzz/modelfuzz/linearize"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// checkApplied: no two nodes apply different entries at one index, and
// their state machines agree after it (stateKnown: the entry changed the
// state machine, or could have).
func (s *System) checkApplied(n *node, e *pb.Entry, data string, stateKnown bool) {
	i := int(e.GetIndex())
	key := strconv.FormatUint(e.GetTerm(), 10) + ":" + data
	if prev, same := firstOrSame(&s.appliedAt, i, key); !same {
		s.fail("safety: different entries applied at one index",
			fmt.Sprintf("n%d applied %s at index %d, another node applied %s", n.id, key, i, prev))
		return
	}
	if !stateKnown {
		return // an entry the state machine skips: its state is a later index's
	}
	// The state machines agree after applying the same entry (etcd's
	// corruption check compares their hashes at a revision the same way).
	state := "{" + string(encodeKV(n.kv)) + "}"
	if prev, same := firstOrSame(&s.stateAt, i, state); !same {
		s.fail("safety: state machines differ after one index",
			fmt.Sprintf("n%d holds %s after applying index %d, another node held %s", n.id, state, i, prev))
	}
}

// firstOrSame records v at (*at)[i] when nothing is there yet, and
// otherwise reports what is there and whether it is v.
func firstOrSame(at *[]string, i int, v string) (prev string, same bool) {
	for len(*at) <= i {
		*at = append(*at, "")
	}
	if prev = (*at)[i]; prev == "" {
		(*at)[i] = v
		return v, true
	}
	return prev, prev == v
}

// checkConf: every node that applies the configuration change at index i
// ends in the same configuration.
func (s *System) checkConf(n *node, i uint64, conf string) {
	if s.cfg.Bootstrap == BootstrapLog && i < uint64(s.cfg.Nodes) {
		// The library's bootstrap adds every voter at once, before their
		// entries are applied (bootstrap.go: "these nodes will be added to
		// raft twice"); a node that restarts before applying them adds them
		// one by one. The configuration is the same from the last one on.
		return
	}
	switch prev, ok := s.confAt[i]; {
	case !ok:
		s.confAt[i] = conf
	case prev != conf:
		s.fail("safety: configurations differ at one index",
			fmt.Sprintf("n%d has configuration %q after the change at index %d, another node %q", n.id, conf, i, prev))
	}
}

// recordCommit records the terms of the entries n committed in (from, to];
// entries no longer in n's log (covered by a snapshot) were recorded by the
// node that committed them first.
func (s *System) recordCommit(n *node, from, to uint64) {
	for i := from + 1; i <= to; i++ {
		t, err := n.live.Term(i)
		if err != nil {
			continue
		}
		for uint64(len(s.committed)) <= i {
			s.committed = append(s.committed, 0)
			s.committedIn = append(s.committedIn, 0)
		}
		switch prev := s.committed[i]; {
		case prev == 0:
			s.committed[i], s.committedIn[i] = t, n.term
		case prev != t:
			s.fail("safety: committed entries differ",
				fmt.Sprintf("n%d committed index %d with term %d, another node with term %d", n.id, i, t, prev))
		}
	}
}

// checkReadIndex checks a ReadIndex answer: the index a read is served at
// is at least every index committed, at any node, before the read began
// (Ongaro's thesis, 6.4: the leader confirms it is still leader after the
// read arrives, so no later leader can have committed past its index).
// The client history finds a stale read only when a write completed before
// it; this finds it as soon as the index is stale, e.g. below a new
// leader's first entry. Lease-based reads trust a bounded clock drift that
// the fuzzer's ticks do not keep, so they are checked only by the history.
func (s *System) checkReadIndex(n *node, r *pendingRead) {
	if s.cfg.ReadOnly != ReadSafe && s.cfg.ReadOnly != "" || r.index >= r.floor {
		return
	}
	s.fail("safety: stale read index",
		fmt.Sprintf("n%d answered read op %d at index %d, but index %d was committed before the read began", n.id, r.op, r.index, r.floor))
}

// checkLeader runs the leader oracles when n has just become leader: one
// leader per term, a leader is a voter of its own configuration, and the
// leader's log holds every committed entry.
func (s *System) checkLeader(n *node) {
	p := int(n.id) - 1
	for uint64(len(s.leaders)) <= n.term {
		s.leaders = append(s.leaders, -1)
	}
	if q := s.leaders[n.term]; q >= 0 && q != p {
		s.fail("safety: two leaders in one term", fmt.Sprintf("n%d and n%d are both leader in term %d", q+1, n.id, n.term))
	} else {
		s.leaders[n.term] = p
	}
	if st := n.rn.Status(); !isVoter(st, n.id) {
		s.fail("safety: a non-voter became leader",
			fmt.Sprintf("n%d became leader in term %d outside its configuration (%s)", n.id, n.term, st.Config))
	}
	first, _ := n.live.FirstIndex()
	last, _ := n.live.LastIndex()
	for i := first; i < uint64(len(s.committed)); i++ {
		want := s.committed[i]
		if want == 0 || s.committedIn[i] >= n.term {
			// Leader completeness holds for entries committed in earlier
			// terms: a candidate of a lower term may count its last votes
			// after a leader of a later term committed.
			continue
		}
		got := uint64(0)
		if i <= last {
			got, _ = n.live.Term(i)
		}
		if got != want {
			s.fail("safety: committed entry lost",
				fmt.Sprintf("n%d became leader in term %d without the committed entry at index %d (term %d)", n.id, n.term, i, want))
			return
		}
	}
}

func isVoter(st raft.Status, id uint64) bool {
	_, ok := st.Config.Voters.IDs()[id]
	return ok
}

// checkReady checks the library's own state (Status) when a leader's
// commit index advances: the new index is held by a quorum of every
// majority of its configuration (so a removed node or a learner is never
// counted), and its progress tracker is consistent (Match < Next, the
// tracked peers are exactly the configuration's members). The quorum is
// computed here, independently of the library's quorum package.
func (s *System) checkReady(n *node, rd raft.Ready) {
	c := rd.HardState.GetCommit()
	if c <= n.commit || n.rn.BasicStatus().RaftState != raft.StateLeader {
		return
	}
	st := n.rn.Status()
	for _, maj := range st.Config.Voters {
		if len(maj) == 0 {
			continue
		}
		var match []uint64
		for id := range maj {
			match = append(match, st.Progress[id].Match)
		}
		slices.Sort(match)
		if q := match[(len(match)-1)/2]; c > q {
			s.fail("safety: commit index beyond a quorum",
				fmt.Sprintf("leader n%d advanced its commit index to %d, but a majority of %s holds only up to %d (configuration %s)", n.id, c, fmtIDs(maj), q, st.Config))
		}
	}
	members := st.Config.Voters.IDs()
	for id := range st.Config.Learners {
		members[id] = struct{}{}
	}
	for id := range st.Config.LearnersNext {
		members[id] = struct{}{}
	}
	for _, id := range sortedIDs(slices.Collect(maps.Keys(st.Progress))) {
		pr := st.Progress[id]
		if _, ok := members[id]; !ok {
			s.fail("safety: progress tracked for a non-member",
				fmt.Sprintf("leader n%d tracks n%d, which is not in its configuration %s", n.id, id, st.Config))
		}
		if pr.Match >= pr.Next {
			s.fail("library invariant: match below next",
				fmt.Sprintf("leader n%d has Match %d >= Next %d for n%d", n.id, pr.Match, pr.Next, id))
		}
	}
	if len(st.Progress) != len(members) {
		s.fail("safety: progress tracked for a non-member",
			fmt.Sprintf("leader n%d tracks %d peers, its configuration %s has %d members", n.id, len(st.Progress), st.Config, len(members)))
	}
}

// checkHistory runs the linearizability oracle on the client history of
// puts and reads, when a read was answered (a history of puts alone is
// always linearizable).
func (s *System) checkHistory(steps int) {
	if s.reads == 0 {
		return
	}
	h := make(linearize.History, 0, len(s.hist))
	for _, o := range s.hist {
		switch {
		case o.Put && o.Return == 0:
			o.Return, o.Pending = math.MaxInt64, true
		case !o.Put && o.Return == 0:
			continue // an unanswered read constrains nothing
		}
		h = append(h, o)
	}
	if f := linearize.Check(h, steps); f != nil {
		f.Detail = linearize.Detail(h)
		s.ex.Failures = append(s.ex.Failures, *f)
	}
}

// fail reports a safety failure once per signature and execution.
func (s *System) fail(sig, msg string) {
	if slices.Contains(s.reported, sig) {
		return
	}
	s.reported = append(s.reported, sig)
	s.ex.Failures = append(s.ex.Failures, schedule.Failure{Kind: schedule.FailureSafety, Signature: sig, Message: msg, Step: s.step})
}

func fmtIDs[V any](m map[uint64]V) string {
	ids := make([]uint64, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	b := []byte{'('}
	for i, id := range sortedIDs(ids) {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendUint(b, id, 10)
	}
	return string(append(b, ')'))
}

func sortedIDs(ids []uint64) []uint64 {
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}
