package fuzzer

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"sync"
	"time"
)

// Generator makes inputs; package mutate implements it.
type Generator interface {
	Random(r *rand.Rand) *Input
	Mutate(r *rand.Rand, in *Input) *Input
}

// Options configure a campaign.
type Options struct {
	Strategy       string    // name reported in summaries
	Guide          Measure   // the measure whose new items make an input interesting; nil: never (random)
	Measures       []Measure // every measure to report; the guide is added when missing
	Oracles        []Oracle
	Seed           uint64
	SeedPopulation int   // random inputs added when the queue is empty or at a reseed
	ReseedEvery    int   // add SeedPopulation random inputs every this many iterations
	Mutations      int   // mutants enqueued per new coverage item
	Iterations     int64 // stop when the campaign's total reaches this (0: no limit)
	Duration       time.Duration
	QueueMax       int  // most inputs waiting in the queue; mutants beyond are dropped
	StopOnBug      bool // stop after the iteration that finds a new bug
	// Pipeline is how many inputs are executed as one batch; a batch is
	// measured while the next one executes (1: strictly one after the
	// other). A kill -9 loses at most the executions not yet recorded: up
	// to two batches.
	Pipeline int
	// Progress, when set, is called about every ProgressEvery with current stats.
	Progress      func(Stats)
	ProgressEvery time.Duration
}

// Stats is a view of a running campaign.
type Stats struct {
	Strategy    string
	Iterations  int64 // over all sessions
	Session     int64 // this session
	Elapsed     time.Duration
	ExecsPerSec float64
	CorpusSize  int
	Queue       int
	Coverage    map[string]int // measure -> items
	Bugs        int
	Failures    int64
}

// Summary is what a campaign reports when it ends.
type Summary struct {
	Strategy     string
	Iterations   int64 // over all sessions
	Session      int64
	Duration     time.Duration // this session
	ExecsPerSec  float64
	CorpusSize   int
	Coverage     map[string]int
	Bugs         []*BugRecord
	Divergences  int64 // executions that diverged from the model, over all sessions
	Interrupted  bool
	StoppedEarly string // why the budget was not used up, if so
}

// resumeInputs is how many of the most recent corpus inputs a continued
// campaign mutates to refill its queue.
const resumeInputs = 1000

type queued struct {
	in     *Input
	parent uint64
	rec    *InputRecord // an imported input not run yet
}

// Fuzzer runs one campaign.
type Fuzzer struct {
	opt      Options
	sys      System
	gen      Generator
	store    Store
	counters Counters
	cov      map[string]*Coverage
	bugs     map[string]*BugRecord // by signature
	bugList  []*BugRecord
	corpus   int
	queue    []queued
	qhead    int
	dropped  int64
}

// New prepares a campaign on store, continuing what store already holds.
func New(opt Options, sys System, gen Generator, store Store) (*Fuzzer, error) {
	if opt.SeedPopulation < 1 {
		return nil, fmt.Errorf("--seed-population must be at least 1, got %d", opt.SeedPopulation)
	}
	if opt.ReseedEvery < 1 {
		return nil, fmt.Errorf("--reseed-every must be at least 1, got %d", opt.ReseedEvery)
	}
	if opt.Mutations < 0 {
		return nil, fmt.Errorf("--mutations must not be negative, got %d", opt.Mutations)
	}
	if opt.QueueMax <= 0 {
		opt.QueueMax = 100000
	}
	if opt.ProgressEvery <= 0 {
		opt.ProgressEvery = 250 * time.Millisecond
	}
	if opt.Pipeline <= 0 {
		opt.Pipeline = 1
	}
	if opt.Guide != nil {
		found := false
		for _, m := range opt.Measures {
			found = found || m.Name() == opt.Guide.Name()
		}
		if !found {
			opt.Measures = append(opt.Measures, opt.Guide)
		}
	}
	f := &Fuzzer{opt: opt, sys: sys, gen: gen, store: store,
		cov: map[string]*Coverage{}, bugs: map[string]*BugRecord{}}
	for _, m := range opt.Measures {
		f.cov[m.Name()] = NewCoverage()
	}
	// A continued campaign restarts its queue from the most recent inputs.
	snap, err := store.Load(resumeInputs)
	if err != nil {
		return nil, err
	}
	f.counters = snap.Counters
	for m, items := range snap.Coverage {
		c := f.cov[m]
		if c == nil {
			continue
		}
		for it := range items {
			c.items[it] = struct{}{}
		}
	}
	for _, b := range snap.Bugs {
		f.bugs[b.Signature] = b
		f.bugList = append(f.bugList, b)
	}
	// Imported inputs not run yet go first; then a mutant of every kept input,
	// so a continued campaign picks up where its corpus is, not from scratch.
	r := f.rng(-1)
	spec := sys.Spec()
	f.corpus = int(f.counters.Interesting)
	for _, rec := range snap.Inputs {
		if rec.Source == "import" && rec.Iteration == 0 {
			if err := rec.Input.Validate(spec); err != nil {
				return nil, fmt.Errorf("imported input %d: %v", rec.ID, err)
			}
			f.queue = append(f.queue, queued{in: rec.Input, rec: rec})
		}
	}
	for i := len(snap.Inputs) - 1; i >= 0 && len(f.queue) < opt.QueueMax; i-- {
		if rec := snap.Inputs[i]; rec.Source == "fuzz" {
			f.queue = append(f.queue, queued{in: gen.Mutate(r, rec.Input), parent: rec.ID})
		}
	}
	if f.counters.NextInputID == 0 {
		f.counters.NextInputID = 1
	}
	if f.counters.NextBugID == 0 {
		f.counters.NextBugID = 1
	}
	return f, nil
}

