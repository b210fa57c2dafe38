package etcd

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.etcd.io/raft/v3/raftpb"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// Client operations, recorded in the trace as EvClient events (Type the
// operation) at the step that issued them, and their answers as
// schedule.EvResponse events after the last step, in issue order.
const EvClient = "client"

// ArgOp is the arg of an EvClient or response event naming the operation
// (Op.Kind); ArgOut a response's outcome.
const (
	ArgOp  = "op"
	ArgOut = "out"
)

// sleep waits d, or less when the execution is interrupted.
func (e *execution) sleep(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-e.ctx.Done():
	}
}

func (e *execution) runStep(st schedule.Step) {
	e.mu.Lock()
	e.step = e.steps
	e.steps++
	e.mu.Unlock()
	e.checkExits()
	p := st.Process
	switch st.Action {
	case schedule.Deliver:
		for range st.Messages {
			if !e.deliverAt(p, 1, false) {
				break
			}
		}
	case schedule.DeliverOne:
		e.deliverAt(p, st.K, true)
	case schedule.Drop:
		e.dropAt(p, st.K)
	case schedule.Duplicate:
		e.duplicateAt(p, st.K)
	case schedule.Partition:
		e.mu.Lock()
		e.part = st.Set
		e.recordLocked(schedule.EvPartition, -1, -1, 0, "partition", []schedule.Arg{schedule.S(schedule.ArgSet, st.Set.String())})
		e.mu.Unlock()
	case schedule.Heal:
		e.mu.Lock()
		e.part = 0
		e.recordLocked(schedule.EvHeal, -1, -1, 0, "heal", nil)
		e.mu.Unlock()
	case schedule.Crash:
		e.crash(p)
	case schedule.Restart:
		e.restart(p)
	case schedule.Request:
		e.request(p, st.Value)
	case schedule.Read:
		e.read(p)
	case schedule.TransferLeader:
		e.transfer(p, st.To)
	case schedule.Tick:
		e.record(schedule.EvTick, p, -1, 0, "tick", []schedule.Arg{schedule.I(schedule.ArgTicks, int64(st.N))})
		e.sleep(time.Duration(st.N*e.cfg.HeartbeatMS) * time.Millisecond)
	}
	e.sleep(time.Duration(e.cfg.StepMS) * time.Millisecond)
}

// skip records a step that cannot run in this state.
func (e *execution) skip(p int, why string) {
	e.mu.Lock()
	e.skipped++
	e.recordLocked(schedule.EvSkip, p, -1, 0, why, nil)
	e.mu.Unlock()
}

// deliverable returns the k-th (1-based, modulo their number) message
// process p can receive now, and removes it from the inbox; nil if none.
func (e *execution) takeDeliverable(p, k int) *held {
	e.mu.Lock()
	defer e.mu.Unlock()
	var idx []int
	for i, h := range e.inbox[p] {
		if !e.cutLocked(h.from, p) {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return nil
	}
	i := idx[(k-1)%len(idx)]
	h := e.inbox[p][i]
	e.inbox[p] = slices.Delete(e.inbox[p], i, i+1)
	return h
}

func (e *execution) deliverAt(p, k int, one bool) bool {
	if e.isDown(p) {
		e.skip(p, "crashed")
		return false
	}
	h := e.takeDeliverable(p, k)
	if h == nil {
		if one {
			e.skip(p, "nothing to deliver")
		}
		return false
	}
	e.deliver(h)
	e.waitQuiet(p, quietAfterDelivery, maxQuietWait)
	return true
}

// After each delivery the execution waits until nothing from the receiver
// reached the proxy for quietAfterDelivery (at most maxQuietWait): what the receiver does
// with the message then comes before the next delivery in the trace,
// unless the machine is too slow for it (a replay rate below 100% says
// how often).
const (
	quietAfterDelivery = 3 * time.Millisecond
	maxQuietWait       = 30 * time.Millisecond
)

func (e *execution) isDown(p int) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.down[p]
}

