package tlc

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/modelfuzz/modelfuzz/tlc/cfg"
	"github.com/modelfuzz/modelfuzz/tlc/check"
	"github.com/modelfuzz/modelfuzz/tlc/eval"
	"github.com/modelfuzz/modelfuzz/tlc/stdlib"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// Trace validation, as etcd raft's validate.sh does it with TLC: a trace
// spec reads a system's trace (an NDJSON file) from the file the
// environment variable JSON names (IOEnv.JSON), and the trace is matched
// when some behaviour of the spec consumes every event of it.

// TraceResult is the outcome of a trace validation.
type TraceResult = check.TraceResult

// TraceSpec is a trace spec (etcd raft's Traceetcdraft.tla) and its cfg.
type TraceSpec struct {
	// Spec is the trace spec's file, Config its cfg's (default: Spec's,
	// with .cfg for its extension).
	Spec, Config string
	// Env is the environment the spec reads besides JSON (nil: the
	// process's, as each Load finds it).
	Env map[string]string
	// Extend, when set, is the file of a module that EXTENDS the trace
	// spec and defines more of it (the witnesses of known disagreements,
	// which Trace.Definition evaluates): it becomes the root module, with
	// the spec's cfg, and declares no variable.
	Extend string
}

// Load compiles the trace spec to read the trace in the file trace. The
// cfg is read before the spec.
func (t TraceSpec) Load(trace string) (*Model, error) {
	m, _, err := t.build(trace, false)
	return m, err
}

// build compiles the trace spec with IOEnv.JSON naming trace (bindInputs:
// each evaluator is given its own trace, eval.LoadOptions.BindInputs); it
// returns the environment the spec reads.
func (t TraceSpec) build(trace string, bindInputs bool) (*Model, map[string]string, error) {
	env := ProcessEnv()
	if t.Env != nil {
		env = maps.Clone(t.Env)
	}
	env["JSON"] = trace
	if t.Config == "" {
		t.Config = strings.TrimSuffix(t.Spec, filepath.Ext(t.Spec)) + ".cfg"
	}
	conf, err := cfg.ParseFile(t.Config)
	if err != nil {
		return nil, nil, &eval.ConfigError{Err: err}
	}
	ld, mod, conf, err := parse(Spec{Module: t.Spec, Config: t.Config, Extend: t.Extend}, conf)
	if err != nil {
		return nil, nil, err
	}
	m, err := eval.BuildWith(ld, mod, conf, eval.LoadOptions{Env: env, BindInputs: bindInputs})
	return m, env, err
}

// TraceValidator validates traces against a trace spec parsed and
// compiled once, for a campaign that validates every execution: each
// trace is handed to the spec in memory (what the spec reads from the
// file IOEnv.JSON names), and its validation follows the spec's states
// event by event (check.FollowTrace) with an evaluator of its own, which
// sees only that trace. It is safe for concurrent use: validations on
// several goroutines share the compiled spec.
type TraceValidator struct {
	m    *Model
	env  map[string]string
	pool sync.Pool // *eval.Evaluator, quiet
	// decs are JSON decoders, which keep the record shapes of the lines
	// they decoded: the next trace's lines have the same.
	decs sync.Pool // *stdlib.JSONDecoder
}

// TraceOptions configure a validation (see check.FollowOptions): Visit
// sees every distinct state reached, MaxStates bounds them.
type TraceOptions = check.FollowOptions

// MemoryTrace is the file name IOEnv.JSON gives the spec of a
// TraceValidator: the trace it names is held in memory.
const MemoryTrace = "<trace in memory>"

// NewTraceValidator loads the trace spec t once. ASSUMEs about the trace
// are checked for each trace (see Trace.Validate), the others now.
func NewTraceValidator(t TraceSpec) (*TraceValidator, error) {
	m, env, err := t.build(MemoryTrace, true)
	if err != nil {
		return nil, err
	}
	v := &TraceValidator{m: m, env: env}
	v.pool.New = func() any {
		ev := m.NewEvaluator()
		ev.Quiet() // the spec's progress lines
		return ev
	}
	v.decs.New = func() any { return stdlib.NewJSONDecoder() }
	return v, nil
}

