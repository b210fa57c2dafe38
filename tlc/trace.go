package tlc

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/modelfuzz/modelfuzz/tlc/cfg"
	"github.com/modelfuzz/modelfuzz/tlc/check"
	"github.com/modelfuzz/modelfuzz/tlc/eval"
	"github.com/modelfuzz/modelfuzz/tlc/stdlib"
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
}

// Load compiles the trace spec to read the trace in the file trace. The
// cfg is read before the spec.
func (t TraceSpec) Load(trace string) (*Model, error) {
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
		return nil, &eval.ConfigError{Err: err}
	}
	ld, mod, conf, err := parse(Spec{Module: t.Spec, Config: t.Config}, conf)
	if err != nil {
		return nil, err
	}
	return eval.BuildWith(ld, mod, conf, eval.LoadOptions{Env: env})
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
