package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/modelfuzz/modelfuzz/internal/cmdline"
	"github.com/modelfuzz/modelfuzz/internal/jsonerr"
	"github.com/modelfuzz/modelfuzz/models"
	"github.com/modelfuzz/modelfuzz/tlc"
	"github.com/modelfuzz/modelfuzz/tlc/check"
	"github.com/modelfuzz/modelfuzz/tlc/eval"
	"github.com/modelfuzz/modelfuzz/tlc/stdlib"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// exitNotMatched is the exit code of a trace the spec cannot match: TLC's
// for a violated temporal property (TraceMatched).
const exitNotMatched = 13

// raftModule is the module whose tla/ folder holds the default trace spec.
const raftModule = models.RaftModule

func newValidateCmd() *cobra.Command {
	var (
		spec, config, cpuProfile string
		parallel                 int
	)
	cmd := &cobra.Command{
		Use:   "validate [--spec Traceetcdraft.tla] [--config Traceetcdraft.cfg] TRACE.ndjson...",
		Short: "Check NDJSON traces of a system against a trace spec, as etcd raft's validate.sh does with TLC",
		Long: `Check that a TLA+ trace spec matches each NDJSON trace entirely, as etcd
raft's tla/validate.sh does with TLC: the spec reads the trace from the file
named by the environment variable JSON (IOEnv.JSON), consumes one event per
step, and the trace is matched when some behaviour consumes every event
(TraceMatched). The spec's invariants are checked on the way.

The spec and its configuration default to Traceetcdraft.tla and .cfg in the
tla/ folder of go.etcd.io/raft/v3 in the Go module cache. Lines that do not
start with '{' lose their prefix up to the first '{', as validate.sh does.

A trace that is not matched prints the last matched event, the event no
action could take, the spec's state there and how far each action got.
Exit codes: 0 every trace matched, 13 a trace not matched, 12 an invariant
violated, 75 an evaluation error, 150/151 a spec or configuration error, 1
bad input.`,
		Args: cmdline.MinimumArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmdline.Profiled(cpuProfile, func() error {
				return runValidate(cmd.OutOrStdout(), spec, config, parallel, args)
			})
		},
	}
	cmd.Flags().StringVar(&cpuProfile, "cpuprofile", "", "write a Go CPU profile of the validation to this file")
	cmd.Flags().StringVar(&spec, "spec", "", "trace spec (default: Traceetcdraft.tla of "+raftModule+" in the module cache)")
	cmd.Flags().StringVar(&config, "config", "", "TLC configuration (default: the spec's .cfg)")
	cmd.Flags().IntVar(&parallel, "parallel", 0, "traces validated at once (default: number of CPUs)")
	return cmd
}

// raftTLADir is the tla/ folder of the raft module this binary was built
// with, in the module cache; the second result lists where it looked.
func raftTLADir() (string, string) {
	dir := models.RaftTLADir()
	return dir, dir
}

func runValidate(w io.Writer, spec, config string, parallel int, traces []string) error {
	if parallel < 0 {
		return &ExitError{Code: 1, Err: fmt.Errorf("tlc validate: --parallel must not be negative, got %d (0: one per CPU)", parallel)}
	}
	spec, config, err := validateFiles(spec, config)
	if err != nil {
		return err
	}
	// Bad input is reported before anything runs.
	prepared := make([]*traceFile, len(traces))
	for i, t := range traces {
		tf, err := prepareTrace(t)
		if err != nil {
			return &ExitError{Code: 1, Err: fmt.Errorf("tlc validate: %v", err)}
		}
		prepared[i] = tf
	}
	// As the model checker does: following the spec allocates many
	// short-lived values and keeps few, and collecting less often is a
	// quarter of the CPU time (the module's example: 1.33 s of CPU at
	// the default, 0.9 s at 400).
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	// The spec is loaded once; each trace is handed to it in memory.
	v, err := tlc.NewTraceValidator(tlc.TraceSpec{Spec: spec, Config: config})
	if err != nil {
		code, _ := tlc.LoadFailure(err)
		return &ExitError{Code: code, Err: fmt.Errorf("tlc validate: %v", err)}
	}
	code, matched, firstErr := validateAll(w, v, prepared, parallel)
	if firstErr != nil {
		return &ExitError{Code: code, Err: firstErr}
	}
	if len(traces) > 1 {
		fmt.Fprintf(w, "%d of %d traces matched\n", matched, len(traces))
	}
	if code != 0 {
		return &ExitError{Code: code, Err: errors.New("")}
	}
	return nil
}

