package output

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/modelfuzz/modelfuzz/tlc/check"
	"github.com/modelfuzz/modelfuzz/tlc/eval"
)

// TraceSpecWritten reports whether an error trace of res gets a
// trace-explorer spec: every finite trace does (an invariant or action
// property violated, a deadlock, a temporal property violated by a finite
// behaviour, an evaluation error with its behaviour); a liveness lasso does
// not, as its loop cannot be replayed by a trace of states.
func TraceSpecWritten(res *check.Result) bool {
	if len(res.Trace) == 0 || initialViolation(res) {
		return false // TLC writes none for an invariant an initial state violates
	}
	switch res.Result {
	case "liveness", "property-initial", "success", "not-checked":
		return false
	}
	return true
}

// WriteTraceSpec writes the trace-explorer spec of res's error trace, as
// TLC writes SPEC_TTrace_<seconds>.tla: a module that extends the spec and
// whose behaviour is the trace, state by state, with a cfg beside it that
// checks what was violated. Checking it (modelfuzz tlc check, or TLC)
// reports the violation with the same states. It returns the module's
// path.
func WriteTraceSpec(m *eval.Model, dir string, res *check.Result, now time.Time) (string, error) {
	root := m.Module.Name
	name := fmt.Sprintf("%s_TTrace_%d", root, now.Unix())
	vars := m.Vars
	var b strings.Builder
	fmt.Fprintf(&b, "---- MODULE %s ----\n", name)
	fmt.Fprintf(&b, "\\* The error trace of %s, written by modelfuzz tlc check on %s:\n", root, now.Format(tlcDate))
	fmt.Fprintf(&b, "\\* %s\n", strings.ReplaceAll(res.Error, "\n", "\n\\* "))
	b.WriteString("\\* Checking this module with its cfg replays the trace state by state and\n")
	b.WriteString("\\* reports the violation again at its last state.\n")
	fmt.Fprintf(&b, "EXTENDS %s, Sequences, TLC\n\n", root)
	// The model values the trace's values name, declared as constants
	// (the cfg gives each itself as value), but those the spec declares.
	declared := map[string]bool{}
	for _, c := range m.Config.Constants {
		declared[c.Name] = true
	}
	var mvs []string
	for n := range m.ModelValues() {
		if !declared[n] {
			mvs = append(mvs, n)
		}
	}
	sort.Strings(mvs)
	if len(mvs) > 0 {
		fmt.Fprintf(&b, "CONSTANTS %s\n\n", strings.Join(mvs, ", "))
	}
	b.WriteString("\\* The states of the trace, the first an initial state.\n")
	b.WriteString("_TETrace == <<\n")
	for i, st := range res.Trace {
		vals := map[string]string{}
		for j, n := range st.Vars {
			vals[n] = st.Values[j].String()
		}
		var fields []string
		for _, v := range vars {
			fields = append(fields, fmt.Sprintf("%s |-> %s", v, vals[v]))
		}
		sep := ","
		if i == len(res.Trace)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "    [%s]%s\n", strings.Join(fields, ", "), sep)
	}
	b.WriteString("  >>\n\n")
	b.WriteString("_TEInit ==\n")
	for _, v := range vars {
		fmt.Fprintf(&b, "    /\\ %s = _TETrace[1].%s\n", v, v)
	}
	b.WriteString("\n\\* From state TLCGet(\"level\") of the trace to the next one.\n")
	b.WriteString("_TENext ==\n    /\\ TLCGet(\"level\") < Len(_TETrace)\n")
	for _, v := range vars {
		fmt.Fprintf(&b, "    /\\ %s' = _TETrace[TLCGet(\"level\") + 1].%s\n", v, v)
	}
	b.WriteString("\n\\* False in the trace's last state only.\n")
	b.WriteString("_TENotAtEnd ==\n    ~(/\\ TLCGet(\"level\") = Len(_TETrace)\n")
	for _, v := range vars {
		fmt.Fprintf(&b, "      /\\ %s = _TETrace[Len(_TETrace)].%s\n", v, v)
	}
	b.WriteString("     )\n====\n")

	var c strings.Builder
	fmt.Fprintf(&c, "\\* The cfg of %s: the constants of %s, the trace as the behaviour.\n", name, filepath.Base(m.Config.File))
	if len(m.Config.Constants) > 0 || len(mvs) > 0 {
		c.WriteString("CONSTANTS\n")
		for _, k := range m.Config.Constants {
			fmt.Fprintf(&c, "    %s\n", k.String())
		}
		for _, n := range mvs {
			fmt.Fprintf(&c, "    %s = %s\n", n, n)
		}
	}
	c.WriteString("INIT _TEInit\nNEXT _TENext\n")
	if m.Config.Alias.Name != "" {
		// The trace printed as the check printed it.
		fmt.Fprintf(&c, "ALIAS %s\n", m.Config.Alias.Name)
	}
	switch res.Result {
	case "invariant":
		// The spec's own invariant, violated at the end as in the check.
		fmt.Fprintf(&c, "INVARIANT %s\nCHECK_DEADLOCK FALSE\n", res.Invariant)
	case "deadlock":
		// The trace's last state has no successor: a deadlock again.
		c.WriteString("CHECK_DEADLOCK TRUE\n")
	default:
		c.WriteString("INVARIANT _TENotAtEnd\nCHECK_DEADLOCK FALSE\n")
	}
	path := filepath.Join(dir, name+".tla")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, name+".cfg"), []byte(c.String()), 0o644); err != nil {
		return "", err
	}
	return path, nil
}

// TraceSpecPath prints TLC's line naming the trace-explorer spec written.
func (p *Printer) TraceSpecPath(path string) {
	if !filepath.IsAbs(path) && !strings.HasPrefix(path, ".") {
		path = "./" + path
	}
	p.msg(ecGeneral, classNone, "Trace exploration spec path: %s", path)
}
