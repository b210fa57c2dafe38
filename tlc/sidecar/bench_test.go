package sidecar

import (
	"context"
	"testing"

	"github.com/modelfuzz/modelfuzz/tlc/sim"
)

// BenchmarkSimulateOverhead measures model actions simulated per second
// for a 300-action microbench trace, keys only, as the fuzzer asks for
// them: in process, over HTTP to a server in this process, and on a
// launched sidecar. The difference is the price of the sidecar.
func BenchmarkSimulateOverhead(b *testing.B) {
	const n = 300
	req := &sim.Request{Actions: microbenchTrace(n, 2), States: boolp(false)}
	s := newSim(b, "microbench.tla", microbenchConsts...)
	res, err := s.Simulate(req)
	if err != nil || res.Divergence != nil {
		b.Fatalf("the trace must be valid: %v %+v", err, res.Divergence)
	}
	run := func(b *testing.B, sm Simulator) {
		ctx := context.Background()
		for b.Loop() {
			if _, err := sm.Simulate(ctx, req); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "actions/s")
	}
	b.Run("inproc", func(b *testing.B) { run(b, InProc{s}) })
	b.Run("http", func(b *testing.B) {
		_, c := newTestServer(b, s, ServerOptions{})
		run(b, c)
	})
	b.Run("sidecar", func(b *testing.B) {
		run(b, launch(b, LaunchOptions{}, microbenchArgs()...))
	})
}
