package models

import (
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/modelfuzz/modelfuzz/tlc"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// The evaluator on raft.tla's hottest expressions: its invariants, its
// VIEW and its actions, in states a long random walk reaches (logs of a
// few dozen entries, as fuzzing executions reach), compiled and
// interpreted.
//
//	go test -run '^$' -bench 'Raft(Invariant|View|Next)' ./models/

// raftWalk loads raft.tla with raft.cfg and walks its next-state relation
// at random (a fixed seed) for steps steps, returning the states visited.
func raftWalk(b *testing.B, interpret bool, steps int) (*tlc.Model, [][]value.Value) {
	b.Helper()
	m, err := Load(Spec{Model: "raft.tla", Consts: []string{"Servers={1,2,3}"}, Interpret: interpret})
	if err != nil {
		b.Fatal(err)
	}
	ev := m.NewEvaluator()
	var cur []value.Value
	if err := ev.Init(func(s []value.Value) error { cur = s; return nil }); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	states := [][]value.Value{cur}
	for i := 0; i < steps; i++ {
		var succ [][]value.Value
		if err := ev.Next(cur, func(t []value.Value) error { succ = append(succ, t); return nil }); err != nil {
			b.Fatal(err)
		}
		if len(succ) == 0 {
			break
		}
		cur = succ[r.IntN(len(succ))]
		states = append(states, cur)
	}
	return m, states
}

func benchEvaluators(b *testing.B, fn func(b *testing.B, interpret bool)) {
	b.Run("compiled", func(b *testing.B) { fn(b, false) })
	b.Run("interpreted", func(b *testing.B) { fn(b, true) })
}

// BenchmarkRaftInvariants evaluates every invariant, whole, in each state
// of the walk (no memo: each state is new to a fresh evaluator).
func BenchmarkRaftInvariants(b *testing.B) {
	benchEvaluators(b, func(b *testing.B, interpret bool) {
		m, states := raftWalk(b, interpret, 400)
		b.ResetTimer()
		for n := 0; n < b.N; n++ {
			ev := m.NewEvaluator()
			for _, s := range states {
				for i := range m.InvariantNames() {
					if _, _, _, err := ev.InvariantReads(i, s); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(states)), "ns/state")
	})
}

// BenchmarkRaftView evaluates the VIEW in each state of the walk.
func BenchmarkRaftView(b *testing.B) {
	benchEvaluators(b, func(b *testing.B, interpret bool) {
		m, states := raftWalk(b, interpret, 400)
		ev := m.NewEvaluator()
		b.ResetTimer()
		start := cpuTime(b)
		for n := 0; n < b.N; n++ {
			for _, s := range states {
				if _, err := ev.ViewOf(s); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(states)), "ns/state")
		b.ReportMetric(float64((cpuTime(b)-start).Nanoseconds())/float64(b.N*len(states)), "cpu-ns/state")
	})
}

// BenchmarkRaftNext computes every successor of each state of the walk.
func BenchmarkRaftNext(b *testing.B) {
	benchEvaluators(b, func(b *testing.B, interpret bool) {
		m, states := raftWalk(b, interpret, 400)
		ev := m.NewEvaluator()
		b.ResetTimer()
		for n := 0; n < b.N; n++ {
			for _, s := range states {
				if err := ev.Next(s, func([]value.Value) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(states)), "ns/state")
	})
}

// BenchmarkRaftInvariantEach evaluates each invariant alone, compiled, in
// each state of the walk: which of them the guided campaign pays for.
func BenchmarkRaftInvariantEach(b *testing.B) {
	m, states := raftWalk(b, false, 400)
	for i, name := range m.InvariantNames() {
		b.Run(name, func(b *testing.B) {
			start := cpuTime(b)
			for n := 0; n < b.N; n++ {
				ev := m.NewEvaluator()
				for _, s := range states {
					if _, _, _, err := ev.InvariantReads(i, s); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(states)), "ns/state")
			b.ReportMetric(float64((cpuTime(b)-start).Nanoseconds())/float64(b.N*len(states)), "cpu-ns/state")
		})
	}
}

// cpuTime is the CPU time the process has used, user and system: on a
// shared machine a figure per CPU-second, not per wall-second.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
