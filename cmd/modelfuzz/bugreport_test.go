package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// --version names the version, the commit (or, when none was recorded,
// a hash of the binary) and the Go version.
func TestVersion(t *testing.T) {
	res := modelfuzz(t, "--version")
	require.Equal(t, 0, res.code, res.stderr)
	require.True(t, strings.HasPrefix(res.stdout, "modelfuzz "), res.stdout)
	require.Contains(t, res.stdout, runtime.Version())
	// A build without a commit (go run, go test) names itself by a hash of
	// its file.
	require.True(t, strings.Contains(res.stdout, " commit ") || strings.Contains(res.stdout, " binary sha256 "), res.stdout)
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

	// The exported input names its system: replayed without adapter flags
	// it runs on the campaign's (the seeded bug), not on the default.
	rep = modelfuzz(t, "replay", filepath.Join(out, "input.json"))
	require.Equal(t, exitFailed, rep.code, rep.stderr)
	require.Contains(t, rep.stdout, "FAILURE at step")

	// corpus export takes its directory as an argument too, and its files
	// replay on the campaign's system as well.
	all := filepath.Join(t.TempDir(), "all")
	res = modelfuzz(t, "corpus", "export", "--corpus", dir, all)
	require.Equal(t, 0, res.code, res.stderr)
	rep = modelfuzz(t, "replay", filepath.Join(all, "bugs", id+".json"))
	require.Equal(t, exitFailed, rep.code, rep.stderr)
	require.Contains(t, rep.stdout, "FAILURE at step")
	oneLineError(t, modelfuzz(t, "corpus", "export", "--corpus", dir), "corpus export needs the directory to write into")

	// minimize writes with --out, as the other commands (-o still works).
	min := filepath.Join(t.TempDir(), "min.json")
	res = modelfuzz(t, "minimize", "--corpus", dir, id, "--out", min, "--tries", "10")
	require.Equal(t, 0, res.code, res.stderr)
	rep = modelfuzz(t, "replay", min)
	require.Equal(t, exitFailed, rep.code, rep.stderr)
	require.Contains(t, rep.stdout, "FAILURE at step")

	oneLineError(t, modelfuzz(t, "bugs", "export", "--corpus", dir, id), "--go-test DIR or --out DIR")
	oneLineError(t, modelfuzz(t, "bugs", "export", "--corpus", dir, id, "--go-test", filepath.Join(t.TempDir(), "g")),
		"only the etcdraft adapter's bugs become Go tests")
}

// A bug only the model sees (a divergence) replays as that bug from its
// exported files alone: input.json names the model it was checked against.
func TestExportedDivergenceReplaysWithoutItsCorpus(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	res := modelfuzz(t, "run", "--model", "raft.tla", "--inject", "send-before-persist", "--iterations", "300",
		"--seed", "1", "--minimize=false", "--json", "--corpus", dir)
	require.Equal(t, 0, res.code, res.stderr)
	var div *struct{ ID, Signature string }
	for _, b := range lastJSON(t, res.stdout).Bugs {
		if strings.HasPrefix(b.Signature, "divergence: ") {
			div = &struct{ ID, Signature string }{b.ID, b.Signature}
			break
		}
	}
	require.NotNil(t, div, "no divergence in 300 iterations of the seeded bug: %s", res.stdout)

	out := filepath.Join(t.TempDir(), "out")
	exp := modelfuzz(t, "bugs", "export", "--corpus", dir, div.ID, "--out", out)
	require.Equal(t, 0, exp.code, exp.stderr)
	readme, err := os.ReadFile(filepath.Join(out, "README.md"))
	require.NoError(t, err)
	require.Contains(t, string(readme), "the model it was checked against")
	for _, file := range []string{filepath.Join(out, "input.json"), ""} {
		if file == "" {
			all := filepath.Join(t.TempDir(), "all")
			require.Equal(t, 0, modelfuzz(t, "corpus", "export", "--corpus", dir, all).code)
			file = filepath.Join(all, "bugs", div.ID+".json")
		}
		rep := modelfuzz(t, "replay", file)
		require.Equal(t, exitFailed, rep.code, "%s: %s", file, rep.stderr)
		require.Contains(t, rep.stdout, "signature: "+div.Signature, file)
	}
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

// The messages and help texts a new user trips over.
func TestMessagesANewUserReads(t *testing.T) {
	tmp := t.TempDir()
	// What a command wants, not cobra's "accepts 1 arg(s), received 0".
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bugs", "show", "--corpus", tmp}, "bugs show needs BUG_ID (usage: modelfuzz bugs show --corpus DIR BUG_ID)"},
		{[]string{"replay"}, "replay needs (INPUT.json | INPUT_ID | BUG_ID)"},
		{[]string{"run", "foo"}, `run takes no arguments, got "foo"`},
		{[]string{"minimize", "--corpus", tmp}, "minimize needs BUG_ID"},
		{[]string{"test"}, "test needs FILE.filter... (usage: modelfuzz test FILE.filter...)"},
		{[]string{"corpus", "repair", "a", "b"}, `corpus repair takes DIR, not "a b"`},
		{[]string{"corpus", "export", "--corpus", tmp, "a", "b"}, `corpus export takes (--out DIR | DIR), not "a b"`},
	} {
		res := modelfuzz(t, tc.args...)
		oneLineError(t, res, tc.want)
		require.NotContains(t, res.stderr, "arg(s)")
	}

	// replay exits as a test does (3: the execution failed), and says so.
	help := modelfuzz(t, "replay", "--help")
	require.Contains(t, help.stdout, "Exit status, as a test's: 0 when the execution shows no failure, 3 when it\nfails")
	require.Contains(t, modelfuzz(t, "minimize", "--help").stdout, "Exit status: 0 when it stored a minimized input")

	// The model is named once.
	res := modelfuzz(t, "run", "--model", "nope.tla", "--corpus", filepath.Join(tmp, "c"), "--iterations", "1")
	oneLineError(t, res, "model nope.tla: no such file")
	require.Equal(t, 1, strings.Count(res.stderr, "nope.tla"), res.stderr)

	// JSON errors in JSON's words, with the position in the file.
	bad := filepath.Join(tmp, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"version":1,"steps":[{"process":"a","action":"timeout"}]}`), 0o644))
	res = modelfuzz(t, "replay", bad)
	oneLineError(t, res, `bad.json:1:24: "process" is a string, want an integer`)
	require.NotContains(t, res.stderr, "Go ")

	// A campaign too short for a plot gets none, and says why.
	short := filepath.Join(tmp, "short")
	res = modelfuzz(t, "run", "--adapter", "microbench", "--iterations", "20", "--stats-every", "1h", "--corpus", short)
	require.Equal(t, 0, res.code, res.stderr)
	page := filepath.Join(tmp, "short.html")
	res = modelfuzz(t, "report", "--corpus", short, "--out", page)
	require.Equal(t, 0, res.code, res.stderr)
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	require.Contains(t, string(html), "a plot needs two")
	require.NotContains(t, string(html), "data:image/png")

	// The help names every strategy, and the default adapter as it is.
	res = modelfuzz(t, "run", "--help")
	require.Equal(t, 0, res.code)
	for _, line := range strings.Split(res.stdout, "\n") {
		if strings.Contains(line, "--strategy string") {
			require.Contains(t, line, "model, line, trace, random")
		}
		if strings.Contains(line, "--adapter string") {
			require.Contains(t, line, "etcdraft for raft.tla")
			require.NotContains(t, line, `(default "microbench")`)
		}
	}
}