func (e *execution) dropAt(p, k int) {
	e.mu.Lock()
	if len(e.inbox[p]) == 0 {
		e.mu.Unlock()
		e.skip(p, "nothing to drop")
		return
	}
	i := (k - 1) % len(e.inbox[p])
	h := e.inbox[p][i]
	e.inbox[p] = slices.Delete(e.inbox[p], i, i+1)
	e.recordLocked(schedule.EvDrop, p, h.from, h.msg, msgType(h.m), nil)
	e.mu.Unlock()
	if h.snap != nil {
		h.snap.drop()
	}
}

func (e *execution) duplicateAt(p, k int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.inbox[p]) == 0 {
		e.skipped++
		e.recordLocked(schedule.EvSkip, p, -1, 0, "nothing to duplicate", nil)
		return
	}
	// A forwarded proposal is not copied: etcd's server applies every
	// copy (a put twice, two revisions), and nothing on its transport can
	// duplicate one (TCP streams, HTTP POSTs that rafthttp never sends
	// twice), so a copy would show a fault of the proxy, not of etcd.
	var can []*held
	for _, h := range e.inbox[p] {
		if h.m.GetType() != raftpb.MessageType_MsgProp {
			can = append(can, h)
		}
	}
	if len(can) == 0 {
		e.skipped++
		e.recordLocked(schedule.EvSkip, p, -1, 0, "nothing to duplicate but forwarded proposals", nil)
		return
	}
	h := can[(k-1)%len(can)]
	e.nextMsg++
	c := &held{msg: e.nextMsg, from: h.from, to: h.to, m: h.m}
	if h.snap != nil {
		// The copy's sender does not wait for it.
		c.snap = &snapBody{header: h.snap.header, body: h.snap.body, done: make(chan int, 1)}
	}
	e.inbox[p] = append(e.inbox[p], c)
	e.recordLocked(schedule.EvDuplicate, p, h.from, c.msg, msgType(h.m), []schedule.Arg{schedule.I(schedule.ArgCopyOf, int64(h.msg))})
}

// crash kills the member's process group (SIGKILL): what it had not
// written is lost; the messages held for it are lost too.
func (e *execution) crash(p int) {
	e.mu.Lock()
	if e.down[p] {
		e.mu.Unlock()
		e.skip(p, "crashed")
		return
	}
	e.down[p] = true
	e.recordLocked(schedule.EvCrash, p, -1, 0, "crash", nil)
	lost := e.inbox[p]
	e.inbox[p] = nil
	for _, h := range lost {
		e.recordLocked(schedule.EvDrop, p, h.from, h.msg, msgType(h.m), nil)
	}
	m := e.members[p]
	e.mu.Unlock()
	for _, h := range lost {
		if h.snap != nil {
			h.snap.drop()
		}
	}
	if m.proc != nil {
		m.proc.Kill()
	}
	m.out.mark("SIGKILL")
}