// validateAll validates the traces, parallel at a time, and writes each
// one's report in the order of the arguments as soon as it and those
// before it are done. It returns the exit code, the number of traces
// matched and the first error.
func validateAll(w io.Writer, v *tlc.TraceValidator, prepared []*traceFile, parallel int) (int, int, error) {
	if parallel <= 0 {
		parallel = runtime.NumCPU()
	}
	parallel = min(parallel, len(prepared))
	outs := make([]bytes.Buffer, len(prepared))
	codes := make([]int, len(prepared))
	errs := make([]error, len(prepared))
	done := make([]chan struct{}, len(prepared))
	for i := range done {
		done[i] = make(chan struct{})
	}
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i, tf := range prepared {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(done[i])
			sem <- struct{}{}
			defer func() { <-sem }()
			codes[i], errs[i] = validateOne(&outs[i], v, tf)
		}()
	}
	// Results in the order of the arguments, each as soon as it and those
	// before it are done.
	code, matched := 0, 0
	var firstErr error
	for i := range prepared {
		<-done[i]
		if errs[i] != nil {
			if firstErr == nil {
				firstErr = errs[i]
			}
			if code == 0 {
				code = codes[i]
			}
			continue
		}
		w.Write(outs[i].Bytes())
		if codes[i] == 0 {
			matched++
		} else if code == 0 {
			code = codes[i]
		}
	}
	wg.Wait()
	return code, matched, firstErr
}

// validateFiles finds the trace spec (etcd raft's Traceetcdraft.tla in the
// module cache when none is given) and its cfg, with TLC's exit codes for
// a missing one.
func validateFiles(spec, config string) (string, string, error) {
	if spec == "" {
		dir, looked := raftTLADir()
		spec = filepath.Join(dir, "Traceetcdraft.tla")
		if _, err := os.Stat(spec); err != nil {
			return "", "", &ExitError{Code: check.ExitParse, Err: fmt.Errorf("tlc validate: no --spec given and Traceetcdraft.tla is not in %s (the tla/ folder of %s in the module cache; run go mod download %s, or give --spec)", looked, raftModule, raftModule)}
		}
	} else if _, err := os.Stat(spec); err != nil {
		return "", "", &ExitError{Code: check.ExitParse, Err: fmt.Errorf("tlc validate: --spec %v", jsonerr.FileError(spec, err))}
	}
	if config == "" {
		config = strings.TrimSuffix(spec, ".tla") + ".cfg"
	}
	if _, err := os.Stat(config); err != nil {
		return "", "", &ExitError{Code: check.ExitConfig, Err: fmt.Errorf("tlc validate: the cfg %v", jsonerr.FileError(config, err))}
	}
	return spec, config, nil
}

// maxTraceBytes is the largest trace file read: an execution's trace
// within schedule.MaxEvents is far smaller.
const maxTraceBytes = 256 << 20

// traceFile is one trace as given and as the spec reads it.
type traceFile struct {
	name  string   // as given
	lines []string // its lines, a prefix before '{' dropped (1-based: lines[n-1])
	vals  []value.Value
}

// prepareTrace reads a trace and checks that every non-empty line is JSON
// (after dropping a prefix before the first '{', as validate.sh does).
func prepareTrace(name string) (*traceFile, error) {
	data, err := jsonerr.ReadFile(name, maxTraceBytes, "a trace file", "cli.maxTraceBytes: 256 MiB")
	if err != nil {
		return nil, err
	}
	if e := jsonerr.Check(data); e != nil && e.Line > 0 {
		return nil, jsonerr.In(name, e)
	}
	tf := &traceFile{name: name}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), len(data)+1)
	dec := stdlib.NewJSONDecoder()
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "{") {
			if i := strings.IndexByte(line, '{'); i >= 0 {
				line = line[i:]
			}
		}
		tf.lines = append(tf.lines, line)
		var v value.Value
		if strings.TrimSpace(line) != "" {
			if v, err = dec.Decode([]byte(line)); err != nil {
				e := jsonerr.Describe([]byte(line), err)
				if e.Line > 0 {
					return nil, fmt.Errorf("%s:%d:%d: %s", name, n, e.Col, e.Msg)
				}
				return nil, fmt.Errorf("%s:%d: %s", name, n, e.Msg)
			}
		}
		tf.vals = append(tf.vals, v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return tf, nil
}