// Model is the compiled trace spec: its variables are those of the states
// a validation visits.
func (v *TraceValidator) Model() *Model { return v.m }

// Trace is one trace to validate; its events are added as they arrive.
// A Trace is used by one goroutine.
type Trace struct {
	v      *TraceValidator
	dec    *stdlib.JSONDecoder
	events []value.Value
	lines  int
}

// NewTrace starts a trace with no event.
func (v *TraceValidator) NewTrace() *Trace {
	return &Trace{v: v}
}

// Add adds the next line of the trace: one JSON value, as a line of the
// NDJSON file the spec reads (the spec's own filters apply: Traceetcdraft
// keeps the lines tagged "trace"). It is decoded now, so that what is
// left for Validate is the spec's work. An empty line is skipped, as
// ndJsonDeserialize skips it; a malformed one is an error naming the
// line, and the trace stays as it was.
func (t *Trace) Add(line []byte) error {
	t.lines++
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil
	}
	if t.dec == nil {
		t.dec = t.v.decs.Get().(*stdlib.JSONDecoder)
	}
	ev, err := t.dec.Decode(line)
	if err != nil {
		return fmt.Errorf("line %d of the trace: malformed JSON: %v", t.lines, err)
	}
	t.events = append(t.events, ev)
	return nil
}

// Len is the number of lines added, empty ones excepted.
func (t *Trace) Len() int { return len(t.events) }

// Validate checks whether the spec consumes the whole trace added so far,
// as ValidateTrace does. An ASSUME of the spec that the trace falsifies
// (or that cannot be evaluated on it) is an outcome, as in TLC, with its
// exit code: Check.Result "assumption", ExitCode 10.
func (t *Trace) Validate(opt TraceOptions) (*TraceResult, error) {
	if t.dec != nil {
		t.v.decs.Put(t.dec)
		t.dec = nil
	}
	ev := t.v.pool.Get().(*eval.Evaluator)
	defer t.v.pool.Put(ev)
	err := ev.Bind(eval.Input{Env: t.v.env, NDJSON: map[string][]value.Value{MemoryTrace: t.events}})
	if err != nil {
		var af *eval.AssumeFailure
		var ef *eval.EvalFailure
		if errors.As(err, &af) || errors.As(err, &ef) {
			msg := err.Error()
			if af != nil {
				msg = fmt.Sprintf("Assumption %s is false.", af.Pos)
				if af.Name != "" {
					msg = fmt.Sprintf("Assumption %s (%s) is false.", af.Name, af.Pos)
				}
			}
			return &TraceResult{Check: &Result{Result: "assumption", ExitCode: check.ExitAssumption, Error: msg}}, nil
		}
		return nil, err
	}
	return check.FollowTrace(ev, check.DefaultTraceSpec, opt)
}

// ValidateTrace checks whether the trace spec m (TraceSpec.Load) consumes
// its whole trace, checking the spec's invariants on the way. opt.Visit,
// when set, sees every distinct state the search reaches.
func ValidateTrace(m *Model, opt CheckOptions) (*TraceResult, error) {
	return check.ValidateTrace(m, check.DefaultTraceSpec, opt)
}

// ProcessEnv is the process's environment, as IOEnv reads it.
func ProcessEnv() map[string]string { return stdlib.ProcessEnv() }

var sources sync.Map // file -> []string, the spec files' lines

// SourceLine is line n of a spec file, trimmed ("" when unreadable): the
// text of a location the engine reports. The files are read once.
func SourceLine(file string, n int) string {
	v, ok := sources.Load(file)
	if !ok {
		data, err := os.ReadFile(file)
		if err != nil {
			return ""
		}
		v, _ = sources.LoadOrStore(file, strings.Split(string(data), "\n"))
	}
	lines := v.([]string)
	if n < 1 || n > len(lines) {
		return ""
	}
	return strings.TrimSpace(lines[n-1])
}
