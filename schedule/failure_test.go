package schedule

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBlankNumbers(t *testing.T) {
	require.Equal(t, "worker-N: task N of N", BlankNumbers("worker-2: task 14 of 20"))
}

// A failure's kind is written as its plain string, as before it had a type
// of its own: stored bugs and executions read the same.
func TestFailureKindJSON(t *testing.T) {
	b, err := json.Marshal(Failure{Kind: FailureSpecDivergence, Signature: "s", Step: 2})
	require.NoError(t, err)
	require.JSONEq(t, `{"kind":"spec-divergence","signature":"s","message":"","step":2}`, string(b))
	var f Failure
	require.NoError(t, json.Unmarshal([]byte(`{"kind":"model-invariant"}`), &f))
	require.Equal(t, FailureModelInvariant, f.Kind)
}

// Only the model's verdicts are model failures; the system's own oracles'
// are not.
func TestFailureKindFromModel(t *testing.T) {
	for _, k := range []FailureKind{FailureDivergence, FailureModelInvariant, FailureSpecDivergence} {
		require.True(t, k.FromModel(), k)
	}
	for _, k := range []FailureKind{FailurePanic, FailureSafety, FailureLinearizability, FailureHang, FailureScenario,
		FailureExit, FailureRestart, FailureUnresponsive, FailureProtocol} {
		require.False(t, k.FromModel(), k)
	}
}
