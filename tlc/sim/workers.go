package sim

import (
	"sync"
	"time"
)

// Simulation runs on goroutines that live on between batches.
//
// Evaluating a model recurses deeply (compiled closures, enumeration
// continuations): a new goroutine grows its stack, by copying it, several
// times before its first simulation is done, which costs a fuzzing
// campaign, whose batches come from new goroutines, a fifth of the
// engine's time. Workers that outlive a batch keep the stacks they grew;
// one idle for workerIdle exits.

const workerIdle = 5 * time.Second

var workers = struct {
	tasks chan func()
}{tasks: make(chan func())}

// Parallel calls f from n goroutines at once (long-lived workers; the
// caller's own goroutine is not one of them) and returns when every call
// has returned.
func Parallel(n int, f func()) {
	var wg sync.WaitGroup
	wg.Add(n)
	task := func() {
		defer wg.Done()
		f()
	}
	for range n {
		select {
		case workers.tasks <- task:
		default:
			go worker(task)
		}
	}
	wg.Wait()
}

func worker(task func()) {
	t := time.NewTimer(workerIdle)
	defer t.Stop()
	for {
		task()
		if !t.Stop() {
			select {
			case <-t.C:
			default:
			}
		}
		t.Reset(workerIdle)
		select {
		case task = <-workers.tasks:
		case <-t.C:
			return
		}
	}
}
