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
// trace-explorer spec: every trace does (an invariant or action property
// violated, a deadlock, a temporal property violated by a finite
// behaviour or by a lasso, an evaluation error with its behaviour), as in
// TLC.
func TraceSpecWritten(res *check.Result) bool {
	if len(res.Trace) == 0 || initialViolation(res) {
		return false // TLC writes none for an invariant an initial state violates
	}
	switch res.Result {
	case "property-initial", "success", "not-checked":
		return false
	case "liveness":
		return res.Stuttering || res.LoopBack > 0
	}
	return true
}

// lasso tells whether res's trace goes back to one of its states.
func lasso(res *check.Result) bool {
	return res.Result == "liveness" && !res.Stuttering && res.LoopBack > 0
}

// WriteTraceSpec writes the trace-explorer spec of res's error trace, as
// TLC writes SPEC_TTrace_<seconds>.tla: a module that extends the spec and
// whose behaviour is the trace, state by state, with a cfg beside it that
// checks what was violated. Checking it (modelfuzz tlc check, or TLC)
// reports the violation with the same states. It returns the module's
// path.
//
// A liveness counterexample is written as TLC writes it. One that ends
// stuttering gets the property ~<>[](last state), which only stuttering
// there violates. A lasso gets constants _TTraceLassoStart and
// _TTraceLassoEnd, a step from the last state back to the first of the
// loop, a VIEW that counts the state after the last as the loop's first
// (so the search closes the loop rather than going round it), and the
// property ~([]<>(last state) /\ []<>(loop's first state)), which only
// going round the loop violates.
func WriteTraceSpec(m *eval.Model, dir string, res *check.Result, now time.Time) (string, error) {
	root := m.Module.Name
	name := fmt.Sprintf("%s_TTrace_%d", root, now.Unix())
	vars := m.Vars
	var b strings.Builder
	fmt.Fprintf(&b, "---- MODULE %s ----\n", name)
	fmt.Fprintf(&b, "\\* The error trace of %s, written by modelfuzz tlc check on %s:\n", root, now.Format(tlcDate))
	fmt.Fprintf(&b, "\\* %s\n", strings.ReplaceAll(res.Error, "\n", "\n\\* "))
	b.WriteString("\\* Checking this module with its cfg replays the trace state by state and\n")
	if res.Result == "liveness" {
		b.WriteString("\\* reports it again as the counterexample of _TEProp.\n")
	} else {
		b.WriteString("\\* reports the violation again at its last state.\n")
	}
	fmt.Fprintf(&b, "EXTENDS %s, Sequences, TLC\n\n", root)
	if lasso(res) {
		b.WriteString("\\* The lasso: its last state goes back to state _TTraceLassoStart.\n")
		b.WriteString("CONSTANTS _TTraceLassoStart, _TTraceLassoEnd\n\n")
	}
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
	if lasso(res) {
		b.WriteString("\n\\* From state TLCGet(\"level\") of the trace to the next one, and from\n")
		b.WriteString("\\* the last back to the loop's first.\n")
		b.WriteString("_TENext ==\n    /\\ \\E i, j \\in DOMAIN _TETrace:\n")
		b.WriteString("        /\\ \\/ /\\ j = i + 1\n              /\\ i = TLCGet(\"level\")\n")
		b.WriteString("           \\/ /\\ i = _TTraceLassoEnd\n              /\\ j = _TTraceLassoStart\n")
		for _, v := range vars {
			fmt.Fprintf(&b, "        /\\ %s = _TETrace[i].%s\n        /\\ %s' = _TETrace[j].%s\n", v, v, v, v)
		}
		b.WriteString("\n\\* The state after the last is the loop's first.\n")
		fmt.Fprintf(&b, "_TEView ==\n    <<%s, IF TLCGet(\"level\") = _TTraceLassoEnd + 1 THEN _TTraceLassoStart ELSE TLCGet(\"level\")>>\n",
			strings.Join(vars, ", "))
	} else {
		b.WriteString("\n\\* From state TLCGet(\"level\") of the trace to the next one.\n")
		b.WriteString("_TENext ==\n    /\\ TLCGet(\"level\") < Len(_TETrace)\n")
		for _, v := range vars {
			fmt.Fprintf(&b, "    /\\ %s' = _TETrace[TLCGet(\"level\") + 1].%s\n", v, v)
		}
	}
	if res.Result == "liveness" {
		last := stateFormula(res.Trace[len(res.Trace)-1], vars)
		if lasso(res) {
			b.WriteString("\n\\* Violated by going round the loop forever.\n")
			fmt.Fprintf(&b, "_TEProp ==\n    ~(([]<>(\n%s\n    )) /\\ ([]<>(\n%s\n    )))\n", last, stateFormula(res.Trace[res.LoopBack-1], vars))
		} else {
			b.WriteString("\n\\* Violated by stuttering in the last state forever.\n")
			fmt.Fprintf(&b, "_TEProp ==\n    ~<>[](\n%s\n    )\n", last)
		}
	}
	if res.Result != "liveness" {
		b.WriteString("\n\\* False in the trace's last state only.\n")
		b.WriteString("_TENotAtEnd ==\n    ~(/\\ TLCGet(\"level\") = Len(_TETrace)\n")
		for _, v := range vars {
			fmt.Fprintf(&b, "      /\\ %s = _TETrace[Len(_TETrace)].%s\n", v, v)
		}
		b.WriteString("     )\n")
	}
	b.WriteString("====\n")

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
	case "liveness":
		// The property only the counterexample violates; fairness is not
		// needed, nor deadlock checking (the last state has no successor).
		if lasso(res) {
			fmt.Fprintf(&c, "CONSTANTS\n    _TTraceLassoStart = %d\n    _TTraceLassoEnd = %d\nVIEW _TEView\n", res.LoopBack, len(res.Trace))
		}
		c.WriteString("PROPERTY _TEProp\nCHECK_DEADLOCK FALSE\n")
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
	p.msg(ecTESpecWritten, classNone, "Trace exploration spec path: %s", path)
}

// stateFormula is the conjunction that holds in state st only, indented
// as TLC writes it in a trace-explorer spec's property.
func stateFormula(st check.State, vars []string) string {
	vals := map[string]string{}
	for j, n := range st.Vars {
		vals[n] = st.Values[j].String()
	}
	lines := make([]string, len(vars))
	for i, v := range vars {
		lines[i] = fmt.Sprintf("        /\\ %s = %s", v, vals[v])
	}
	return strings.Join(lines, "\n")
}
