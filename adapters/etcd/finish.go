package etcd

import (
	"context"
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
//     revision) within Config.SettleMS: else "restart: a member did not
//     rejoin";
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
	deadline := time.Now().Add(time.Duration(e.cfg.SettleMS) * time.Millisecond)
	rev, err := e.converged(deadline)
	if err != nil {
		if e.ctx.Err() == nil {
			e.fail(schedule.Failure{Kind: schedule.FailureRestart, Signature: "restart: a member did not rejoin",
				Message: fmt.Sprintf("the members did not catch up within %dms of the network healing: %v", e.cfg.SettleMS, err),
				Step:    e.steps, Detail: e.outputDetail()})
		}
		return
	}
	if e.cfg.Inject == InjectCorruptMember {
		var ierr error
		rev, ierr = e.corruptMember(deadline)
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
	type view struct {
		listing string
		hash    int64
		hashed  bool
	}
	var views []view
	for _, m := range e.members {
		ctx, cancel := context.WithTimeout(e.ctx, 5*time.Second)
		r, err := e.cl.all(ctx, m.client, rev)
		var v view
		if err == nil {
			var b strings.Builder
			for _, x := range r.Kvs {
				fmt.Fprintf(&b, "%q=%q mod %d create %d version %d lease %d\n", x.Key, x.Value, x.ModRevision, x.CreateRevision, x.Version, x.Lease)
			}
			v.listing = b.String()
			h, ok, herr := e.cl.hashKV(ctx, m.client, rev)
			if herr == nil && ok {
				v.hash, v.hashed = int64(h.Hash), true
			}
		}
		cancel()
		if err != nil {
			if e.ctx.Err() == nil {
				e.fail(schedule.Failure{Kind: schedule.FailureRestart, Signature: "restart: a member did not rejoin",
					Message: fmt.Sprintf("%s could not be read at revision %d: %v", m.name, rev, err), Step: e.steps, Detail: e.outputDetail()})
			}
			return
		}
		views = append(views, v)
	}
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
