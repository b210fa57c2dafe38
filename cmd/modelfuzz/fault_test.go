package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/internal/testutil"
)

// The storage path's faults under a running campaign (sidecar, background
// minimizer, two parallel executors): the corpus directory removed, made
// read-only, its disk full, its lock file removed, and a SIGINT while it
// is read-only. Each stops the campaign with one line naming the problem
// and the executions not stored, a non-zero exit and a summary that does
// not point at a corpus that is not there; the process and its sidecar
// end within a bound, and a corpus still present afterwards opens and the
// campaign continues. The bounds are generous (the machine may be busy);
// the times measured are logged.
//
// Read-only: root is not stopped by file modes, and a file system with
// files open for writing cannot be remounted read-only (EBUSY), so the
// test mounts the corpus directory on itself and remounts that bind mount
// read-only: every path under it is read-only, as after a remount, while
// the descriptors the database opened before stay writable (what a real
// remount would not allow; the store must notice without them failing).
// Full disk: the corpus is on a 300 MiB tmpfs of its own, and a file
// filling it below the 256 MiB a corpus needs is written mid-run.
// Both need mounts (root); they are skipped, saying so, where mounting is
// not permitted.
func TestCorpusFaults(t *testing.T) {
	type fault struct {
		name   string
		mount  func(t *testing.T, parent string) // prepares the parent directory (nil: a plain one)
		apply  func(t *testing.T, dir string) (undo func())
		want   string // in the one line
		gone   bool   // the corpus is gone afterwards
		sigint bool   // SIGINT right after the fault
		// process runs the campaign on real raftkv processes (the
		// process adapter) instead of the micro-benchmark.
		process bool
	}
	faults := []fault{
		{name: "removed", want: "the directory was removed (the corpus is lost)", gone: true,
			apply: func(t *testing.T, dir string) func() {
				require.NoError(t, os.RemoveAll(dir))
				return nil
			}},
		{name: "read-only", want: "the directory became read-only", apply: readOnly},
		{name: "disk-full", want: "disk almost full", mount: smallTmpfs,
			apply: func(t *testing.T, dir string) func() {
				filler := filepath.Join(filepath.Dir(dir), "filler")
				fillBelow(t, filler, 200<<20)
				return func() { os.Remove(filler) }
			}},
		{name: "lock-removed", want: "the lock file modelfuzz.lock was removed",
			apply: func(t *testing.T, dir string) func() {
				require.NoError(t, os.Remove(filepath.Join(dir, "modelfuzz.lock")))
				return nil
			}},
		{name: "sigint-while-read-only", want: "the directory became read-only", apply: readOnly, sigint: true},
		{name: "removed-under-the-process-adapter", want: "the directory was removed (the corpus is lost)", gone: true, process: true,
			apply: func(t *testing.T, dir string) func() {
				require.NoError(t, os.RemoveAll(dir))
				return nil
			}},
	}
	var cluster string // built once, for the process adapter
	outer := t
	for _, fc := range faults {
		t.Run(fc.name, func(t *testing.T) {
			parent := t.TempDir()
			if fc.mount != nil {
				fc.mount(t, parent)
			}
			dir := filepath.Join(parent, "c")
			args := []string{"run", "--adapter", "microbench", "--model", "microbench.tla", "--inject", "flush-before-last",
				"--workers", "3", "--tasks", "5", "--parallel", "2", "--seed", "1", "--stats-every", "200ms", "--log-level", "warn", "--corpus", dir}
			if fc.process {
				if cluster == "" {
					cluster = raftkvCluster(outer)
				}
				args = []string{"run", "--adapter", "process", "--cluster", cluster, "--model", "raft.tla", "--inject", "send-before-persist",
					"--parallel", "2", "--seed", "1", "--log-level", "warn", "--corpus", dir}
			}
			cmd := exec.Command(binary, append(args, "--duration", "120s")...)
			var out, errb testutil.SyncBuffer // written by the process's copiers while the test reads
			cmd.Stdout, cmd.Stderr = &out, &errb
			require.NoError(t, cmd.Start())
			exited := make(chan struct{})
			go func() { cmd.Wait(); close(exited) }()
			t.Cleanup(func() { cmd.Process.Kill(); <-exited })

			// Let it run (sidecar up, commits made) for a while.
			var sidecars []int
			for deadline := time.Now().Add(30 * time.Second); len(sidecars) == 0; time.Sleep(100 * time.Millisecond) {
				require.True(t, time.Now().Before(deadline), "the sidecar did not start: %s", errb.String())
				sidecars = childPIDs(cmd.Process.Pid)
			}
			if fc.process {
				time.Sleep(3 * time.Second) // executions of real processes are slower
			} else {
				time.Sleep(2 * time.Second)
			}
			require.Empty(t, errb.String(), "the campaign failed before the fault")

			undo := fc.apply(t, dir)
			if undo != nil {
				t.Cleanup(undo)
			}
			start := time.Now()
			if fc.sigint {
				require.NoError(t, cmd.Process.Signal(os.Interrupt))
			}
			select {
			case <-exited:
			case <-time.After(30 * time.Second):
				cmd.Process.Signal(syscall.SIGQUIT)
				<-exited
				t.Fatalf("still running 30 s after the fault: %s", errb.String())
			}
			took := time.Since(start)
			t.Logf("%s: exited %v after the fault, status %d", fc.name, took.Round(time.Millisecond), cmd.ProcessState.ExitCode())
			require.NotEqual(t, 0, cmd.ProcessState.ExitCode(), errb.String())

			// One line, naming the directory, the problem and what was not stored.
			var lines []string
			for _, l := range strings.Split(errb.String(), "\n") {
				if strings.HasPrefix(l, "modelfuzz: ") {
					lines = append(lines, l)
				}
			}
			require.Len(t, lines, 1, errb.String())
			require.True(t, strings.HasPrefix(lines[0], "modelfuzz: corpus "+dir+": "+fc.want), lines[0])
			m := regexp.MustCompile(`the campaign stopped: (\d+) execution\(s\) since its last commit \(iteration (\d+)\) were not stored$`).FindStringSubmatch(lines[0])
			require.NotNil(t, m, lines[0])
			unstored, _ := strconv.ParseInt(m[1], 10, 64)
			stored, _ := strconv.ParseInt(m[2], 10, 64)
			t.Logf("%d iteration(s) stored, %d execution(s) not", stored, unstored)

			// No process left: the sidecar and the replicas end with the campaign.
			for _, pid := range sidecars {
				require.False(t, alive(pid), "process %d outlived the campaign", pid)
			}
			if fc.process {
				require.Zero(t, raftkvLeft(t, cluster), "no raftkv process left")
			}

			sum := out.String()
			if fc.gone {
				require.NotContains(t, sum, "replay one with")
				require.NotContains(t, sum, "corpus: "+dir+"\n")
				require.Contains(t, sum, "corpus: "+dir+" is lost")
				_, err := os.Stat(dir)
				require.True(t, os.IsNotExist(err))
				return
			}
			require.Greater(t, stored, int64(0))
			if unstored > 0 {
				require.Contains(t, sum, fmt.Sprintf("corpus: %s (up to iteration %d; the %d execution(s) after it were not stored)\n", dir, stored, unstored))
			} else { // stopped at its last commit (a SIGINT's), whose stats snapshot found the fault
				require.Contains(t, sum, "corpus: "+dir+"\n")
			}

			// The corpus is still there: it opens, holds what the summary
			// says, and the campaign continues from it.
			if undo != nil {
				undo()
			}
			require.Equal(t, stored, readCorpus(t, dir).iters)
			res := modelfuzz(t, append(args, "--iterations", strconv.FormatInt(stored+300, 10), "--json")...)
			require.Equal(t, 0, res.code, res.stderr)
			require.Equal(t, stored+300, lastJSON(t, res.stdout).Iterations)
		})
	}
}

