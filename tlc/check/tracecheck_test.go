package check

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/tlc/eval"
	"github.com/modelfuzz/modelfuzz/tlc/stdlib"
)

// traceVerdicts are TLC's verdicts on etcd raft's Traceetcdraft.tla with
// its own Traceetcdraft.cfg (PROPERTIES TraceMatched and etcdSpec), run
// as validate.sh runs it (JSON=trace.ndjson, -lncheck final), on the
// recorded library traces of ../testdata/etcdraft and on the first 300
// events of the module's example: exit code, distinct and generated
// states, depth, and the value of l in the last state of the
// counterexample (the event TLC stops at). Measured with TLC built from
// tlaplus/tlaplus cc6b616 (../shared/tools/tlc), 2026-11-27.
var traceVerdicts = []struct {
	trace                      string
	exit                       int
	distinct, generated, depth int64
	lastL                      int
	// violated is TLC's error (its first line), and ours too unless ours,
	// a part of ours, is given (an evaluation error is worded our way).
	violated, ours string
}{
	{"fuzz-matched-371.ndjson", 0, 393, 396, 393, 0, "", ""},
	{"fuzz-matched-189.ndjson", 0, 198, 198, 198, 0, "", ""},
	{"example-300", 0, 315, 325, 315, 0, "", ""},
	{"vote-refused-known-leader.ndjson", 12, 70, 70, 70, 68, "Temporal property TraceMatched was violated.", ""},
	{"empty-msgapp-whole-commit.ndjson", 12, 129, 133, 129, 123, "Temporal property TraceMatched was violated.", ""},
	{"leader-completeness-inv.ndjson", 12, 180, 181, 180, 170, "Invariant LeaderCompletenessInv is violated.", ""},
	// LeaderCompletenessInv applies a stale leader's log beyond its end
	// (log[l][idx], etcdraft.tla:869): TLC cannot evaluate it either.
	{"leader-completeness-inv-undefined.ndjson", 76, 284, 289, 284, 272, "Evaluating invariant LeaderCompletenessInv failed.",
		"etcdraft.tla:869:23: function applied outside its domain"},
}

// traceFile is the path of a traceVerdicts trace, written to dir when it
// is a prefix of the module's example.
func traceFile(t *testing.T, tla, dir, name string) string {
	t.Helper()
	if name != "example-300" {
		return filepath.Join("..", "testdata", "etcdraft", name)
	}
	data, err := os.ReadFile(filepath.Join(tla, "example.ndjson"))
	require.NoError(t, err)
	lines := strings.SplitAfter(string(data), "\n")
	path := filepath.Join(dir, "example-300.ndjson")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines[:300], "")), 0o600))
	return path
}

// TestTraceetcdraftCheck checks Traceetcdraft.tla with Traceetcdraft.cfg
// as TLC does, and gives TLC's verdicts: the cfg's overrides of
// InitServerVars and the others reach etcd!Init through
// etcd == INSTANCE etcdraft, and TraceMatched's TLCGet("queue") is
// evaluated when TLC evaluates it (the trace matched: exit 0; not
// matched: "Temporal property TraceMatched was violated", exit 12, the
// behaviour up to the state that could not consume its event).
func TestTraceetcdraftCheck(t *testing.T) {
	tla := raftTLADir(t)
	dir := t.TempDir()
	for _, v := range traceVerdicts {
		t.Run(v.trace, func(t *testing.T) {
			env := stdlib.ProcessEnv()
			env["JSON"] = traceFile(t, tla, dir, v.trace)
			m, err := eval.LoadWith(filepath.Join(tla, "Traceetcdraft.tla"), filepath.Join(tla, "Traceetcdraft.cfg"), eval.LoadOptions{Env: env})
			require.NoError(t, err)
			m.Out = io.Discard
			res := CheckWithProperties(m, Options{Workers: 2})
			assert.Equal(t, v.exit, res.ExitCode, res.Error)
			assert.Equal(t, [3]int64{v.distinct, v.generated, v.depth}, [3]int64{res.Distinct, res.Generated, int64(res.Depth)}, "distinct, generated, depth")
			if v.exit == 0 {
				assert.Equal(t, "success", res.Result)
				return
			}
			if v.ours != "" {
				assert.Contains(t, res.Error, v.ours)
			} else {
				assert.Equal(t, v.violated, res.Error)
			}
			require.NotEmpty(t, res.Trace)
			last := res.Trace[len(res.Trace)-1]
			l := ""
			for i, name := range last.Vars {
				if name == "l" {
					l = last.Values[i].String()
				}
			}
			assert.Equal(t, fmt.Sprint(v.lastL), l, "the event the counterexample stops at")
			assert.Len(t, res.Trace, int(v.depth), "the counterexample is the behaviour up to the stop")
		})
	}
}

