package redisraft

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cespare/xxhash/v2"
)

// Line coverage of the C code (--strategy line). A second build of
// redisraft.so, beside the normal one in the cache, is compiled with gcc
// --coverage: the module, its raft library and hiredis count the blocks
// they run, and gcc's runtime writes the counts (.gcda files) when the
// process exits normally. A node of the fuzzer never exits normally: it is
// killed with SIGKILL, at a crash step and at the end of every execution,
// and RedisRaft has no command that writes the counters. So the coverage
// build links one object of our own into the module (gcovflushC below; the
// sources of RedisRaft are not changed): when the module is loaded it
// starts a thread that waits for SIGUSR2 and then calls __gcov_dump, gcc's
// runtime's own writer, and creates a file to say it is done. A signal
// handler could not do this safely: __gcov_dump allocates and opens files,
// and the signal could land while the node's main thread holds malloc's
// lock. A thread of the module can call __gcov_dump (the runtime's symbols
// are private to the shared object that links it, so an LD_PRELOAD shim
// could not). Before every SIGKILL of a node the fuzzer sends SIGUSR2 and
// waits for the file (at most coverDumpTimeout).
//
// Every incarnation of a node writes into a directory of its own
// (GCOV_PREFIX): no two processes ever merge counts into one file, which
// the thesis found unreliable (section 5.4.3). After the execution, gcov
// reads each directory (JSON, one run for all its files) and the lines of
// the module's and the raft library's sources with a count above zero are
// the execution's lines (Execution.Units), hashed as file:line with the
// path relative to RedisRaft's source tree, as the Go line coverage does.

// gcovflushC is the object linked into the coverage build.
const gcovflushC = `/* Written by modelfuzz: on SIGUSR2, write the gcov counters of this shared
   object (__gcov_dump) and create $MODELFUZZ_GCOV_DONE. */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

extern void __gcov_dump(void);

static sigset_t modelfuzz_usr2;

static void *modelfuzz_gcov_waiter(void *arg) {
	const char *done = getenv("MODELFUZZ_GCOV_DONE");
	int sig;
	(void)arg;
	for (;;) {
		if (sigwait(&modelfuzz_usr2, &sig) != 0)
			continue;
		__gcov_dump();
		if (done != NULL) {
			int fd = open(done, O_CREAT | O_WRONLY | O_TRUNC, 0644);
			if (fd >= 0)
				close(fd);
		}
	}
	return NULL;
}

__attribute__((constructor)) static void modelfuzz_gcov_init(void) {
	pthread_t t;
	sigemptyset(&modelfuzz_usr2);
	sigaddset(&modelfuzz_usr2, SIGUSR2);
	/* Blocked in the loading thread (Redis's main thread, before it starts
	   its other threads, which inherit the mask): only the waiter takes it. */
	pthread_sigmask(SIG_BLOCK, &modelfuzz_usr2, NULL);
	if (pthread_create(&t, NULL, modelfuzz_gcov_waiter, NULL) == 0)
		pthread_detach(t);
}
`

// coverDumpTimeout bounds the wait for a node's counters before its
// SIGKILL; past it, the incarnation's lines are lost (logged).
const coverDumpTimeout = 5 * time.Second

// CoverBuildDir is where the coverage build of the sources in dir goes.
func CoverBuildDir(dir string) (string, error) {
	out, err := BuildDir(dir)
	if err != nil {
		return "", err
	}
	return filepath.Join(out, "cover"), nil
}

// builtCover finds the coverage build's module in out.
func builtCover(out string) (string, bool) {
	mod, _ := filepath.Glob(filepath.Join(out, "redisraft-*", "redisraft.so"))
	if len(mod) != 1 {
		return "", false
	}
	if _, err := os.Stat(filepath.Join(out, "done")); err != nil {
		return "", false
	}
	return mod[0], true
}

// FindCover returns the coverage build of the sources in dir, or an error
// saying that it is not built.
func FindCover(dir string) (string, error) {
	out, err := CoverBuildDir(dir)
	if err != nil {
		return "", err
	}
	if mod, ok := builtCover(out); ok {
		return mod, nil
	}
	return "", fmt.Errorf("redisraft: no coverage build of redisraft.so in %s", out)
}