// rng returns the random source of one iteration: derived from the seed and
// the iteration number alone, so a campaign is reproducible and a continued
// campaign does not depend on the random state of the killed process.
func (f *Fuzzer) rng(iteration int64) *rand.Rand {
	return rand.New(rand.NewPCG(f.opt.Seed, uint64(iteration)^0x6d6f64656c66757a))
}

// ErrTooManyHarnessErrors stops a campaign whose harness keeps failing.
var ErrTooManyHarnessErrors = errors.New("the system's harness failed 20 times in a row")

// Run fuzzes until the budget is used up or ctx is cancelled. It commits
// after every execution, so an abrupt stop loses at most the execution in
// flight.
func (f *Fuzzer) Run(ctx context.Context) (*Summary, error) {
	f.counters.Sessions++
	start := time.Now()
	lastProgress := start
	var session int64
	var consecutiveErrs int
	sum := &Summary{Strategy: f.opt.Strategy}
	spent := f.counters.RunSeconds
	var runErr error
	// With a pipeline, the next batch is executed while the previous one
	// is being measured (a model engine in another process works in
	// parallel with the system), and batches are finished in order.
	issued := f.counters.Iterations // iterations executed, finished or not
	var pending *batch
	handle := func(b *batch) (stop bool) {
		b.wait()
		for _, j := range b.jobs {
			bugsBefore := len(f.bugList)
			err := f.finish(j)
			session++
			if err != nil {
				var he *harnessError
				if !errors.As(err, &he) {
					runErr = err
					return true
				}
				consecutiveErrs++
				if consecutiveErrs >= 20 {
					runErr = fmt.Errorf("%w; last: %v", ErrTooManyHarnessErrors, he.err)
					return true
				}
			} else {
				consecutiveErrs = 0
			}
			if f.opt.StopOnBug && len(f.bugList) > bugsBefore {
				sum.StoppedEarly = "found a bug (--stop-on-bug)"
				return true
			}
		}
		return false
	}
loop:
	for {
		n := int64(f.opt.Pipeline)
		if f.opt.Iterations > 0 {
			n = min(n, f.opt.Iterations-issued)
		}
		if f.opt.Duration > 0 && time.Since(start) >= f.opt.Duration {
			n = 0
		}
		select {
		case <-ctx.Done():
			sum.Interrupted = true
			n = 0
		default:
		}
		var cur *batch
		if n > 0 {
			cur = f.runBatch(issued, int(n))
			issued += n
		}
		if pending != nil && handle(pending) {
			if cur != nil {
				cur.wait() // executed but not recorded: in flight when the campaign stopped
			}
			break loop
		}
		pending = cur
		if f.opt.Pipeline == 1 && pending != nil {
			// One at a time: finish each execution before the next.
			if handle(pending) {
				break loop
			}
			pending = nil
		}
		if cur == nil {
			break // nothing issued: the budget is used up and the last batch recorded
		}
		if f.opt.Progress != nil {
			if now := time.Now(); now.Sub(lastProgress) >= f.opt.ProgressEvery {
				lastProgress = now
				f.opt.Progress(f.stats(session, now.Sub(start)))
			}
		}
	}
	elapsed := time.Since(start)
	f.counters.RunSeconds = spent + elapsed.Seconds()
	if err := f.store.Commit(&Batch{Counters: &f.counters}); err != nil && runErr == nil {
		runErr = err
	}
	sum.Iterations = f.counters.Iterations
	sum.Session = session
	sum.Duration = elapsed
	if elapsed > 0 {
		sum.ExecsPerSec = float64(session) / elapsed.Seconds()
	}
	sum.CorpusSize = f.corpus
	sum.Divergences = f.counters.Divergences
	sum.Coverage = f.coverageCounts()
	sum.Bugs = append([]*BugRecord(nil), f.bugList...)
	sort.Slice(sum.Bugs, func(i, j int) bool { return bugNum(sum.Bugs[i].ID) < bugNum(sum.Bugs[j].ID) })
	if f.opt.Progress != nil {
		f.opt.Progress(f.stats(session, elapsed))
	}
	return sum, runErr
}