// TestTraceetcdraftCheckAgainstTLC runs TLC itself (../shared/tools/tlc,
// skipped when absent) as validate.sh does, in a copy of the module's
// tla/ folder, and compares its exit code, counts and stopping event with
// traceVerdicts: what TestTraceetcdraftCheck holds the engine to is what
// TLC says. Two traces by default (TLC takes about 10 s of CPU each);
// MODELFUZZ_TLC_ALL=1 runs them all.
func TestTraceetcdraftCheckAgainstTLC(t *testing.T) {
	tla := raftTLADir(t)
	jars := filepath.Join("..", "..", "..", "shared", "tools", "tlc")
	if _, err := os.Stat(filepath.Join(jars, "tla2tools.jar")); err != nil {
		t.Skipf("no TLC at %s (tla2tools.jar): %v", jars, err)
	}
	if _, err := exec.LookPath("java"); err != nil {
		t.Skip("no java")
	}
	jars, err := filepath.Abs(jars)
	require.NoError(t, err)
	work := t.TempDir()
	for _, f := range []string{"Traceetcdraft.tla", "Traceetcdraft.cfg", "etcdraft.tla", "example.ndjson"} {
		data, err := os.ReadFile(filepath.Join(tla, f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(work, f), data, 0o644))
	}
	all := os.Getenv("MODELFUZZ_TLC_ALL") != ""
	counts := regexp.MustCompile(`(\d+) states generated, (\d+) distinct states found`)
	depth := regexp.MustCompile(`depth of the complete state graph search is (\d+)`)
	lastL := regexp.MustCompile(`(?m)^/\\ l = (\d+)$`)
	for _, v := range traceVerdicts {
		if !all && v.trace != "vote-refused-known-leader.ndjson" && v.trace != "fuzz-matched-189.ndjson" {
			continue
		}
		t.Run(v.trace, func(t *testing.T) {
			trace, err := filepath.Abs(traceFile(t, tla, work, v.trace))
			require.NoError(t, err)
			cmd := exec.Command("java", "-XX:+UseParallelGC", "-cp",
				filepath.Join(jars, "tla2tools.jar")+string(os.PathListSeparator)+filepath.Join(jars, "CommunityModules-deps.jar"),
				"tlc2.TLC", "-config", "Traceetcdraft.cfg", "Traceetcdraft.tla", "-lncheck", "final", "-metadir", t.TempDir())
			cmd.Dir = work
			cmd.Env = append(os.Environ(), "JSON="+trace)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err = cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else {
				require.NoError(t, err)
			}
			text := out.String()
			require.Equal(t, v.exit, code, text)
			c := counts.FindAllStringSubmatch(text, -1)
			d := depth.FindStringSubmatch(text)
			require.NotEmpty(t, c, text)
			require.NotNil(t, d, text)
			last := c[len(c)-1]
			assert.Equal(t, fmt.Sprintf("%d %d %d", v.generated, v.distinct, v.depth), last[1]+" "+last[2]+" "+d[1])
			if v.exit != 0 {
				assert.Contains(t, text, "Error: "+v.violated)
				// The first counterexample's last state: up to the next
				// violation TLC reports (after an invariant violation it
				// also reports TraceMatched, at the state it was
				// expanding), or the counts.
				first := text[strings.Index(text, "Error: "+v.violated)+1:]
				for _, next := range []string{"Error: Temporal property", "Error: Invariant", "Error: Evaluating", "states generated"} {
					if i := strings.Index(first, next); i >= 0 {
						first = first[:i]
					}
				}
				ls := lastL.FindAllStringSubmatch(first, -1)
				require.NotEmpty(t, ls)
				assert.Equal(t, fmt.Sprint(v.lastL), ls[len(ls)-1][1])
			}
		})
	}
}
