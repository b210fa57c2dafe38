package cmdline

import (
	"fmt"
	"math"
	"os"
	"runtime/debug"
)

// GCPercentUnderLimit is the garbage collector's target for a process that
// runs under a soft memory limit: twice the heap between collections
// instead of Go's default of one. With the limit in place the collector
// still works harder near it, so memory stays bounded, and a model-guided
// campaign spends 6-13% less CPU (docs/benchmarks.md, "Throughput").
const GCPercentUnderLimit = 200

// MinMemoryLimit is the smallest memory limit in MiB a process accepts:
// below it, the corpus's memtables and caches alone would pass it.
const MinMemoryLimit = 64

// MemoryLimit is the process's soft memory limit in bytes, as
// ApplyMemoryLimit or $GOMEMLIMIT set it (0: none).
func MemoryLimit() int64 {
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		return l
	}
	return 0
}

// ApplyMemoryLimit sets the process's soft memory limit of mib MiB (0:
// none) and, under a limit, the collector's target GCPercentUnderLimit.
// The environment wins: $GOMEMLIMIT over the limit, $GOGC over the target.
func ApplyMemoryLimit(flag string, mib int64) error {
	if mib < 0 {
		return fmt.Errorf("%s must not be negative", flag)
	}
	if mib > 0 && mib < MinMemoryLimit {
		return fmt.Errorf("%s %d: at least %d MiB (cmdline.MinMemoryLimit: what the corpus's tables and caches take), or 0 for none", flag, mib, MinMemoryLimit)
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
