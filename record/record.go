package record

import (
	"encoding/json"
	"errors"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// Store is where a campaign keeps what it must not lose: the corpus of
// interesting inputs, the coverage sets, the bugs, the campaign's metadata
// and counters. The corpus package implements it on badger.
//
// Commit is the unit of durability: after it returns, a kill -9 of the
// process does not lose the batch.
type Store interface {
	// Load returns everything a campaign needs to continue: counters,
	// coverage, bugs, the imported inputs not run yet and the most recent
	// `recent` inputs kept by fuzzing (all of them when recent < 0).
	Load(recent int) (*Snapshot, error)
	Commit(b *Batch) error
}

// FaultReporter is a Store that watches its medium between commits (the
// corpus watches its directory): the campaign stops as soon as the store
// cannot keep what it is given, not at its next commit.
type FaultReporter interface {
	// Fault is closed at the store's first fault; every Commit returns
	// it from then on.
	Fault() <-chan struct{}
	// Err is the store's first fault, nil while it has none.
	Err() error
}

// ErrStoreLost is wrapped by the errors of a store whose contents are gone
// (its directory was removed): nothing of the campaign can be read back.
var ErrStoreLost = errors.New("the store lost what it held")

// Counters are the campaign's running totals.
type Counters struct {
	Iterations  int64 `json:"iterations"`  // inputs executed, over all sessions
	Interesting int64 `json:"interesting"` // inputs added to the corpus by fuzzing
	Failures    int64 `json:"failures"`    // executions that showed a bug (a known disagreement is none)
	Divergences int64 `json:"divergences"` // executions whose trace diverged from the model (known disagreements included)
	// Known counts the executions that showed a known disagreement
	// between the model and the system (schedule.Failure.Known).
	Known       int64   `json:"known,omitempty"`
	HarnessErrs int64   `json:"harness_errors"`
	RunSeconds  float64 `json:"run_seconds"` // time spent fuzzing, over all sessions
	Sessions    int     `json:"sessions"`
	NextInputID uint64  `json:"next_input_id"`
	NextBugID   int     `json:"next_bug_id"`
	NextKnownID int     `json:"next_known_id,omitempty"`
	NextStats   uint64  `json:"next_stats,omitempty"` // seq of the next stats snapshot
}

// InputRecord is one stored input.
type InputRecord struct {
	ID        uint64         `json:"id"`
	Iteration int64          `json:"iteration"` // the iteration that executed it (0 for imports not yet run)
	Source    string         `json:"source"`    // "fuzz" or "import"
	Parent    uint64         `json:"parent,omitempty"`
	NewItems  map[string]int `json:"new_items,omitempty"` // measure -> items it reached first
	// GuideItems are some of the guide's items it reached first (at most
	// 8): what the rare energy schedule judges it by.
	GuideItems []uint64 `json:"guide_items,omitempty"`
	// GuideSteps, parallel to GuideItems, are the steps that reached them
	// (-1: unknown; nil: none known): where the rare schedule cuts the
	// input to mutate its tail.
	GuideSteps []int           `json:"guide_steps,omitempty"`
	Input      *schedule.Input `json:"input"`
	// Genome is the online strategy's choices that built the input, for a
	// strategy that mutates them (model-pctcp-genome): its format is the
	// strategy's; running the input needs only its steps.
	Genome json.RawMessage `json:"genome,omitempty"`
}

// BugRecord is one distinct bug, deduplicated by Signature; or, when Known
// is set, one known disagreement between the model and the system, which
// is counted and listed apart and is not a bug.
type BugRecord struct {
	ID             string          `json:"id"` // "B1", "B2", ...; "K1", "K2", ... for known disagreements
	Kind           string          `json:"kind"`
	Signature      string          `json:"signature"`
	Message        string          `json:"message"`
	Detail         string          `json:"detail,omitempty"`
	Step           int             `json:"step"`
	FirstIteration int64           `json:"first_iteration"`
	LastIteration  int64           `json:"last_iteration"`
	Hits           int64           `json:"hits"`
	Input          *schedule.Input `json:"input"` // the input that found it, as it was
	// Minimized is the smallest input found that still shows the bug
	// (same signature), nil until a minimization ran; MinimizeTries counts
	// the executions it took, MinimizeDone says it reached a fixpoint (not
	// stopped by its budget or the end of a session).
	Minimized     *schedule.Input `json:"minimized,omitempty"`
	MinimizeTries int             `json:"minimize_tries,omitempty"`
	MinimizeDone  bool            `json:"minimize_done,omitempty"`
	// MinimizeNote says why there is no minimized input (the input did
	// not show the bug again when replayed: a flaky bug).
	MinimizeNote string `json:"minimize_note,omitempty"`
	// Known is the id of the known disagreement this record counts
	// (schedule.Failure.Known), "" for a bug. A known disagreement is
	// not minimized.
	Known string `json:"known,omitempty"`
}

// Reproducer is the input to replay a bug with: the minimized one when
// there is one.
func (b *BugRecord) Reproducer() *schedule.Input {
	if b.Minimized != nil {
		return b.Minimized
	}
	return b.Input
}

// StatsRecord is a snapshot of a campaign's progress, stored every
// --stats-every so coverage over time survives restarts.
type StatsRecord struct {
	Seq         uint64         `json:"seq"`         // 1, 2, ... over the campaign
	Time        string         `json:"time"`        // RFC 3339 wall clock
	RunSeconds  float64        `json:"run_seconds"` // fuzzing time over all sessions
	Session     int            `json:"session"`
	Iterations  int64          `json:"iterations"`
	ExecsPerSec float64        `json:"execs_per_sec"` // this session so far
	Corpus      int64          `json:"corpus"`
	Bugs        int            `json:"bugs"`            // known disagreements left out
	Known       int            `json:"known,omitempty"` // known disagreements met
	Failures    int64          `json:"failures"`
	Coverage    map[string]int `json:"coverage"`
	RSSBytes    int64          `json:"rss_bytes,omitempty"`  // of the modelfuzz process
	HeapBytes   int64          `json:"heap_bytes,omitempty"` // Go heap in use (live and not yet collected)
	// Queue, Pool and Dropped are the loop's work ahead (Stats): inputs
	// queued, the rare schedule's pool, and entries dropped at QueueMax in
	// this session so far.
	Queue   int   `json:"queue,omitempty"`
	Pool    int   `json:"pool,omitempty"`
	Dropped int64 `json:"dropped,omitempty"`
}

// CoverageItems are new items of one measure, reached first by input InputID
// (0 when the input was not kept).
type CoverageItems struct {
	Measure string
	InputID uint64
	Items   []uint64
}

// Batch is one atomic update of a store.
type Batch struct {
	Counters *Counters
	Inputs   []*InputRecord
	Coverage []CoverageItems
	Bugs     []*BugRecord // new or updated (hits, last iteration)
	Stats    *StatsRecord
	Learned  []Learned // what a learning strategy changed since the last batch
}

// Learned is one entry of what a learning strategy knows (a row of its
// Q-table): bytes the strategy encodes, by table and state. An entry
// replaces the stored entry of the same table and state.
type Learned struct {
	Table string // names no '/'
	State uint64
	Value []byte
}

// Snapshot is the state a campaign continues from.
type Snapshot struct {
	Counters Counters
	Inputs   []*InputRecord      // by id: pending imports and the most recent kept inputs
	Coverage map[string][]uint64 // measure -> items
	Bugs     []*BugRecord
	Learned  []Learned // a learning strategy's entries (Learner)
}
