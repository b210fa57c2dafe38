package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/campaign"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// A flaky target's repeat names its first failing run with that run's
// failures, and tallies the runs by their first failure's signature
// when they failed in more than one way, the most frequent first.
func TestPrintRepeatFailures(t *testing.T) {
	var w strings.Builder
	printRepeatFailures(&w, &campaign.Repeated{Runs: 8, Same: 5})
	require.Empty(t, w.String(), "nothing failed, nothing to show")

	rep := &campaign.Repeated{Runs: 8, Same: 5, Failing: 4, FailedRun: 3,
		Failed:     []schedule.Failure{{Step: 7, Kind: "divergence", Message: "BecomeLeader not enabled", Signature: "divergence: BecomeLeader"}},
		Signatures: map[string]int{"divergence: BecomeLeader": 1, "linearizability: kv": 3}}
	printRepeatFailures(&w, rep)
	out := w.String()
	require.Contains(t, out, "failing runs by their first failure's signature:\n  3  linearizability: kv\n  1  divergence: BecomeLeader\n")
	require.Contains(t, out, "run 3 of 8, the first that failed:\nFAILURE at step 7: divergence: BecomeLeader not enabled\nsignature: divergence: BecomeLeader\n")

	w.Reset()
	rep.Signatures = map[string]int{"divergence: BecomeLeader": 4}
	printRepeatFailures(&w, rep)
	require.NotContains(t, w.String(), "by their first failure's signature", "one way of failing needs no tally")
}
