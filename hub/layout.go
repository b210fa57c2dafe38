package hub

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"time"

	"github.com/modelfuzz/modelfuzz/record"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// The layout of a campaign on JetStream, written down here and nowhere
// else. One hub holds one campaign.
//
// Stream "MODELFUZZ" (file storage), subjects:
//
//	modelfuzz.input.<worker>  an Input: an input the worker kept (it reached new coverage)
//	modelfuzz.cov.<worker>    a Coverage: new coverage items of the worker's batch
//	modelfuzz.stats.<worker>  a Stats: the worker's stats snapshot
//
// Key-value bucket "modelfuzz":
//
//	settings           the campaign's stored settings (campaign.Settings, JSON), set by the first worker
//	bug.<sha256[:16]>  a Bug, one per signature (known disagreements too)
//	next.B, next.K     the last bug (B) and known-disagreement (K) number given
//	worker.<name>      a WorkerStatus: the worker's last status
//
// Outside the stream, a running worker answers requests on
// modelfuzz-alive.<worker> with its WorkerStatus: a second worker of the
// same name is refused while the first runs; and it publishes on
// modelfuzz-visits.<worker> the visits of the guide's items its
// executions made since its last message (visits.go), which the other
// workers add to their own.
const (
	aliveSubject  = "modelfuzz-alive."
	visitsSubject = "modelfuzz-visits."
	StreamName    = "MODELFUZZ"
	Bucket        = "modelfuzz"
	subjectRoot   = "modelfuzz"
	settingsKey   = "settings"
	subjectInput  = subjectRoot + ".input."
	subjectCov    = subjectRoot + ".cov."
	subjectStats  = subjectRoot + ".stats."
)

// workerName is what a worker may be called: a NATS subject token and a
// key of the bucket.
var workerName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// CheckWorkerName refuses a name that cannot name a worker.
func CheckWorkerName(name string) error {
	if !workerName.MatchString(name) {
		return fmt.Errorf("--worker %q: a worker's name is 1 to 64 letters, digits, '-' or '_'", name)
	}
	return nil
}

// Input is an input a worker kept, as the stream carries it.
type Input struct {
	Worker     string         `json:"worker"`
	ID         uint64         `json:"id"` // in the worker's own corpus
	Iteration  int64          `json:"iteration"`
	NewItems   map[string]int `json:"new_items,omitempty"`
	GuideItems []uint64       `json:"guide_items,omitempty"`
	// GuideSteps, parallel to GuideItems, are the steps that reached
	// them: a worker that takes the input cuts it where its finder would.
	GuideSteps []int           `json:"guide_steps,omitempty"`
	Input      *schedule.Input `json:"input"`
}

// Coverage is coverage a worker reached first (as far as it knew).
type Coverage struct {
	Worker   string                 `json:"worker"`
	Coverage []record.CoverageItems `json:"coverage"`
}

// Stats is a worker's stats snapshot.
type Stats struct {
	Worker string              `json:"worker"`
	Stats  *record.StatsRecord `json:"stats"`
}

// Bug is one bug of the campaign, whichever workers found it: the
// record of the worker that found it first, the hits of each, and the
// smallest reproducer any of them minimized (the one that claimed it,
// unless a partition let two minimize it).
type Bug struct {
	ID        string          `json:"id"` // B1, B2, ...; K1, ... for known disagreements
	Kind      string          `json:"kind"`
	Signature string          `json:"signature"`
	Message   string          `json:"message"`
	Detail    string          `json:"detail,omitempty"`
	Known     string          `json:"known,omitempty"`
	Found     string          `json:"found"` // RFC 3339, when the hub first heard of it
	Input     *schedule.Input `json:"input,omitempty"`
	// Owner is the worker that minimizes it.
	Owner        string          `json:"owner"`
	Minimized    *schedule.Input `json:"minimized,omitempty"`
	MinimizedBy  string          `json:"minimized_by,omitempty"`
	MinimizeDone bool            `json:"minimize_done,omitempty"`
	MinimizeNote string          `json:"minimize_note,omitempty"`
	// Hits are each worker's hits; First the worker and its iteration
	// that found it first.
	Hits           map[string]int64 `json:"hits"`
	FirstWorker    string           `json:"first_worker,omitempty"`
	FirstIteration int64            `json:"first_iteration,omitempty"`
}

// TotalHits is the hits of every worker.
func (b *Bug) TotalHits() int64 {
	var n int64
	for _, h := range b.Hits {
		n += h
	}
	return n
}

// Record is the bug as a campaign's record (hits of every worker; the
// iterations are the first worker's).
func (b *Bug) Record() *record.BugRecord {
	return &record.BugRecord{ID: b.ID, Kind: b.Kind, Signature: b.Signature, Message: b.Message, Detail: b.Detail,
		FirstIteration: b.FirstIteration, LastIteration: b.FirstIteration, Hits: b.TotalHits(), Input: b.Input,
		Minimized: b.Minimized, MinimizeDone: b.MinimizeDone, MinimizeNote: b.MinimizeNote, Known: b.Known}
}

// WorkerStatus is a worker's status, as its last stats snapshot left it.
type WorkerStatus struct {
	Name    string              `json:"name"`
	Host    string              `json:"host"`
	PID     int                 `json:"pid"`
	Corpus  string              `json:"corpus"` // its own corpus, on its host
	Joined  string              `json:"joined"` // RFC 3339, this session
	Updated string              `json:"updated"`
	Stats   *record.StatsRecord `json:"stats,omitempty"`
}

func bugKey(signature string) string {
	h := sha256.Sum256([]byte(signature))
	return "bug." + hex.EncodeToString(h[:8])
}

func workerKey(name string) string { return "worker." + name }

func now() string { return time.Now().UTC().Format(time.RFC3339) }
