package redisraft

import (
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// runStep runs one step of the schedule (the package documentation says
// what each action does).
func (r *run) runStep(st schedule.Step) {
	r.pump()
	p := st.Process
	if !st.Action.Global() && st.Action != schedule.Restart && !r.nodes[p].up() {
		r.skip(p, string(st.Action)+" at a crashed node")
		return
	}
	switch st.Action {
	case schedule.Deliver:
		r.deliverSome(p, st.Messages)
	case schedule.DeliverOne:
		if ms := r.inbox(p, true); len(ms) > 0 {
			r.handOver(ms[(st.K-1)%len(ms)])
		}
	case schedule.Drop:
		if ms := r.inbox(p, false); len(ms) > 0 {
			r.drop(ms[(st.K-1)%len(ms)])
		}
	case schedule.Duplicate:
		r.duplicateStep(p, st.K)
	case schedule.Crash:
		r.record(schedule.EvCrash, p, -1, 0, schedule.EvCrash, nil)
		r.kill(r.nodes[p])
		r.down(p)
	case schedule.Restart:
		r.restart(p)
	case schedule.Timeout:
		r.timeout(p)
	case schedule.Request:
		r.request(p, st.Value)
	case schedule.Partition:
		r.cut = st.Set
		r.record(schedule.EvPartition, -1, -1, 0, schedule.EvPartition, []schedule.Arg{schedule.S(schedule.ArgSet, st.Set.String())})
	case schedule.Heal:
		r.cut = 0
		r.record(schedule.EvHeal, -1, -1, 0, schedule.EvHeal, nil)
	case schedule.TransferLeader:
		r.transfer(p, st.To)
	case schedule.Tick:
		r.tick(p)
	}
	if r.cfg.forming() {
		r.awaitPeers()
	}
}

func (r *run) skip(p int, why string) {
	r.skipped++
	r.record(schedule.EvSkip, p, -1, 0, why, nil)
}

// deliverSome hands process p up to n messages, in the order they were
// read, each handled before the next.
func (r *run) deliverSome(p, n int) {
	for k := 0; k < n && r.ctx.Err() == nil && r.nodes[p].up(); k++ {
		ms := r.inbox(p, true)
		if len(ms) == 0 {
			return
		}
		r.handOver(ms[0])
	}
}

// handOver delivers m and lets its receiver handle it.
func (r *run) handOver(m *message) {
	at := len(r.trace)
	r.deliver(m)
	r.settle(m.to)
	r.poll(r.nodes[m.to])
	r.checkTerm(m, at)
}

// checkTerm is the oracle of Raft's first rule (a server that sees a
// higher term takes it), on the wire and INFO raft: after handling m, its
// receiver is at least in m's term. Pre-votes carry the term the
// candidate would take, not its own, and a request the receiver refused
// with an error was not handled.
func (r *run) checkTerm(m *message, at int) {
	n := r.nodes[m.to]
	t, ok := argOf(m.args, schedule.ArgTerm)
	if !ok || !n.up() || m.typ == TypeTimeoutNow || m.typ == TypeShutdown {
		return
	}
	if pv, _ := argOf(m.args, ArgPrevote); pv != 0 && !m.reply {
		return
	}
	for _, e := range r.trace[at:] {
		if e.Kind == schedule.EvSend && e.Node == m.to && e.Peer == m.from && e.Type == ReplyType(m.typ) {
			for _, a := range e.Args {
				if a.Key == ArgError {
					return
				}
			}
		}
	}
	if n.info.Term < t {
		r.fail(schedule.FailureSafety, "safety: term not taken from "+m.typ,
			fmt.Sprintf("n%d handled %s of term %d from n%d and stayed in term %d", m.to+1, m.typ, t, m.from+1, n.info.Term), "")
	}
}

func argOf(args []schedule.Arg, key string) (int64, bool) {
	for _, a := range args {
		if a.Key == key && !a.IsStr {
			return a.Int, true
		}
	}
	return 0, false
}

// drop loses m, and with it the link it travels on; the step then waits
// until the link's node has connected again (it does by itself, after its
// reconnect interval), so that what comes next does not depend on how
// long that took.
func (r *run) drop(m *message) {
	l := m.link
	r.breakLink(l)
	if l.copyOnly || !r.nodes[l.from].up() || !r.nodes[l.to].up() || r.cfg.forming() && !r.known[[2]int{l.from, l.to}] {
		// (A join's connection is not opened again at once: the
		// joiner retries at its own pace.)
		return
	}
	deadline := time.Now().Add(relinkTimeout)
	for r.ctx.Err() == nil {
		r.pump()
		for _, x := range r.links {
			if x.from == l.from && x.to == l.to && x.clientUp && x.serverUp && !x.copyOnly && x.authed {
				r.barrier(r.nodes[l.from])
				return
			}
		}
		if time.Now().After(deadline) || !r.nodes[l.from].up() || !r.nodes[l.to].up() {
			r.s.log.Warn("a node did not reconnect after a drop", "from", l.from+1, "to", l.to+1)
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// duplicateStep copies the k-th request held for p (replies cannot be
// copied: see proxy.go).
func (r *run) duplicateStep(p, k int) {
	var reqs []*message
	for _, m := range r.inbox(p, false) {
		if !m.reply {
			reqs = append(reqs, m)
		}
	}
	if len(reqs) == 0 {
		return
	}
	if !r.duplicate(reqs[(k-1)%len(reqs)]) {
		r.skip(p, "duplicate: the receiver cannot be reached")
	}
}

// restart starts a crashed node again on its data directory and waits
// until it is up and linked with every live peer.
func (r *run) restart(p int) {
	n := r.nodes[p]
	if n.up() {
		r.skip(p, "restart of a live node")
		return
	}
	at := len(r.trace)
	r.record(schedule.EvRestart, p, -1, 0, schedule.EvRestart, nil)
	if err := r.listen(n); err != nil {
		r.fail(schedule.FailureRestart, "restart: proxy", err.Error(), "")
		return
	}
	want := "up"
	if r.cfg.forming() {
		want = stateSettled
	}
	if err := r.start(n, want); err != nil {
		if n.proc != nil {
			if exited, killed := n.proc.Exited(); exited && !killed {
				// It died by itself while starting (restoring its log,
				// say): a crash, named by its log like any other.
				r.reapExits()
				return
			}
		}
		r.kill(n)
		r.reapExits()
		r.fail(schedule.FailureRestart, "restart: not up", err.Error(), "")
		return
	}
	if err := r.linked(time.Now().Add(relinkTimeout)); err != nil {
		r.s.log.Warn("restart: links missing", "node", p+1, "error", err)
	}
	if in, ok := r.info(n); ok {
		r.trace[at].Args = []schedule.Arg{schedule.I(schedule.ArgTerm, in.Term), schedule.I(schedule.ArgVote, process(in.Vote)),
			schedule.I(schedule.ArgCommit, in.Commit), schedule.I(schedule.ArgSnapIndex, in.SnapIndex), schedule.I(schedule.ArgLastIndex, in.Index)}
	}
	n.info = nodeInfo{}
	r.settle(p)
	r.poll(n)
	r.rejoin(n)
}

// timeout makes p start an election at once (RAFT.TIMEOUT_NOW, which
// RedisRaft's leader transfer sends too: no pre-vote round).
func (r *run) timeout(p int) {
	n := r.nodes[p]
	at := len(r.trace)
	r.record(schedule.EvTimeout, p, -1, 0, schedule.EvTimeout, []schedule.Arg{schedule.I(schedule.ArgTerm, n.info.Term)})
	v, err := n.ctl.do(callTimeout, "RAFT.TIMEOUT_NOW")
	if err != nil {
		r.lost(n, err)
		return
	}
	if v.kind == '-' {
		r.trace[at].Args = append(r.trace[at].Args, schedule.S(ArgError, string(v.str)))
	}
	r.settle(p)
	r.poll(n)
}

// transfer asks p to hand its leadership to process to
// (RAFT.TRANSFER_LEADER); the command is answered when the transfer ends,
// which later steps decide, so its answer is not waited for.
func (r *run) transfer(p, to int) {
	n := r.nodes[p]
	at := len(r.trace)
	r.record(schedule.EvTransfer, p, to, 0, schedule.EvTransfer, nil)
	c, err := net.DialTimeout("tcp", n.addr(), dialTimeout)
	if err != nil {
		r.lost(n, err)
		return
	}
	r.client.mu.Lock()
	r.client.extra = append(r.client.extra, c)
	r.client.mu.Unlock()
	_ = c.SetWriteDeadline(time.Now().Add(callTimeout))
	if _, err := c.Write(appendCommand(nil, "RAFT.TRANSFER_LEADER", strconv.Itoa(to+1))); err != nil {
		return
	}
	r.settle(p)
	buf := make([]byte, 4096)
	if nr, _, _ := readAvailable(c, buf); nr > 0 {
		if v, _, err := parseValue(buf[:nr]); err == nil && v.kind == '-' {
			r.trace[at].Args = []schedule.Arg{schedule.S(ArgError, string(v.str))}
		}
	}
	r.poll(n)
}

// tick makes p's heartbeat timer fire once: at a leader, an RAFT.AE to
// every peer it may send to (RedisRaft's raft_periodic once its
// request-timeout has passed). The timer is set to 1 ms until p has sent
// the round (or a few periodic intervals passed without one: a leader
// that may send nothing), then set back. At a follower nothing happens:
// its election timer is the timeout step's.
func (r *run) tick(p int) {
	n := r.nodes[p]
	r.record(schedule.EvTick, p, -1, 0, schedule.EvTick, nil)
	if n.info.Role != "leader" {
		return
	}
	before := len(r.trace)
	if _, err := n.ctl.do(callTimeout, "CONFIG", "SET", "raft.request-timeout", "1"); err != nil {
		r.lost(n, err)
		return
	}
	deadline := time.Now().Add(time.Duration(5*r.cfg.PeriodicInterval) * time.Millisecond)
	for r.ctx.Err() == nil && time.Now().Before(deadline) {
		r.pump()
		if r.sentSince(before, p, TypeAE) {
			break
		}
		time.Sleep(500 * time.Microsecond)
	}
	if _, err := n.ctl.do(callTimeout, "CONFIG", "SET", "raft.request-timeout", strconv.Itoa(orNever(r.cfg.RequestTimeout))); err != nil {
		r.lost(n, err)
		return
	}
	r.settle(p)
	r.poll(n)
}

// sentSince reports whether p sent a message of type typ since trace
// position i.
func (r *run) sentSince(i, p int, typ string) bool {
	for _, e := range r.trace[i:] {
		if e.Kind == schedule.EvSend && e.Node == p && e.Type == typ {
			return true
		}
	}
	return false
}
