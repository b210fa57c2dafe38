package tlc_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/tlc"
)

// raftTLA is the tla/ folder of go.etcd.io/raft/v3 in the module cache
// (Traceetcdraft.tla and its cfg, read unmodified); the test is skipped
// without it.
func raftTLA(t testing.TB) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "go.etcd.io/raft/v3").Output()
	dir := filepath.Join(strings.TrimSpace(string(out)), "tla")
	if err == nil && strings.TrimSpace(string(out)) != "" {
		if _, err = os.Stat(filepath.Join(dir, "Traceetcdraft.tla")); err == nil {
			return dir
		}
	}
	t.Skipf("etcd raft's tla/ folder is not in the module cache (%v); run go mod download go.etcd.io/raft/v3", err)
	return ""
}

// The library traces recorded from executions of the etcdraft adapter
// (testdata/etcdraft): two the spec matches, and one for each of the
// three disagreements of the spec with the correct library.
var recorded = []struct {
	file     string
	matched  bool
	consumed int    // events matched (not matched: before the one refused)
	result   string // the search's outcome
	stuckAt  string // the spec condition the furthest action stopped at
}{
	{"fuzz-matched-371.ndjson", true, 371, "success", ""},
	{"fuzz-matched-189.ndjson", true, 189, "success", ""},
	// A follower that knows its term's leader refuses a vote the spec
	// grants (votedFor[i] = logline.event.state.vote).
	{"vote-refused-known-leader.ndjson", false, 67, "success", "Traceetcdraft.tla:194"},
	// A paused flow's empty MsgApp carries the leader's whole commit
	// index; the spec caps it at the message's last entry.
	{"empty-msgapp-whole-commit.ndjson", false, 122, "success", "Traceetcdraft.tla:158"},
	// LeaderCompletenessInv is false after event 169 (TLC's trace stops
	// at the state with l = 170).
	{"leader-completeness-inv.ndjson", false, 169, "invariant", ""},
	// LeaderCompletenessInv cannot be evaluated after event 271: it
	// applies a stale leader's log beyond its end (TLC: "Evaluating
	// invariant LeaderCompletenessInv failed", exit 76, at l = 272).
	{"leader-completeness-inv-undefined.ndjson", false, 271, "error", ""},
}

func readLines(t testing.TB, path string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var lines [][]byte
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<24)
	for sc.Scan() {
		lines = append(lines, append([]byte(nil), sc.Bytes()...))
	}
	require.NoError(t, sc.Err())
	return lines
}

// summary is what a validation says, in one comparable string.
func summary(tr *tlc.TraceResult) string {
	res := tr.Check
	s := fmt.Sprintf("matched=%v consumed=%d/%d result=%s exit=%d invariant=%s distinct=%d generated=%d error=%q",
		tr.Matched, tr.Consumed, len(tr.Log), res.Result, res.ExitCode, res.Invariant, res.Distinct, res.Generated, res.Error)
	if len(tr.Probes) > 0 {
		s += fmt.Sprintf(" probe=%s:%d", filepath.Base(tr.Probes[0].Stuck.File), tr.Probes[0].Stuck.Line)
	}
	if len(tr.Stuck) > 0 {
		s += " stuck=" + tr.Stuck[len(tr.Stuck)-1].Values[0].String()
	}
	return s
}

// validateFile validates a trace file with a new trace of v.
func validateFile(t testing.TB, v *tlc.TraceValidator, path string, opt tlc.TraceOptions) *tlc.TraceResult {
	t.Helper()
	tr := v.NewTrace()
	for _, line := range readLines(t, path) {
		require.NoError(t, tr.Add(line))
	}
	res, err := tr.Validate(opt)
	require.NoError(t, err)
	return res
}

// The validator, loaded once, gives every recorded trace the outcome of
// a validation that loads the spec with the trace's file and searches it
// with the model checker (ValidateTrace), state counts included.
func TestTraceValidatorAgreesWithTheChecker(t *testing.T) {
	dir := raftTLA(t)
	ts := tlc.TraceSpec{Spec: filepath.Join(dir, "Traceetcdraft.tla")}
	v, err := tlc.NewTraceValidator(ts)
	require.NoError(t, err)
	for _, rc := range recorded {
		t.Run(rc.file, func(t *testing.T) {
			path := filepath.Join("testdata", "etcdraft", rc.file)
			got := validateFile(t, v, path, tlc.TraceOptions{})
			m, err := ts.Load(path)
			require.NoError(t, err)
			m.Out = io.Discard
			want, err := tlc.ValidateTrace(m, tlc.CheckOptions{Workers: 1})
			require.NoError(t, err)
			assert.Equal(t, summary(want), summary(got))
			assert.Equal(t, rc.matched, got.Matched)
			assert.Equal(t, rc.consumed, got.Consumed)
			assert.Equal(t, rc.result, got.Check.Result)
			if rc.stuckAt != "" {
				require.NotEmpty(t, got.Probes)
				p := got.Probes[0].Stuck
				assert.Equal(t, rc.stuckAt, fmt.Sprintf("%s:%d", filepath.Base(p.File), p.Line))
			}
			// TLC's TraceMatched stops where the trace is not matched,
			// at the state whose event the spec refuses.
			switch {
			case rc.matched || rc.result != "success":
				assert.Nil(t, got.QueueStop)
			default:
				require.NotEmpty(t, got.QueueStop)
				assert.Equal(t, fmt.Sprint(rc.consumed+1), valueOf(got.QueueStop[len(got.QueueStop)-1], "l"))
			}
			if rc.result == "invariant" {
				assert.Equal(t, "LeaderCompletenessInv", got.Check.Invariant)
				last := got.Stuck[len(got.Stuck)-1]
				assert.Equal(t, fmt.Sprint(rc.consumed+1), valueOf(last, "l"), "the violating state consumed the event")
			}
		})
	}
}

