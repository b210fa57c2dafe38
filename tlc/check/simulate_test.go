package check

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/tlc/eval"
)

// TestSimulateIsDeterministicForASeed checks that one worker with one seed
// generates the same behaviours, and that a violation found on the way is
// reported with its trace.
func TestSimulateIsDeterministicForASeed(t *testing.T) {
	m, err := eval.Load(filepath.Join("testdata", "Counter.tla"), "")
	require.NoError(t, err)
	run := func(seed int64) *SimResult {
		return Simulate(m, SimOptions{Seed: seed, Workers: 1, Depth: 10, Traces: 20})
	}
	a, b := run(3), run(3)
	assert.Equal(t, a.Result.Result, b.Result.Result)
	assert.Equal(t, a.Generated, b.Generated)
	assert.Equal(t, a.Traces, b.Traces)
	assert.Equal(t, a.Trace, b.Trace)

	m, err = eval.Load("../cli/testdata/Commit.tla", "")
	require.NoError(t, err)
	m.CheckDeadlock = false // as -deadlock: behaviours run until the invariant fails
	r := Simulate(m, SimOptions{Seed: 1, Workers: 1, Depth: 20})
	assert.Equal(t, "invariant", r.Result.Result)
	assert.Equal(t, ExitSafety, r.ExitCode)
	require.NotEmpty(t, r.Trace)
	assert.Equal(t, r.Trace, Simulate(m, SimOptions{Seed: 1, Workers: 1, Depth: 20}).Trace)
}

// TestSimulateProperties checks the PROPERTIES in simulation, as TLC's
// -simulate does: []P as an invariant, [][A]_v on every step, liveness on
// each behaviour as a lasso of it, under the SPECIFICATION's fairness.
func TestSimulateProperties(t *testing.T) {
	dir := t.TempDir()
	spec := "---- MODULE Sim ----\nEXTENDS Naturals\nVARIABLE x\n" +
		"Init == x = 0\nCyc == x' = (x + 1) % 3\nUp == x < 5 /\\ x' = x + 1\n" +
		"CycSpec == Init /\\ [][Cyc]_x /\\ WF_x(Cyc)\nUpSpec == Init /\\ [][Up]_x /\\ WF_x(Up)\nUpUnfair == Init /\\ [][Up]_x\n" +
		"Ten == <>(x = 10)\nTwos == []<>(x = 2)\nFive == <>(x = 5)\nSmall == [](x < 2)\nGrows == [][x' > x]_x\n====\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Sim.tla"), []byte(spec), 0o644))
	run := func(cfg string) *SimResult {
		t.Helper()
		path := filepath.Join(dir, "Sim.cfg")
		require.NoError(t, os.WriteFile(path, []byte(cfg+"\nCHECK_DEADLOCK FALSE\n"), 0o644))
		m, err := eval.Load(filepath.Join(dir, "Sim.tla"), path)
		require.NoError(t, err)
		return Simulate(m, SimOptions{Seed: 5, Workers: 2, Depth: 12, Traces: 10})
	}
	r := run("SPECIFICATION CycSpec\nPROPERTY Twos Ten")
	assert.Equal(t, "liveness", r.Result.Result)
	assert.Equal(t, "Ten", r.Property)
	assert.Equal(t, ExitLiveness, r.ExitCode)
	assert.Len(t, r.Trace, 3, "0, 1, 2, back to 0")
	assert.Equal(t, 1, r.LoopBack)

	r = run("SPECIFICATION UpSpec\nPROPERTY Five")
	assert.Equal(t, "success", r.Result.Result, r.Error)
	assert.EqualValues(t, 20, r.Traces)

	r = run("SPECIFICATION UpUnfair\nPROPERTY Five")
	assert.Equal(t, "liveness", r.Result.Result, "without fairness a behaviour may stop short of 5")
	assert.True(t, r.Stuttering)

	r = run("SPECIFICATION CycSpec\nPROPERTY Small")
	assert.Equal(t, "invariant", r.Result.Result)
	assert.Equal(t, "Small", r.Invariant)
	assert.Len(t, r.Trace, 3)

	r = run("SPECIFICATION CycSpec\nPROPERTY Grows")
	assert.Equal(t, "property", r.Result.Result)
	assert.Equal(t, "Action property Grows is violated.", r.Error)
	assert.Len(t, r.Trace, 4, "0, 1, 2, then 0")
}