// restart starts the member again on its data directory and waits until
// it listens for its peers (it serves clients only once it has caught up
// with the cluster, which takes deliveries).
func (e *execution) restart(p int) {
	e.mu.Lock()
	if !e.down[p] || e.exited[p] {
		e.mu.Unlock()
		e.skip(p, "running")
		return
	}
	e.down[p] = false
	e.recordLocked(schedule.EvRestart, p, -1, 0, "restart", nil)
	e.mu.Unlock()
	if err := e.startMember(p); err != nil {
		e.restartFailed(p, err.Error())
		return
	}
	m := e.members[p]
	wait := newPatience(time.Duration(e.cfg.StartTimeoutMS) * time.Millisecond)
	before := e.preemptions()
	for {
		c, err := net.DialTimeout("tcp", m.peer, time.Second)
		if err == nil {
			c.Close()
			return
		}
		if ex, _ := m.proc.Exited(); ex {
			return // checkExits reports it
		}
		if wait.expired() || e.ctx.Err() != nil {
			switch {
			case e.ctx.Err() != nil:
			case wait.undecided() && e.preemptedSince(before, m.name):
				// Starved, not shown absent: settle asks it again.
				e.s.log.Warn("restart check undecided: the machine starved the member", "member", m.name, "wait", wait.String())
			default:
				e.restartFailed(p, "not listening for peers ("+wait.String()+")")
			}
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (e *execution) restartFailed(p int, why string) {
	e.fail(schedule.Failure{Kind: schedule.FailureRestart, Signature: "restart: member did not start",
		Message: fmt.Sprintf("n%d did not start again: %s", p+1, why), Step: e.curStep(),
		Detail: e.outputDetail()})
}

func (e *execution) curStep() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.step
}

// checkExits reports members that exited by themselves.
func (e *execution) checkExits() {
	for i, m := range e.members {
		if m.proc == nil {
			continue
		}
		ex, killed := m.proc.Exited()
		if !ex || killed {
			continue
		}
		e.mu.Lock()
		if e.exited[i] || e.torn {
			e.mu.Unlock()
			continue
		}
		e.exited[i], e.down[i] = true, true
		e.recordLocked(schedule.EvExit, i, -1, 0, "exit", []schedule.Arg{schedule.S("status", m.proc.ExitStatus())})
		step := e.step
		e.mu.Unlock()
		sig := "exit: " + m.proc.ExitStatus()
		if al := m.out.Alarms(); len(al) > 0 {
			sig = "exit: " + alarmSignature(al[0])
		}
		e.fail(schedule.Failure{Kind: schedule.FailureExit, Signature: sig,
			Message: fmt.Sprintf("n%d exited by itself (%s)", i+1, m.proc.ExitStatus()), Step: step, Detail: e.outputDetail()})
	}
}

func (e *execution) outputDetail() string {
	var b strings.Builder
	for _, m := range e.members {
		fmt.Fprintf(&b, "=== %s ===\n%s\n", m.name, m.out.String())
	}
	return b.String()
}

// request issues the client operation of a request step: value v picks
// the operation (v mod 8: put, linearizable get, put, serializable get,
// delete, compare-and-swap, a put under a new lease, revoke of the last
// lease granted) and the key (k<(v/2) mod keys>).
func (e *execution) request(p, v int) {
	if e.isDown(p) {
		e.skip(p, "crashed")
		return
	}
	key := "k" + strconv.Itoa((v/2)%e.cfg.Keys)
	val := "v" + strconv.Itoa(v)
	e.mu.Lock()
	if v >= e.nextValue {
		e.nextValue = v + 1
	}
	var ops []Op
	switch v % 8 {
	case 0, 2:
		ops = []Op{{Kind: opPut, Key: key, Arg: val}}
		e.lastPut[key] = val
	case 1:
		ops = []Op{{Kind: opGet, Key: key}}
	case 3:
		ops = []Op{{Kind: opSerializableGet, Key: key}}
	case 4:
		ops = []Op{{Kind: opDelete, Key: key}}
		e.lastPut[key] = ""
	case 5:
		ops = []Op{{Kind: opCAS, Key: key, Expect: e.lastPut[key], Arg: val}}
		e.lastPut[key] = val
	case 6:
		ops = []Op{{Kind: opGrant}, {Kind: opPut, Key: key, Arg: val}}
		e.lastPut[key] = val
	case 7:
		if len(e.leases) == 0 {
			ops = []Op{{Kind: opPut, Key: key, Arg: val}}
			e.lastPut[key] = val
		} else {
			ops = []Op{{Kind: opRevoke, Lease: e.leases[len(e.leases)-1]}}
		}
	}
	if ops[len(ops)-1].Key != "" {
		e.lastKey = key
	}
	e.mu.Unlock()
	e.issue(p, v, ops)
}

// read is a linearizable get of the key the last request used (k0 at
// first).
func (e *execution) read(p int) {
	if e.isDown(p) {
		e.skip(p, "crashed")
		return
	}
	e.mu.Lock()
	key := e.lastKey
	e.mu.Unlock()
	e.issue(p, 0, []Op{{Kind: opGet, Key: key}})
}

// issue runs ops one after the other in the background (a grant's lease
// goes to the put after it), recording each in the history.
func (e *execution) issue(p, v int, ops []Op) {
	e.mu.Lock()
	step := e.step
	idx := make([]int, len(ops))
	for k := range ops {
		ops[k].Process, ops[k].Step, ops[k].Value = p, step, v
		ops[k].Pending = true
		idx[k] = len(e.history)
		e.history = append(e.history, ops[k])
		args := []schedule.Arg{schedule.I(schedule.ArgValue, int64(v))}
		if ops[k].Key != "" {
			args = append(args, schedule.S("key", ops[k].Key))
		}
		e.recordLocked(EvClient, p, -1, 0, ops[k].Kind, args)
	}
	e.mu.Unlock()
	addr := e.members[p].client
	e.clients.Add(1)
	go func() {
		defer e.clients.Done()
		var lease int64
		for k, o := range ops {
			if o.Kind == opPut && k > 0 && ops[0].Kind == opGrant {
				if lease == 0 {
					return // the grant failed: the put is not issued
				}
				o.Lease = lease
			}
			e.mu.Lock()
			o.Call = time.Since(e.start).Nanoseconds()
			e.history[idx[k]].Call, e.history[idx[k]].Lease = o.Call, o.Lease
			e.mu.Unlock()
			done := e.runOp(addr, &o)
			e.mu.Lock()
			o.Return = time.Since(e.start).Nanoseconds()
			if o.Kind == opGrant && !o.Pending {
				lease = o.LeaseID
				e.leases = append(e.leases, lease)
			}
			e.history[idx[k]] = o
			e.mu.Unlock()
			if !done {
				return
			}
		}
	}()
}

// runOp makes one call; false when it got no definite answer.
func (e *execution) runOp(addr string, o *Op) bool {
	ctx, cancel := context.WithTimeout(e.ctx, time.Duration(e.cfg.RequestTimeoutMS)*time.Millisecond)
	defer cancel()
	var err error
	var h header
	switch o.Kind {
	case opPut:
		var r putResp
		r, err = e.cl.put(ctx, addr, o.Key, o.Arg, o.Lease)
		h = r.Header
	case opGet, opSerializableGet:
		var r rangeResp
		r, err = e.cl.get(ctx, addr, o.Key, o.Kind == opSerializableGet)
		h = r.Header
		if err == nil && len(r.Kvs) > 0 {
			o.Found, o.Out, o.Mod = true, string(r.Kvs[0].Value), int64(r.Kvs[0].ModRevision)
			if e.cfg.Inject == InjectCorruptRead && o.Kind == opGet {
				o.Out += "-corrupted"
			}
		}
	case opDelete:
		var r deleteResp
		r, err = e.cl.del(ctx, addr, o.Key)
		h, o.Deleted = r.Header, int64(r.Deleted)
	case opCAS:
		var r txnResp
		r, err = e.cl.cas(ctx, addr, o.Key, o.Expect, o.Arg)
		h, o.Succeeded = r.Header, r.Succeeded
	case opGrant:
		var r leaseResp
		r, err = e.cl.grant(ctx, addr, leaseTTL)
		h, o.LeaseID = r.Header, int64(r.ID)
	case opRevoke:
		var r putResp
		r, err = e.cl.revoke(ctx, addr, o.Lease)
		h = r.Header
	}
	if err != nil {
		o.Pending, o.Err = true, err.Error()
		return false
	}
	o.Pending, o.Rev = false, int64(h.Revision)
	return true
}

// leaseTTL: long enough that no lease expires within an execution (an
// expiry would be a write no client made).
const leaseTTL = 3600

func (e *execution) transfer(p, to int) {
	if e.isDown(p) {
		e.skip(p, "crashed")
		return
	}
	e.record(schedule.EvTransfer, p, to, 0, "transfer", nil)
	addr, target := e.members[p].client, e.px.ids[to]
	e.clients.Add(1)
	go func() {
		defer e.clients.Done()
		ctx, cancel := context.WithTimeout(e.ctx, time.Duration(e.cfg.RequestTimeoutMS)*time.Millisecond)
		defer cancel()
		_ = e.cl.moveLeader(ctx, addr, target)
	}()
}