// readOnly bind-mounts dir on itself and remounts that read-only; undo
// unmounts it.
func readOnly(t *testing.T, dir string) func() {
	if err := syscall.Mount(dir, dir, "", syscall.MS_BIND, ""); err != nil {
		t.Skipf("cannot bind-mount here (%v): the read-only case needs it", err)
	}
	var once sync.Once
	undo := func() { once.Do(func() { require.NoError(t, syscall.Unmount(dir, 0)) }) }
	if err := syscall.Mount("", dir, "", syscall.MS_REMOUNT|syscall.MS_BIND|syscall.MS_RDONLY, ""); err != nil {
		undo()
		t.Skipf("cannot remount read-only here (%v)", err)
	}
	return undo
}

// smallTmpfs mounts a 300 MiB tmpfs on dir for the test.
func smallTmpfs(t *testing.T, dir string) {
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=300m"); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v): the full-disk case needs it", err)
	}
	t.Cleanup(func() { require.NoError(t, syscall.Unmount(dir, syscall.MNT_DETACH)) })
}

// fillBelow writes a file at path that leaves less than free bytes free
// on its file system.
func fillBelow(t *testing.T, path string, free uint64) {
	var st syscall.Statfs_t
	require.NoError(t, syscall.Statfs(filepath.Dir(path), &st))
	avail := st.Bavail * uint64(st.Bsize)
	require.Greater(t, avail, free)
	f, err := os.Create(path)
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, syscall.Fallocate(int(f.Fd()), 0, 0, int64(avail-free)+(1<<20)))
}

func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err == nil && !strings.Contains(string(b), ") Z ")
}
