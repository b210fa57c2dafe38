package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The repository's filter tests pass on the unmodified library (each
// asserts its scenario is met and no oracle failed); a test that expects a
// failure the library does not have fails with exit code 3; a malformed
// file is one located error.
func TestFilterTests(t *testing.T) {
	files, err := filepath.Glob("../../tests/etcdraft/*.filter")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 5)
	// Each file with the adapter flags of its "# flags:" line, as
	// scripts/filter-tests.sh runs them.
	var lines []string
	outputs := ""
	for _, f := range files {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		args := []string{"test", "--adapter", "etcdraft", "--json"}
		for _, l := range strings.Split(string(src), "\n") {
			if flags, ok := strings.CutPrefix(l, "# flags: "); ok {
				args = append(args, strings.Fields(flags)...)
			}
		}
		res := modelfuzz(t, append(args, f)...)
		require.Equal(t, 0, res.code, "%s\n%s", res.stdout, res.stderr)
		outputs += res.stdout
		lines = append(lines, strings.TrimSpace(res.stdout))
	}
	for _, l := range lines {
		var r struct {
			Test      string `json:"test"`
			Satisfied int    `json:"satisfied"`
			Failures  int    `json:"failures"`
			Pass      bool   `json:"pass"`
			Fired     []int  `json:"fired"`
		}
		require.NoError(t, json.Unmarshal([]byte(l), &r))
		require.True(t, r.Pass, l)
		require.Greater(t, r.Satisfied, 0, l)
		require.Zero(t, r.Failures, l)
		require.Greater(t, r.Fired[0], 0, "the first filter acted: %s", l)
	}
	// The same seed gives the same results.
	again := modelfuzz(t, "test", "--adapter", "etcdraft", "--json", files[0])
	require.Equal(t, lines[0], strings.TrimSpace(again.stdout))
	require.NotEmpty(t, outputs)

	dir := t.TempDir()
	expectBug := filepath.Join(dir, "bug.filter")
	require.NoError(t, os.WriteFile(expectBug, []byte("test \"a bug the library does not have\"\non send and type == MsgApp do drop\nexpect failure \"two leaders\"\nexecutions 5\n"), 0o644))
	res := modelfuzz(t, "test", "--adapter", "etcdraft", expectBug)
	require.Equal(t, 3, res.code, res.stderr)
	require.Contains(t, res.stdout, "FAIL a bug the library does not have")
	require.Contains(t, res.stdout, `none failed with "two leaders" (expect failure)`)

	// Model predicates are evaluated by our engine on the mapped states.
	withModel := filepath.Join(dir, "model.filter")
	require.NoError(t, os.WriteFile(withModel, []byte(`test "a leader that has committed, in the model"
counter n
states start, seen
accept seen
reject bad
on commit and model "\E i \in Servers : role[i] = \"leader\" /\ commitIndex[i] >= 1" do incr n
scenario start -> seen when commit and count(n) >= 1
executions 20
`), 0o644))
	oneLineError(t, modelfuzz(t, "test", "--adapter", "etcdraft", withModel), "unknown state")
	src, err := os.ReadFile(withModel)
	require.NoError(t, err)
	good := strings.Replace(string(src), "reject bad\n", "", 1)
	require.NoError(t, os.WriteFile(withModel, []byte(good), 0o644))
	oneLineError(t, modelfuzz(t, "test", "--adapter", "etcdraft", withModel), withModel+":5:21: the test has model predicates: run it with --model")
	res = modelfuzz(t, "test", "--adapter", "etcdraft", "--model", "raft.tla", withModel)
	require.Equal(t, 0, res.code, res.stdout+res.stderr)
	require.Contains(t, res.stdout, "PASS a leader that has committed, in the model")
	require.NoError(t, os.WriteFile(withModel, []byte(strings.Replace(good, "commitIndex[i]", "commitIdx[i]", 1)), 0o644))
	oneLineError(t, modelfuzz(t, "test", "--adapter", "etcdraft", "--model", "raft.tla", withModel), withModel+`:5:21: model predicate: unknown operator "commitIdx"`)

	bad := filepath.Join(dir, "bad.filter")
	require.NoError(t, os.WriteFile(bad, []byte("test \"bad\"\non recv and type == MsgApp do drop\n"), 0o644))
	oneLineError(t, modelfuzz(t, "test", "--adapter", "etcdraft", bad),
		bad+":2:31: drop acts on a message: the condition must require a send event")
	oneLineError(t, modelfuzz(t, "test", "--adapter", "microbench", filepath.Join("../../tests/etcdraft", "drop-votes.filter")),
		"drop-votes.filter:7:75: drop: system microbench does not support drop")
}
