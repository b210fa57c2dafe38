package check

import (
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

	m, err = eval.Load("../../cmd/modelfuzz/testdata/tlc/Commit.tla", "")
	require.NoError(t, err)
	m.CheckDeadlock = false // as -deadlock: behaviours run until the invariant fails
	r := Simulate(m, SimOptions{Seed: 1, Workers: 1, Depth: 20})
	assert.Equal(t, "invariant", r.Result.Result)
	assert.Equal(t, ExitSafety, r.ExitCode)
	require.NotEmpty(t, r.Trace)
	assert.Equal(t, r.Trace, Simulate(m, SimOptions{Seed: 1, Workers: 1, Depth: 20}).Trace)
}
