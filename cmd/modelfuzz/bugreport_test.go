package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// --version names the version, the commit (or says none was recorded)
// and the Go version.
func TestVersion(t *testing.T) {
	res := modelfuzz(t, "--version")
	require.Equal(t, 0, res.code, res.stderr)
	require.True(t, strings.HasPrefix(res.stdout, "modelfuzz "), res.stdout)
	require.Contains(t, res.stdout, runtime.Version())
	require.True(t, strings.Contains(res.stdout, " commit ") || strings.Contains(res.stdout, "no VCS commit recorded"), res.stdout)
}

// bugs show starts with the report header; bugs export writes the input
// and the header, and refuses a Go test for a system that is not etcd raft
// in one line.
func TestBugReportHeaderAndExport(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	res := modelfuzz(t, "run", "--adapter", "microbench", "--inject", "flush-before-last", "--workers", "3", "--tasks", "5",
		"--strategy", "trace", "--iterations", "3000", "--seed", "1", "--json", "--corpus", dir)
	require.Equal(t, 0, res.code, res.stderr)
	r := lastJSON(t, res.stdout)
	require.NotEmpty(t, r.Bugs)
	id := r.Bugs[0].ID

	show := modelfuzz(t, "bugs", "show", "--corpus", dir, id)
	require.Equal(t, 0, show.code, show.stderr)
	for _, key := range []string{"bug:", "found by:", "replayed by:", "system:", "settings:", "adapter configuration:", "input:", "replay:"} {
		require.Contains(t, "\n"+show.stdout, "\n"+key, "bugs show's header has %s", key)
	}
	require.Contains(t, show.stdout, "--seed 1")
	require.Contains(t, show.stdout, "modelfuzz replay --corpus "+dir+" "+id)
	require.Contains(t, show.stdout, runtime.Version())

	page := filepath.Join(t.TempDir(), "r.html")
	rep := modelfuzz(t, "report", "--corpus", dir, "--out", page)
	require.Equal(t, 0, rep.code, rep.stderr)
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	for _, key := range []string{"found by", "replayed by", "system", "adapter configuration", "replay"} {
		require.Contains(t, string(html), "<th>"+key+"</th>", "the HTML report's bug section has %s", key)
	}

	out := filepath.Join(t.TempDir(), "out")
	exp := modelfuzz(t, "bugs", "export", "--corpus", dir, id, "--out", out)
	require.Equal(t, 0, exp.code, exp.stderr)
	readme, err := os.ReadFile(filepath.Join(out, "README.md"))
	require.NoError(t, err)
	require.Contains(t, string(readme), "replay:")
	require.Contains(t, string(readme), r.Bugs[0].Signature)
	_, err = os.Stat(filepath.Join(out, "input.json"))
	require.NoError(t, err)

	oneLineError(t, modelfuzz(t, "bugs", "export", "--corpus", dir, id), "--go-test DIR or --out DIR")
	oneLineError(t, modelfuzz(t, "bugs", "export", "--corpus", dir, id, "--go-test", filepath.Join(t.TempDir(), "g")),
		"only the etcdraft adapter's bugs become Go tests")
}

// An input file that shows a bug of the etcd raft adapter becomes a Go
// test (that it reproduces the bug in an empty module is repro's test).
func TestBugsExportGoTestFromFile(t *testing.T) {
	in := filepath.Join("..", "..", "adapters", "etcdraft", "testdata", "crashpoint-send-then-persist.json")
	dir := filepath.Join(t.TempDir(), "g")
	res := modelfuzz(t, "bugs", "export", "--adapter", "etcdraft", "--inject", "send-then-persist", in, "--go-test", dir)
	require.Equal(t, 0, res.code, res.stderr)
	src, err := os.ReadFile(filepath.Join(dir, "reproducer_test.go"))
	require.NoError(t, err)
	require.Contains(t, string(src), "replay: modelfuzz replay --adapter etcdraft --inject send-then-persist "+in)
	require.Contains(t, string(src), "const bugSignature = \"panic: tocommit(N) is out of range")
	_, err = os.Stat(filepath.Join(dir, "harness_test.go"))
	require.NoError(t, err)

	// A schedule that shows no failure is not a bug.
	oneLineError(t, modelfuzz(t, "bugs", "export", "--adapter", "etcdraft", in, "--go-test", dir), "shows no failure on this system")
}
