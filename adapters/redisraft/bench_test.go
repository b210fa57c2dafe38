package redisraft

import (
	"testing"
	"time"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// BenchmarkExecute runs a 26-step input on a three-node cluster: two
// elections, two client requests, a crash and a restart (each execution
// restarts the cluster from its template). Compare executions per second
// with /usr/bin/time's CPU-seconds, the load noted.
func BenchmarkExecute(b *testing.B) { benchExecute(b, false, false) }

// BenchmarkExecuteLines is BenchmarkExecute on the coverage build of
// redisraft.so, its lines read after every execution (--strategy line).
func BenchmarkExecuteLines(b *testing.B) { benchExecute(b, true, false) }

// BenchmarkExecuteForm forms the cluster inside every execution
// (--redisraft-start form: INIT, the joins' messages delivered round by
// round, n1's heartbeats at tick steps), then runs a write, an election, a
// crash and a restart: 60 steps.
func BenchmarkExecuteForm(b *testing.B) { benchExecute(b, false, true) }

func benchExecute(b *testing.B, lines, form bool) {
	rs, mod := benchBinaries(b)
	cfg := DefaultConfig()
	cfg.RedisServer, cfg.Module = rs, mod
	if form {
		cfg.Start = StartForm
	}
	fac, err := NewFactory(cfg, Options{StateDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer fac.Close()
	if lines {
		if err := fac.RecordLines(nil); err != nil {
			b.Skipf("no coverage build of RedisRaft: %v", err)
		}
	}
	sys, err := fac.NewSystem()
	if err != nil {
		b.Fatal(err)
	}
	ss := append(elect(), request(0, 2), deliver(1, 5), deliver(2, 5), deliver(0, 5),
		crash(2), request(0, 8), deliver(1, 5), deliver(0, 5), restart(2), schedule.Step{Process: 0, Action: schedule.Tick, N: 1},
		deliver(2, 5), deliver(0, 5), timeout(1), deliver(0, 5), deliver(2, 5), deliver(1, 5), deliver(0, 5), deliver(2, 5), deliver(1, 5))
	if form {
		ss = formSteps()
	}
	in := steps(ss...)
	if _, err := sys.Execute(in); err != nil { // the template
		b.Fatal(err)
	}
	// The execution's phases are timed apart: the cluster's start from
	// the template (Begin), the steps, the teardown and oracles (End).
	var begin, step, end time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		sys.Begin()
		t1 := time.Now()
		for _, st := range in.Steps {
			if !sys.Step(st) {
				break
			}
		}
		t2 := time.Now()
		ex := sys.End()
		begin, step, end = begin+t1.Sub(t0), step+t2.Sub(t1), end+time.Since(t2)
		if err := sys.Err(); err != nil {
			b.Fatal(err)
		}
		if len(ex.Failures) > 0 {
			b.Fatalf("%s: %s", ex.Failures[0].Kind, ex.Failures[0].Message)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "execs/s")
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
	b.ReportMetric(per(begin), "ms-begin/op")
	b.ReportMetric(per(step), "ms-steps/op")
	b.ReportMetric(per(end), "ms-end/op")
}

func benchBinaries(b *testing.B) (string, string) {
	binOnce.Do(func() {
		dir, err := FindSources()
		if err != nil {
			binErr = err
			return
		}
		binServer, binMod, binErr = Build(dir, nil)
	})
	if binErr != nil {
		b.Skipf("RedisRaft is not available: %v", binErr)
	}
	return binServer, binMod
}

// formSteps forms the cluster (eight rounds of a heartbeat at n1 and a
// delivery at every node), then a SET at n1, n2 elected in the next term,
// n3 killed, an INCR at n2, n3 restarted and caught up.
func formSteps() []schedule.Step {
	tick := func(p int) schedule.Step { return schedule.Step{Process: p, Action: schedule.Tick, N: 1} }
	var ss []schedule.Step
	for round := 0; round < 8; round++ {
		ss = append(ss, tick(0), deliver(0, 5), deliver(1, 5), deliver(2, 5))
	}
	ss = append(ss, request(0, 2), deliver(1, 5), deliver(2, 5), deliver(0, 5), tick(0), deliver(1, 5), deliver(2, 5), deliver(0, 5))
	ss = append(ss, timeout(1), deliver(0, 5), deliver(2, 5), deliver(1, 5), deliver(0, 5), deliver(2, 5), deliver(1, 5))
	return append(ss, crash(2), request(1, 8), deliver(0, 5), deliver(1, 5), restart(2), tick(1),
		deliver(0, 5), deliver(2, 5), deliver(1, 5), deliver(2, 5), deliver(1, 5), deliver(0, 5))
}
