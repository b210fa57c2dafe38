package etcdraft

import (
	"fmt"
	"strings"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/confchange"
	pb "go.etcd.io/raft/v3/raftpb"
	"go.etcd.io/raft/v3/tracker"
	"google.golang.org/protobuf/proto"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// handleReady is the application's Ready loop body: persist, send, apply,
// Advance (or, with AsyncStorageWrites, the work the Ready's local
// messages ask for). An armed crash point stops it where it is.
func (s *System) handleReady(n *node) {
	rd := n.rn.Ready()
	n.ready = &rd
	defer func() { n.ready = nil }()
	if !raft.IsEmptySnap(rd.Snapshot) {
		n.lastIndex = rd.Snapshot.GetMetadata().GetIndex()
	}
	if k := len(rd.Entries); k > 0 {
		n.lastIndex = rd.Entries[k-1].GetIndex()
	}
	if s.cfg.Inject == InjectSendBeforePersist {
		s.flush(n) // the previous Ready's writes reach the disk now
	}
	s.checkReady(n, rd)
	if s.cfg.async(n.id) {
		s.handleLocalMessages(n, rd)
		return
	}
	if n.holdUntil > 0 {
		s.holdReady(n, rd)
		return
	}
	s.syncReady(n, rd, false)
}

// syncReady is the synchronous Ready loop's body: persist, send, apply,
// Advance. A Ready the storage held (held) had its soft state, read states
// and the messages that need no durable state handled when it was taken
// (holdReady): the rest is done now.
func (s *System) syncReady(n *node, rd raft.Ready, held bool) {
	p := int(n.id) - 1
	msgs := rd.Messages
	if held {
		msgs = afterWrite(nil, rd.Messages)
	}
	if s.cfg.Inject == InjectSendThenPersist {
		// The seeded bug: the Ready's messages leave before its state is
		// durable (the library requires the opposite); a crash in between
		// forgets votes and entries that peers already counted.
		for _, m := range msgs {
			s.send(p, m)
		}
		if s.crashesAt(n, schedule.AfterSend) {
			return
		}
		msgs = nil
	}
	s.persist(n, rd.Snapshot, rd.Entries, rd.HardState)
	if k := len(rd.CommittedEntries); k > 0 && s.cfg.Inject == InjectAppliedIndexFirst {
		// The seeded bug: the state machine's applied index is made durable
		// with the Ready, before its committed entries are applied (etcd
		// v3.5.0-v3.5.2 lost writes to a crash this way, through its
		// consistent index); correct unless the node crashes before it has
		// applied them.
		n.smIndex = max(n.smIndex, rd.CommittedEntries[k-1].GetIndex())
	}
	if !held {
		s.softState(n, rd)
	}
	if n.crashAt == schedule.AfterPersist {
		s.unsent(p, msgs)
		s.crash(n, schedule.AfterPersist)
		return
	}
	for _, m := range msgs {
		s.send(p, m)
	}
	if !held {
		s.readStates(n, rd.ReadStates)
	}
	if s.crashesAt(n, schedule.AfterSend) {
		return
	}
	if s.cfg.Inject == InjectApplyUncommitted {
		for _, e := range rd.Entries {
			if e.GetIndex() > n.applied {
				s.apply(n, e)
			}
		}
	}
	if !s.applyAll(n, rd.CommittedEntries) {
		return
	}
	n.rn.Advance(rd)
	s.maybeSnapshot(n)
}

// holdReady takes a Ready of the synchronous loop whose writes the storage
// holds (hold-writes): the write is put aside (first, so that the commit
// it reports reads the node's log with the write's entries), its role
// change and commit are reported, its read states answered and the
// messages that need no durable state sent (those the library itself
// sends before the write with AsyncStorageWrites: all but the answers to
// votes and appends); the rest waits until release.
func (s *System) holdReady(n *node, rd raft.Ready) {
	p := int(n.id) - 1
	s.hold(n, heldWrite{rd: &rd})
	s.softState(n, rd)
	for _, m := range rd.Messages {
		if !waitsForWrite(m) {
			s.send(p, m)
		}
	}
	s.readStates(n, rd.ReadStates)
}

// waitsForWrite reports whether m may leave only once the state it was
// decided on is durable: a vote or an answer to an append, as the library
// decides (raft.go, send: the messages it keeps in msgsAfterAppend).
func waitsForWrite(m *pb.Message) bool {
	switch m.GetType() {
	case pb.MsgAppResp, pb.MsgVoteResp, pb.MsgPreVoteResp:
		return true
	}
	return false
}

// afterWrite appends to dst the messages of msgs that wait for the write.
func afterWrite(dst, msgs []*pb.Message) []*pb.Message {
	for _, m := range msgs {
		if waitsForWrite(m) {
			dst = append(dst, m)
		}
	}
	return dst
}

// hold puts a write aside: the node's storage holds it. The messages that
// wait for it are shown (EvWaiting): what the node decided, which leaves
// only once the write is durable.
func (s *System) hold(n *node, w heldWrite) {
	s.writes++
	w.id = s.writes
	n.held = append(n.held, w)
	p := int(n.id) - 1
	s.event(schedule.EvHeld, p, -1, "write", schedule.I(schedule.ArgWrite, int64(w.id)))
	s.notSent(schedule.EvWaiting, p, w.waiting())
}

// waiting are the messages that wait for a held write.
func (w heldWrite) waiting() []*pb.Message {
	if w.rd != nil {
		return afterWrite(nil, w.rd.Messages)
	}
	return w.m.GetResponses()
}

// release ends n's hold: its held writes become durable, oldest first,
// each followed by what waited for it (a held Ready's messages, applies
// and Advance; a MsgStorageAppend's responses). An armed crash point may
// stop it; the writes still held are then lost.
func (s *System) release(n *node) {
	n.holdUntil, n.holdID = 0, 0
	for len(n.held) > 0 && n.rn != nil {
		w := n.held[0]
		n.held = append(n.held[:0], n.held[1:]...)
		s.event(schedule.EvPersist, int(n.id)-1, -1, "write", schedule.I(schedule.ArgWrite, int64(w.id)))
		if w.rd != nil {
			s.syncReady(n, *w.rd, true)
			continue
		}
		s.writeAppend(n, w.m)
		if n.crashAt == schedule.AfterPersist {
			s.unsent(int(n.id)-1, w.m.GetResponses())
			s.crash(n, schedule.AfterPersist)
			return
		}
		s.respond(n, w.m.GetResponses())
	}
}

// loseHeld loses the writes n's storage holds (n crashes), and with them
// the messages that waited for them.
func (s *System) loseHeld(n *node) {
	p := int(n.id) - 1
	for _, w := range n.held {
		s.event(schedule.EvLost, p, -1, "write", schedule.I(schedule.ArgWrite, int64(w.id)))
	}
	n.held = n.held[:0]
	n.holdUntil, n.holdID = 0, 0
}

// writes are the snapshot and entries a held write would make durable.
func (w heldWrite) writes() (*pb.Snapshot, []*pb.Entry) {
	if w.rd != nil {
		return w.rd.Snapshot, w.rd.Entries
	}
	return w.m.GetSnapshot(), w.m.GetEntries()
}

// logTerm is the term of the entry at index i of n's log as the library
// handed it over: the Ready being handled, the writes its storage holds,
// newest first (a write's entries replace the log from their first index
// on, its snapshot the whole log), then its storage. ok is false when the
// log has no entry there (or only its index, compacted).
func (s *System) logTerm(n *node, i uint64) (t uint64, ok bool) {
	for k := len(n.held); k >= 0; k-- {
		var w heldWrite
		switch {
		case k < len(n.held):
			w = n.held[k]
		case n.ready != nil:
			w = heldWrite{rd: n.ready}
		default:
			continue
		}
		snap, ents := w.writes()
		if len(ents) > 0 && i >= ents[0].GetIndex() {
			if j := i - ents[0].GetIndex(); j < uint64(len(ents)) {
				return ents[j].GetTerm(), true
			}
			return 0, false
		}
		if !raft.IsEmptySnap(snap) {
			md := snap.GetMetadata()
			return md.GetTerm(), i == md.GetIndex()
		}
	}
	t, err := n.live.Term(i)
	return t, err == nil
}

// firstIndex is the first index of n's log as the library handed it over
// (after the newest snapshot of the Ready being handled or of the writes
// its storage holds, or its storage's).
func (s *System) firstIndex(n *node) uint64 {
	if n.ready != nil && !raft.IsEmptySnap(n.ready.Snapshot) {
		return n.ready.Snapshot.GetMetadata().GetIndex() + 1
	}
	for k := len(n.held) - 1; k >= 0; k-- {
		if snap, _ := n.held[k].writes(); !raft.IsEmptySnap(snap) {
			return snap.GetMetadata().GetIndex() + 1
		}
	}
	first, _ := n.live.FirstIndex()
	return first
}

// writeAppend makes the writes of a MsgStorageAppend durable.
func (s *System) writeAppend(n *node, m *pb.Message) {
	hs := &pb.HardState{}
	if m.Term != nil || m.Vote != nil || m.Commit != nil {
		hs = &pb.HardState{Term: m.Term, Vote: m.Vote, Commit: m.Commit}
	}
	s.persist(n, m.GetSnapshot(), m.GetEntries(), hs)
}

// handleLocalMessages is the Ready loop of AsyncStorageWrites. The append
// "thread" runs at once, in the Ready's message order: the writes a
// MsgStorageAppend carries are made durable, then its responses are
// delivered; while the storage holds its writes (hold-writes), the
// MsgStorageAppend waits, in order, for release. The apply "thread" runs
// when the node next takes a step (applyQueued): the entries of each
// MsgStorageApply are applied, then its responses are delivered.
func (s *System) handleLocalMessages(n *node, rd raft.Ready) {
	p := int(n.id) - 1
	sent, stated := false, false
	for _, m := range rd.Messages {
		if m.GetTo() != raft.LocalAppendThread && !stated {
			s.softState(n, rd)
			stated = true
		}
		switch m.GetTo() {
		case raft.LocalAppendThread:
			if n.holdUntil > 0 || len(n.held) > 0 {
				s.hold(n, heldWrite{m: m})
				if !stated {
					s.softState(n, rd)
					stated = true
				}
				break
			}
			s.writeAppend(n, m)
			if !stated {
				s.softState(n, rd)
				stated = true
			}
			if n.crashAt == schedule.AfterPersist {
				s.unsent(p, m.GetResponses())
				s.crash(n, schedule.AfterPersist)
				return
			}
			s.respond(n, m.GetResponses())
		case raft.LocalApplyThread:
			// The apply "thread" lags: it runs when the node next takes a
			// step, so a node can learn of commits it has not applied yet.
			n.applyQueue = append(n.applyQueue, m)
		default:
			s.send(p, m)
			sent = true
		}
		if n.rn == nil {
			return
		}
	}
	if !stated {
		s.softState(n, rd)
	}
	s.readStates(n, rd.ReadStates)
	if sent {
		s.crashesAt(n, schedule.AfterSend)
	}
}

// applyQueued runs n's apply "thread": the MsgStorageApply messages it
// holds, in order.
func (s *System) applyQueued(n *node) {
	for len(n.applyQueue) > 0 && n.rn != nil {
		m := n.applyQueue[0]
		n.applyQueue = n.applyQueue[1:]
		if !s.applyAll(n, m.GetEntries()) {
			return
		}
		s.respond(n, m.GetResponses())
		s.maybeSnapshot(n)
	}
}

// unsent records the messages a crash kept from leaving (event kind
// "unsent", with the fields of a send): the node decided them, and no one
// receives them. Local messages to the node itself are left out.
func (s *System) unsent(p int, msgs []*pb.Message) { s.notSent(schedule.EvUnsent, p, msgs) }

// notSent records messages p decided but did not send, as events of kind
// (EvUnsent, EvWaiting) with the fields of a send.
func (s *System) notSent(kind string, p int, msgs []*pb.Message) {
	for _, m := range msgs {
		if m.GetTo() != uint64(p+1) && m.GetTo() != raft.LocalAppendThread && m.GetTo() != raft.LocalApplyThread {
			s.msgEvent(kind, p, int(m.GetTo())-1, 0, m)
		}
	}
}

// respond delivers the responses of a local message: those to the node
// itself by Step, the others over the network.
func (s *System) respond(n *node, resps []*pb.Message) {
	for _, r := range resps {
		if r.GetTo() == n.id {
			_ = n.rn.Step(r)
		} else {
			s.send(int(n.id)-1, r)
		}
	}
}

// softState reports a role change.
func (s *System) softState(n *node, rd raft.Ready) {
	if !raft.IsEmptyHardState(rd.HardState) {
		n.term = rd.HardState.GetTerm()
	}
	if rd.SoftState != nil && rd.SoftState.RaftState != n.role {
		n.role = rd.SoftState.RaftState
		s.event(schedule.EvRole, int(n.id)-1, -1, roleName(n.role), schedule.I(schedule.ArgTerm, int64(n.term)))
		if n.role == raft.StateLeader {
			s.checkLeader(n)
		}
	}
	if n.role == raft.StateLeader && len(rd.Entries) > 0 {
		s.appended(n, rd.Entries)
	}
	if c := rd.HardState.GetCommit(); c > n.commit {
		s.recordCommit(n, n.commit, c)
		n.commit = c
		s.maxCommit = max(s.maxCommit, c)
		s.event(schedule.EvCommit, int(n.id)-1, -1, schedule.EvCommit, schedule.I(schedule.ArgIndex, int64(c)))
	}
}

// persist makes a Ready's snapshot, entries and HardState durable.
func (s *System) persist(n *node, snap *pb.Snapshot, ents []*pb.Entry, hs *pb.HardState) {
	if !raft.IsEmptySnap(snap) {
		s.write(n, func(st *raft.MemoryStorage) { _ = st.ApplySnapshot(snap) })
		md := snap.GetMetadata()
		n.kv = decodeKV(n.kv[:0], snap.GetData())
		n.conf = md.GetConfState()
		n.applied, n.raftApplied, n.snapIndex = md.GetIndex(), md.GetIndex(), md.GetIndex()
		if s.cfg.Inject == InjectAppliedIndexFirst {
			n.smKV, n.smIndex = append(n.smKV[:0], n.kv...), md.GetIndex()
		}
		s.event(schedule.EvInstall, int(n.id)-1, -1, schedule.EvInstall, schedule.I(schedule.ArgIndex, int64(md.GetIndex())), schedule.I(schedule.ArgTerm, int64(md.GetTerm())))
		s.answerReads(n)
	}
	if len(ents) > 0 {
		s.write(n, func(st *raft.MemoryStorage) { _ = st.Append(ents) })
	}
	if !raft.IsEmptyHardState(hs) {
		s.write(n, func(st *raft.MemoryStorage) { _ = st.SetHardState(hs) })
	}
}

// applyAll applies committed entries; it reports false when a crash point
// stopped it.
func (s *System) applyAll(n *node, ents []*pb.Entry) bool {
	for i, e := range ents {
		if e.GetIndex() > n.applied {
			s.apply(n, e)
		}
		n.raftApplied = e.GetIndex()
		if i == 0 && s.crashesAt(n, schedule.MidApply) {
			return false
		}
	}
	s.answerReads(n)
	return true
}

// maybeSnapshot snapshots the state machine and compacts the log every
// SnapshotEvery applied entries, once its HardState's commit index is
// durable up to them: with AsyncStorageWrites the apply thread may run
// ahead of the append thread (messages to different threads are processed
// in any order, doc.go), and a snapshot past the durable commit index
// leaves a storage the library refuses to restart from ("state.commit is
// out of range").
func (s *System) maybeSnapshot(n *node) {
	if n.raftApplied < n.snapIndex+uint64(s.cfg.SnapshotEvery) {
		return
	}
	if hs, _, _ := n.live.InitialState(); hs.GetCommit() < n.raftApplied {
		return
	}
	i, data := n.raftApplied, encodeKV(n.kv)
	term, _ := n.live.Term(i)
	conf := n.conf
	s.write(n, func(st *raft.MemoryStorage) {
		if _, err := st.CreateSnapshot(i, conf, data); err == nil {
			_ = st.Compact(i)
		}
	})
	n.snapIndex = i
	s.event(schedule.EvSnapshot, int(n.id)-1, -1, schedule.EvSnapshot, schedule.I(schedule.ArgIndex, int64(i)), schedule.I(schedule.ArgTerm, int64(term)))
}

// write makes a storage change: durable at once, or, with
// send-before-persist, visible to the RawNode at once and durable at the
// next flush.
func (s *System) write(n *node, f func(*raft.MemoryStorage)) {
	if g, ok := n.rn.(*goNode); ok {
		release := g.hold()
		defer release()
	}
	f(n.live)
	if n.live != n.disk {
		n.pending = append(n.pending, f)
	}
}

func (s *System) flush(n *node) {
	for _, f := range n.pending {
		f(n.disk)
	}
	n.pending = n.pending[:0]
}

func (s *System) apply(n *node, e *pb.Entry) {
	p := int(n.id) - 1
	n.applied = e.GetIndex()
	data := string(appendEntryData(nil, e))
	switch e.GetType() {
	case pb.EntryNormal:
		if e.GetIndex() <= n.smSkip {
			// The durable state machine has it already (it believes).
			break
		}
		if data != "" {
			k, v, _ := strings.Cut(data, "=")
			n.kv = kvSet(n.kv, k, v)
		}
		if s.cfg.Inject == InjectAppliedIndexFirst {
			n.smKV = append(n.smKV[:0], n.kv...)
		}
	case pb.EntryConfChange, pb.EntryConfChangeV2:
		s.applyConf(n, e)
	}
	s.event(schedule.EvApply, p, -1, schedule.EvApply, schedule.I(schedule.ArgIndex, int64(e.GetIndex())), schedule.I(schedule.ArgTerm, int64(e.GetTerm())), schedule.S(schedule.ArgData, data))
	s.checkApplied(n, e, data, e.GetIndex() > n.smSkip)
	if e.GetType() == pb.EntryNormal {
		s.answerPut(n, data)
	}
}

// applyConf applies a committed configuration change. Like etcd's server,
// the application refuses a change its configuration cannot take (one that
// removes every voter, a simple change in a joint configuration, ...) by
// applying an empty change instead: the library panics on those (with
// --inject unchecked-conf the application forgets to).
func (s *System) applyConf(n *node, e *pb.Entry) {
	cc, err := decodeConf(e)
	if err != nil {
		panic(fmt.Sprintf("n%d: entry %d: %v", n.id, e.GetIndex(), err))
	}
	if err := validConf(n.conf, cc); err != nil && s.cfg.Inject != InjectUncheckedConf {
		s.event(schedule.EvConfRefused, int(n.id)-1, -1, schedule.EvConf, schedule.S(schedule.ArgWhy, err.Error()))
		cc = &pb.ConfChangeV2{Changes: []*pb.ConfChangeSingle{{Type: pb.ConfChangeType_ConfChangeAddNode.Enum(), NodeId: new(uint64(0))}}}
	}
	n.conf = n.rn.ApplyConfChange(cc)
	conf := confText(n.conf)
	s.event(schedule.EvConf, int(n.id)-1, -1, schedule.EvConf, schedule.I(schedule.ArgIndex, int64(e.GetIndex())), schedule.S(schedule.ArgConfig, conf))
	s.checkConf(n, e.GetIndex(), conf)
}

func decodeConf(e *pb.Entry) (*pb.ConfChangeV2, error) {
	if e.GetType() == pb.EntryConfChange {
		var cc pb.ConfChange
		if err := proto.Unmarshal(e.GetData(), &cc); err != nil {
			return nil, err
		}
		return cc.AsV2(), nil
	}
	cc := &pb.ConfChangeV2{}
	if err := proto.Unmarshal(e.GetData(), cc); err != nil {
		return nil, err
	}
	return cc, nil
}

// validConf tries the change on a copy of the configuration cs with the
// library's configuration changer.
func validConf(cs *pb.ConfState, cc *pb.ConfChangeV2) error {
	chg := confchange.Changer{Tracker: tracker.MakeProgressTracker(1, 0), LastIndex: 1}
	cfg, trk, err := confchange.Restore(chg, cs)
	if err != nil {
		return err
	}
	chg.Tracker.Config, chg.Tracker.Progress = cfg, trk
	if cc.LeaveJoint() {
		_, _, err = chg.LeaveJoint()
	} else if auto, ok := cc.EnterJoint(); ok {
		_, _, err = chg.EnterJoint(auto, cc.GetChanges()...)
	} else {
		_, _, err = chg.Simple(cc.GetChanges()...)
	}
	return err
}

// proposeConf proposes the conf-change step's changes at n.
func (s *System) proposeConf(n *node, conf string) {
	p := int(n.id) - 1
	c, err := schedule.ParseConf(conf)
	if err != nil { // Validate refused it before
		panic(err)
	}
	cc := &pb.ConfChangeV2{}
	if !c.Leave {
		for _, o := range c.Ops {
			t := pb.ConfChangeType_ConfChangeAddNode
			switch o.Op {
			case "add-learner":
				t = pb.ConfChangeType_ConfChangeAddLearnerNode
			case "remove":
				t = pb.ConfChangeType_ConfChangeRemoveNode
			}
			cc.Changes = append(cc.Changes, &pb.ConfChangeSingle{Type: t.Enum(), NodeId: new(uint64(o.Process + 1))})
		}
		switch {
		case c.Auto:
			cc.Transition = pb.ConfChangeTransition_ConfChangeTransitionJointImplicit.Enum()
		case len(c.Ops) > 1:
			cc.Transition = pb.ConfChangeTransition_ConfChangeTransitionJointExplicit.Enum()
		}
	}
	s.event(schedule.EvProposeConf, p, -1, schedule.EvConf, schedule.S(schedule.ArgChanges, conf))
	if err := n.rn.ProposeConfChange(cc); err != nil {
		s.event(schedule.EvDropped, p, -1, schedule.EvConf, schedule.S(schedule.ArgChanges, conf))
	}
}

// appendEntryData appends an entry's data as events show it: a normal
// entry's bytes; a configuration change as "conf:" and its changes, after
// "joint " when it enters a joint configuration and "auto " when the
// library is to leave that by itself ("conf:leave" to leave one).
func appendEntryData(dst []byte, e *pb.Entry) []byte {
	if e.GetType() == pb.EntryNormal {
		return append(dst, e.GetData()...)
	}
	cc, err := decodeConf(e)
	if err != nil {
		return append(dst, "conf:?"...)
	}
	dst = append(dst, "conf:"...)
	if cc.LeaveJoint() {
		return append(dst, "leave"...)
	}
	if auto, joint := cc.EnterJoint(); joint {
		if auto {
			dst = append(dst, "auto "...)
		} else {
			dst = append(dst, "joint "...)
		}
	}
	return append(dst, pb.ConfChangesToString(cc.GetChanges())...)
}

// confText renders a configuration: "voters=1,2,3 outgoing=1,2 learners=4".
func confText(cs *pb.ConfState) string {
	var b strings.Builder
	list := func(key string, ids []uint64) {
		if len(ids) == 0 {
			return
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(key)
		b.WriteByte('=')
		for i, id := range sortedIDs(ids) {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprint(&b, id)
		}
	}
	list("voters", cs.GetVoters())
	list("outgoing", cs.GetVotersOutgoing())
	list("learners", cs.GetLearners())
	list("learners_next", cs.GetLearnersNext())
	if cs.GetAutoLeave() {
		b.WriteString(" autoleave")
	}
	return b.String()
}
