package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// raftkvCluster builds raftkv next to a copy of the raftkv cluster file
// and returns the file.
func raftkvCluster(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("go", "build", "-o", filepath.Join(dir, "raftkv"), "../raftkv").CombinedOutput()
	require.NoError(t, err, "%s", out)
	data, err := os.ReadFile("../../adapters/process/raftkv.json")
	require.NoError(t, err)
	path := filepath.Join(dir, "raftkv.json")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path
}

func raftkvLeft(t *testing.T, cluster string) int {
	out, _ := exec.Command("pgrep", "-f", filepath.Dir(cluster)+"/raftkv").Output()
	return len(strings.Fields(string(out)))
}

// Real raftkv processes under the model: a short campaign maps onto
// raft.tla without divergence or bug, and leaves no process behind; the
// stored reproducers of the two seeded bugs replay to their signatures.
func TestProcessAdapterOnRaftkv(t *testing.T) {
	cluster := raftkvCluster(t)
	res := modelfuzz(t, "run", "--adapter", "process", "--cluster", cluster, "--model", "raft.tla", "--iterations", "30",
		"--json", "--corpus", filepath.Join(t.TempDir(), "c"))
	require.Equal(t, 0, res.code, res.stderr)
	r := lastModelJSON(t, res.stdout)
	require.Greater(t, *r.ModelStates, 10)
	require.Zero(t, *r.Divergences)
	require.Empty(t, lastJSON(t, res.stdout).Bugs)
	require.Zero(t, raftkvLeft(t, cluster), "no raftkv process left after the campaign")

	// Under load (two busy processes): steps end on the replicas'
	// acknowledgements, so the traces stay the same.
	stop := burnCPU(t, 2)
	res = modelfuzz(t, "replay", "--adapter", "process", "--cluster", cluster, "--inject", "stale-read",
		"../../adapters/process/testdata/stale-read.input.json", "--repeat", "10")
	stop()
	require.Equal(t, exitFailed, res.code, "the bug replays: the replay fails, as a test would: %s", res.stderr)
	require.Contains(t, res.stdout, "10 times: 10/10 gave the same trace")
	require.Contains(t, res.stdout, "run 1 of 10, the first that failed:\nFAILURE at step", "a repeat shows what the failing run showed")
	require.Contains(t, res.stdout, "signature: linearizability: kv\n")
	res = modelfuzz(t, "replay", "--adapter", "process", "--cluster", cluster, "--inject", "stale-read",
		"../../adapters/process/testdata/stale-read.input.json")
	require.Equal(t, exitFailed, res.code, res.stderr)
	require.Contains(t, res.stdout, "signature: linearizability: kv\n")
	res = modelfuzz(t, "replay", "--adapter", "process", "--cluster", cluster,
		"../../adapters/process/testdata/stale-read.input.json")
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, "no failure", "the correct build reads linearizably")
	res = modelfuzz(t, "replay", "--adapter", "process", "--cluster", cluster, "--inject", "send-before-persist",
		"../../adapters/process/testdata/send-before-persist.input.json")
	require.Equal(t, exitFailed, res.code, res.stderr)
	require.Contains(t, res.stdout, "tocommit(N) is out of range")
	require.Zero(t, raftkvLeft(t, cluster), "no raftkv process left after the replays")
	oneLineError(t, modelfuzz(t, "run", "--adapter", "process", "--iterations", "1", "--corpus", filepath.Join(t.TempDir(), "d")), "needs --cluster FILE")
}

// burnCPU starts n processes that spin until stop (or the end of the test).
func burnCPU(t *testing.T, n int) (stop func()) {
	var cmds []*exec.Cmd
	for range n {
		c := exec.Command("sh", "-c", "while :; do :; done")
		require.NoError(t, c.Start())
		cmds = append(cmds, c)
	}
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		for _, c := range cmds {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
	}
	t.Cleanup(stop)
	return stop
}
