package etcdraft

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"unsafe"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
	"go.etcd.io/raft/v3/tracker"

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
		t, ok := s.logTerm(n, i)
		if !ok {
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
	first, last := s.firstIndex(n), n.lastIndex
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
			got, _ = s.logTerm(n, i)
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

// checkReady checks, when a leader's commit index advances, that a quorum
// of every majority of its (joint) configuration holds the new index, by
// the Match of its progress tracker (Status), so that a removed node or a
// learner is never counted. The quorum is computed here, independently of
// the library's quorum package.
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
}

// The invariants of the leader's view of its followers, each its own
// signature (checkProgress).
const (
	sigProgressMember = "safety: progress tracked for a non-member"
	sigMatchBelowNext = "library invariant: match below next"
	sigNextInLog      = "library invariant: next within the leader's log"
	sigInflight       = "library invariant: in-flight window"
	sigProgressState  = "library invariant: progress state"
)

// checkProgress checks the leader's view of its followers, its progress
// tracker, against the invariants the library relies on
// (tracker/progress.go, tracker/inflights.go), after every message the
// leader takes and at the end of every step, not only when its commit
// index advances (by then a later answer may have repaired it):
//
//   - the tracker holds exactly the configuration's members;
//   - Match < Next for each ("Invariant: 0 <= Match < Next");
//   - Next <= the leader's last index + 1: no entry is sent that the
//     leader does not hold;
//   - the in-flight window: at most MaxInflightMsgs appends in flight,
//     the index of each above Match, below Next, and increasing (entries
//     in (Match, Next) are the ones in flight);
//   - the states: in StateProbe and StateSnapshot nothing is in flight
//     (each state change resets the window); a pending snapshot in
//     StateSnapshot and in no other state. (The tracker's comment says
//     that in StateSnapshot Next == PendingSnapshot + 1, but the library
//     does not keep it: a stale rejection lowers Next there, since
//     MaybeDecrTo does not look at the state; the snapshot's report or
//     answer restores it. testdata/progress-stale-reject-in-snapshot.json
//     reaches it, so it is not checked.)
//
// The tracker is read where the library keeps it (node.trk), between its
// operations, as Status would read it but without copying it: the checks
// run this often.
func (s *System) checkProgress(n *node) {
	if n.rn == nil || n.role != raft.StateLeader || n.trk == nil || n.rn.BasicStatus().RaftState != raft.StateLeader {
		return
	}
	trk := n.trk
	member := func(id uint64) bool {
		_, v0 := trk.Voters[0][id]
		_, v1 := trk.Voters[1][id]
		_, l := trk.Learners[id]
		_, ln := trk.LearnersNext[id]
		return v0 || v1 || l || ln
	}
	s.ids = s.ids[:0]
	for _, set := range []map[uint64]struct{}{trk.Voters[0], trk.Voters[1], trk.Learners, trk.LearnersNext} {
		for id := range set {
			if trk.Progress[id] == nil {
				s.ids = append(s.ids, id)
			}
		}
	}
	if len(s.ids) > 0 {
		slices.Sort(s.ids)
		s.fail(sigProgressMember,
			fmt.Sprintf("leader n%d tracks no progress for n%d, a member of its configuration %s", n.id, s.ids[0], trk.Config))
	}
	s.ids = s.ids[:0]
	for id := range trk.Progress {
		s.ids = append(s.ids, id)
	}
	slices.Sort(s.ids)
	for _, id := range s.ids {
		pr := trk.Progress[id]
		if !member(id) {
			s.fail(sigProgressMember,
				fmt.Sprintf("leader n%d tracks n%d, which is not in its configuration %s", n.id, id, trk.Config))
		}
		if pr.Match >= pr.Next {
			s.fail(sigMatchBelowNext,
				fmt.Sprintf("leader n%d has Match %d >= Next %d for n%d (%s)", n.id, pr.Match, pr.Next, id, pr))
		}
		if pr.Next > n.lastIndex+1 && !n.heldReady() {
			// (A node that holds a Ready takes no other: its log may have
			// grown past what it handed over.)
			s.fail(sigNextInLog,
				fmt.Sprintf("leader n%d has Next %d for n%d, but its log ends at %d (%s)", n.id, pr.Next, id, n.lastIndex, pr))
		}
		s.flight = inflightIndexes(s.flight[:0], pr.Inflights)
		flight := s.flight
		if len(flight) > s.cfg.maxInflight() {
			s.fail(sigInflight,
				fmt.Sprintf("leader n%d has %d appends in flight to n%d, MaxInflightMsgs is %d (%s)", n.id, len(flight), id, s.cfg.maxInflight(), pr))
		}
		below := pr.Match
		for _, i := range flight {
			if i <= below || i >= pr.Next {
				s.fail(sigInflight,
					fmt.Sprintf("leader n%d has appends in flight to n%d up to indexes %v, outside (Match %d, Next %d) or out of order (%s)", n.id, id, flight, pr.Match, pr.Next, pr))
				break
			}
			below = i
		}
		switch {
		case pr.State != tracker.StateReplicate && len(flight) > 0:
			s.fail(sigProgressState,
				fmt.Sprintf("leader n%d has %d appends in flight to n%d in %s (%s)", n.id, len(flight), id, pr.State, pr))
		case pr.State != tracker.StateSnapshot && pr.PendingSnapshot != 0:
			s.fail(sigProgressState,
				fmt.Sprintf("leader n%d has a pending snapshot at %d for n%d in %s (%s)", n.id, pr.PendingSnapshot, id, pr.State, pr))
		case pr.State == tracker.StateSnapshot && pr.PendingSnapshot == 0:
			s.fail(sigProgressState,
				fmt.Sprintf("leader n%d waits for a snapshot for n%d but has none pending (%s)", n.id, id, pr))
		}
	}
}

