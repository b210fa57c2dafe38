package process

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/internal/osproc"
	"github.com/modelfuzz/modelfuzz/internal/testutil"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// fakeBin is the fake replica (testdata/fakereplica), built by TestMain.
var fakeBin string

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		childFuzzer() // the leftover test's fuzzer; never returns
	}
	dir, err := os.MkdirTemp("", "modelfuzz-process-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fakeBin = filepath.Join(dir, "fakereplica")
	build := exec.Command("go", "build", "-o", fakeBin, "./testdata/fakereplica")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building the fake replica:", err)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// fakeCluster returns the content of a cluster file of n fake replicas;
// flags are added to the fake's command line, edit changes the object.
func fakeCluster(n int, edit func(map[string]any), flags ...string) map[string]any {
	args := []any{"-id", "{id}", "-n", "{processes}", "-api", "127.0.0.1:{port}",
		"-client", "127.0.0.1:{client_port}", "-data", "{data}", "-store", "{data}/../kv.json"}
	for _, f := range flags {
		args = append(args, f)
	}
	c := map[string]any{
		"name": "fake", "processes": n, "command": fakeBin, "args": args,
		"data_dir": "n{id}", "ready": map[string]any{"timeout": "10s"},
		"client": "http://127.0.0.1:{client_port}", "quiet": "20ms",
		"request": map[string]any{"kind": "kv", "keys": 2},
	}
	if edit != nil {
		edit(c)
	}
	return c
}

// writeCluster writes a cluster file into a temporary directory.
func writeCluster(t testing.TB, c map[string]any) string {
	b, err := json.MarshalIndent(c, "", "  ")
	require.NoError(t, err)
	p := filepath.Join(t.TempDir(), "cluster.json")
	require.NoError(t, os.WriteFile(p, b, 0o644))
	return p
}

// newFake makes a factory and a system of a fake cluster, closed at the
// end of the test. The log goes to logBuf when given.
func newFake(t testing.TB, c map[string]any, logBuf *testutil.SyncBuffer) (*Factory, *System) {
	opts := Options{StateDir: t.TempDir()}
	if logBuf != nil {
		opts.Logger = hclog.New(&hclog.LoggerOptions{Output: logBuf, Level: hclog.Debug})
	}
	fac, err := NewFactory(writeCluster(t, c), opts)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, fac.Close()) })
	s, err := fac.NewSystem()
	require.NoError(t, err)
	return fac, s
}

func execute(t testing.TB, s schedule.System, in *schedule.Input) (*schedule.Execution, []byte) {
	ex, err := s.Execute(in)
	require.NoError(t, err)
	return ex, schedule.EncodeTrace(ex.Trace)
}

// Schedule helpers.
func d(p, n int) schedule.Step {
	return schedule.Step{Process: p, Action: schedule.Deliver, Messages: n}
}
func to(p int) schedule.Step    { return schedule.Step{Process: p, Action: schedule.Timeout} }
func crash(p int) schedule.Step { return schedule.Step{Process: p, Action: schedule.Crash} }
func rs(p int) schedule.Step    { return schedule.Step{Process: p, Action: schedule.Restart} }
func req(p, v int) schedule.Step {
	return schedule.Step{Process: p, Action: schedule.Request, Value: v}
}

func input(steps ...schedule.Step) *schedule.Input { return &schedule.Input{Steps: steps} }

// running reports whether pid is a live process (a zombie is not).
func running(pid int) bool {
	if st, ok := osproc.ProcStat(pid); ok {
		return st.State != 'Z'
	}
	return syscall.Kill(pid, 0) == nil
}
