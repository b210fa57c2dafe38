package tlc_test

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/modelfuzz/modelfuzz/tlc"
)

// BenchmarkTraceValidation validates a recorded library trace of a fuzz
// execution (371 events, the default 150 steps) against etcd raft's
// Traceetcdraft.tla, invariants included, the two ways a campaign can:
//
//   - load: what a campaign did for every execution before the
//     validator: write the trace to a file, load and compile the spec
//     with it, and search it with the model checker;
//   - validator: the spec loaded once (tlc.NewTraceValidator), the
//     trace's lines added as they arrive and its states followed.
//
// One op is one execution's trace. The machine is shared: cpu-ms/op and
// events/cpu-s are the process's CPU time (user and system, the
// collector's included), which load on other processes does not change
// as it changes ns/op.
func BenchmarkTraceValidation(b *testing.B) {
	dir := raftTLA(b)
	spec := tlc.TraceSpec{Spec: filepath.Join(dir, "Traceetcdraft.tla")}
	path := filepath.Join("testdata", "etcdraft", "fuzz-matched-371.ndjson")
	lines := readLines(b, path)
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("load", func(b *testing.B) {
		tmp := filepath.Join(b.TempDir(), "trace.ndjson")
		defer reportCPU(b, len(lines))()
		for b.Loop() {
			if err := os.WriteFile(tmp, data, 0o600); err != nil {
				b.Fatal(err)
			}
			m, err := spec.Load(tmp)
			if err != nil {
				b.Fatal(err)
			}
			m.Out = io.Discard
			tr, err := tlc.ValidateTrace(m, tlc.CheckOptions{Workers: 1})
			if err != nil || !tr.Matched {
				b.Fatalf("not matched: %v", err)
			}
		}
	})
	b.Run("validator", func(b *testing.B) {
		v, err := tlc.NewTraceValidator(spec)
		if err != nil {
			b.Fatal(err)
		}
		defer reportCPU(b, len(lines))()
		for b.Loop() {
			t := v.NewTrace()
			for _, l := range lines {
				if err := t.Add(l); err != nil {
					b.Fatal(err)
				}
			}
			tr, err := t.Validate(tlc.TraceOptions{})
			if err != nil || !tr.Matched {
				b.Fatalf("not matched: %v", err)
			}
		}
	})
}

// reportCPU starts measuring the process's CPU time; the function it
// returns reports it per op and per event.
func reportCPU(b *testing.B, events int) func() {
	start := cpuTime()
	return func() {
		cpu := (cpuTime() - start).Seconds()
		b.ReportMetric(cpu*1000/float64(b.N), "cpu-ms/op")
		b.ReportMetric(float64(events*b.N)/cpu, "events/cpu-s")
	}
}

// cpuTime is the CPU time the process used so far, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
