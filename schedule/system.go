package schedule

import (
	"encoding/json"
	"strconv"
)

// SystemSpec describes a system under test to the generator, the validator
// and the user.
type SystemSpec struct {
	Name      string   `json:"name"`
	Processes int      `json:"processes"`
	Actions   []Action `json:"actions"` // actions the system supports
	// RequestTargets are the processes that accept client requests; empty
	// means every process.
	RequestTargets []int `json:"request_targets,omitempty"`
	// CrashPoints are the points a crash step may name (CrashPoints).
	CrashPoints []string `json:"crash_points,omitempty"`
	// ProcessNames gives each process a readable name for timelines; may be nil.
	ProcessNames []string `json:"process_names,omitempty"`
	// ProcessArgs are the keys of event args whose value is a process
	// (from 0; -1 for none), e.g. a vote: timelines show its name ("vote=n2",
	// not "vote=1").
	ProcessArgs []string `json:"process_args,omitempty"`
}

// Supports reports whether the system implements action a.
func (s *SystemSpec) Supports(a Action) bool {
	for _, b := range s.Actions {
		if a == b {
			return true
		}
	}
	return false
}

// ProcessName returns the readable name of process p.
func (s *SystemSpec) ProcessName(p int) string {
	if p >= 0 && p < len(s.ProcessNames) {
		return s.ProcessNames[p]
	}
	return "p" + strconv.Itoa(p)
}

// System is one instance of a system under test. Execute runs an input from
// the system's initial state and returns its trace. It must be deterministic:
// the same input gives a byte-identical trace, every time. A bug of the
// system (a panic, a failed safety check) is reported in the Execution, not
// as an error; an error means the harness itself failed (and the execution
// says nothing about the system).
//
// A System is used by one goroutine at a time; parallel campaigns create one
// per worker through a Factory. The Execution returned (its trace and the
// events' args) may share memory the system reuses: it is valid until the
// next call to Execute. Callers that keep it longer copy it (Trace.Clone).
type System interface {
	Spec() *SystemSpec
	Execute(in *Input) (*Execution, error)
}

// Factory creates independent instances of one configured system.
type Factory interface {
	New() (System, error)
	Spec() *SystemSpec
	// Config is the system's configuration, stored with a campaign so that a
	// replay rebuilds the same system.
	Config() json.RawMessage
}

// Execution is the outcome of running one input.
type Execution struct {
	Trace    Trace     `json:"trace"`
	Failures []Failure `json:"failures,omitempty"`
	// Skipped counts steps that could not run in the state they met
	// (restart of a live process, delivery to a crashed one).
	Skipped int `json:"skipped"`
	// Units are the source lines of the system under test the execution
	// covered, when the campaign measures them (guidance.LineCoverage).
	Units []uint64 `json:"-"`
	// Spec is the system's own trace for a TLA+ trace spec, when it
	// records one (etcd raft's TracingEvents for Traceetcdraft.tla).
	Spec []SpecEvent `json:"-"`
	// Limit is set when the execution was stopped at one of the limits of
	// an execution (MaxEvents); its trace ends there.
	Limit *LimitError `json:"-"`
}

// SpecEvent is one event of a system's own trace: a JSON object, as one
// line of the NDJSON file a trace spec reads, and the step it happened in.
type SpecEvent struct {
	Step int
	JSON []byte
}

// Failure is one bug observation: what went wrong, where, and a signature
// that is equal for two observations of the same bug.
type Failure struct {
	Kind      FailureKind `json:"kind"`      // FailurePanic, FailureSafety, FailureHang, ...
	Signature string      `json:"signature"` // deduplication key, stable across runs
	Message   string      `json:"message"`
	Step      int         `json:"step"` // index of the step during which it happened
	Detail    string      `json:"detail,omitempty"`
	// Known names the known disagreement between the model and the
	// system that this failure is (an entry of a known-disagreements
	// file: the model is wrong or narrower than the system, and the
	// system is right). A known failure is counted and listed apart,
	// never as a new bug; "" for every other failure.
	Known string `json:"known,omitempty"`
}
