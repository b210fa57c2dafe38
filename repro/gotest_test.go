package repro

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/adapters/etcdraft"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// goModule makes an empty module in a temporary directory with only
// go.etcd.io/raft/v3 v3.7.0 added, from the module cache (no network); it
// skips the test when the cache does not have it.
func goModule(t *testing.T) (dir string, env []string) {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command: the exported test cannot be run here")
	}
	dir = t.TempDir()
	env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	for _, args := range [][]string{{"mod", "init", "x"}, {"get", "go.etcd.io/raft/v3@v3.7.0"}} {
		cmd := exec.Command(gobin, args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Skipf("go %s in an empty module: %v\n%s(the module cache does not hold go.etcd.io/raft/v3 v3.7.0)", strings.Join(args, " "), err, out)
		}
	}
	return dir, env
}

// exportAndRun writes the exported test of b into a fresh module and runs
// go test there; it returns whether the test passed and its output.
func exportAndRun(t *testing.T, b Bug) (bool, string) {
	t.Helper()
	files, err := GoTest(b)
	require.NoError(t, err)
	dir, env := goModule(t)
	for name, src := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), src, 0o644))
	}
	cmd := exec.Command("go", "test", "-count=1", ".")
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("go test: %v", err)
		}
	}
	return err == nil, string(out)
}

// An application bug (a seeded one of the adapter: messages sent before
// the state is durable) exported as a Go test fails there with the bug's
// signature, as the adapter in process does, and the same schedule without
// the bug passes. The test runs the adapter's own code, so its verdict
// follows the adapter's, at the command line's default configuration
// (mixed Ready loops, raft.Node and RawNode nodes, the library's
// bootstrap).
func TestGoTestReproducesApplicationBug(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the library in a temporary module")
	}
	raw, err := os.ReadFile(filepath.Join("..", "adapters", "etcdraft", "testdata", "crashpoint-send-then-persist.json"))
	require.NoError(t, err)
	in, err := schedule.DecodeInput(raw)
	require.NoError(t, err)
	cfg := etcdraft.DefaultConfig()
	cfg.Inject = etcdraft.InjectSendThenPersist
	f, err := etcdraft.NewFactory(cfg)
	require.NoError(t, err)
	sys, err := f.New()
	require.NoError(t, err)
	ex, err := sys.Execute(in)
	require.NoError(t, err)
	require.NotEmpty(t, ex.Failures)
	fl := ex.Failures[0]

	b := Bug{ID: "B7", Kind: string(fl.Kind), Signature: fl.Signature, Message: fl.Message, Config: f.Config(), Input: in,
		Header: []string{"modelfuzz: test"}}
	ok, out := exportAndRun(t, b)
	require.False(t, ok, "the exported test fails under the bug:\n%s", out)
	require.Contains(t, out, "the bug, at step")
	// The frames of the adapter's package are the temporary module's.
	require.Contains(t, out, strings.ReplaceAll(fl.Signature, "etcdraft.", "x."))
	require.NotContains(t, out, "another failure")

	cfg.Inject = ""
	b.Config, _ = json.Marshal(cfg)
	ok, out = exportAndRun(t, b)
	require.True(t, ok, "the exported test passes without the bug:\n%s", out)
}
