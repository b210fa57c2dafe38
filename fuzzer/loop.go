package fuzzer

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime/metrics"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelfuzz/modelfuzz/mutate"
	"github.com/modelfuzz/modelfuzz/record"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// Online is an online strategy: it builds each input while the system
// executes it, from the events the system has enabled at each point, and
// returns the input it built (an ordinary input: executing it replays the
// same execution) with its execution.
type Online interface {
	Run(sys schedule.System, r *rand.Rand) (*schedule.Input, *schedule.Execution, error)
}

// OnlineFrom is an Online strategy that can also continue an execution:
// it runs the steps of prefix, then builds the rest of the input online
// from the state they reached, and returns the whole input with its
// execution.
type OnlineFrom interface {
	Online
	RunFrom(sys schedule.System, prefix []schedule.Step, r *rand.Rand) (*schedule.Input, *schedule.Execution, error)
}

// Genomes is an online strategy whose executions are made from genomes,
// its own choices written down, so that model guidance can keep and
// mutate them (Options.OnlineGenomes). A genome is opaque to the loop.
type Genomes interface {
	// FreshGenome draws the genome of a new execution.
	FreshGenome(r *rand.Rand) []byte
	// RunGenome builds and executes an input online with the choices of
	// g, and returns the genome of the choices it made: running that
	// genome makes the same execution again.
	RunGenome(sys schedule.System, g []byte) (*schedule.Input, *schedule.Execution, []byte, error)
	// MutateGenome returns a mutant of g (one RunGenome returned) that
	// differs in one choice, and the name of the mutation.
	MutateGenome(g []byte, r *rand.Rand) ([]byte, string, error)
}

// genomeRun is the Online that runs one genome; ran is the genome of the
// choices the run made (nil until it returns).
type genomeRun struct {
	g   Genomes
	in  []byte
	mu  sync.Mutex
	ran []byte
}

func (x *genomeRun) Run(sys schedule.System, _ *rand.Rand) (*schedule.Input, *schedule.Execution, error) {
	in, ex, ran, err := x.g.RunGenome(sys, x.in)
	x.mu.Lock()
	x.ran = ran
	x.mu.Unlock()
	return in, ex, err
}

func (x *genomeRun) result() []byte {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.ran
}

// onlineTail is the Online that runs one online tail: prefix, then from.
type onlineTail struct {
	from   OnlineFrom
	prefix []schedule.Step
}

func (t onlineTail) Run(sys schedule.System, r *rand.Rand) (*schedule.Input, *schedule.Execution, error) {
	return t.from.RunFrom(sys, t.prefix, r)
}

// Params are the loop's settings that shape a campaign's results: they
// are stored with the campaign and must be the same when it continues
// (campaign.Settings embeds them; flag tags name their command-line flags).
type Params struct {
	Seed           uint64 `json:"seed" flag:"seed"`
	SeedPopulation int    `json:"seed_population" flag:"seed-population"` // random inputs added when the queue is empty or at a reseed
	ReseedEvery    int    `json:"reseed_every" flag:"reseed-every"`       // add SeedPopulation random inputs every this many iterations
	Mutations      int    `json:"mutations" flag:"mutations"`             // mutants enqueued per new coverage item
	// Energy is the energy schedule (EnergyFixed, EnergyRare; "" is
	// EnergyFixed, the policy of campaigns stored before the choice).
	Energy string `json:"energy,omitempty" flag:"energy"`
	// FreshShare is the share of iterations that run new random inputs
	// under EnergyRare (EnergyFixed reseeds every ReseedEvery instead).
	FreshShare float64 `json:"fresh_share,omitempty" flag:"fresh-share"`
	// Stack is the most rounds of mutation an ordinary mutant of the
	// EnergyRare schedule gets, drawn uniformly in 1..Stack (AFL's
	// stacked "havoc" mutations); 0 and 1 are one round, the policy of
	// campaigns stored before the choice. EnergyFixed mutants always get
	// one round (the thesis's).
	Stack int `json:"stack,omitempty" flag:"stack"`
	// Pipeline is how many inputs are executed as one batch; a batch is
	// measured while the next one executes (1: strictly one after the
	// other). A kill -9 loses at most the executions not yet recorded: up
	// to two batches.
	Pipeline int `json:"pipeline,omitempty" flag:"pipeline"`
}

// Limits are the settings of one session that do not change its
// results: budget, parallelism, timeouts, background work.
type Limits struct {
	Iterations int64 // stop when the campaign's total reaches this (0: no limit)
	Duration   time.Duration
	// QueueMax is the most inputs waiting in the queue (EnergyFixed:
	// mutants beyond are dropped) or kept in the pool (EnergyRare: a new
	// entry replaces a common one); both are counted as dropped.
	QueueMax  int
	StopOnBug bool // stop after the iteration that finds a new bug
	// Parallel is how many system instances execute the inputs of a batch
	// at once (1: one). The inputs of a batch are chosen before any runs and
	// finished in order, so the campaign is the same for every Parallel.
	Parallel int
	// ExecTimeout stops an execution that runs longer and records it as a
	// hang bug (0: no limit).
	ExecTimeout time.Duration
	// StatsEvery is how often a stats snapshot is stored (0: never).
	StatsEvery time.Duration
	// Minimize, when set, minimizes every bug in the background (and the
	// bugs of earlier sessions not minimized to the end) within
	// MinimizeBudget; fuzzing goes on meanwhile.
	Minimize       bool
	MinimizeBudget schedule.MinimizeOptions
	// MemoryLimit, when set, is the most bytes of live Go heap the process
	// may hold (run's --memory-limit): a campaign whose live heap passes
	// it after a collection stops, as if interrupted, with
	// ErrMemoryLimit, rather than grow until the system kills it.
	MemoryLimit int64
}

// ErrMemoryLimit stops a campaign whose live heap passed Limits.MemoryLimit.
var ErrMemoryLimit = errors.New("the live heap passed the memory limit")

// MemoryError is the stop of a campaign at its memory limit.
type MemoryError struct {
	Live, Limit int64 // bytes
}

func (e *MemoryError) Error() string {
	return fmt.Sprintf("%v: %d MiB live after a collection, over --memory-limit %d MiB; the campaign stopped, what was recorded is kept (raise --memory-limit, or lower --parallel or --pipeline)",
		ErrMemoryLimit, e.Live>>20, e.Limit>>20)
}