// validateOne validates one trace, writing its report to w.
func validateOne(w io.Writer, v *tlc.TraceValidator, tf *traceFile) (int, error) {
	t := v.NewTrace()
	for _, line := range tf.lines {
		if err := t.Add([]byte(line)); err != nil {
			return 1, fmt.Errorf("%s: %v", tf.name, err)
		}
	}
	tr, err := t.Validate(tlc.TraceOptions{})
	if err != nil {
		return check.ExitFailure, fmt.Errorf("%s: %v", tf.name, err)
	}
	res := tr.Check
	lines := eventLines(tf, tr.Log)
	if tr.Matched && tr.QueueStop != nil {
		// A behaviour consumes the trace, but TLC follows two at once
		// somewhere, which its TraceMatched fails (validate.sh: FAIL).
		last := tr.QueueStop[len(tr.QueueStop)-1]
		fmt.Fprintf(w, "%s: NOT matched as TLC checks it: a behaviour consumes the %d events, but at %s more than one behaviour is followed, which TLC's TraceMatched (TLCGet(\"queue\") = 1) fails (%d distinct states, %d generated, %s)\n",
			tf.name, len(tr.Log), stateVar(last, "l", "the state"), res.Distinct, res.Generated, res.Duration.Round(time.Millisecond))
		printStateLines(w, "  ", last)
		return exitNotMatched, nil
	}
	if tr.Matched {
		fmt.Fprintf(w, "%s: matched: %d events, %d distinct states (%d generated), %s\n",
			tf.name, len(tr.Log), res.Distinct, res.Generated, res.Duration.Round(time.Millisecond))
		return 0, nil
	}
	fmt.Fprintf(w, "%s: NOT matched: %d of %d events matched (%d distinct states, %d generated, %s)\n",
		tf.name, tr.Consumed, len(tr.Log), res.Distinct, res.Generated, res.Duration.Round(time.Millisecond))
	if res.ExitCode != check.ExitSuccess {
		fmt.Fprintf(w, "  the search stopped: %s\n", res.Error)
		if len(res.Trace) > 0 {
			printStateLines(w, "  ", res.Trace[len(res.Trace)-1])
		}
		return res.ExitCode, nil
	}
	event := func(what string, k int) {
		if k < 1 || k > len(tr.Log) {
			return
		}
		where := fmt.Sprintf("event %d", k)
		if ln := lines[k-1]; ln > 0 {
			where += fmt.Sprintf(", line %d", ln)
			fmt.Fprintf(w, "  %s (%s): %s\n", what, where, strings.TrimSpace(tf.lines[ln-1]))
			return
		}
		fmt.Fprintf(w, "  %s (%s): %s\n", what, where, tr.Log[k-1])
	}
	if tr.Consumed == 0 {
		fmt.Fprintln(w, "  no event was matched")
	} else {
		event("last matched event", tr.Consumed)
	}
	event("event not matched", tr.Consumed+1)
	if len(tr.Stuck) > 0 {
		fmt.Fprintf(w, "  spec state after the last matched event (1 of %d such states):\n", tr.Reaching)
		printStateLines(w, "    ", tr.Stuck[len(tr.Stuck)-1])
	}
	if tr.ProbeError != nil {
		fmt.Fprintf(w, "  evaluating the next-state relation there failed: %v\n", tr.ProbeError)
	}
	if tr.Successors > 0 {
		fmt.Fprintf(w, "  (that state has %d successors, none consuming the event)\n", tr.Successors)
	}
	fmt.Fprintln(w, "  actions tried from that state, furthest first (conjuncts passed; where the furthest call stopped):")
	shown := 0
	for _, p := range tr.Probes {
		if shown == 12 {
			fmt.Fprintf(w, "    ... and %d more\n", len(tr.Probes)-shown)
			break
		}
		shown++
		fmt.Fprintf(w, "    %s: %d calls, %d enabled, %d conjuncts passed, stopped at %s%s\n",
			callString(p), p.Calls, p.Enabled, p.Progress, p.Stuck, sourceLine(p.Stuck.File, p.Stuck.Line))
	}
	return exitNotMatched, nil
}

// eventLines maps each event of the log to its line in the trace file (0
// when not found): the log is the file's lines in order, some left out.
func eventLines(tf *traceFile, log []value.Value) []int {
	out := make([]int, len(log))
	j := 0
	for i, ev := range log {
		for ; j < len(tf.lines); j++ {
			v := tf.vals[j]
			if v == nil {
				continue
			}
			if eq, err := value.Equal(v, ev); err == nil && eq {
				out[i] = j + 1
				j++
				break
			}
		}
	}
	return out
}

func callString(p eval.ActionProbe) string {
	var b strings.Builder
	b.WriteString(p.Name)
	if len(p.Params) > 0 {
		b.WriteByte('(')
		for i, name := range p.Params {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(name)
			if i < len(p.Args) && p.Args[i] != nil {
				s := p.Args[i].String()
				if len(s) > 200 {
					s = s[:200] + "..."
				}
				b.WriteString(" = " + s)
			}
		}
		b.WriteByte(')')
	}
	return b.String()
}

// sourceLine is ": <the source line>" of file:line, or "".
func sourceLine(file string, line int) string {
	if t := tlc.SourceLine(file, line); t != "" {
		return ": " + t
	}
	return ""
}

// stateVar names state st by its variable name ("l = 3"), or is def.
func stateVar(st check.State, name, def string) string {
	for i, v := range st.Vars {
		if v == name {
			return fmt.Sprintf("the state with %s = %s", name, st.Values[i])
		}
	}
	return def
}

func printStateLines(w io.Writer, indent string, st check.State) {
	for i, v := range st.Values {
		fmt.Fprintf(w, "%s/\\ %s = %s\n", indent, st.Vars[i], v)
	}
}
