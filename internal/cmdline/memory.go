package cmdline

import (
	"fmt"
	"os"
	"runtime/debug"
)

// GCPercentUnderLimit is the garbage collector's target for a process that
// runs under a soft memory limit: twice the heap between collections
// instead of Go's default of one. With the limit in place the collector
// still works harder near it, so memory stays bounded, and a model-guided
// campaign spends 6-13% less CPU (docs/benchmarks.md, "Throughput").
const GCPercentUnderLimit = 200

// ApplyMemoryLimit sets the process's soft memory limit of mib MiB (0:
// none) and, under a limit, the collector's target GCPercentUnderLimit.
// The environment wins: $GOMEMLIMIT over the limit, $GOGC over the target.
func ApplyMemoryLimit(flag string, mib int64) error {
	if mib < 0 {
		return fmt.Errorf("%s must not be negative", flag)
	}
	limited := os.Getenv("GOMEMLIMIT") != ""
	if mib > 0 && !limited {
		debug.SetMemoryLimit(mib << 20)
		limited = true
	}
	if limited && os.Getenv("GOGC") == "" {
		debug.SetGCPercent(GCPercentUnderLimit)
	}
	return nil
}
