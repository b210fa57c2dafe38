package osproc

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Registry records, on disk, what this fuzzer process started: the
// process groups of the system under test and its temporary directories. A fuzzer
// killed with SIGKILL cannot stop its replicas; the next fuzzer that
// starts the adapter finds the registry of the dead one and kills and
// removes what it left.
//
// Layout, under the state directory (the adapter's, by default
// os.TempDir()/modelfuzz-process):
//
//	<pid>/owner   "<pid> <start time>": the fuzzer process that owns the directory
//	<pid>/pids    "<pgid> <start time>" per line: its running process groups
//	<pid>/sys-<n> the run directory of one System (executions' data dirs)
//
// Start times (field 22 of /proc/<pid>/stat, 0 where /proc is missing)
// tell a live owner from a reused pid, and a group of ours from a group
// that reused the number.
type Registry struct {
	base string // state directory
	dir  string // base/<our pid>

	mu      sync.Mutex
	groups  map[int]uint64 // pgid -> start time of its leader
	nextSys int
	users   int // open factories
}

var (
	registriesMu sync.Mutex
	registries   = map[string]*Registry{}
)

// OpenRegistry returns this process's registry under base, creating it on
// first use, and reaps what dead fuzzers left there. Each call counts a
// user; Release releases it.
func OpenRegistry(base string) (*Registry, error) {
	base, err := filepath.Abs(base)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	Reap(base)
	registriesMu.Lock()
	defer registriesMu.Unlock()
	r := registries[base]
	if r == nil {
		pid := os.Getpid()
		r = &Registry{base: base, dir: filepath.Join(base, strconv.Itoa(pid)), groups: map[int]uint64{}}
		if err := os.MkdirAll(r.dir, 0o755); err != nil {
			return nil, fmt.Errorf("state directory: %w", err)
		}
		owner := fmt.Sprintf("%d %d\n", pid, StartTime(pid))
		if err := os.WriteFile(filepath.Join(r.dir, "owner"), []byte(owner), 0o644); err != nil {
			return nil, fmt.Errorf("state directory: %w", err)
		}
		if err := r.writeLocked(); err != nil {
			return nil, err
		}
		registries[base] = r
	}
	r.mu.Lock()
	r.users++
	r.mu.Unlock()
	return r, nil
}

// Release drops a user; the last one removes the directory (it holds no
// groups then, unless a System was not closed).
func (r *Registry) Release() {
	registriesMu.Lock()
	defer registriesMu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.users--
	if r.users > 0 || len(r.groups) > 0 {
		return
	}
	delete(registries, r.base)
	_ = os.RemoveAll(r.dir)
}

// Dir is this fuzzer's directory under the state directory.
func (r *Registry) Dir() string { return r.dir }

// NewRunDir makes a fresh run directory for a System.
func (r *Registry) NewRunDir() (string, error) {
	r.mu.Lock()
	r.nextSys++
	n := r.nextSys
	r.mu.Unlock()
	d := filepath.Join(r.dir, "sys-"+strconv.Itoa(n))
	if err := os.MkdirAll(d, 0o755); err != nil {
		return "", fmt.Errorf("run directory: %w", err)
	}
	return d, nil
}

// add records a started process group.
func (r *Registry) add(pgid int) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.groups[pgid] = StartTime(pgid)
	return r.writeLocked()
}

// remove forgets a process group that is gone.
func (r *Registry) remove(pgid int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.groups, pgid)
	_ = r.writeLocked()
}

// writeLocked rewrites the pids file atomically.
func (r *Registry) writeLocked() error {
	ids := make([]int, 0, len(r.groups))
	for g := range r.groups {
		ids = append(ids, g)
	}
	sort.Ints(ids)
	var b strings.Builder
	for _, g := range ids {
		fmt.Fprintf(&b, "%d %d\n", g, r.groups[g])
	}
	tmp := filepath.Join(r.dir, "pids.tmp")
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("process registry: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(r.dir, "pids")); err != nil {
		return fmt.Errorf("process registry: %w", err)
	}
	return nil
}

// Reap kills the process groups of dead owners under base and removes
// their directories. Live owners (other fuzzers running now) are left
// alone. OpenRegistry reaps.
func Reap(base string) {
	ents, err := os.ReadDir(base)
	if err != nil {
		return
	}
	me := os.Getpid()
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !e.IsDir() {
			continue
		}
		dir := filepath.Join(base, e.Name())
		ownerStart, ok := readOwner(dir)
		if pid == me {
			registriesMu.Lock()
			mine := registries[base] != nil
			registriesMu.Unlock()
			if mine || (ok && ownerStart == StartTime(me)) {
				continue
			}
			// A dead fuzzer that had our pid: its leftovers.
		} else if ok && alive(pid, ownerStart) {
			continue
		} else if !ok && alive(pid, 0) {
			continue // being created by a live fuzzer
		}
		for _, g := range readGroups(dir) {
			killGroupIfOurs(g.pgid, g.start)
		}
		_ = os.RemoveAll(dir)
	}
}

func readOwner(dir string) (uint64, bool) {
	b, err := os.ReadFile(filepath.Join(dir, "owner"))
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 0, false
	}
	st, err := strconv.ParseUint(f[1], 10, 64)
	return st, err == nil
}

type group struct {
	pgid  int
	start uint64
}

func readGroups(dir string) []group {
	b, err := os.ReadFile(filepath.Join(dir, "pids"))
	if err != nil {
		return nil
	}
	var gs []group
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		pg, err1 := strconv.Atoi(f[0])
		st, err2 := strconv.ParseUint(f[1], 10, 64)
		if err1 == nil && err2 == nil && pg > 1 {
			gs = append(gs, group{pg, st})
		}
	}
	return gs
}

// killGroupIfOurs kills a process group a dead fuzzer left. When a process
// with the group's number exists it must be the group's leader (same start
// time): a number in use cannot name a new group, so if the leader is
// gone, whatever group has the number is the rest of ours.
func killGroupIfOurs(pgid int, start uint64) {
	if st, ok := ProcStat(pgid); ok && start != 0 && st.Start != start {
		return // the number belongs to another process now
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

// alive reports whether pid runs and, when start is known, is the process
// that started then (not a process that reused the pid). Zombies are dead.
func alive(pid int, start uint64) bool {
	if st, ok := ProcStat(pid); ok {
		return st.State != 'Z' && (start == 0 || st.Start == start)
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// StartTime is the start time of pid in clock ticks since boot, 0 when
// unknown.
func StartTime(pid int) uint64 {
	st, _ := ProcStat(pid)
	return st.Start
}

// Stat is what /proc/<pid>/stat says of a process that matters here.
type Stat struct {
	State byte   // R, S, Z, ...
	Pgrp  int    // its process group
	Start uint64 // its start time, in clock ticks since boot
}

// ProcStat reads /proc/<pid>/stat (Linux).
func ProcStat(pid int) (Stat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Stat{}, false
	}
	// The command name (field 2) is in parentheses and may contain spaces.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return Stat{}, false
	}
	f := strings.Fields(s[i+1:]) // f[0] is field 3 (state)
	if len(f) < 20 {
		return Stat{}, false
	}
	pgrp, _ := strconv.Atoi(f[2])
	start, _ := strconv.ParseUint(f[19], 10, 64)
	return Stat{State: f[0][0], Pgrp: pgrp, Start: start}, true
}
