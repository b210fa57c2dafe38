package redisraft

import (
	"os"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/schedule"
)

var (
	binOnce           sync.Once
	binServer, binMod string
	binErr            error
)

// binaries returns the built redis-server and redisraft.so, building them
// (once, cached) from ../shared/systems/redisraft; the test is skipped when
// the sources are not there.
func binaries(t *testing.T) (string, string) {
	t.Helper()
	binOnce.Do(func() {
		dir, err := FindSources()
		if err != nil {
			binErr = err
			return
		}
		binServer, binMod, binErr = Build(dir, os.Stderr)
	})
	if binErr != nil {
		t.Skipf("RedisRaft is not available: %v", binErr)
	}
	return binServer, binMod
}

// testFactory makes a factory of the default cluster with the built
// binaries and a state directory of the test's own.
func testFactory(t *testing.T, change func(*Config)) *Factory {
	t.Helper()
	rs, mod := binaries(t)
	cfg := DefaultConfig()
	cfg.RedisServer, cfg.Module = rs, mod
	if change != nil {
		change(&cfg)
	}
	log := hclog.NewNullLogger()
	if os.Getenv("MODELFUZZ_TEST_LOG") != "" {
		log = hclog.New(&hclog.LoggerOptions{Level: hclog.Debug})
	}
	fac, err := NewFactory(cfg, Options{StateDir: t.TempDir(), Logger: log})
	require.NoError(t, err)
	t.Cleanup(func() { _ = fac.Close() })
	return fac
}

func steps(ss ...schedule.Step) *schedule.Input { return &schedule.Input{Steps: ss} }

func deliver(p, n int) schedule.Step {
	return schedule.Step{Process: p, Action: schedule.Deliver, Messages: n}
}
func timeout(p int) schedule.Step { return schedule.Step{Process: p, Action: schedule.Timeout} }
func crash(p int) schedule.Step   { return schedule.Step{Process: p, Action: schedule.Crash} }
func restart(p int) schedule.Step { return schedule.Step{Process: p, Action: schedule.Restart} }
func request(p, v int) schedule.Step {
	return schedule.Step{Process: p, Action: schedule.Request, Value: v}
}
func drop(p, k int) schedule.Step { return schedule.Step{Process: p, Action: schedule.Drop, K: k} }
