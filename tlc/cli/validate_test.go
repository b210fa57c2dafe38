package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// raftTLA is the tla/ folder of go.etcd.io/raft/v3 in the module cache: the
// tests read etcd raft's own specs and example trace from there (they are
// not copied into this repository).
func raftTLA(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", raftModule).Output()
	dir := filepath.Join(strings.TrimSpace(string(out)), "tla")
	if err != nil || strings.TrimSpace(string(out)) == "" {
		t.Skipf("%s is not in the module cache (go list -m: %v); run go mod download %s", raftModule, err, raftModule)
	}
	if _, err := os.Stat(filepath.Join(dir, "Traceetcdraft.tla")); err != nil {
		t.Skipf("no Traceetcdraft.tla in %s: %v", dir, err)
	}
	return dir
}

// traceCopy writes the first n lines of the module's example trace to dir,
// with the term of the first event named change (if any) increased by one;
// it returns the file and the changed line's number.
func traceCopy(t *testing.T, tla, dir, name string, n int, change string) (string, int) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(tla, "example.ndjson"))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if n > 0 && n < len(lines) {
		lines = lines[:n]
	}
	changed := 0
	for i, l := range lines {
		if change == "" || changed > 0 {
			break
		}
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &rec))
		ev := rec["event"].(map[string]any)
		if ev["name"] != change {
			continue
		}
		st := ev["state"].(map[string]any)
		st["term"] = st["term"].(float64) + 1
		b, err := json.Marshal(rec)
		require.NoError(t, err)
		lines[i], changed = string(b), i+1
	}
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	return path, changed
}

func TestTLCValidateRaftTrace(t *testing.T) {
	tla := raftTLA(t)
	tmp := t.TempDir()
	// A prefix of the example trace is a trace of its own, quick to check;
	// the whole example is checked by TestConformanceRaftExampleTrace.
	good, _ := traceCopy(t, tla, tmp, "prefix.ndjson", 300, "")
	bad, line := traceCopy(t, tla, tmp, "bad.ndjson", 300, "BecomeCandidate")
	require.NotZero(t, line)

	res := modelfuzz(t, "tlc", "validate", good)
	require.Equal(t, 0, res.code, res.stdout+res.stderr)
	require.Contains(t, res.stdout, "prefix.ndjson: matched: 300 events")

	res = modelfuzz(t, "tlc", "validate", "--parallel", "2", good, bad)
	require.Equal(t, exitNotMatched, res.code, res.stdout+res.stderr)
	require.Contains(t, res.stdout, "prefix.ndjson: matched")
	require.Contains(t, res.stdout, fmt.Sprintf("bad.ndjson: NOT matched: %d of 300 events matched", line-1))
	require.Contains(t, res.stdout, fmt.Sprintf("event not matched (event %d, line %d): ", line, line))
	require.Contains(t, res.stdout, `"name":"BecomeCandidate"`)
	require.Contains(t, res.stdout, fmt.Sprintf("last matched event (event %d, line %d)", line-1, line-1))
	require.Contains(t, res.stdout, "/\\ currentTerm = ")
	require.Contains(t, res.stdout, "TimeoutIfLogged(i = ")
	require.Contains(t, res.stdout, "currentTerm'[i] = logline.event.state.term")
	require.Contains(t, res.stdout, "1 of 2 traces matched")
}

func TestTLCValidateBadInput(t *testing.T) {
	tla := raftTLA(t)
	tmp := t.TempDir()
	spec := filepath.Join(tla, "Traceetcdraft.tla")
	oneLineError(t, modelfuzz(t, "tlc", "validate", "--spec", spec, filepath.Join(tmp, "missing.ndjson")), "missing.ndjson: no such file")
	malformed := filepath.Join(tmp, "malformed.ndjson")
	require.NoError(t, os.WriteFile(malformed, []byte("{\"tag\":\"trace\"}\n{\"tag\": \n"), 0o644))
	oneLineError(t, modelfuzz(t, "tlc", "validate", "--spec", spec, malformed), "malformed.ndjson:2:9: the document ends early: cut short?")
	good, _ := traceCopy(t, tla, tmp, "ok.ndjson", 10, "")
	oneLineError(t, modelfuzz(t, "tlc", "validate", "--spec", filepath.Join(tmp, "None.tla"), good), "None.tla: no such file")

	// Without --spec, the module cache is looked up; an empty one is named.
	cmd := command(t, "", "tlc", "validate", good)
	cmd.Env = append(cmd.Env, "GOMODCACHE="+filepath.Join(tmp, "emptycache"))
	var errb strings.Builder
	cmd.Stderr = &errb
	err := cmd.Run()
	require.Error(t, err)
	oneLineError(t, result{"", errb.String(), cmd.ProcessState.ExitCode()}, filepath.Join(tmp, "emptycache", raftModule+"@"))
}

// The module's whole example trace (4,888 events) takes about four minutes
// here; set MODELFUZZ_FULL_TRACE=1 to run it.
func TestTLCValidateRaftExampleFull(t *testing.T) {
	if os.Getenv("MODELFUZZ_FULL_TRACE") == "" {
		t.Skip("set MODELFUZZ_FULL_TRACE=1 to validate the whole example.ndjson (about four minutes)")
	}
	tla := raftTLA(t)
	res := modelfuzz(t, "tlc", "validate", filepath.Join(tla, "example.ndjson"))
	require.Equal(t, 0, res.code, res.stdout+res.stderr)
	require.Contains(t, res.stdout, "example.ndjson: matched: 4888 events")
}

// A trace that a behaviour consumes, but where the spec follows two
// behaviours at once, is not matched as TLC checks it: its TraceMatched
// (TLCGet("queue") = 1) fails at the state with two successors, as
// validate.sh would (TLC's trace: the states up to l = 2).
func TestTLCValidateTwoBehaviours(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "TraceBranch.tla")
	require.NoError(t, os.WriteFile(spec, []byte(`---- MODULE TraceBranch ----
EXTENDS Naturals, Sequences, Json, IOUtils, TLC
VARIABLE l, x
TraceLog == ndJsonDeserialize(IOEnv.JSON)
Init == l = 1 /\ x = 0
Next == l <= Len(TraceLog) /\ l' = l + 1 /\ x' \in {0, TraceLog[l].v}
Spec == Init /\ [][Next]_<<l, x>>
TraceMatched == [](l <= Len(TraceLog) => [](TLCGet("queue") = 1 \/ l > Len(TraceLog)))
====
`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "TraceBranch.cfg"), []byte("SPECIFICATION Spec\nPROPERTIES TraceMatched\nCHECK_DEADLOCK FALSE\n"), 0o644))
	one := filepath.Join(dir, "one.ndjson")
	two := filepath.Join(dir, "two.ndjson")
	require.NoError(t, os.WriteFile(one, []byte("{\"v\":0}\n{\"v\":0}\n"), 0o644))
	require.NoError(t, os.WriteFile(two, []byte("{\"v\":0}\n{\"v\":1}\n{\"v\":0}\n"), 0o644))
	res := modelfuzz(t, "tlc", "validate", "--spec", spec, one)
	require.Equal(t, 0, res.code, res.stdout+res.stderr)
	res = modelfuzz(t, "tlc", "validate", "--spec", spec, two)
	require.Equal(t, exitNotMatched, res.code, res.stdout+res.stderr)
	require.Contains(t, res.stdout, "two.ndjson: NOT matched as TLC checks it: a behaviour consumes the 3 events, but at the state with l = 2 more than one behaviour is followed")
}
