package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTLCSimulate(t *testing.T) {
	tmp := t.TempDir()
	acts := filepath.Join(tmp, "acts.json")
	require.NoError(t, os.WriteFile(acts, []byte(`[
		{"name":"Start","params":{"p":1}},
		{"name":"RecvRegister","params":{"p":1}},
		{"name":"Execute","params":{"w":2,"r":1,"k":1}}
	]`), 0o644))
	res := modelfuzz(t, "tlc", "simulate", "--model", "microbench.tla", "--const", "Workers=1", acts)
	require.Equal(t, 12, res.code, res.stderr)
	require.Contains(t, res.stdout, "State 1: <Initial predicate>")
	require.Contains(t, res.stdout, `State 2: <RecvRegister {"p":1}> (action 1)`, "an action's parameters as a JSON object")
	require.Contains(t, res.stdout, `/\ registered = [1]`)
	require.Contains(t, res.stdout, "Divergence at action 2 (Execute(w=2, r=1, k=1)): not enabled: IsReq(r) is false (microbench.tla:79:8)")
	res = modelfuzz(t, "tlc", "simulate", "--model", "microbench.tla", "--json", acts)
	var r struct {
		States     []map[string]any `json:"states"`
		Divergence *struct{ Index int }
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &r), res.stdout)
	require.Equal(t, 2, r.Divergence.Index)
}

// A bad actions file is one line naming what is wrong, in JSON's words.
func TestTLCSimulateErrorsAreOneLine(t *testing.T) {
	tmp := t.TempDir()
	oneLineError(t, modelfuzz(t, "tlc", "simulate", "--model", "microbench.tla", filepath.Join(tmp, "none.json")), "no such file")
	acts := filepath.Join(tmp, "acts.json")
	require.NoError(t, os.WriteFile(acts, []byte(`[{"name":"Start","params":{"p":1}}, {"nme":"x"}]`), 0o644))
	oneLineError(t, modelfuzz(t, "tlc", "simulate", "--model", "microbench.tla", acts), `unknown field "nme"`)
	require.NoError(t, os.WriteFile(acts, []byte(`[1]`), 0o644))
	res := modelfuzz(t, "tlc", "simulate", "--model", "microbench.tla", acts)
	oneLineError(t, res, "the value is a number, want an object")
	require.NotContains(t, res.stderr, "sim.Action")
	require.NoError(t, os.WriteFile(acts, []byte(`[]`), 0o644))
	oneLineError(t, modelfuzz(t, "tlc", "simulate", "--model", "nosuch.tla", acts), "model nosuch.tla: no such file, and not an embedded model")
}

func TestTLCServeMemoryLimit(t *testing.T) {
	r := modelfuzz(t, "tlc", "serve", "--model", "microbench.tla", "--memory-limit", "-1")
	require.NotEqual(t, 0, r.code)
	require.Contains(t, r.stderr, "--memory-limit must not be negative")
	require.Equal(t, 1, strings.Count(strings.TrimSpace(r.stderr), "\n")+1, "one line: %q", r.stderr)
}

// TestSimulateLivenessBranches checks that a simulation with temporal
// properties says, as TLC's does, how many branches its liveness check
// has, before the initial states.
func TestSimulateLivenessBranches(t *testing.T) {
	res := tlcIn(t, tlcData, "tlc", "check", "-workers", "1", "-simulate", "num=2", "-depth", "5", "-seed", "1", "-config", "LiveOK.cfg", "LiveOK")
	require.Equal(t, 0, res.code, res.stdout+res.stderr)
	require.Regexp(t, `(?m)^Starting\.\.\. \(.*\)\nImplied-temporal checking--satisfiability problem has 3 branches\.\nComputing initial states\.\.\.$`, res.stdout)
}
