package campaign

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// Replaying a target again and again gives the same trace every time
// (executions are deterministic) and shows its bug every time.
func TestRepeatCountsSameTracesAndSignatures(t *testing.T) {
	ad, err := LookupAdapter("microbench")
	require.NoError(t, err)
	sys, err := ad.Open(json.RawMessage(`{"workers":3,"tasks":5,"inject":"flush-before-last"}`), nil)
	require.NoError(t, err)
	defer sys.Close()
	chk := fuzzer.NewChecker(sys, nil, 10*time.Second)
	g, err := schedule.NewGenerator(sys.Spec(), schedule.Shape{Steps: 60, MaxMessages: 5, Requests: 3})
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(1, 1))
	var in *schedule.Input
	var first *schedule.Execution
	for i := 0; i < 2000 && first == nil; i++ {
		in = g.Random(r)
		ex, _, err := chk.Run(in)
		require.NoError(t, err)
		if len(ex.Failures) > 0 {
			first = ex
		}
	}
	require.NotNil(t, first, "no random input shows the seeded bug")
	tg := &Target{Input: in, What: "the input", Signature: first.Failures[0].Signature, Spec: sys.Spec(), Checker: chk}
	ex, err := tg.Run()
	require.NoError(t, err)
	rep, err := tg.Repeat(ex, 4)
	require.NoError(t, err)
	require.Equal(t, &Repeated{Runs: 4, Same: 4, Shows: 4, Failing: 4, Failed: ex.Failures, FailedRun: 1,
		Signatures: map[string]int{ex.Failures[0].Signature: 4}}, rep)

	tg.Signature = "panic: another"
	rep, err = tg.Repeat(ex, 2)
	require.NoError(t, err)
	require.Equal(t, 0, rep.Shows)
	require.Equal(t, 2, rep.Failing)
}
