package etcdraft

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// TestLibraryCoverageRun runs random inputs at the defaults for a coverage
// profile of the library (scripts/library-coverage.sh runs it with
// -coverpkg=go.etcd.io/raft/v3/...). It is a measurement, not a check: it
// runs only when MODELFUZZ_LIBCOVER gives the number of inputs.
func TestLibraryCoverageRun(t *testing.T) {
	n, err := strconv.Atoi(os.Getenv("MODELFUZZ_LIBCOVER"))
	if err != nil || n < 1 {
		t.Skip("set MODELFUZZ_LIBCOVER=N to run N random inputs for a coverage profile (scripts/library-coverage.sh)")
	}
	f, s := newSystem(t, DefaultConfig())
	g, err := schedule.NewGenerator(f.Spec(), schedule.Shape{Steps: 150, MaxMessages: 5, CrashQuota: 4, Requests: 8})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < n; i++ {
		if ex, _ := run(t, s, g.Random(r)); len(ex.Failures) > 0 {
			t.Fatalf("input %d failed: %s", i, ex.Failures[0].Message)
		}
	}
}
