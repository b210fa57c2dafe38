package redisraft

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// coverFactory is testFactory with the coverage build of redisraft.so
// (built once, cached, beside the normal one).
func coverFactory(t *testing.T) *Factory {
	t.Helper()
	fac := testFactory(t, nil)
	if err := fac.RecordLines(os.Stderr); err != nil {
		t.Skipf("no coverage build of RedisRaft: %v", err)
	}
	return fac
}

func executeOn(t *testing.T, fac *Factory, in *schedule.Input) *schedule.Execution {
	t.Helper()
	sys, err := fac.NewSystem()
	require.NoError(t, err)
	defer sys.Close()
	ex, err := sys.Execute(in)
	require.NoError(t, err)
	for _, f := range ex.Failures {
		t.Errorf("%s: %s", f.Kind, f.Message)
	}
	return ex
}

// Two different executions run different lines of C: an election and a
// write run the leader's paths, a timeout alone a candidate's and a
// voter's; an idle cluster only starts. (A crash and a restart run the
// start's code again: TestCrashedNodeWritesCounters checks that a crashed
// incarnation's lines are counted.)
func TestLineCoverageOfC(t *testing.T) {
	fac := coverFactory(t)
	idle := executeOn(t, fac, steps(deliver(0, 1)))
	elected := executeOn(t, fac, steps(append(elect(), request(0, 2), deliver(1, 5), deliver(2, 5), deliver(0, 5))...))
	candidate := executeOn(t, fac, steps(timeout(1), deliver(0, 1)))
	set := func(us []uint64) map[uint64]bool {
		m := map[uint64]bool{}
		for _, u := range us {
			m[u] = true
		}
		return m
	}
	a, b, c := set(idle.Units), set(elected.Units), set(candidate.Units)
	require.NotEmpty(t, a, "an execution without steps still starts three nodes")
	only := func(x, y map[uint64]bool) int {
		n := 0
		for u := range x {
			if !y[u] {
				n++
			}
		}
		return n
	}
	t.Logf("lines: idle %d, election and write %d (%d not in idle), timeout %d (%d not in idle)",
		len(a), len(b), only(b, a), len(c), only(c, a))
	require.Positive(t, only(b, a), "an election and a write run lines that an idle cluster does not")
	require.Positive(t, only(c, a), "a candidate and a voter run lines that an idle cluster does not")
	// The same input again gives nearly the same lines (real time leaks
	// in: a reconnection may or may not happen).
	again := set(executeOn(t, fac, steps(append(elect(), request(0, 2), deliver(1, 5), deliver(2, 5), deliver(0, 5))...)).Units)
	require.Less(t, only(again, b)+only(b, again), len(b)/10)
}

// A node killed by a crash step has written its counters first: the flush
// object of the coverage build writes them on SIGUSR2 (without it a
// SIGKILL loses them).
func TestCrashedNodeWritesCounters(t *testing.T) {
	fac := coverFactory(t)
	sys, err := fac.NewSystem()
	require.NoError(t, err)
	defer sys.Close()
	// End is called before any assertion: a System between Begin and End
	// cannot be closed.
	sys.Begin()
	stepped := sys.Step(crash(1))
	var dir string
	var gcdas int
	set := map[uint64]struct{}{}
	var readErr error
	if r := sys.cur.r; r != nil {
		for _, d := range r.gcovDirs {
			if filepath.Base(d) == "n2-1" {
				dir = d
			}
		}
		if dir != "" {
			_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err == nil && strings.HasSuffix(p, ".gcda") {
					gcdas++
				}
				return err
			})
			readErr = readLines(dir, coverRoot(fac.cfg.CoverModule), set)
		}
	}
	ex := sys.End()
	require.NoError(t, sys.Err())
	require.True(t, stepped)
	require.Empty(t, ex.Failures)
	require.NotEmpty(t, dir, "n2's first incarnation has a directory of counters")
	require.Positive(t, gcdas, "the crashed node wrote its counters before the SIGKILL")
	require.NoError(t, readErr)
	require.Greater(t, len(set), 1000, "a node that started and loaded its log ran more than a thousand lines")
}

func TestCoverBuildRefusesForeignModule(t *testing.T) {
	rs, mod := binaries(t)
	cfg := DefaultConfig()
	cfg.RedisServer, cfg.Module = rs, mod+".other"
	require.NoError(t, os.WriteFile(cfg.Module, nil, 0o644))
	defer os.Remove(cfg.Module)
	fac, err := NewFactory(cfg, Options{StateDir: t.TempDir()})
	require.NoError(t, err)
	defer fac.Close()
	err = fac.RecordLines(nil)
	require.ErrorContains(t, err, "not the module given")
}