// progressTracker is the leader's progress tracker inside rn (its raft's
// trk field), read in place by checkProgress.
func progressTracker(rn *raft.RawNode) *tracker.ProgressTracker {
	l, _ := trackerLayout()
	r := reflect.ValueOf(rn).Elem().Field(l.raft)
	if r.IsNil() {
		return nil
	}
	return (*tracker.ProgressTracker)(unsafe.Pointer(r.Elem().Field(l.trk).UnsafeAddr()))
}

// trackerLayout finds, once, the fields that lead from a RawNode to its
// progress tracker: RawNode.raft, a pointer, and raft.trk, a
// tracker.ProgressTracker. An error says the library is not the one the
// progress oracle knows.
var trackerLayout = sync.OnceValues(func() (l struct{ raft, trk int }, err error) {
	rt := reflect.TypeFor[raft.RawNode]()
	f, ok := rt.FieldByName("raft")
	if !ok || f.Type.Kind() != reflect.Pointer || f.Type.Elem().Kind() != reflect.Struct {
		return l, fmt.Errorf("etcdraft: this go.etcd.io/raft/v3's RawNode has no raft field the progress oracle knows")
	}
	l.raft = f.Index[0]
	t, ok := f.Type.Elem().FieldByName("trk")
	if !ok || t.Type != reflect.TypeFor[tracker.ProgressTracker]() {
		return l, fmt.Errorf("etcdraft: this go.etcd.io/raft/v3's raft has no trk tracker.ProgressTracker the progress oracle reads")
	}
	l.trk = t.Index[0]
	return l, nil
})

// inflightIndexes appends to out the indexes of the appends in flight in
// an Inflights window, oldest first. The window keeps them unexported;
// they are read, never written, through reflection (inflightLayout, which
// NewFactory checks).
func inflightIndexes(out []uint64, in *tracker.Inflights) []uint64 {
	if in == nil {
		return out
	}
	inflightFields, _ := inflightLayout()
	v := reflect.ValueOf(in).Elem()
	start, count := int(v.Field(inflightFields.start).Int()), int(v.Field(inflightFields.count).Int())
	size, buf := int(v.Field(inflightFields.size).Int()), v.Field(inflightFields.buffer)
	for k, i := 0, start; k < count && i < buf.Len(); k++ {
		out = append(out, buf.Index(i).Field(inflightFields.index).Uint())
		if i++; i >= size {
			i -= size
		}
	}
	for len(out) < count {
		// A window whose count runs past its buffer: its indexes are lost.
		out = append(out, 0)
	}
	return out
}

// inflightFieldsT are the positions of tracker.Inflights' fields that
// inflightIndexes reads: start, count, size, buffer and, in an element of
// buffer, index.
type inflightFieldsT struct{ start, count, size, buffer, index int }

// inflightLayout finds tracker.Inflights' fields, once; an error says the
// library's window is not the one the oracle knows.
var inflightLayout = sync.OnceValues(func() (f inflightFieldsT, err error) {
	field := func(t reflect.Type, name string, kind reflect.Kind) int {
		sf, ok := t.FieldByName(name)
		if !ok || sf.Type.Kind() != kind {
			if err == nil {
				err = fmt.Errorf("etcdraft: this go.etcd.io/raft/v3's tracker.Inflights has no %s field of kind %s, which the in-flight oracle reads", name, kind)
			}
			return 0
		}
		return sf.Index[0]
	}
	t := reflect.TypeFor[tracker.Inflights]()
	f.start = field(t, "start", reflect.Int)
	f.count = field(t, "count", reflect.Int)
	f.size = field(t, "size", reflect.Int)
	f.buffer = field(t, "buffer", reflect.Slice)
	if err == nil {
		f.index = field(t.Field(f.buffer).Type.Elem(), "index", reflect.Uint64)
	}
	return f, err
})

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
