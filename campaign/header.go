package campaign

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/modelfuzz/modelfuzz/internal/buildinfo"
	"github.com/modelfuzz/modelfuzz/record"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// HeaderLine is one line of a report header: a key and its value.
type HeaderLine struct{ Key, Value string }

// ReportHeader is what a maintainer needs beside a bug to act on it: the
// modelfuzz that found it and the one replaying it, the Go version, the
// system's module versions, the campaign's settings and seed, the input
// and the command that replays it. Every place that shows a bug (bugs
// show, the HTML report, exported files) starts with it.
func (e *Env) ReportHeader(b *record.BugRecord, in *schedule.Input, which string) []HeaderLine {
	s := e.Settings
	var h []HeaderLine
	add := func(k, v string) { h = append(h, HeaderLine{k, v}) }
	add("bug", fmt.Sprintf("%s (%s) %s", b.ID, b.Kind, b.Signature))
	add("kind", b.Kind+": "+KindText(b.Kind))
	found := s.Tool
	if found == "" {
		found = "not recorded (a campaign stored before modelfuzz kept its version)"
	}
	add("found by", found)
	add("replayed by", buildinfo.Read().String())
	add("system", SystemText(s.Adapter))
	add("settings", s.FlagsText())
	add("adapter configuration", CompactJSON(s.AdapterConfig))
	add("input", fmt.Sprintf("%s, %d steps: %s", which, in.Len(), CompactJSON(schedule.EncodeInput(in))))
	add("replay", fmt.Sprintf("modelfuzz replay --corpus %s %s", e.Dir, b.ID))
	return h
}

// SystemText names the adapter and the versions of the system's modules
// this binary runs, e.g. "etcdraft, go.etcd.io/raft/v3 v3.7.0".
func SystemText(adapter string) string {
	out := adapter
	if ad, err := LookupAdapter(adapter); err == nil {
		for _, m := range ad.Modules {
			v := buildinfo.Module(m)
			if v == "" {
				v = "(version not recorded in this build)"
			}
			out += ", " + m + " " + v
		}
	}
	return out
}

// HeaderText renders a header, one "key: value" line each, keys aligned.
func HeaderText(h []HeaderLine) string {
	width := 0
	for _, l := range h {
		width = max(width, len(l.Key))
	}
	var b strings.Builder
	for _, l := range h {
		fmt.Fprintf(&b, "%-*s  %s\n", width+1, l.Key+":", l.Value)
	}
	return b.String()
}

// FlagsText renders the stored settings as the flags that give them, in
// declaration order: "--adapter etcdraft --strategy model --seed 1 ...".
func (s *Settings) FlagsText() string {
	var parts []string
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if f.Tag.Get("json") == "-" {
				continue
			}
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				walk(v.Field(i))
				continue
			}
			name := f.Tag.Get("flag")
			if name == "" || v.Field(i).IsZero() {
				continue
			}
			val := fmt.Sprint(v.Field(i).Interface())
			if strings.ContainsAny(val, " \t\"'") {
				val = fmt.Sprintf("%q", val)
			}
			parts = append(parts, "--"+name+" "+val)
		}
	}
	walk(reflect.ValueOf(s).Elem())
	return strings.Join(parts, " ")
}

// KindText says what a bug kind means and who saw it: the system's own
// oracles, or the model (a divergence may be a bug of the model as well).
func KindText(kind string) string {
	switch schedule.FailureKind(kind) {
	case schedule.FailurePanic:
		return "the system panicked or crashed"
	case schedule.FailureSafety:
		return "a safety property of the system's own state failed"
	case schedule.FailureLinearizability:
		return "the client history is not linearizable"
	case schedule.FailureHang:
		return "an execution ran longer than --exec-timeout"
	case schedule.FailureDivergence:
		return "the model does not allow what the system did (a bug of the system, or of the model)"
	case schedule.FailureModelInvariant:
		return "an invariant of the model fails in a state the execution reached"
	case schedule.FailureSpecDivergence:
		return "the maintainers' spec does not allow the library's own trace"
	}
	return kind
}

// InputSystem is the campaign's system as an input file names it.
func (s *Settings) InputSystem() *schedule.InputSystem {
	return &schedule.InputSystem{Adapter: s.Adapter, Config: s.AdapterConfig, Model: s.Model, ModelConfig: s.ModelConfig}
}