// BuildCover returns the coverage build of the sources in dir (its
// redisraft.so), building it first if the cache does not hold it (a
// minute or two; progress goes to progress).
func BuildCover(dir string, progress io.Writer) (string, error) {
	out, err := CoverBuildDir(dir)
	if err != nil {
		return "", err
	}
	if mod, ok := builtCover(out); ok {
		return mod, nil
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", fmt.Errorf("redisraft: %w", err)
	}
	lock, err := os.OpenFile(out+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", fmt.Errorf("redisraft: %w", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", fmt.Errorf("redisraft: locking %s: %w", lock.Name(), err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if mod, ok := builtCover(out); ok {
		return mod, nil
	}
	for _, tool := range []string{"gcc", "make", "cmake", "gcov"} {
		if _, err := exec.LookPath(tool); err != nil {
			return "", fmt.Errorf("redisraft: the coverage build needs %s, not found (Debian: apt-get install build-essential cmake)", tool)
		}
	}
	archives, _ := filepath.Glob(filepath.Join(dir, "redisraft-*.tar.gz"))
	if len(archives) != 1 {
		return "", fmt.Errorf("redisraft: want one redisraft-*.tar.gz in %s, found %d", dir, len(archives))
	}
	if progress != nil {
		fmt.Fprintf(progress, "building redisraft.so with gcc --coverage into %s (a minute or two, once)\n", out)
	}
	ents, _ := os.ReadDir(out)
	for _, e := range ents {
		_ = os.RemoveAll(filepath.Join(out, e.Name()))
	}
	if err := os.WriteFile(filepath.Join(out, "gcovflush.c"), []byte(gcovflushC), 0o644); err != nil {
		return "", err
	}
	script := `set -euo pipefail
out=$1; archive=$2
tar -xzf "$archive" -C "$out"
gcc -c -fPIC -O2 -o "$out/gcovflush.o" "$out/gcovflush.c"
src=$(ls -d "$out"/redisraft-*/)
mkdir -p "$src/build" && cd "$src/build"
cmake .. -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS=--coverage \
	"-DCMAKE_MODULE_LINKER_FLAGS=--coverage $out/gcovflush.o" >"$out/build.log" 2>&1
make -j"$(nproc)" redisraft >>"$out/build.log" 2>&1
`
	cmd := exec.Command("bash", "-c", script, "build", out, archives[0])
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		log, _ := os.ReadFile(filepath.Join(out, "build.log"))
		return "", fmt.Errorf("redisraft: the coverage build failed (%v): %s\n%s", err, strings.TrimSpace(stderr.String()), tail(string(log), 2000))
	}
	if err := os.WriteFile(filepath.Join(out, "done"), nil, 0o644); err != nil {
		return "", err
	}
	if mod, ok := builtCover(out); ok {
		return mod, nil
	}
	return "", errors.New("redisraft: the coverage build left no redisraft.so in " + out)
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// coverRoot is the source tree of a coverage build's module (the
// directory of redisraft.so): file names in the line items are relative
// to it.
func coverRoot(module string) string { return filepath.Dir(module) + "/" }

// coverEnv is the environment of an incarnation of a node whose counters
// go to dir.
func coverEnv(dir string) []string {
	return []string{"GCOV_PREFIX=" + dir, "GCOV_PREFIX_STRIP=0", "MODELFUZZ_GCOV_DONE=" + filepath.Join(dir, ".done")}
}

// dumpCounters asks the live incarnation of n to write its counters and
// waits until it did.
func (r *run) dumpCounters(n *node) {
	if r.cfg.CoverModule == "" || n.proc == nil || n.gcov == "" {
		return
	}
	if exited, _ := n.proc.Exited(); exited {
		return
	}
	done := filepath.Join(n.gcov, ".done")
	if err := syscall.Kill(n.proc.Pgid(), syscall.SIGUSR2); err != nil {
		return
	}
	deadline := time.Now().Add(coverDumpTimeout)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(done); err == nil {
			return
		}
		select {
		case <-n.proc.Done():
			return
		case <-time.After(time.Millisecond):
		}
	}
	r.s.log.Warn("coverage: a node did not write its counters in time; its lines are lost", "node", n.index+1, "timeout", coverDumpTimeout)
}

// gcovFile is what gcov --json-format says of one source file.
type gcovFile struct {
	Files []struct {
		File  string `json:"file"`
		Lines []struct {
			Line  int   `json:"line_number"`
			Count int64 `json:"count"`
		} `json:"lines"`
	} `json:"files"`
}

// readLines adds to set the lines (items) that the counters under dir
// count as run: the module's and its raft library's sources (hiredis and
// system headers are left out).
func readLines(dir, root string, set map[uint64]struct{}) error {
	var gcdas []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".gcda") {
			return err
		}
		// gcov wants the notes file (.gcno, beside the object in the
		// build) beside the counts.
		notes := strings.TrimSuffix(strings.TrimPrefix(path, dir), ".gcda") + ".gcno"
		link := strings.TrimSuffix(path, ".gcda") + ".gcno"
		if err := os.Symlink(notes, link); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		gcdas = append(gcdas, path)
		return nil
	})
	if err != nil {
		return fmt.Errorf("coverage counters in %s: %w", dir, err)
	}
	if len(gcdas) == 0 {
		return nil
	}
	cmd := exec.Command("gcov", append([]string{"--json-format", "--stdout"}, gcdas...)...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("gcov: %v: %s", err, strings.TrimSpace(tail(stderr.String(), 500)))
	}
	dec := json.NewDecoder(&stdout)
	for {
		var g gcovFile
		if err := dec.Decode(&g); err == io.EOF {
			break
		} else if err != nil {
			return fmt.Errorf("gcov's output: %w", err)
		}
		for _, f := range g.Files {
			rel, ok := strings.CutPrefix(f.File, root)
			if !ok || strings.HasPrefix(rel, "deps/hiredis/") {
				continue
			}
			for _, l := range f.Lines {
				if l.Count > 0 {
					set[xxhash.Sum64String(rel+":"+strconv.Itoa(l.Line))] = struct{}{}
				}
			}
		}
	}
	return nil
}

