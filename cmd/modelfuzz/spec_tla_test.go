//go:build with_tla

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/models"
)

// --model etcdraft.tla: a campaign validates the library's own trace
// against its maintainers' spec, reports the spec's states as coverage,
// continues where it stopped, replays with the validation, takes every
// setting of the library, and refuses by name what it cannot run.
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
	every := modelfuzz(t, "run", "--model", "etcdraft.tla", "--prevote", "--checkquorum", "--max-size-per-msg", "1", "--snapshot-every", "2",
		"--actions", "deliver,crash,restart,duplicate,conf-change,timeout,request", "--steps", "40", "--iterations", "3", "--corpus", filepath.Join(tmp, "e"))
	require.Equal(t, 0, every.code, every.stderr)
	oneLineError(t, modelfuzz(t, "run", "--model", "etcdraft.tla", "--adapter", "microbench", "--iterations", "1", "--corpus", filepath.Join(tmp, "c")), "validates the traces of adapter etcdraft")
	bad := filepath.Join(tmp, "bad.known.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"spec":"Traceetcdraft.tla","sha256":"x","disagreements":[{"id":"a"}]}`), 0o644))
	oneLineError(t, modelfuzz(t, "run", "--model", "etcdraft.tla", "--known", bad, "--iterations", "1", "--corpus", filepath.Join(tmp, "a")), `disagreement 1 (a): give a one-line "reason"`)
	_, err := os.Stat(filepath.Join(tmp, "a"))
	require.True(t, os.IsNotExist(err), "a refused command line leaves no corpus")
	other := filepath.Join(tmp, "other.known.json")
	require.NoError(t, os.WriteFile(other, []byte(`{"spec":"Traceetcdraft.tla","sha256":"x","about":"another version","disagreements":[]}`), 0o644))
	res = modelfuzz(t, "run", "--model", "etcdraft.tla", "--known", other, "--steps", "10", "--iterations", "1", "--corpus", filepath.Join(tmp, "o"))
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stderr, "other.known.json is for Traceetcdraft.tla with sha256 x (another version)")
	known := modelfuzz(t, "model", "known", "--model", "etcdraft.tla")
	require.Equal(t, 0, known.code, known.stderr)
	require.Regexp(t, `sha256 [0-9a-f]{64}\n`, known.stdout)
	require.Contains(t, known.stdout, "vote-refused-under-known-leader")

	// Its default corpus is not raft.tla's.
	cmd := exec.Command(binary, "run", "--model", "etcdraft.tla", "--iterations", "2", "--steps", "20")
	cmd.Dir = tmp
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.DirExists(t, filepath.Join(tmp, "modelfuzz-corpus", "etcdraft-spec-model"))
}

// A spec divergence leaves the tool as the library's own trace, in the
// format upstream's tla/validate.sh reads, with the command lines that
// check it: the exported file parses line by line, holds the events the
// campaign's validation consumed (the replay's --spec-trace, and the
// event the bug names), and modelfuzz's engine stops at that event.
func TestSpecDivergenceExportsTheLibraryTrace(t *testing.T) {
	if _, err := os.Stat(filepath.Join(models.RaftTLADir(), "Traceetcdraft.tla")); err != nil {
		t.Skipf("etcd raft's tla/ folder is not in the module cache: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "c")
	args := []string{"run", "--model", "etcdraft.tla", "--api", "rawnode", "--async-storage-writes", "off", "--seed", "1",
		"--minimize=false", "--json", "--corpus", dir}
	res := modelfuzz(t, append(args, "--iterations", "1")...)
	require.Equal(t, 0, res.code, res.stderr)
	// The known vote gap between the library and its spec (docs/etcdraft.md).
	res = modelfuzz(t, "corpus", "import", "--corpus", dir, "../../guidance/testdata/etcdraft-vote-gap.json")
	require.Equal(t, 0, res.code, res.stderr)
	res = modelfuzz(t, append(args, "--iterations", "2")...)
	require.Equal(t, 0, res.code, res.stderr)
	r := lastJSON(t, res.stdout)
	require.Empty(t, r.Bugs, "a known disagreement is not a bug")
	require.Len(t, r.Known, 1)
	require.Equal(t, "K1", r.Known[0].ID)
	require.Equal(t, "vote-refused-under-known-leader", r.Known[0].Known)
	require.Equal(t, "spec-divergence", r.Known[0].Kind)
	list := modelfuzz(t, "bugs", "--corpus", dir)
	require.Equal(t, 0, list.code, list.stderr)
	require.Contains(t, list.stdout, "no bugs in "+dir+"\n")
	require.Contains(t, list.stdout, "known disagreements of the model with the system")
	require.Regexp(t, `K1\s+spec-divergence\s+1\s+2\s+2\s+vote-refused-under-known-leader\s+a follower that knows`, list.stdout)

	out := filepath.Join(t.TempDir(), "out")
	res = modelfuzz(t, "bugs", "export", "--corpus", dir, "K1", "--out", out)
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, "wrote the library's trace (")
	data, err := os.ReadFile(filepath.Join(out, "trace.ndjson"))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	for i, line := range lines {
		var l struct {
			Tag   string         `json:"tag"`
			Event map[string]any `json:"event"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &l), "line %d", i+1)
		require.Equal(t, "trace", l.Tag, "line %d", i+1)
		require.NotEmpty(t, l.Event["name"], "line %d", i+1)
	}
	consumed := filepath.Join(t.TempDir(), "consumed.ndjson")
	rep := modelfuzz(t, "replay", "--corpus", dir, "--spec-trace", consumed, "K1")
	require.Equal(t, exitFailed, rep.code, rep.stderr)
	want, err := os.ReadFile(consumed)
	require.NoError(t, err)
	require.Equal(t, string(want), string(data))

	show := modelfuzz(t, "bugs", "show", "--corpus", dir, "K1")
	require.Equal(t, 0, show.code, show.stderr)
	m := regexp.MustCompile(`does not allow event (\d+) of (\d+)`).FindStringSubmatch(show.stdout)
	require.NotNil(t, m, show.stdout)
	require.Equal(t, m[2], strconv.Itoa(len(lines)), "the file holds every event of the trace")
	val := modelfuzz(t, "tlc", "validate", filepath.Join(out, "trace.ndjson"))
	require.NotEqual(t, 0, val.code)
	require.Contains(t, val.stdout, "event not matched (event "+m[1]+", line "+m[1]+")")

	readme, err := os.ReadFile(filepath.Join(out, "README.md"))
	require.NoError(t, err)
	abs, err := filepath.Abs(filepath.Join(out, "trace.ndjson"))
	require.NoError(t, err)
	require.Contains(t, string(readme), "bash validate.sh -s ./Traceetcdraft.tla -c ./Traceetcdraft.cfg "+abs)
	require.Contains(t, string(readme), `cd "$D" && JSON=`+abs+` java`)
	require.Contains(t, string(readme), "tlc2.TLC -config ./Traceetcdraft.cfg ./Traceetcdraft.tla")

	// No Go test fails on what only the spec sees; it says where to look.
	oneLineError(t, modelfuzz(t, "bugs", "export", "--corpus", dir, "K1", "--go-test", t.TempDir()), "--out DIR writes the library's trace, trace.ndjson")
}
