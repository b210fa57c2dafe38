//go:build !race

package check

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/modelfuzz/modelfuzz/tlc/eval"
)

// BenchmarkLargeCases reports distinct states per second on three of the
// larger conformance cases (run with -benchtime 1x: one check takes 10-25 s).
func BenchmarkLargeCases(b *testing.B) {
	cases := map[string]Case{}
	for _, c := range readCases(b) {
		cases[c.Name()] = c
	}
	for _, name := range []string{"MCBakery/MCBakery", "SimpleRegular/SimpleRegular", "Slush/SlushSmall"} {
		c, ok := cases[name]
		if !ok {
			b.Fatalf("case %s not in cases.tsv", name)
		}
		b.Run(name, func(b *testing.B) {
			var distinct int64
			for i := 0; i < b.N; i++ {
				m, err := eval.Load(filepath.Join(examplesDir, c.Module), filepath.Join(examplesDir, c.Cfg))
				if err != nil {
					b.Fatal(err)
				}
				res := Check(m, Options{Workers: 2})
				if res.Distinct != c.Distinct {
					b.Fatalf("distinct %d, TLC %d", res.Distinct, c.Distinct)
				}
				distinct += res.Distinct
			}
			b.ReportMetric(float64(distinct)/b.Elapsed().Seconds(), "states/s")
		})
	}
}

// BenchmarkScale checks testdata/bench/Scale.tla (1,680,448 distinct
// states) and reports distinct states per second and the process's peak
// resident memory (VmHWM, Linux only), the measure of the checker's memory
// per state (run with -benchtime 1x; scripts/scale-bench.sh measures the
// command and TLC the same way).
func BenchmarkScale(b *testing.B) {
	var distinct int64
	for i := 0; i < b.N; i++ {
		m, err := eval.Load(filepath.Join("testdata", "bench", "Scale.tla"), filepath.Join("testdata", "bench", "Scale.cfg"))
		if err != nil {
			b.Fatal(err)
		}
		res := Check(m, Options{Workers: 2, QueueDir: b.TempDir()})
		if res.Result != "success" || res.Distinct != 1680448 || res.Generated != 13444417 || res.Depth != 33 {
			b.Fatalf("%s: distinct %d generated %d depth %d, want 1680448, 13444417, 33 (%s)", res.Result, res.Distinct, res.Generated, res.Depth, res.Error)
		}
		distinct += res.Distinct
	}
	b.ReportMetric(float64(distinct)/b.Elapsed().Seconds(), "states/s")
	if hwm, ok := peakRSS(); ok {
		b.ReportMetric(float64(hwm)/(1<<20), "MB-peak-RSS")
	}
}

// BenchmarkSetHeavyTypeOk checks testdata/bench/SlotRing.tla (74,371
// distinct states, 313,867 generated, depth 193, as TLC) with its
// Disruptor-shaped TypeOk (membership in a record set of UNIONs of function
// sets over Int, SUBSET, and sets built from the state) and without it
// (SlotRingNoType.cfg), by both evaluators, one worker: the cost of the
// invariant is the difference (run with -benchtime 1x; compare CPU time).
func BenchmarkSetHeavyTypeOk(b *testing.B) {
	for _, ev := range []string{"compiled", "interpreted"} {
		for _, cfg := range []string{"SlotRing", "SlotRingNoType"} {
			b.Run(ev+"/"+cfg, func(b *testing.B) {
				var distinct int64
				for i := 0; i < b.N; i++ {
					m, err := eval.LoadWith(filepath.Join("testdata", "bench", "SlotRing.tla"), filepath.Join("testdata", "bench", cfg+".cfg"),
						eval.LoadOptions{Interpret: ev == "interpreted"})
					if err != nil {
						b.Fatal(err)
					}
					res := Check(m, Options{Workers: 1})
					if res.Result != "success" || res.Distinct != 74371 || res.Generated != 313867 || res.Depth != 193 {
						b.Fatalf("%s: distinct %d generated %d depth %d, want 74371, 313867, 193 (%s)", res.Result, res.Distinct, res.Generated, res.Depth, res.Error)
					}
					distinct += res.Distinct
				}
				b.ReportMetric(float64(distinct)/b.Elapsed().Seconds(), "states/s")
			})
		}
	}
}

// peakRSS is the process's peak resident memory in bytes, from
// /proc/self/status.
func peakRSS() (int64, bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmHWM:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}
