//go:build !race

package check

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelfuzz/modelfuzz/tlc/eval"
	"github.com/modelfuzz/modelfuzz/tlc/stdlib"
)

// BenchmarkValidateEtcdRaftTrace validates prefixes of etcd raft's own
// example trace (tla/example.ndjson) against its unmodified
// Traceetcdraft.tla and .cfg, read from the module cache, invariants
// included: what `modelfuzz tlc validate` does. It reports events
// validated per second. Run with -benchtime 1x (the full trace takes
// seconds); scripts/validate-bench.sh times the same from the command line.
func BenchmarkValidateEtcdRaftTrace(b *testing.B) {
	tla := raftTLADirB(b)
	lines := exampleTrace(b, tla)
	for _, n := range []int{1000, 2000, 3000, len(lines)} {
		name := fmt.Sprint(n)
		if n == len(lines) {
			name = "full"
		}
		b.Run(name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "trace.ndjson")
			if err := os.WriteFile(path, []byte(strings.Join(lines[:n], "\n")+"\n"), 0o600); err != nil {
				b.Fatal(err)
			}
			env := stdlib.ProcessEnv()
			env["JSON"] = path
			for i := 0; i < b.N; i++ {
				m, err := eval.LoadWith(filepath.Join(tla, "Traceetcdraft.tla"), filepath.Join(tla, "Traceetcdraft.cfg"), eval.LoadOptions{Env: env})
				if err != nil {
					b.Fatal(err)
				}
				m.Out = io.Discard
				tr, err := ValidateTrace(m, DefaultTraceSpec, Options{Workers: 1})
				if err != nil {
					b.Fatal(err)
				}
				if !tr.Matched {
					b.Fatalf("not matched: %d of %d events (%s)", tr.Consumed, len(tr.Log), tr.Check.Error)
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// raftTLADirB is the tla/ folder of go.etcd.io/raft/v3 in the module cache;
// the benchmark is skipped without it.
func raftTLADirB(b *testing.B) string {
	b.Helper()
	dir, err := raftTLADirOf()
	if err != nil {
		b.Skipf("etcd raft's tla/ folder is not in the module cache (%v); run go mod download go.etcd.io/raft/v3", err)
	}
	return dir
}

// exampleTrace is the event lines of tla/example.ndjson.
func exampleTrace(b *testing.B, tla string) []string {
	b.Helper()
	f, err := os.Open(filepath.Join(tla, "example.ndjson"))
	if err != nil {
		b.Skipf("no example trace: %v", err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<24)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) != "" {
			lines = append(lines, sc.Text())
		}
	}
	if err := sc.Err(); err != nil {
		b.Fatal(err)
	}
	return lines
}