func (e *MemoryError) Unwrap() error { return ErrMemoryLimit }

// Options configure a campaign: its settings, its measures and the hooks
// through which the edges watch it.
type Options struct {
	Params
	Limits
	Strategy string  // name reported in summaries
	Guide    Measure // the measure whose new items make an input interesting; nil: never (random)
	// Learner, when set, is the strategy's learning: committed with every
	// batch, restored when the campaign continues.
	Learner Learner
	// Online, when set, builds every input online instead of taking it from
	// the queue (no input is mutated: the strategy is its own guide).
	Online Online
	// OnlineSeeds makes Online the source of the fresh inputs only: those
	// the queue or pool would take from the random generator (the first
	// SeedPopulation, the reseeds, EnergyRare's FreshShare) are built
	// online instead, and the Guide keeps and mutates them as any other.
	OnlineSeeds bool
	// OnlineTails makes Online (an OnlineFrom) the builder of the tails of
	// some of the pool's mutants instead (EnergyRare and EnergyBandit):
	// the mutant replays its parent up to the cut (mutate.Cut) and Online
	// chooses the steps after it (mutate.RareMutantOnline). The fresh
	// inputs stay random.
	OnlineTails bool
	// OrderMutants makes a third of the pool's mutants ordering mutants
	// (mutate.Reorder: a deep deliver-one, a starved process, a crash in a
	// joint configuration's window) instead of half of them random tails
	// (mutate.RareMutantOrder); EnergyRare and EnergyBandit.
	OrderMutants bool
	// OnlineGenomes makes every input an execution of Online (a Genomes)
	// made from a genome: the fresh inputs from fresh genomes, the
	// mutants of the pool from a mutant of their parent's genome (a pool
	// input without one, an import, gets model guidance's mutants);
	// EnergyRare only.
	OnlineGenomes bool
	Measures      []Measure // every measure to report; the guide is added when missing
	// OnSnapshot, when set, sees every stats snapshot stored.
	OnSnapshot func(*record.StatsRecord)
	// Observe, when set, is called after every ObserveEvery-th iteration
	// is recorded, with the fuzzing time so far (over all sessions, as
	// record.StatsRecord.RunSeconds) and the coverage: coverage over iterations
	// and over time.
	Observe      func(iteration int64, seconds float64, coverage map[string]int)
	ObserveEvery int64
	// Progress, when set, is called about every ProgressEvery with current stats.
	Progress      func(Stats)
	ProgressEvery time.Duration
	// Logf, when set, reports events of the campaign worth a log line.
	Logf func(format string, args ...any)
	// Exchange, when set, shares the campaign with others (exchange.go).
	Exchange Exchange
	// Stream is mixed into the seed of every random choice: campaigns that
	// share one exchange with one seed draw different inputs (0: the
	// seed's own stream).
	Stream uint64
}

// Stats is a view of a running campaign.
type Stats struct {
	Strategy    string
	Iterations  int64 // over all sessions
	Session     int64 // this session
	Elapsed     time.Duration
	ExecsPerSec float64
	CorpusSize  int
	Queue       int            // inputs waiting to run
	Pool        int            // EnergyRare: inputs that may be chosen for mutation
	Dropped     int64          // queue or pool entries dropped at QueueMax this session
	Coverage    map[string]int // measure -> items
	Bugs        int            // known disagreements left out
	Known       int            // known disagreements met
	// KnownExecutions counts the executions that showed a known
	// disagreement, over all sessions.
	KnownExecutions int64
	Failures        int64
	Minimizing      int // bugs waiting for or under minimization
	// Checks are the system's own oracle checks by name (a history found
	// linearizable, one undecided), when the system counts them; the
	// campaign fills them in.
	Checks map[string]int64
}

// Summary is what a campaign reports when it ends.
type Summary struct {
	Strategy    string
	Iterations  int64 // over all sessions
	Session     int64
	Duration    time.Duration // this session
	ExecsPerSec float64
	CorpusSize  int
	Coverage    map[string]int
	Bugs        []*record.BugRecord // the bugs, known disagreements left out
	// Known are the known disagreements between the model and the system
	// the campaign met (record.BugRecord.Known), KnownExecutions the
	// executions that showed one, over all sessions.
	Known           []*record.BugRecord
	KnownExecutions int64
	Divergences     int64 // executions that diverged from the model, over all sessions (known disagreements included)
	// HarnessErrors counts, over all sessions, the iterations whose
	// execution or measurement failed in the harness (a cluster that did
	// not start, a model engine that died): they say nothing of the system.
	HarnessErrors int64
	Dropped       int64 // queue or pool entries dropped at QueueMax this session
	NewBugs       int   // bugs first found in this session (the last of Bugs)
	Interrupted   bool
	StoppedEarly  string // why the budget was not used up, if so
	// Unstored counts the executions whose results were not stored when
	// the store failed (a StoreError); Iterations and Session count the
	// stored ones. StoreLost says the store lost what it held as well.
	Unstored  int64
	StoreLost bool
	// Abandoned counts the executions in flight when the campaign was
	// interrupted that did not finish within StopGrace: they were
	// stopped, and nothing of them was recorded.
	Abandoned int64
}

// resumeInputs is how many of the most recent corpus inputs a continued
// campaign mutates to refill its queue.
const resumeInputs = 1000

// queued is an input waiting to run. A mutant is kept as its parent and
// how to make it (mutate.Mutant), and made when it is taken from the
// queue: a queue entry costs a few words instead of a whole input.
type queued struct {
	in     *schedule.Input     // a random or imported input; nil for a mutant not made yet
	from   *schedule.Input     // the parent of a mutant
	mutant mutate.Mutant       // how the mutant is made from its parent
	parent uint64              // id of the parent in the corpus
	rec    *record.InputRecord // an imported input not run yet
	online bool                // a fresh input Options.Online is to build (OnlineSeeds), or an online tail
	prefix []schedule.Step     // an online tail's prefix (OnlineTails)
	genome []byte              // the genome Options.Online builds it from (OnlineGenomes)
	arm    uint8               // its source, for EnergyBandit
}

