package etcd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// finish ends an execution: the network heals and delivers everything,
// crashed members start again, the client requests get their answers,
// and the oracles run:
//
//   - every member catches up (the same leader, applied index and
//     revision) within Config.SettleMS of a machine that is not starved
//     (patience): else "restart: a member did not rejoin", unless a
//     member that did not answer may only have been starved, which makes
//     the check undecided (counted as rejoin_unknown, never a pass);
//   - the members' key spaces are equal at that revision (HashKV where
//     the gateway serves it, 3.5 and later, and a range read of every key
//     from each member's own store): else "safety: members' key spaces
//     differ";
//   - the client history is linearizable (checkHistory);
//   - no member exited by itself (checkExits, at every step and here).
func (e *execution) finish() *schedule.Execution {
	e.mu.Lock()
	e.step = e.steps
	interrupted := e.ctx.Err() != nil
	e.mu.Unlock()
	e.checkExits()
	if !interrupted {
		e.settle()
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, o := range e.history {
		if o.Pending {
			continue
		}
		args := []schedule.Arg{schedule.I(schedule.ArgValue, int64(o.Value)), schedule.S(ArgOut, o.String())}
		e.recordLocked(schedule.EvResponse, o.Process, -1, 0, o.Kind, args)
	}
	ex := &schedule.Execution{Trace: slices.Clone(e.trace), Failures: slices.Clone(e.failures), Skipped: e.skipped}
	if !interrupted {
		f, res := checkHistory(e.history, e.steps)
		e.s.fac.countCheck(res)
		if f != nil {
			f.Detail += e.outputDetail()
			ex.Failures = append(ex.Failures, *f)
		}
	}
	return ex
}

func (e *execution) settle() {
	e.mu.Lock()
	e.part = 0
	e.mu.Unlock()
	e.closeNet = e.startDispatch(false)
	for p := range e.members {
		e.mu.Lock()
		restart := e.down[p] && !e.exited[p]
		e.mu.Unlock()
		if restart {
			e.restart(p)
		}
	}
	e.clients.Wait()
	e.checkExits()
	wait := newPatience(time.Duration(e.cfg.SettleMS) * time.Millisecond)
	before := e.preemptions()
	rev, err := e.converged(wait)
	if err != nil {
		if e.ctx.Err() != nil {
			return
		}
		var late *lateMember
		name := ""
		if errors.As(err, &late) {
			name = late.name
		}
		if !refused(err) && wait.undecided() && e.preemptedSince(before, name) {
			// Starved, not shown absent: the check says nothing.
			e.s.fac.rejoinUnknown.Add(1)
			e.s.log.Warn("rejoin check undecided: the machine starved the members", "wait", wait.String(), "error", err)
			return
		}
		e.fail(schedule.Failure{Kind: schedule.FailureRestart, Signature: "restart: a member did not rejoin",
			Message: fmt.Sprintf("the members did not catch up after the network healed (%s): %v", wait, err),
			Step:    e.steps, Detail: e.outputDetail()})
		return
	}
	if e.cfg.Inject == InjectCorruptMember {
		var ierr error
		rev, ierr = e.corruptMember(time.Duration(e.cfg.SettleMS) * time.Millisecond)
		if ierr != nil {
			// The fault was not seeded: the execution says nothing.
			e.harnessErr = fmt.Errorf("etcd: --inject %s: %w", InjectCorruptMember, ierr)
			return
		}
	}
	e.compareStores(rev)
}

// compareStores compares every member's key space at revision rev.
func (e *execution) compareStores(rev int64) {
	var views []storeView
	wait := newPatience(5 * time.Second)
	before := e.preemptions()
	for _, m := range e.members {
		var v storeView
		var err error
		for {
			ctx, cancel := context.WithTimeout(e.ctx, 5*time.Second)
			v, err = e.readStore(ctx, m.client, rev)
			cancel()
			var answer *apiError
			if err == nil || errors.As(err, &answer) || e.ctx.Err() != nil || wait.expired() {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if err != nil {
			switch {
			case e.ctx.Err() != nil:
			case !refused(err) && wait.undecided() && e.preemptedSince(before, m.name):
				e.s.fac.rejoinUnknown.Add(1)
				e.s.log.Warn("store comparison undecided: the machine starved the members", "member", m.name, "wait", wait.String(), "error", err)
			default:
				e.fail(schedule.Failure{Kind: schedule.FailureRestart, Signature: "restart: a member did not rejoin",
					Message: fmt.Sprintf("%s could not be read at revision %d (%s): %v", m.name, rev, wait, err), Step: e.steps, Detail: e.outputDetail()})
			}
			return
		}
		views = append(views, v)
	}
	e.s.fac.rejoinOK.Add(1)
	for i := 1; i < len(views); i++ {
		a, b := views[0], views[i]
		hashDiff := a.hashed && b.hashed && a.hash != b.hash
		if a.listing == b.listing && !hashDiff {
			continue
		}
		what := "key-value listing"
		if hashDiff {
			what = fmt.Sprintf("HashKV %d against %d", a.hash, b.hash)
		}
		e.fail(schedule.Failure{Kind: schedule.FailureSafety, Signature: "safety: members' key spaces differ",
			Message: fmt.Sprintf("n1 and n%d differ at revision %d (%s)", i+1, rev, what), Step: e.steps,
			Detail: fmt.Sprintf("n1:\n%s\nn%d:\n%s\n%s", a.listing, i+1, b.listing, e.outputDetail())})
		return
	}
}

// preemptions is every member's count of preemptions (patience), -1
// where it is not known.
func (e *execution) preemptions() []int64 {
	out := make([]int64, len(e.members))
	for i, m := range e.members {
		out[i] = -1
		if m.proc == nil {
			continue
		}
		if ex, _ := m.proc.Exited(); ex {
			continue
		}
		if n, ok := preemptions(m.proc.Pgid()); ok {
			out[i] = n
		}
	}
	return out
}

// preemptedSince reports whether the member called name, or any member
// when name is "", was preempted at least minPreemptions times since
// before: it wanted a CPU it did not get.
func (e *execution) preemptedSince(before []int64, name string) bool {
	now := e.preemptions()
	for i, m := range e.members {
		if name != "" && m.name != name {
			continue
		}
		if before[i] >= 0 && now[i] >= 0 && now[i]-before[i] >= minPreemptions {
			return true
		}
	}
	return false
}

// storeView is one member's key space at a revision: every key's
// listing, and HashKV's hash where the member serves it.
type storeView struct {
	listing string
	hash    int64
	hashed  bool
}

func (e *execution) readStore(ctx context.Context, addr string, rev int64) (storeView, error) {
	r, err := e.cl.all(ctx, addr, rev)
	if err != nil {
		return storeView{}, err
	}
	var b strings.Builder
	for _, x := range r.Kvs {
		fmt.Fprintf(&b, "%q=%q mod %d create %d version %d lease %d\n", x.Key, x.Value, x.ModRevision, x.CreateRevision, x.Version, x.Lease)
	}
	v := storeView{listing: b.String()}
	if h, ok, herr := e.cl.hashKV(ctx, addr, rev); herr == nil && ok {
		v.hash, v.hashed = int64(h.Hash), true
	}
	return v, nil
}

// teardown kills every member, stops the proxy and removes the
// execution's directory. It is safe to call twice.
func (e *execution) teardown() {
	e.mu.Lock()
	if e.torn {
		e.mu.Unlock()
		return
	}
	e.torn = true
	inboxes := e.inbox
	e.inbox = make([][]*held, len(e.members))
	e.mu.Unlock()
	e.cancel()
	if e.closeNet != nil {
		e.closeNet()
	}
	for _, hs := range inboxes {
		for _, h := range hs {
			if h.snap != nil {
				h.snap.drop()
			}
		}
	}
	for _, m := range e.members {
		if m.proc != nil {
			m.proc.Kill()
		}
	}
	e.px.close()
	e.clients.Wait()
	e.async.Wait()
	e.lease.release()
	_ = os.RemoveAll(e.dir)
}
