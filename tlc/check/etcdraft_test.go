package check

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/tlc/eval"
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

// reducedMCConfig writes the module's MCetcdraft.cfg with the bounds
// reduced (3 servers, all initial; no reconfiguration; terms up to 2; one
// client request), with or without its SYMMETRY, to a temporary file: the
// spec is loaded from the module directory, only the cfg is generated.
func reducedMCConfig(t *testing.T, tla string, symmetry bool) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(tla, "MCetcdraft.cfg"))
	require.NoError(t, err)
	s := string(data)
	for _, r := range [][2]string{
		{"Server      = {s1, s2, s3, s4}", "Server      = {s1, s2, s3}"},
		{"ReconfigurationLimit    = 2", "ReconfigurationLimit    = 0"},
		{"MaxTermLimit            = 10", "MaxTermLimit            = 2"},
		{"RequestLimit            = 5", "RequestLimit            = 1"},
	} {
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

// TestConformanceEtcdRaftMC runs etcd raft's MCetcdraft.tla unmodified
// with bounds reduced in its cfg. Even reduced, its state space does not
// finish in minutes here (see docs/tla-support.md), so the search is
// bounded by a number of distinct states: within it, no evaluation error
// and no invariant violation, with and without SYMMETRY.
func TestConformanceEtcdRaftMC(t *testing.T) {
	tla := raftTLADir(t)
	const budget = 20000
	for _, sym := range []bool{true, false} {
		m, err := eval.Load(filepath.Join(tla, "MCetcdraft.tla"), reducedMCConfig(t, tla, sym))
		require.NoError(t, err)
		require.Equal(t, sym, m.Symmetry != nil)
		m.Out = io.Discard
		res := Check(m, Options{Workers: 2, MaxStates: budget})
		require.Empty(t, res.Invariant, "symmetry %v: %s", sym, res.Error)
		require.Contains(t, res.Error, "stopped after", "symmetry %v: %s", sym, res.Error)
		require.GreaterOrEqual(t, res.Distinct, int64(budget))
		t.Logf("symmetry %v: %d distinct, %d generated, depth %d, %s", sym, res.Distinct, res.Generated, res.Depth, res.Duration)
	}
}