// fresh is a new input: a random one, or one the online strategy builds
// when it makes the fresh inputs (OnlineSeeds). Under EnergyBandit the
// seed population is random, model guidance's own, and the online
// strategy's executions earn their share afterwards (nextRare).
func (f *Fuzzer) fresh(r *rand.Rand) queued {
	if f.opt.OnlineGenomes {
		return queued{online: true, genome: f.opt.Online.(Genomes).FreshGenome(r), arm: armOnline}
	}
	if f.opt.OnlineSeeds && f.bandit == nil {
		return queued{online: true, arm: armOnline}
	}
	return queued{in: f.gen.Random(r), arm: armRandom}
}

// allOnline reports whether Options.Online builds every input (an online
// strategy, no mutation).
func (f *Fuzzer) allOnline() bool {
	return f.opt.Online != nil && !f.opt.OnlineSeeds && !f.opt.OnlineTails && !f.opt.OnlineGenomes
}

// Fuzzer runs one campaign.
type Fuzzer struct {
	opt      Options
	fac      schedule.Factory
	execs    []*executor // one per parallel worker
	gen      *schedule.Generator
	mut      *mutate.Mutator
	store    record.Store
	counters record.Counters
	cov      map[string]*Coverage
	bugs     map[string]*record.BugRecord // by signature
	bugList  []*record.BugRecord
	corpus   int
	queue    []queued
	qhead    int
	dropped  int64
	newBugs  int      // bugs first found in this session
	pool     []*entry // EnergyRare: the inputs to mutate
	hits     *Hits    // EnergyRare: visits of the guide's items
	// visitsOut is the work of the rare schedule since it was last shared,
	// chosenElse the others' choices of the pool's inputs (EnergyRare with a
	// VisitExchange; nil maps otherwise).
	visitsOut    Visits
	visitsShared time.Time
	chosenElse   map[uint64]uint32
	bandit       *bandit // EnergyBandit: the sources' yields
	min          *bgMinimizer
	last         *batch // the batch issued last
	// issued counts the campaign's executions started, committed those
	// recorded by the store's last successful commit (iterations).
	issued, committed int64
	faults            <-chan struct{} // closed at a fault of the store (nil: never)
}

// stopGrace is how long a campaign whose store failed waits for its work
// in flight (executions, measures, a minimization) before it returns
// without it: nothing that work produces can be stored any more. An
// interrupted campaign waits StopGrace for that work to finish, and
// stopGrace more for what it then stops.
const stopGrace = time.Second

// StopGrace is how long an interrupted campaign (a signal: Run's context
// cancelled) lets the executions, measures and the minimization in flight
// finish before it stops them and returns without them: whatever it is
// doing, a campaign stops within StopGrace plus a second or two.
const StopGrace = 2 * time.Second