// job is one iteration between execution and its commit.
type job struct {
	iter    int64
	r       *rand.Rand
	q       queued
	ex      *Execution
	execErr error
	obs     []Observation
	obsErr  []error
}

// next takes the input of iteration iter from the queue, refilling it
// with random inputs when it is empty and every ReseedEvery iterations.
func (f *Fuzzer) next(iter int64, r *rand.Rand) queued {
	if f.qhead >= len(f.queue) || iter%int64(f.opt.ReseedEvery) == 0 {
		for i := 0; i < f.opt.SeedPopulation; i++ {
			f.push(queued{in: f.gen.Random(r)})
		}
	}
	q := f.queue[f.qhead]
	f.queue[f.qhead] = queued{}
	f.qhead++
	if f.qhead > 4096 && f.qhead*2 > len(f.queue) {
		f.queue = append(f.queue[:0], f.queue[f.qhead:]...)
		f.qhead = 0
	}
	return q
}

// runBatch executes the next n inputs one after the other (a System is
// not concurrent) and measures them: a BatchMeasure once for all of them
// (a model engine in another process answers them in one round trip), the
// other measures concurrently, per input. The inputs are taken from the
// queue before any of their results is known, so a campaign is the same
// whatever the engine and machine; results are then handled in order by
// finish.
func (f *Fuzzer) runBatch(issued int64, n int) *batch {
	jobs := make([]*job, n)
	var ins []*Input
	var exs []*Execution
	var ran []*job
	for k := 0; k < n; k++ {
		iter := issued + 1 + int64(k)
		r := f.rng(iter)
		j := &job{iter: iter, r: r, q: f.next(iter, r)}
		jobs[k] = j
		j.ex, j.execErr = f.sys.Execute(j.q.in)
		if j.execErr != nil {
			continue
		}
		if f.opt.Pipeline > 1 {
			j.ex.Trace = j.ex.Trace.Clone() // the system reuses its buffers
		}
		for _, o := range f.opt.Oracles {
			j.ex.Failures = append(j.ex.Failures, o.Check(j.q.in, j.ex)...)
		}
		j.obs = make([]Observation, len(f.opt.Measures))
		j.obsErr = make([]error, len(f.opt.Measures))
		ins, exs, ran = append(ins, j.q.in), append(exs, j.ex), append(ran, j)
	}
	b := &batch{jobs: jobs}
	wg := &b.wg
	for mi, m := range f.opt.Measures {
		if bm, ok := m.(BatchMeasure); ok && len(ran) > 1 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				obs, errs := bm.MeasureBatch(ins, exs)
				for k, j := range ran {
					j.obs[mi], j.obsErr[mi] = obs[k], errs[k]
				}
			}()
			continue
		}
		for _, j := range ran {
			wg.Add(1)
			go func() {
				defer wg.Done()
				j.obs[mi], j.obsErr[mi] = m.Measure(j.q.in, j.ex)
			}()
		}
	}
	return b
}

// batch is a group of executed inputs whose measures may still run.
type batch struct {
	jobs []*job
	wg   sync.WaitGroup
}

func (b *batch) wait() { b.wg.Wait() }

func bugNum(id string) int {
	n, _ := strconv.Atoi(id[1:])
	return n
}

type harnessError struct{ err error }

func (e *harnessError) Error() string { return "harness: " + e.err.Error() }