// coveredLines reads the counters of every incarnation of the execution:
// the union of their lines, in no particular order.
func (r *run) coveredLines() ([]uint64, error) {
	set := map[uint64]struct{}{}
	root := coverRoot(r.cfg.CoverModule)
	for _, dir := range r.gcovDirs {
		if err := readLines(dir, root, set); err != nil {
			return nil, err
		}
	}
	units := make([]uint64, 0, len(set))
	for u := range set {
		units = append(units, u)
	}
	return units, nil
}

// RecordLines makes the factory's executions run the coverage build of
// redisraft.so and record the lines they ran (Execution.Units), for
// --strategy line. It builds the coverage build from the sources the first
// time (like the normal build); it refuses when the factory runs binaries
// that are not the cached build of the sources (the user's own), or when
// the sources are not there.
func (f *Factory) RecordLines(progress io.Writer) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cfg.CoverModule != "" {
		if _, err := os.Stat(f.cfg.CoverModule); err != nil {
			return fmt.Errorf("redisraft: the coverage build %s is gone", f.cfg.CoverModule)
		}
		return nil
	}
	if _, err := exec.LookPath("gcov"); err != nil {
		return errors.New("redisraft: line coverage needs gcov (gcc's), not found")
	}
	dir, err := FindSources()
	if err != nil {
		return fmt.Errorf("redisraft: line coverage needs a coverage build of the sources: %v", err)
	}
	out, err := BuildDir(dir)
	if err != nil {
		return err
	}
	if _, mod, ok := built(out); !ok || mod != f.cfg.Module {
		return fmt.Errorf("redisraft: line coverage runs a coverage build of the cached sources (%s), not the module given (%s)", out, f.cfg.Module)
	}
	mod, err := BuildCover(dir, progress)
	if err != nil {
		return err
	}
	f.cfg.CoverModule = mod
	return nil
}