// New prepares a campaign on store, continuing what store already holds.
// The systems under test come from fac: one per parallel worker, and one
// for the background minimizer.
func New(opt Options, fac schedule.Factory, gen *schedule.Generator, store record.Store) (*Fuzzer, error) {
	if err := CheckSettings(opt.Params, opt.Limits); err != nil {
		return nil, err
	}
	if opt.OnlineTails {
		if _, ok := opt.Online.(OnlineFrom); !ok {
			return nil, fmt.Errorf("%s: its online strategy cannot continue an execution, so it cannot build tails", opt.Strategy)
		}
		if opt.Energy != EnergyRare && opt.Energy != EnergyBandit {
			return nil, fmt.Errorf("%s builds the tails of the pool's mutants: it needs --energy %s or %s, not %q", opt.Strategy, EnergyRare, EnergyBandit, opt.Energy)
		}
	}
	if opt.OnlineGenomes {
		if _, ok := opt.Online.(Genomes); !ok {
			return nil, fmt.Errorf("%s: its online strategy has no genomes to mutate", opt.Strategy)
		}
		if opt.Energy != EnergyRare {
			return nil, fmt.Errorf("%s keeps and mutates the genomes of its executions in the pool: it needs --energy %s, not %q", opt.Strategy, EnergyRare, opt.Energy)
		}
	}
	if opt.OrderMutants && opt.Energy != EnergyRare && opt.Energy != EnergyBandit {
		return nil, fmt.Errorf("%s makes ordering mutants of the pool's inputs: it needs --energy %s or %s, not %q", opt.Strategy, EnergyRare, EnergyBandit, opt.Energy)
	}
	if opt.QueueMax <= 0 {
		opt.QueueMax = 20000
	}
	if opt.ProgressEvery <= 0 {
		opt.ProgressEvery = 250 * time.Millisecond
	}
	if opt.Pipeline <= 0 {
		opt.Pipeline = 1
	}
	if opt.Parallel <= 0 {
		opt.Parallel = 1
	}
	if opt.Logf == nil {
		opt.Logf = func(string, ...any) {}
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
	f := &Fuzzer{opt: opt, fac: fac, gen: gen, mut: mutate.New(gen), store: store,
		cov: map[string]*Coverage{}, bugs: map[string]*record.BugRecord{}}
	if f.rare() {
		f.hits = NewHits()
		if _, ok := opt.Exchange.(VisitExchange); ok {
			f.visitsOut = Visits{Items: map[uint64]uint32{}, Chosen: map[uint64]uint32{}}
			f.chosenElse = map[uint64]uint32{}
		}
	}
	if f.opt.Energy == EnergyBandit {
		f.bandit = &bandit{}
	}
	for w := 0; w < f.opt.Parallel; w++ {
		f.execs = append(f.execs, newExecutor(fac, opt.ExecTimeout))
	}
	for _, m := range opt.Measures {
		f.cov[m.Name()] = NewCoverage()
	}
	// A continued campaign restarts its queue from the most recent inputs.
	snap, err := store.Load(resumeInputs)
	if err != nil {
		return nil, err
	}
	if err := f.resume(snap); err != nil {
		return nil, err
	}
	if f.counters.NextInputID == 0 {
		f.counters.NextInputID = 1
	}
	if f.counters.NextBugID == 0 {
		f.counters.NextBugID = 1
	}
	return f, nil
}

// resume takes up what the store holds of the campaign: its counters,
// coverage, bugs and what its strategy learned, and a queue (or pool) of
// the imported inputs not run yet and of the most recent kept ones.
func (f *Fuzzer) resume(snap *record.Snapshot) error {
	opt := f.opt
	f.counters = snap.Counters
	for m, items := range snap.Coverage {
		c := f.cov[m]
		if c == nil {
			continue
		}
		c.Add(items)
	}
	for _, b := range snap.Bugs {
		f.bugs[b.Signature] = b
		f.bugList = append(f.bugList, b)
	}
	if opt.Learner != nil && len(snap.Learned) > 0 {
		if err := opt.Learner.Restore(snap.Learned); err != nil {
			return fmt.Errorf("restoring what the strategy learned: %v", err)
		}
	}
	// Imported inputs not run yet go first; then a mutant of every kept input,
	// so a continued campaign picks up where its corpus is, not from scratch.
	r := f.rng(-1)
	spec := f.fac.Spec()
	f.corpus = int(f.counters.Interesting)
	for _, rec := range snap.Inputs {
		if rec.Source == "import" && rec.Iteration == 0 {
			if err := rec.Input.Validate(spec); err != nil {
				return fmt.Errorf("imported input %d: %v", rec.ID, err)
			}
			f.queue = append(f.queue, queued{in: rec.Input, rec: rec})
		}
	}
	for i := len(snap.Inputs) - 1; i >= 0 && len(f.queue) < opt.QueueMax && len(f.pool) < opt.QueueMax; i-- {
		rec := snap.Inputs[i]
		switch {
		case rec.Source != "fuzz":
		case f.rare():
			// The visit counts start again: a continued campaign learns
			// again which states are rare.
			e := &entry{in: rec.Input, id: rec.ID, items: rec.GuideItems}
			if opt.OnlineGenomes && len(rec.Genome) > 0 {
				if _, _, err := opt.Online.(Genomes).MutateGenome(rec.Genome, r); err != nil {
					return fmt.Errorf("the genome of input %d: %v", rec.ID, err)
				}
				e.genome = rec.Genome
			}
			f.pool = append(f.pool, e)
		default:
			f.queue = append(f.queue, queued{from: rec.Input, mutant: mutate.Ordinary(r), parent: rec.ID})
		}
	}
	return nil
}

// The limits of the loop's settings: each keeps the work one iteration
// does between two looks at the clock and at a signal bounded (inputs are
// made in the loop's goroutine).
const (
	// MaxStack is the most rounds of mutation a mutant gets (--stack;
	// AFL's havoc stacks at most 2^7).
	MaxStack = 128
	// MaxMutations is the most mutants one new item earns (--mutations).
	MaxMutations = 10000
	// MaxSeedPopulation is the most random inputs made at once
	// (--seed-population).
	MaxSeedPopulation = 10000
)

// CheckSettings checks a campaign's loop settings, so that a command line
// can be refused before anything is stored.
func CheckSettings(p Params, l Limits) error {
	switch {
	case p.SeedPopulation < 1:
		return fmt.Errorf("--seed-population must be at least 1, got %d", p.SeedPopulation)
	case p.SeedPopulation > MaxSeedPopulation:
		return fmt.Errorf("--seed-population %d: at most %d random inputs at once (fuzzer.MaxSeedPopulation)", p.SeedPopulation, MaxSeedPopulation)
	case p.ReseedEvery < 1:
		return fmt.Errorf("--reseed-every must be at least 1, got %d", p.ReseedEvery)
	case p.Mutations < 0:
		return fmt.Errorf("--mutations must not be negative, got %d", p.Mutations)
	case p.Mutations > MaxMutations:
		return fmt.Errorf("--mutations %d: at most %d mutants an item (fuzzer.MaxMutations)", p.Mutations, MaxMutations)
	case l.QueueMax < 0:
		return fmt.Errorf("--queue-max must not be negative, got %d", l.QueueMax)
	}
	return validEnergy(p)
}

// rng returns the random source of one iteration: derived from the seed and
// the iteration number alone, so a campaign is reproducible and a continued
// campaign does not depend on the random state of the killed process.
func (f *Fuzzer) rng(iteration int64) *rand.Rand {
	return rand.New(rand.NewPCG(f.opt.Seed^f.opt.Stream, uint64(iteration)^0x6d6f64656c66757a))
}

// ErrTooManyHarnessErrors stops a campaign whose harness keeps failing.
var ErrTooManyHarnessErrors = errors.New("the system's harness failed 20 times in a row")

// Run fuzzes until the budget is used up or ctx is cancelled. Every
// executed input is committed to the store, in order; an abrupt stop
// loses at most the executions not yet recorded (see Options.Pipeline).
func (f *Fuzzer) Run(ctx context.Context) (*Summary, error) {
	s := f.begin(ctx)
	s.loop()
	f.shareVisits(true)
	s.endMinimizations()
	return s.end()
}

// session is one run of a campaign, between Run's steps.
type session struct {
	f   *Fuzzer
	ctx context.Context
	// hurry is closed StopGrace after ctx is cancelled: what is still in
	// flight then is stopped.
	hurry     chan struct{}
	ended     chan struct{} // closed when the session ends
	abandoned bool          // the work in flight was stopped at hurry
	// stopMem stops the session at its memory limit (memErr says why).
	stopMem context.CancelFunc
	memErr  atomic.Pointer[MemoryError]
	start   time.Time
	spent   float64 // fuzzing seconds of the campaign's earlier sessions
	execs   int64   // executions recorded in this session
	first   int64   // the campaign's iterations when the session started
	errs    int     // harness errors in a row
	sum     *Summary
	err     error // why the session stopped, if not its budget
	last    struct{ progress, stats time.Time }
}

// begin starts a session: its counters, the store's faults, and the
// background minimizer with the bugs of earlier sessions not minimized to
// the end.
func (f *Fuzzer) begin(ctx context.Context) *session {
	f.counters.Sessions++
	ctx, stopMem := context.WithCancel(ctx)
	s := &session{f: f, ctx: ctx, start: time.Now(), sum: &Summary{Strategy: f.opt.Strategy}, spent: f.counters.RunSeconds,
		first: f.counters.Iterations}
	s.last.progress, s.last.stats = s.start, s.start
	s.stopMem = stopMem
	f.issued, f.committed = f.counters.Iterations, f.counters.Iterations
	if fr, ok := f.store.(record.FaultReporter); ok {
		f.faults = fr.Fault()
	}
	if f.opt.Minimize {
		f.min = newBgMinimizer(f)
		for _, b := range f.bugList {
			if !b.MinimizeDone && b.Known == "" {
				f.min.enqueue(b)
			}
		}
	}
	s.hurry, s.ended = make(chan struct{}), make(chan struct{})
	f.absorb()
	go s.watchInterrupt(f.min)
	if f.opt.MemoryLimit > 0 {
		go s.watchMemory(f.opt.MemoryLimit)
	}
	return s
}

// memoryCheckEvery is how often a campaign with a memory limit looks at
// its live heap.
const memoryCheckEvery = 250 * time.Millisecond

// watchMemory stops the session when the live heap (as the last
// collection left it) passes limit: the work in flight is then stopped as
// at an interrupt.
func (s *session) watchMemory(limit int64) {
	t := time.NewTicker(memoryCheckEvery)
	defer t.Stop()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	for {
		select {
		case <-s.ended:
			return
		case <-t.C:
		}
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return
		}
		if live := int64(sample[0].Value.Uint64()); live > limit {
			s.memErr.Store(&MemoryError{Live: live, Limit: limit})
			s.stopMem()
			return
		}
	}
}