func valueOf(st tlc.State, name string) string {
	for i, v := range st.Vars {
		if v == name {
			return st.Values[i].String()
		}
	}
	return ""
}

// Traces validated one after another on one validator, and at the same
// time from several goroutines, have the outcomes and the states of
// traces validated alone: no value computed from one trace (the server
// set, the bootstrap, the invariants' memos) leaks into another. The
// module's example has five servers, the fuzz traces four.
func TestTraceValidatorTracesApart(t *testing.T) {
	dir := raftTLA(t)
	v, err := tlc.NewTraceValidator(tlc.TraceSpec{Spec: filepath.Join(dir, "Traceetcdraft.tla")})
	require.NoError(t, err)
	example := readLines(t, filepath.Join(dir, "example.ndjson"))[:400]
	exampleFile := filepath.Join(t.TempDir(), "example400.ndjson")
	require.NoError(t, os.WriteFile(exampleFile, bytes.Join(example, []byte("\n")), 0o600))
	files := []string{exampleFile}
	for _, rc := range recorded {
		files = append(files, filepath.Join("testdata", "etcdraft", rc.file))
	}
	type outcome struct {
		summary string
		states  []string
	}
	run := func(v *tlc.TraceValidator, path string) outcome {
		var o outcome
		res := validateFile(t, v, path, tlc.TraceOptions{Visit: func(s []tlc.Value) {
			o.states = append(o.states, fmt.Sprint(tlc.FingerprintState(s)))
		}})
		o.summary = summary(res)
		return o
	}
	alone := map[string]outcome{}
	for _, f := range files {
		fresh, err := tlc.NewTraceValidator(tlc.TraceSpec{Spec: filepath.Join(dir, "Traceetcdraft.tla")})
		require.NoError(t, err)
		alone[f] = run(fresh, f)
	}
	// First use of a validator by several goroutines at once: binding a
	// trace's input compiles what the spec's ASSUMEs read, once, shared.
	first := make([]outcome, len(files))
	var fw sync.WaitGroup
	for i, f := range files {
		fw.Add(1)
		go func() {
			defer fw.Done()
			first[i] = run(v, f)
		}()
	}
	fw.Wait()
	for i, f := range files {
		assert.Equal(t, alone[f], first[i], "%s, validated concurrently on a new validator", f)
	}
	for round := 0; round < 2; round++ {
		for _, f := range files {
			assert.Equal(t, alone[f], run(v, f), "%s after the others, on one validator", f)
		}
	}
	var wg sync.WaitGroup
	got := make([]outcome, 3*len(files))
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = run(v, files[i%len(files)])
		}()
	}
	wg.Wait()
	for i, o := range got {
		assert.Equal(t, alone[files[i%len(files)]], o, "%s, validated concurrently", files[i%len(files)])
	}
}

// A trace is decoded line by line as it arrives: a malformed line is an
// error that names it and leaves the trace as it was; empty lines are
// skipped as ndJsonDeserialize skips them.
func TestTraceAddBadLine(t *testing.T) {
	dir := raftTLA(t)
	v, err := tlc.NewTraceValidator(tlc.TraceSpec{Spec: filepath.Join(dir, "Traceetcdraft.tla")})
	require.NoError(t, err)
	tr := v.NewTrace()
	lines := readLines(t, filepath.Join("testdata", "etcdraft", "fuzz-matched-189.ndjson"))
	require.NoError(t, tr.Add(lines[0]))
	require.NoError(t, tr.Add([]byte("  ")))
	err = tr.Add([]byte(`{"tag":"trace","event":`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "line 3 of the trace: malformed JSON")
	for _, line := range lines[1:] {
		require.NoError(t, tr.Add(line))
	}
	assert.Equal(t, len(lines), tr.Len())
	res, err := tr.Validate(tlc.TraceOptions{})
	require.NoError(t, err)
	assert.True(t, res.Matched, summary(res))
}

// An ASSUME of the spec that a trace falsifies is that trace's outcome,
// TLC's exit code 10, and the next trace is validated as usual:
// Traceetcdraft assumes that the bootstrap configuration of the first
// event's node names servers of the trace.
func TestTraceValidatorAssumption(t *testing.T) {
	dir := raftTLA(t)
	v, err := tlc.NewTraceValidator(tlc.TraceSpec{Spec: filepath.Join(dir, "Traceetcdraft.tla")})
	require.NoError(t, err)
	tr := v.NewTrace()
	require.NoError(t, tr.Add([]byte(`{"tag":"trace","event":{"name":"InitState","nid":"1","state":{"term":1,"vote":"0","commit":1},"role":"StateFollower","log":1,"conf":[["1","2"],[]]}}`)))
	res, err := tr.Validate(tlc.TraceOptions{})
	require.NoError(t, err)
	assert.Equal(t, "assumption", res.Check.Result)
	assert.Equal(t, 10, res.Check.ExitCode)
	assert.Contains(t, res.Check.Error, "Traceetcdraft.tla:77")
	res = validateFile(t, v, filepath.Join("testdata", "etcdraft", "fuzz-matched-189.ndjson"), tlc.TraceOptions{})
	assert.True(t, res.Matched, summary(res))
}