func (f *Fuzzer) push(q queued) bool {
	if len(f.queue)-f.qhead >= f.opt.QueueMax {
		f.dropped++
		return false
	}
	f.queue = append(f.queue, q)
	return true
}

// finish records one executed and measured input: coverage, corpus,
// mutants, bugs, all committed in one transaction.
func (f *Fuzzer) finish(j *job) error {
	iter, r, q, ex := j.iter, j.r, j.q, j.ex
	f.counters.Iterations = iter
	batch := &Batch{Counters: &f.counters}
	if q.rec != nil { // an imported input ran: record when
		q.rec.Iteration = iter
		batch.Inputs = append(batch.Inputs, q.rec)
	}
	if j.execErr != nil {
		f.counters.HarnessErrs++
		if cerr := f.store.Commit(batch); cerr != nil {
			return cerr
		}
		return &harnessError{j.execErr}
	}
	for i, m := range f.opt.Measures {
		if j.obsErr[i] != nil {
			f.counters.HarnessErrs++
			if cerr := f.store.Commit(batch); cerr != nil {
				return cerr
			}
			return &harnessError{fmt.Errorf("measure %s: %w", m.Name(), j.obsErr[i])}
		}
	}
	newGuide := 0
	var newItems map[string]int
	for i, m := range f.opt.Measures {
		obs := j.obs[i]
		ex.Failures = append(ex.Failures, obs.Failures...)
		c := f.cov[m.Name()]
		fresh := c.New(obs.Items)
		if len(fresh) == 0 {
			continue
		}
		c.Add(fresh)
		batch.Coverage = append(batch.Coverage, CoverageItems{Measure: m.Name(), Items: fresh})
		if newItems == nil {
			newItems = map[string]int{}
		}
		newItems[m.Name()] = len(fresh)
		if f.opt.Guide != nil && m.Name() == f.opt.Guide.Name() {
			newGuide = len(fresh)
		}
	}
	if newGuide > 0 {
		id := uint64(0)
		if q.rec == nil {
			id = f.counters.NextInputID
			f.counters.NextInputID++
			f.counters.Interesting++
			f.corpus++
			batch.Inputs = append(batch.Inputs, &InputRecord{ID: id, Iteration: iter, Source: "fuzz",
				Parent: q.parent, NewItems: newItems, Input: q.in})
		} else {
			id = q.rec.ID
			q.rec.NewItems = newItems
		}
		for i := range batch.Coverage {
			batch.Coverage[i].InputID = id
		}
		for k := 0; k < newGuide*f.opt.Mutations; k++ {
			if !f.push(queued{in: f.gen.Mutate(r, q.in), parent: id}) {
				break
			}
		}
	}
	if len(ex.Failures) > 0 {
		f.counters.Failures++
	}
	for i := range ex.Failures {
		if ex.Failures[i].Kind == "divergence" {
			f.counters.Divergences++
			break
		}
	}
	for i := range ex.Failures {
		fl := &ex.Failures[i]
		if b, ok := f.bugs[fl.Signature]; ok {
			b.Hits++
			b.LastIteration = iter
			batch.Bugs = append(batch.Bugs, b)
			continue
		}
		b := &BugRecord{ID: "B" + strconv.Itoa(f.counters.NextBugID), Kind: fl.Kind, Signature: fl.Signature,
			Message: fl.Message, Detail: fl.Detail, Step: fl.Step, FirstIteration: iter, LastIteration: iter,
			Hits: 1, Input: q.in}
		f.counters.NextBugID++
		f.bugs[fl.Signature] = b
		f.bugList = append(f.bugList, b)
		batch.Bugs = append(batch.Bugs, b)
	}
	return f.store.Commit(batch)
}

func (f *Fuzzer) coverageCounts() map[string]int {
	out := make(map[string]int, len(f.cov))
	for m, c := range f.cov {
		out[m] = c.Len()
	}
	return out
}

func (f *Fuzzer) stats(session int64, elapsed time.Duration) Stats {
	s := Stats{Strategy: f.opt.Strategy, Iterations: f.counters.Iterations, Session: session,
		Elapsed: elapsed, CorpusSize: f.corpus, Queue: len(f.queue) - f.qhead,
		Coverage: f.coverageCounts(), Bugs: len(f.bugList), Failures: f.counters.Failures}
	if elapsed > 0 {
		s.ExecsPerSec = float64(session) / elapsed.Seconds()
	}
	return s
}