// watchInterrupt cancels the minimizations at once when the session is
// interrupted, and closes hurry StopGrace later.
func (s *session) watchInterrupt(m *bgMinimizer) {
	select {
	case <-s.ctx.Done():
	case <-s.ended:
		return
	}
	if m != nil {
		m.cancel() // at once: its execution may take long
	}
	select {
	case <-time.After(StopGrace):
		close(s.hurry)
	case <-s.ended:
	}
}

// loop issues batches until the budget is used up, the session is
// interrupted or it stops. With a pipeline, the next batch is executed
// while the previous one is being measured (a model engine in another
// process works in parallel with the system), and batches are finished in
// order.
func (s *session) loop() {
	f := s.f
	var pending *batch
	for {
		n := s.budget()
		select {
		case <-f.faults:
			// Found between commits: stop now, not at the next commit.
			s.err = f.storeFailed(f.store.(record.FaultReporter).Err())
			f.abandon(pending)
			return
		default:
		}
		var cur *batch
		if n > 0 {
			cur = f.runBatch(f.issued, int(n))
			f.issued += n
		}
		if pending != nil && s.handle(pending, cur) {
			// cur is executed but not recorded: in flight when the
			// campaign stopped.
			if _, failed := s.err.(*StoreError); failed || s.abandoned {
				f.abandon(pending, cur)
			} else if cur != nil {
				cur.wait()
			}
			return
		}
		pending = cur
		if f.opt.Pipeline == 1 && pending != nil {
			// One at a time: finish each execution before the next.
			if s.handle(pending, nil) {
				if _, failed := s.err.(*StoreError); failed || s.abandoned {
					f.abandon(pending)
				}
				return
			}
			pending = nil
		}
		if cur == nil {
			return // nothing issued: the budget is used up and the last batch recorded
		}
		s.progress()
	}
}

// budget is how many inputs the next batch runs: none once the budget is
// used up or the session is interrupted.
func (s *session) budget() int64 {
	f := s.f
	n := int64(f.opt.Pipeline)
	if f.opt.Iterations > 0 {
		n = min(n, f.opt.Iterations-f.issued)
	}
	if f.opt.Duration > 0 && time.Since(s.start) >= f.opt.Duration {
		n = 0
	}
	select {
	case <-s.ctx.Done():
		s.sum.Interrupted = true
		n = 0
	default:
	}
	return n
}

// progress reports the campaign's stats about every ProgressEvery.
func (s *session) progress() {
	f := s.f
	if f.opt.Progress == nil {
		return
	}
	if now := time.Now(); now.Sub(s.last.progress) >= f.opt.ProgressEvery {
		s.last.progress = now
		f.opt.Progress(f.stats(s.execs, now.Sub(s.start)))
	}
}

// handle records batch b once it is executed and measured: its results in
// one commit, then the minimizations finished meanwhile and a stats
// snapshot when one is due. It reports whether the session stops. next is
// the batch issued after b, if any: stopped with it when the session is
// interrupted and b does not finish in time.
func (s *session) handle(b, next *batch) (stop bool) {
	f := s.f
	if !s.await(b, next) {
		return true
	}
	// A batch's results are committed in one transaction.
	acc := &record.Batch{Counters: &f.counters}
	stop = s.finishJobs(b, acc)
	if f.opt.Learner != nil {
		acc.Learned = f.opt.Learner.Learned()
	}
	if err := f.commit(acc); err != nil {
		s.err = err
		return true
	}
	if stop {
		return true
	}
	f.absorb()
	if err := f.applyMinimized(false); err != nil {
		s.err = err
		return true
	}
	if f.opt.StatsEvery > 0 && time.Since(s.last.stats) >= f.opt.StatsEvery {
		s.last.stats = time.Now()
		if err := f.snapshot(s.execs, s.last.stats.Sub(s.start), s.spent); err != nil {
			s.err = err
			return true
		}
	}
	return false
}

// await waits until batch b is executed and measured; it reports false
// when the session must stop without it: the store failed (s.err says so),
// or the session was interrupted and b did not finish within StopGrace (b
// and next are abandoned: nothing of them is recorded).
func (s *session) await(b, next *batch) bool {
	f := s.f
	select {
	case <-b.done:
		return true
	case <-f.faults:
		s.err = f.storeFailed(f.store.(record.FaultReporter).Err())
		return false
	case <-s.hurry:
	}
	select {
	case <-b.done: // finished at the last moment
		return true
	default:
	}
	s.abandoned, s.sum.Interrupted = true, true
	s.sum.Abandoned = int64(len(b.jobs))
	if next != nil {
		s.sum.Abandoned += int64(len(next.jobs))
	}
	f.counters.Iterations = f.committed
	return false
}

// finishJobs finishes b's jobs in order into acc. It reports whether the
// session stops: the harness failed too often in a row, or a new bug was
// found with StopOnBug.
func (s *session) finishJobs(b *batch, acc *record.Batch) (stop bool) {
	f := s.f
	for _, j := range b.jobs {
		bugsBefore := f.bugCount()
		err := f.finish(j, acc)
		s.execs++
		if err != nil {
			f.opt.Logf("iteration %d: %v", j.iter, err)
			s.errs++
			if s.errs >= 20 {
				s.err = fmt.Errorf("%w; last: %v", ErrTooManyHarnessErrors, err.(*harnessError).err)
				return true
			}
		} else {
			s.errs = 0
		}
		if f.opt.Observe != nil && f.opt.ObserveEvery > 0 && j.iter%f.opt.ObserveEvery == 0 {
			f.opt.Observe(j.iter, s.spent+time.Since(s.start).Seconds(), f.coverageCounts())
		}
		if f.opt.StopOnBug && f.bugCount() > bugsBefore {
			s.sum.StoppedEarly = "found a bug (--stop-on-bug)"
			return true
		}
	}
	return false
}

