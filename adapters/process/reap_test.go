package process

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/internal/osproc"
)

// The leftover test re-executes the test binary as a fuzzer (TestMain
// calls childFuzzer when these are set).
const (
	childEnv      = "MODELFUZZ_PROCESS_TEST_CHILD" // the cluster file
	childStateEnv = "MODELFUZZ_PROCESS_TEST_STATE" // the state directory
)

type childReport struct {
	Pids     []int  `json:"pids"`
	Children []int  `json:"children"` // the replicas' own children (-grandchild)
	RunDir   string `json:"run_dir"`
}

// childFuzzer starts a cluster, reports its processes and waits to be
// killed.
func childFuzzer() {
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "child fuzzer:", err)
		os.Exit(1)
	}
	fac, err := NewFactory(os.Getenv(childEnv), Options{StateDir: os.Getenv(childStateEnv)})
	if err != nil {
		fail(err)
	}
	s, err := fac.NewSystem()
	if err != nil {
		fail(err)
	}
	s.execMu.Lock()
	e, err := s.begin(context.Background())
	if err != nil {
		fail(err)
	}
	rep := childReport{RunDir: s.runDir}
	for _, r := range e.reps {
		var info struct{ Child int }
		if err := json.Unmarshal(r.info, &info); err != nil {
			fail(err)
		}
		rep.Pids = append(rep.Pids, r.proc.Pgid())
		rep.Children = append(rep.Children, info.Child)
	}
	b, _ := json.Marshal(rep)
	fmt.Println(string(b))
	select {}
}

func TestLeftoversOfAKilledFuzzerAreReaped(t *testing.T) {
	state := t.TempDir()
	cluster := writeCluster(t, fakeCluster(3, nil, "-grandchild"))
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), childEnv+"="+cluster, childStateEnv+"="+state)
	child.Stderr = os.Stderr
	out, err := child.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, child.Start())
	var rep childReport
	t.Cleanup(func() { // whatever happens, nothing is left behind
		_ = child.Process.Kill()
		_ = child.Wait()
		for _, pid := range rep.Pids {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
		}
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal([]byte(line), &rep))
	require.Len(t, rep.Pids, 3)
	require.Len(t, rep.Children, 3)

	// kill -9 the fuzzer: its replicas live on, orphaned, and so do its
	// directories.
	require.NoError(t, child.Process.Signal(syscall.SIGKILL))
	_ = child.Wait()
	for _, pid := range append(rep.Pids, rep.Children...) {
		require.True(t, running(pid), "process %d died with its fuzzer", pid)
	}
	ownerDir := filepath.Join(state, strconv.Itoa(child.Process.Pid))
	require.DirExists(t, ownerDir)
	require.DirExists(t, rep.RunDir)
	pidsFile, err := os.ReadFile(filepath.Join(ownerDir, "pids"))
	require.NoError(t, err)
	require.Len(t, strings.Fields(string(pidsFile)), 6, string(pidsFile)) // "<pgid> <start>" per group

	// The next fuzzer on the same state directory cleans up.
	fac, err := NewFactory(cluster, Options{StateDir: state})
	require.NoError(t, err)
	defer fac.Close()
	for _, pid := range append(rep.Pids, rep.Children...) {
		require.Eventually(t, func() bool { return !running(pid) }, 2*time.Second, 10*time.Millisecond,
			"process %d outlived the reaping", pid)
	}
	require.NoDirExists(t, ownerDir)

	// A live fuzzer's directory is left alone.
	require.DirExists(t, fac.reg.Dir())
	osproc.Reap(state)
	require.DirExists(t, fac.reg.Dir())
}
