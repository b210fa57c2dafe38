package fuzzer

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/modelfuzz/modelfuzz/record"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// bgMinimizer minimizes a campaign's bugs in the background, one at a time,
// on its own system instance. Results go back to the campaign's loop,
// which alone writes bug records (applyMinimized).
type bgMinimizer struct {
	f      *Fuzzer
	ctx    context.Context
	stop   context.CancelFunc
	mu     sync.Mutex
	todo   []minJob
	active int // jobs being minimized (0 or 1)
	done   []minResult
	wake   chan struct{}
	closed bool
	exited chan struct{}
	chk    *Checker // its system, once the loop has started
}

type minJob struct {
	id        string
	signature string
	start     *schedule.Input // the best reproducer so far
	tries     int             // spent by earlier sessions
}

type minResult struct {
	id       string
	in       *schedule.Input
	tries    int
	complete bool
	err      error
}

func newBgMinimizer(f *Fuzzer) *bgMinimizer {
	ctx, stop := context.WithCancel(context.Background())
	m := &bgMinimizer{f: f, ctx: ctx, stop: stop, wake: make(chan struct{}, 1), exited: make(chan struct{})}
	go m.loop()
	return m
}

// enqueue schedules bug b. Only the loop's goroutine calls it.
func (m *bgMinimizer) enqueue(b *record.BugRecord) {
	m.mu.Lock()
	m.todo = append(m.todo, minJob{id: b.ID, signature: b.Signature, start: b.Reproducer().Clone(), tries: b.MinimizeTries})
	m.mu.Unlock()
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// busy is the number of bugs waiting for or under minimization.
func (m *bgMinimizer) busy() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.todo) + m.active
}

// cancel stops the minimization under way (it reports what it reached)
// and drops the ones not started.
func (m *bgMinimizer) cancel() {
	m.stop()
	m.mu.Lock()
	m.todo = nil
	m.mu.Unlock()
}

// close waits until every queued minimization has finished. When
// interrupt is closed first (a signal), it cancels them: the one under way
// ends after its current execution and reports what it reached, unless
// hurry is closed first. When fault (the store failed: no result can be
// stored) or hurry (an interrupted campaign cannot wait longer) is closed
// first, it cancels them, interrupts the execution under way and waits at
// most stopGrace.
func (m *bgMinimizer) close(interrupt, fault, hurry <-chan struct{}) {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	select {
	case m.wake <- struct{}{}:
	default:
	}
	for done := false; !done; {
		select {
		case <-m.exited:
			return
		case <-interrupt:
			m.cancel()
			interrupt = nil
		case <-fault:
			done = true
		case <-hurry:
			done = true
		}
	}
	m.cancel()
	m.mu.Lock()
	chk := m.chk
	m.mu.Unlock()
	if chk != nil {
		chk.exec.interrupt() // its result cannot be stored
	}
	t := time.NewTimer(stopGrace)
	defer t.Stop()
	select {
	case <-m.exited:
	case <-t.C:
	}
}

func (m *bgMinimizer) take() (minJob, bool, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.todo) == 0 {
		return minJob{}, false, m.closed
	}
	j := m.todo[0]
	m.todo = m.todo[1:]
	m.active++
	return j, true, false
}

func (m *bgMinimizer) loop() {
	defer close(m.exited)
	f := m.f
	chk := NewChecker(f.fac, f.opt.Measures, f.opt.ExecTimeout)
	m.mu.Lock()
	m.chk = chk
	m.mu.Unlock()
	for {
		j, ok, closed := m.take()
		if !ok {
			if closed {
				return
			}
			<-m.wake
			continue
		}
		if f.opt.Exchange != nil && !f.opt.Exchange.Claim(j.signature) {
			// Another campaign of the exchange minimizes it.
			m.mu.Lock()
			m.active--
			m.mu.Unlock()
			continue
		}
		keep := func(in *schedule.Input) (bool, error) { return chk.Reproduces(in, j.signature) }
		budget := f.opt.MinimizeBudget
		out, st, err := schedule.Minimize(m.ctx, j.start, keep, budget)
		m.mu.Lock()
		m.active--
		m.done = append(m.done, minResult{id: j.id, in: out, tries: j.tries + st.Tries, complete: st.Complete, err: err})
		m.mu.Unlock()
	}
}

// applyMinimized stores the minimizations that finished. Only the loop's
// goroutine calls it.
func (f *Fuzzer) applyMinimized(final bool) error {
	if f.min == nil {
		return nil
	}
	f.min.mu.Lock()
	done := f.min.done
	f.min.done = nil
	f.min.mu.Unlock()
	var b record.Batch
	for _, r := range done {
		var bug *record.BugRecord
		for _, x := range f.bugList {
			if x.ID == r.id {
				bug = x
			}
		}
		if bug == nil {
			continue
		}
		if errors.Is(r.err, schedule.ErrNotReproduced) {
			f.opt.Logf("cannot minimize %s: its input does not show the bug again when replayed (flaky?)", r.id)
			bug.MinimizeDone, bug.MinimizeNote, bug.MinimizeTries = true, "the input does not show the bug again when replayed", r.tries
			b.Bugs = append(b.Bugs, bug)
			continue
		}
		if r.err != nil && r.in == nil {
			f.opt.Logf("minimizing %s failed: %v", r.id, r.err)
			continue
		}
		if r.err != nil {
			f.opt.Logf("minimizing %s stopped: %v", r.id, r.err)
		}
		bug.Minimized, bug.MinimizeTries, bug.MinimizeDone = r.in, r.tries, r.complete && r.err == nil
		state := "done"
		if !bug.MinimizeDone {
			state = "stopped by its budget; continued in the next session"
			if final {
				state = "stopped; the next session goes on from here"
			}
		}
		f.opt.Logf("minimized %s: %d steps -> %d steps in %d executions (%s)", bug.ID, bug.Input.Len(), r.in.Len(), r.tries, state)
		b.Bugs = append(b.Bugs, bug)
	}
	if len(b.Bugs) == 0 {
		return nil
	}
	return f.commit(&b)
}