// endMinimizations lets the minimizations still running finish within
// their budget; an interrupted campaign keeps what they reached so far,
// and the next session goes on from there.
func (s *session) endMinimizations() {
	f := s.f
	if f.min == nil {
		return
	}
	if s.sum.Interrupted || s.err != nil {
		f.min.cancel()
	} else if f.min.busy() > 0 {
		f.opt.Logf("waiting for the minimization of %d bug(s)", f.min.busy())
		if f.opt.Progress != nil {
			f.opt.Progress(f.stats(s.execs, time.Since(s.start)))
		}
	}
	f.min.close(s.ctx.Done(), f.faults, s.hurry)
	if s.ctx.Err() != nil {
		s.sum.Interrupted = true // while waiting for the minimizations
	}
	if err := f.applyMinimized(true); err != nil && s.err == nil {
		s.err = err
	}
}

// end stores the session's last snapshot and summarizes the campaign.
func (s *session) end() (*Summary, error) {
	defer close(s.ended)
	f, sum := s.f, s.sum
	elapsed := time.Since(s.start)
	f.counters.RunSeconds = s.spent + elapsed.Seconds()
	if s.err == nil || errors.Is(s.err, ErrTooManyHarnessErrors) {
		if err := f.snapshot(s.execs, elapsed, s.spent); err != nil && s.err == nil {
			s.err = err
		}
	}
	if me := s.memErr.Load(); me != nil {
		// Stopped at the memory limit, not by a signal.
		sum.Interrupted = false
		sum.StoppedEarly = "the live heap passed --memory-limit"
		if s.err == nil {
			s.err = me
		}
	}
	var storeErr *StoreError
	if errors.As(s.err, &storeErr) {
		s.execs = f.committed - s.first
		sum.Unstored, sum.StoreLost = storeErr.Unstored, errors.Is(s.err, record.ErrStoreLost)
	}
	sum.Iterations = f.counters.Iterations
	sum.Session = s.execs
	sum.Duration = elapsed
	if elapsed > 0 {
		sum.ExecsPerSec = float64(s.execs) / elapsed.Seconds()
	}
	sum.CorpusSize = f.corpus
	sum.Divergences = f.counters.Divergences
	sum.HarnessErrors = f.counters.HarnessErrs
	sum.Dropped = f.dropped
	sum.NewBugs = f.newBugs
	sum.Coverage = f.coverageCounts()
	for _, b := range f.bugList {
		if b.Known != "" {
			sum.Known = append(sum.Known, b)
		} else {
			sum.Bugs = append(sum.Bugs, b)
		}
	}
	sum.KnownExecutions = f.counters.Known
	sort.Slice(sum.Bugs, func(i, j int) bool { return bugNum(sum.Bugs[i].ID) < bugNum(sum.Bugs[j].ID) })
	sort.Slice(sum.Known, func(i, j int) bool { return bugNum(sum.Known[i].ID) < bugNum(sum.Known[j].ID) })
	if f.opt.Progress != nil {
		f.opt.Progress(f.stats(s.execs, elapsed))
	}
	return sum, s.err
}

// snapshot stores the campaign's counters and a stats record.
func (f *Fuzzer) snapshot(session int64, elapsed time.Duration, spent float64) error {
	f.counters.RunSeconds = spent + elapsed.Seconds()
	f.counters.NextStats++
	st := f.stats(session, elapsed)
	rec := &record.StatsRecord{Seq: f.counters.NextStats, Time: time.Now().UTC().Format(time.RFC3339),
		RunSeconds: round3(f.counters.RunSeconds), Session: f.counters.Sessions, Iterations: f.counters.Iterations,
		ExecsPerSec: round3(st.ExecsPerSec), Corpus: f.counters.Interesting, Bugs: st.Bugs, Known: st.Known,
		Failures: f.counters.Failures, Coverage: st.Coverage, RSSBytes: rssBytes(), HeapBytes: heapBytes(),
		Queue: st.Queue, Pool: st.Pool, Dropped: st.Dropped}
	if err := f.commit(&record.Batch{Counters: &f.counters, Stats: rec}); err != nil {
		return err
	}
	if f.opt.OnSnapshot != nil {
		f.opt.OnSnapshot(rec)
	}
	return nil
}

func round3(x float64) float64 { return float64(int64(x*1000+0.5)) / 1000 }

// job is one iteration between execution and its commit.
type job struct {
	iter    int64
	r       *rand.Rand
	q       queued
	online  bool            // Options.Online builds the input, with the random choices of seed
	seed    uint64          // of an online input
	prefix  []schedule.Step // of an online tail: the steps run before Options.Online chooses
	ex      *schedule.Execution
	execErr error
	obs     []Observation
	obsErr  []error
}

// next takes the input of iteration iter from the queue, refilling it
// with random inputs when it is empty and every ReseedEvery iterations.
func (f *Fuzzer) next(iter int64, r *rand.Rand) queued {
	if f.rare() {
		return f.nextRare(iter, r)
	}
	if f.qhead >= len(f.queue) || iter%int64(f.opt.ReseedEvery) == 0 {
		for i := 0; i < f.opt.SeedPopulation; i++ {
			f.push(f.fresh(r))
		}
	}
	return f.pop()
}

// pop takes the queue's first input, making it if it is a mutant.
func (f *Fuzzer) pop() queued {
	q := f.queue[f.qhead]
	f.queue[f.qhead] = queued{}
	if q.in == nil && !q.online && q.mutant.Online {
		// An online tail: the parent's prefix, then the online strategy.
		q.prefix = mutate.OnlinePrefix(q.from, q.parent, q.mutant)
		q.online, q.from, q.arm = true, nil, armMutant
	}
	if q.in == nil && !q.online {
		stack := 1 // EnergyFixed mutants get one round (the thesis's)
		if f.rare() {
			stack = f.opt.Stack
		}
		q.in = f.mut.Make(q.from, q.parent, q.mutant, stack)
		q.from, q.arm = nil, armMutant
	}
	f.qhead++
	if f.qhead > 4096 && f.qhead*2 > len(f.queue) {
		f.queue = append(f.queue[:0], f.queue[f.qhead:]...)
		f.qhead = 0
	}
	return q
}

