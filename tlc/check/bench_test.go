//go:build !race

package check

import (
	"path/filepath"
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
