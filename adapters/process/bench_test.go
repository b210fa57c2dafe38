package process

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// maxBenchExecutions bounds b.N: every execution starts and stops real
// processes (make bench asks every adapter for 20000 executions: skipped).
const maxBenchExecutions = 300

// BenchmarkExecute measures executions per second of a 3-process fake
// cluster on random 30-step inputs, for three quiet periods (raftkv.json
// uses 20ms; the fake, synchronous like raftkv, needs none).
func BenchmarkExecute(b *testing.B) {
	for _, quiet := range []string{"20ms", "2ms", "0s"} {
		b.Run("quiet="+quiet, func(b *testing.B) {
			fac, s := newFake(b, fakeCluster(3, func(c map[string]any) { c["quiet"] = quiet }), nil)
			g, err := schedule.NewGenerator(fac.Spec(), schedule.Shape{Steps: 30, MaxMessages: 3, CrashQuota: 2, Requests: 4})
			require.NoError(b, err)
			r := rand.New(rand.NewPCG(1, 2))
			inputs := make([]*schedule.Input, 16)
			for i := range inputs {
				inputs[i] = g.Random(r)
			}
			if b.N > maxBenchExecutions {
				b.Skipf("%d executions of real processes take too long; use -benchtime %dx or less", b.N, maxBenchExecutions)
			}
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				if _, err := s.Execute(inputs[i%len(inputs)]); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "execs/s")
		})
	}
}