// runBatch executes the next n inputs, on Parallel system instances at
// once, and starts measuring them: a BatchMeasure once for all of them (a
// model engine in another process answers them in one round trip), the
// other measures concurrently, per input. The inputs are taken from the
// queue before any of their results is known, so a campaign is the same
// whatever the engine, the parallelism and the machine; results are then
// handled in order by finish.
func (f *Fuzzer) runBatch(issued int64, n int) *batch {
	jobs := make([]*job, n)
	for k := 0; k < n; k++ {
		iter := issued + 1 + int64(k)
		r := f.rng(iter)
		if f.allOnline() {
			jobs[k] = &job{iter: iter, r: r, online: true, seed: r.Uint64()}
			continue
		}
		jobs[k] = &job{iter: iter, r: r, q: f.next(iter, r)}
		if jobs[k].q.online {
			jobs[k].q.online, jobs[k].online, jobs[k].seed = false, true, r.Uint64()
			jobs[k].prefix, jobs[k].q.prefix = jobs[k].q.prefix, nil
		}
	}
	keep := f.opt.Pipeline > 1 || len(f.execs) > 1 // the trace outlives the system's next execution
	b := &batch{jobs: jobs, executed: make(chan struct{}), done: make(chan struct{})}
	prev := f.last
	f.last = b
	// Executions and measures run in the background: the loop meanwhile
	// records the previous batch. The systems are free once the previous
	// batch is executed.
	go func() {
		defer close(b.done)
		if prev != nil {
			<-prev.executed
		}
		workers := min(len(f.execs), n)
		var next atomic.Int64
		var ewg sync.WaitGroup
		for w := 0; w < workers; w++ {
			ewg.Add(1)
			go func(e *executor) {
				defer ewg.Done()
				for {
					k := int(next.Add(1) - 1)
					if k >= n || b.abandoned.Load() {
						return
					}
					f.execute(e, jobs[k], keep)
				}
			}(f.execs[w])
		}
		ewg.Wait()
		close(b.executed)
		if !b.abandoned.Load() {
			f.measure(jobs)
		}
	}()
	return b
}

