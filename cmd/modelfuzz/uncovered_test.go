package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// --uncovered needs a coverage build: without one, run says so on one line
// and exits 1 before the campaign starts (no corpus, no report file). With
// one (built as make cover does), the report's figures agree with the
// campaign's and every listed function is one of the library's.
func TestUncoveredReport(t *testing.T) {
	tmp := t.TempDir()
	out, dir := filepath.Join(tmp, "uncovered.txt"), filepath.Join(tmp, "c")
	res := modelfuzz(t, "run", "--adapter", "etcdraft", "--iterations", "10", "--corpus", dir, "--uncovered", out)
	oneLineError(t, res, "--uncovered needs a coverage build of modelfuzz: make cover")
	require.Equal(t, 1, res.code)
	for _, p := range []string{out, dir} {
		_, err := os.Stat(p)
		require.True(t, os.IsNotExist(err), "%s exists after a refusal", p)
	}

	cover := filepath.Join(tmp, "modelfuzz-cover")
	b, err := exec.Command("go", "build", "-cover", "-covermode=atomic",
		"-coverpkg=go.etcd.io/raft/v3/...,github.com/modelfuzz/modelfuzz/cmd/modelfuzz", "-o", cover, ".").CombinedOutput()
	require.NoError(t, err, "%s", b)
	run := func(args ...string) (stdout, stderr string, err error) {
		cmd := exec.Command(cover, args...)
		cmd.Env = append(os.Environ(), "GOCOVERDIR="+t.TempDir())
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err = cmd.Run()
		return o.String(), e.String(), err
	}
	_, stderr, err := run("run", "--adapter", "microbench", "--iterations", "10", "--corpus", filepath.Join(tmp, "mb"), "--uncovered", out)
	require.Error(t, err)
	require.Contains(t, stderr, "--uncovered: adapter microbench has no line coverage")

	stdout, stderr, err := run("run", "--adapter", "etcdraft", "--strategy", "random", "--iterations", "200", "--parallel", "4",
		"--corpus", dir, "--minimize=false", "--json", "--log-level", "error", "--uncovered", out)
	require.NoError(t, err, stderr)
	var sum struct {
		LinesCovered int `json:"lines_covered"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout[strings.LastIndex(strings.TrimSpace(stdout), "\n")+1:]), &sum))
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	report := string(data)
	require.Contains(t, report, "# functions of go.etcd.io/raft/v3/... (")
	require.Contains(t, report, "(200 iterations; campaign total 200)")
	require.Contains(t, report, fmt.Sprintf("\n# lines reached: %d / ", sum.LinesCovered), "the report's lines are the campaign's")
	require.Contains(t, report, "# generated code (go.etcd.io/raft/v3/raftpb/raft.pb.go), counted above, not listed")
	require.Regexp(t, `\n# functions reached: [1-9]\d* / \d+ `, report)
	listed := regexp.MustCompile(`(?m)^go\.etcd\.io/raft/v3/\S+\.go:\d+ \S+ (\(\d+ statements\)|\d+\.\d% \(\d+ / \d+ statements\))$`)
	n := 0
	for _, ln := range strings.Split(strings.TrimSpace(report), "\n") {
		if !strings.HasPrefix(ln, "# ") {
			require.Regexp(t, listed, ln)
			require.NotContains(t, ln, ".pb.go")
			n++
		}
	}
	require.Greater(t, n, 10)
}
