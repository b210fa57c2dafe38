package check

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/tlc/eval"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// etcd raft's own specs are read from the module cache (tla/ of
// go.etcd.io/raft/v3), never copied into this repository.
func raftTLADir(t *testing.T) string {
	t.Helper()
	dir, err := raftTLADirOf()
	if err != nil {
		t.Skipf("etcd raft's tla/ folder is not in the module cache (%v); run go mod download go.etcd.io/raft/v3", err)
	}
	return dir
}

// raftTLADirOf finds the tla/ folder of go.etcd.io/raft/v3 with go list.
func raftTLADirOf() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "go.etcd.io/raft/v3").Output()
	if err != nil {
		return "", fmt.Errorf("go list -m: %v", err)
	}
	if strings.TrimSpace(string(out)) == "" {
		return "", fmt.Errorf("go list -m: no directory")
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "tla")
	if _, err := os.Stat(filepath.Join(dir, "MCetcdraft.tla")); err != nil {
		return "", err
	}
	return dir, nil
}

// mcBounds reduce MCetcdraft.cfg's CONSTANTS so that SYMMETRY has
// something to do: one initial server and two that are not in the cluster
// yet, interchangeable until the single reconfiguration adds one of them;
// terms up to 2 (one election); no client requests. With every server
// initial, as in the module's cfg, the bootstrap log orders the servers and
// SYMMETRY identifies no two states.
var mcBounds = [][2]string{
	{"InitServer  = {s1, s2, s3}", "InitServer  = {s1}"},
	{"Server      = {s1, s2, s3, s4}", "Server      = {s1, s2, s3}"},
	{"ReconfigurationLimit    = 2", "ReconfigurationLimit    = 1"},
	{"MaxTermLimit            = 10", "MaxTermLimit            = 2"},
	{"RequestLimit            = 5", "RequestLimit            = 0"},
}

// reducedMCConfig writes the module's MCetcdraft.cfg with mcBounds, with
// or without its SYMMETRY, to a temporary file: the spec is loaded from
// the module directory, only the cfg is generated. Everything else of the
// cfg (VIEW, invariants, overrides) is kept.
func reducedMCConfig(t *testing.T, tla string, symmetry bool) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(tla, "MCetcdraft.cfg"))
	require.NoError(t, err)
	s := string(data)
	for _, r := range mcBounds {
		require.Contains(t, s, r[0], "the module's MCetcdraft.cfg changed")
		s = strings.Replace(s, r[0], r[1], 1)
	}
	if !symmetry {
		require.Contains(t, s, "SYMMETRY Symmetry")
		s = strings.Replace(s, "SYMMETRY Symmetry", "", 1)
	}
	path := filepath.Join(t.TempDir(), "MCetcdraft.cfg")
	require.NoError(t, os.WriteFile(path, []byte(s), 0o644))
	return path
}

// checkMC checks MCetcdraft.tla with the reduced cfg and opt.
func checkMC(t *testing.T, tla string, symmetry bool, opt Options) *Result {
	t.Helper()
	m, err := eval.Load(filepath.Join(tla, "MCetcdraft.tla"), reducedMCConfig(t, tla, symmetry))
	require.NoError(t, err)
	require.Equal(t, symmetry, m.Symmetry != nil)
	m.Out = io.Discard
	res := Check(m, opt)
	t.Logf("symmetry %v: %d distinct, %d generated, depth %d, %s", symmetry, res.Distinct, res.Generated, res.Depth, res.Duration)
	require.Empty(t, res.Invariant, "symmetry %v: %s", symmetry, res.Error)
	return res
}

// TestConformanceEtcdRaftMC runs etcd raft's MCetcdraft.tla unmodified
// with mcBounds. Its state space is infinite (TestEtcdRaftMCIsUnbounded;
// about 1.5 million distinct states by depth 18, each level 2.4 times the
// one before), so the search is bounded by depth, which makes the two
// searches comparable: within 13 steps, no
// evaluation error and no invariant violation with and without SYMMETRY,
// and fewer distinct states with it. The counts are those of trying every
// permutation of each state (TLC's way), which the labels of
// value.Symmetry must reproduce.
func TestConformanceEtcdRaftMC(t *testing.T) {
	tla := raftTLADir(t)
	const depth = 13
	want := map[bool][2]int64{true: {13038, 67776}, false: {21356, 109886}}
	for _, sym := range []bool{true, false} {
		res := checkMC(t, tla, sym, Options{Workers: 2, MaxDepth: depth})
		require.Equal(t, fmt.Sprintf("stopped at depth %d (--max-depth)", depth), res.Error, "symmetry %v", sym)
		require.Equal(t, depth, res.Depth)
		require.Equal(t, want[sym], [2]int64{res.Distinct, res.Generated}, "symmetry %v: distinct and generated", sym)
	}
	require.Greater(t, want[false][0], want[true][0])
}

// TestEtcdRaftMCIsUnbounded shows why no bounds of MCetcdraft.cfg's
// CONSTANTS give a complete check with something for SYMMETRY to do: a
// candidate may send RequestVote to a server that has not answered again
// and again (MCSend limits only AppendEntries requests), and each send adds
// one to the message's count in the pendingMessages bag, nothing else
// changing. So once an election is possible (MaxTermLimit >= 2) the state
// space is infinite, under the VIEW too (it keeps every variable); with
// MaxTermLimit <= 1 nothing but the initial state is reachable.
func TestEtcdRaftMCIsUnbounded(t *testing.T) {
	tla := raftTLADir(t)
	m, err := eval.Load(filepath.Join(tla, "MCetcdraft.tla"), reducedMCConfig(t, tla, true))
	require.NoError(t, err)
	m.Out = io.Discard
	pending := slices.Index(m.Vars, "pendingMessages")
	require.GreaterOrEqual(t, pending, 0)
	var mu sync.Mutex
	most := map[int64]bool{}
	visit := func(s []value.Value, _ func() []State) {
		bag, ok := s[pending].(*value.Func)
		if !ok {
			return
		}
		for _, c := range bag.Values() {
			if n, ok := c.(value.Int); ok {
				mu.Lock()
				most[int64(n)] = true
				mu.Unlock()
			}
		}
	}
	// Timeout, then RequestVote to itself three times.
	res := Check(m, Options{Workers: 2, MaxDepth: 5, Visit: visit})
	require.Empty(t, res.Invariant)
	require.True(t, most[3], "no message pending three times within 5 steps")
}