// measure measures executed jobs and waits for the measures.
func (f *Fuzzer) measure(jobs []*job) {
	var ins []*schedule.Input
	var exs []*schedule.Execution
	var ran []*job
	for _, j := range jobs {
		if j.execErr == nil {
			ins, exs, ran = append(ins, j.q.in), append(exs, j.ex), append(ran, j)
		}
	}
	var wg sync.WaitGroup
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
		if len(ran) == 1 {
			j := ran[0]
			j.obs[mi], j.obsErr[mi] = m.Measure(j.q.in, j.ex)
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
	wg.Wait()
}

// execute runs one job on e.
func (f *Fuzzer) execute(e *executor, j *job, keep bool) {
	if j.online {
		var on Online = f.opt.Online
		var gr *genomeRun
		if j.prefix != nil {
			on = onlineTail{from: f.opt.Online.(OnlineFrom), prefix: j.prefix}
		} else if j.q.genome != nil {
			gr = &genomeRun{g: f.opt.Online.(Genomes), in: j.q.genome}
			on = gr
		}
		j.q.in, j.ex, j.execErr = e.runWith(nil, on, rand.New(rand.NewPCG(j.seed, uint64(j.iter))))
		if gr != nil {
			j.q.genome = gr.result() // nil when the run was abandoned
		}
	} else {
		j.ex, j.execErr = e.run(j.q.in)
	}
	if j.execErr != nil {
		return
	}
	if keep {
		j.ex.Trace = j.ex.Trace.Clone()
	}
	j.obs = make([]Observation, len(f.opt.Measures))
	j.obsErr = make([]error, len(f.opt.Measures))
}

// batch is a group of inputs whose executions and measures may still run.
type batch struct {
	jobs      []*job
	executed  chan struct{} // closed when every job is executed (the systems are free)
	done      chan struct{} // closed when every job is executed and measured
	abandoned atomic.Bool   // its results cannot be stored: what has not started is skipped
}

func (b *batch) wait() { <-b.done }

// abandon stops the batches in flight (nil ones are none) when the store
// failed and nothing they produce can be stored: executions not started
// are skipped, the running ones interrupted (where the system can be) and
// nothing more is measured. It waits at most stopGrace for them, so that
// the systems are free before they are closed, unless an execution hangs.
func (f *Fuzzer) abandon(bs ...*batch) {
	for _, b := range bs {
		if b != nil {
			b.abandoned.Store(true)
		}
	}
	for _, e := range f.execs {
		e.interrupt()
	}
	t := time.NewTimer(stopGrace)
	defer t.Stop()
	for _, b := range bs {
		if b == nil {
			continue
		}
		select {
		case <-b.done:
		case <-t.C:
			return
		}
	}
}

// commit writes b to the store. A failure of the store stops the
// campaign: it becomes a StoreError.
func (f *Fuzzer) commit(b *record.Batch) error {
	if err := f.store.Commit(b); err != nil {
		return f.storeFailed(err)
	}
	if b.Counters != nil {
		f.committed = b.Counters.Iterations
	}
	return nil
}

// storeFailed makes err, a failure of the store, the campaign's StoreError;
// the campaign's counters go back to what the store holds.
func (f *Fuzzer) storeFailed(err error) error {
	if _, ok := err.(*StoreError); ok {
		return err
	}
	f.counters.Iterations = f.committed
	return &StoreError{Err: err, Committed: f.committed, Unstored: f.issued - f.committed}
}

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
func (f *Fuzzer) finish(j *job, batch *record.Batch) error {
	f.counters.Iterations = j.iter
	if q := j.q; q.rec != nil { // an imported input ran: record when
		q.rec.Iteration = j.iter
		batch.Inputs = append(batch.Inputs, q.rec)
	}
	if j.execErr != nil {
		f.counters.HarnessErrs++
		return &harnessError{j.execErr}
	}
	for i, m := range f.opt.Measures {
		if j.obsErr[i] != nil {
			f.counters.HarnessErrs++
			return &harnessError{fmt.Errorf("measure %s: %w", m.Name(), j.obsErr[i])}
		}
	}
	nw := f.cover(j, batch)
	if f.bandit != nil {
		f.bandit.observe(j.q.arm, nw.guide > 0, len(j.q.in.Steps))
	}
	if nw.guide > 0 {
		f.keep(j, batch, nw)
	}
	f.recordBugs(j, batch)
	return nil
}

// reached is what an execution reached first.
type reached struct {
	guide      int            // new items of the guide
	items      map[string]int // measure -> new items
	guideItems []uint64       // some of the guide's new items (at most entryItems)
	guideSteps []int          // the steps that reached them (nil: unknown)
}

// cover adds what the measures observed of an execution to the coverage
// sets (and to the visits of the guide's items), and the failures they
// saw to the execution's.
func (f *Fuzzer) cover(j *job, batch *record.Batch) reached {
	var nw reached
	for i, m := range f.opt.Measures {
		obs := j.obs[i]
		j.ex.Failures = append(j.ex.Failures, obs.Failures...)
		guide := f.opt.Guide != nil && m.Name() == f.opt.Guide.Name()
		if guide && f.hits != nil {
			for _, x := range obs.Items {
				f.hits.Inc(x)
			}
			if f.visitsOut.Items != nil {
				for _, x := range obs.Items {
					f.visitsOut.Items[x]++
				}
			}
		}
		c := f.cov[m.Name()]
		fresh := c.New(obs.Items)
		if len(fresh) == 0 {
			continue
		}
		c.Add(fresh)
		batch.Coverage = append(batch.Coverage, record.CoverageItems{Measure: m.Name(), Items: fresh})
		if nw.items == nil {
			nw.items = map[string]int{}
		}
		nw.items[m.Name()] = len(fresh)
		if guide {
			nw.guide = len(fresh)
			nw.guideItems = fresh[:min(len(fresh), entryItems)]
			nw.guideSteps = itemSteps(obs, nw.guideItems)
		}
	}
	return nw
}

// keep keeps an input that reached new items of the guide: in the corpus
// (an imported one is there already), and to be mutated, its mutants
// queued (EnergyFixed) or the input put in the pool (EnergyRare).
func (f *Fuzzer) keep(j *job, batch *record.Batch, nw reached) {
	q := j.q
	id := uint64(0)
	if q.rec == nil {
		id = f.counters.NextInputID
		f.counters.NextInputID++
		f.counters.Interesting++
		f.corpus++
		batch.Inputs = append(batch.Inputs, &record.InputRecord{ID: id, Iteration: j.iter, Source: "fuzz",
			Parent: q.parent, NewItems: nw.items, GuideItems: nw.guideItems, GuideSteps: nw.guideSteps, Input: q.in, Genome: q.genome})
	} else {
		id = q.rec.ID
		q.rec.NewItems = nw.items
	}
	for i := range batch.Coverage {
		batch.Coverage[i].InputID = id
	}
	if f.allOnline() {
		return // an online strategy makes its own inputs: nothing to mutate
	}
	if f.rare() {
		f.addEntry(j.r, &entry{in: q.in, id: id, items: nw.guideItems, steps: nw.guideSteps, genome: q.genome})
		return
	}
	for k := 0; k < nw.guide*f.opt.Mutations; k++ {
		if !f.push(queued{from: q.in, mutant: mutate.Ordinary(j.r), parent: id}) {
			f.dropped += int64(nw.guide*f.opt.Mutations - k - 1)
			break
		}
	}
}

// recordBugs counts an execution's failures and records its bugs: a known
// signature is one more hit, a new one a new bug (minimized in the
// background). A known disagreement between the model and the system
// (schedule.Failure.Known) is recorded apart, as a K record: counted, never
// minimized, and never a new bug (it does not stop a campaign with
// StopOnBug).
func (f *Fuzzer) recordBugs(j *job, batch *record.Batch) {
	iter, ex := j.iter, j.ex
	failed, known := false, false
	for i := range ex.Failures {
		if ex.Failures[i].Known != "" {
			known = true
		} else {
			failed = true
		}
	}
	if failed {
		f.counters.Failures++
	}
	if known {
		f.counters.Known++
	}
	var fresh []*record.BugRecord
	for i := range ex.Failures {
		if k := ex.Failures[i].Kind; k == schedule.FailureDivergence || k == schedule.FailureSpecDivergence {
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
		b := &record.BugRecord{Kind: string(fl.Kind), Signature: fl.Signature,
			Message: fl.Message, Detail: fl.Detail, Step: fl.Step, FirstIteration: iter, LastIteration: iter,
			Hits: 1, Input: j.q.in, Known: fl.Known}
		if fl.Known != "" {
			f.counters.NextKnownID++ // K1, K2, ...: the count of known records so far
			b.ID = "K" + strconv.Itoa(f.counters.NextKnownID)
		} else {
			b.ID = "B" + strconv.Itoa(f.counters.NextBugID)
			f.counters.NextBugID++
		}
		f.bugs[fl.Signature] = b
		f.bugList = append(f.bugList, b)
		if b.Known == "" {
			f.newBugs++
		}
		batch.Bugs = append(batch.Bugs, b)
		fresh = append(fresh, b)
	}
	for _, b := range fresh {
		if b.Known != "" {
			f.opt.Logf("known disagreement %s (%s) first seen at iteration %d: %s", b.ID, b.Known, iter, b.Message)
			continue
		}
		f.opt.Logf("new bug %s (%s) at iteration %d: %s", b.ID, b.Kind, iter, b.Message)
		if f.min != nil {
			f.min.enqueue(b)
		}
	}
}

// bugCount counts the campaign's bugs, known disagreements left out.
func (f *Fuzzer) bugCount() int {
	n := 0
	for _, b := range f.bugList {
		if b.Known == "" {
			n++
		}
	}
	return n
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
		Elapsed: elapsed, CorpusSize: f.corpus, Queue: len(f.queue) - f.qhead, Pool: len(f.pool), Dropped: f.dropped,
		Coverage: f.coverageCounts(), Bugs: f.bugCount(), Known: len(f.bugList) - f.bugCount(), KnownExecutions: f.counters.Known, Failures: f.counters.Failures}
	if f.min != nil {
		s.Minimizing = f.min.busy()
	}
	if elapsed > 0 {
		s.ExecsPerSec = float64(session) / elapsed.Seconds()
	}
	return s
}
