//go:build with_tla

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/models"
)

// --model etcdraft.tla: a campaign validates the library's own trace
// against its maintainers' spec, reports the spec's states as coverage,
// continues where it stopped, replays with the validation, and refuses
// by name what the spec cannot validate.
func TestRunEtcdraftSpec(t *testing.T) {
	if _, err := os.Stat(filepath.Join(models.RaftTLADir(), "Traceetcdraft.tla")); err != nil {
		t.Skipf("etcd raft's tla/ folder is not in the module cache: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "c")
	args := []string{"run", "--model", "etcdraft.tla", "--seed", "3", "--steps", "60", "--actions", "deliver,timeout,request,read,tick", "--json", "--corpus", dir}
	res := modelfuzz(t, append(args, "--iterations", "20")...)
	require.Equal(t, 0, res.code, res.stderr)
	r := lastJSON(t, res.stdout)
	require.EqualValues(t, 20, r.Iterations)
	require.Empty(t, r.Bugs)
	require.Contains(t, res.stdout, `"model_states":`)
	res = modelfuzz(t, append(args, "--iterations", "30")...)
	require.Equal(t, 0, res.code, res.stderr)
	require.EqualValues(t, 30, lastJSON(t, res.stdout).Iterations)

	trace := filepath.Join(t.TempDir(), "t.ndjson")
	rep := modelfuzz(t, "replay", "--corpus", dir, "--spec-trace", trace, "1")
	require.Equal(t, 0, rep.code, rep.stderr)
	require.Contains(t, rep.stdout, "no failure")
	val := modelfuzz(t, "tlc", "validate", trace)
	require.Equal(t, 0, val.code, val.stdout+val.stderr)
	require.Contains(t, val.stdout, "matched")

	tmp := t.TempDir()
	oneLineError(t, modelfuzz(t, "run", "--model", "etcdraft.tla", "--prevote", "--iterations", "1", "--corpus", filepath.Join(tmp, "a")), "etcdraft.tla has no PreVote")
	oneLineError(t, modelfuzz(t, "run", "--model", "etcdraft.tla", "--actions", "deliver,crash,restart", "--iterations", "1", "--corpus", filepath.Join(tmp, "b")), "traces a restarted node's InitState before it loads")
	oneLineError(t, modelfuzz(t, "run", "--model", "etcdraft.tla", "--adapter", "microbench", "--iterations", "1", "--corpus", filepath.Join(tmp, "c")), "validates the traces of adapter etcdraft")
	_, err := os.Stat(filepath.Join(tmp, "a"))
	require.True(t, os.IsNotExist(err), "a refused command line leaves no corpus")

	// Its default corpus is not raft.tla's.
	cmd := exec.Command(binary, "run", "--model", "etcdraft.tla", "--iterations", "2", "--steps", "20")
	cmd.Dir = tmp
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.DirExists(t, filepath.Join(tmp, "modelfuzz-corpus", "etcdraft-spec-model"))
}
