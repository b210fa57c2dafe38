package etcd

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// A member process: one incarnation of an etcd member, in its own process
// group, its output kept (the last outputLimit bytes) and scanned for
// panics and fatal log lines.
type memberProc struct {
	cmd  *exec.Cmd
	pgid int
	reg  *registry
	out  *capBuffer

	mu      sync.Mutex
	killed  bool
	exitErr error
	done    chan struct{}
}

func startMember(reg *registry, argv []string, dir string, out *capBuffer) (*memberProc, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Stdout = out
	cmd.Stderr = out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &memberProc{cmd: cmd, pgid: cmd.Process.Pid, reg: reg, out: out, done: make(chan struct{})}
	if err := reg.add(p.pgid); err != nil {
		_ = syscall.Kill(-p.pgid, syscall.SIGKILL)
		_ = cmd.Wait()
		return nil, err
	}
	go func() {
		err := cmd.Wait()
		p.mu.Lock()
		p.exitErr = err
		killed := p.killed
		p.mu.Unlock()
		if !killed {
			_ = syscall.Kill(-p.pgid, syscall.SIGKILL)
		}
		p.reg.remove(p.pgid)
		close(p.done)
	}()
	return p, nil
}

// kill sends SIGKILL to the member's process group and waits until it is
// reaped: what the member had not written to disk is lost.
func (p *memberProc) kill() {
	p.mu.Lock()
	p.killed = true
	p.mu.Unlock()
	select {
	case <-p.done:
		return
	default:
	}
	_ = syscall.Kill(-p.pgid, syscall.SIGKILL)
	<-p.done
}

func (p *memberProc) exited() (exited, killed bool) {
	select {
	case <-p.done:
	default:
		return false, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return true, p.killed
}

func (p *memberProc) exitStatus() string {
	p.mu.Lock()
	err := p.exitErr
	p.mu.Unlock()
	var ee *exec.ExitError
	if err == nil {
		return "status 0"
	}
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return "signal " + ws.Signal().String()
		}
		return "status " + strconv.Itoa(ee.ExitCode())
	}
	return err.Error()
}

// capBuffer keeps the last limit bytes written to it, and every line
// that reports a panic or a fatal error, whole.
type capBuffer struct {
	mu      sync.Mutex
	limit   int
	buf     []byte
	partial []byte
	alarms  []string
}

func newCapBuffer(limit int) *capBuffer { return &capBuffer{limit: limit} }

func (b *capBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) > b.limit {
		b.buf = append(b.buf[:0], b.buf[len(b.buf)-b.limit:]...)
	}
	b.partial = append(b.partial, p...)
	for {
		i := bytes.IndexByte(b.partial, '\n')
		if i < 0 {
			break
		}
		if line := string(b.partial[:i]); isAlarm(line) && len(b.alarms) < 16 {
			b.alarms = append(b.alarms, line)
		}
		b.partial = b.partial[i+1:]
	}
	if len(b.partial) > 1<<16 {
		b.partial = b.partial[:0]
	}
	return len(p), nil
}

// mark writes a line of the adapter's own into the output.
func (b *capBuffer) mark(s string) { _, _ = b.Write([]byte("--- modelfuzz: " + s + " ---\n")) }

func (b *capBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}

// Alarms returns the panic and fatal lines the member printed.
func (b *capBuffer) Alarms() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.alarms)
}

// isAlarm: a Go panic, or a log line of level panic or fatal (zap's JSON
// in 3.5 and later, capnslog's letters "C"/"P" in 3.4's default logger).
func isAlarm(line string) bool {
	switch {
	case strings.HasPrefix(line, "panic: "), strings.HasPrefix(line, "fatal error: "):
		return true
	case strings.Contains(line, `"level":"panic"`), strings.Contains(line, `"level":"fatal"`):
		return true
	}
	return capnslogAlarm.MatchString(line)
}

var capnslogAlarm = regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ [CP] \| `)

// alarmSignature blanks what differs between two occurrences of one
// alarm: numbers, hexadecimal member IDs, timestamps, the zap fields after
// the message.
func alarmSignature(line string) string {
	if i := strings.Index(line, `"msg":"`); i >= 0 {
		rest := line[i+7:]
		if j := strings.Index(rest, `"`); j >= 0 {
			line = rest[:j]
		}
	} else if m := capnslogAlarm.FindString(line); m != "" {
		line = line[len(m):]
	}
	line = hexID.ReplaceAllString(line, "ID")
	return digits.ReplaceAllString(line, "N")
}

var (
	hexID  = regexp.MustCompile(`\b[0-9a-f]{12,16}\b`)
	digits = regexp.MustCompile(`[0-9]+`)
)

// The registry records, on disk, the member process groups this fuzzer
// started, so that the next fuzzer to start the adapter kills what a
// fuzzer killed by SIGKILL left running, and removes its directories.
//
//	<state dir>/<pid>/owner   "<pid> <start time>"
//	<state dir>/<pid>/pids    "<pgid> <start time>" per line
//	<state dir>/<pid>/sys-<n> one System's executions
//
// Start times (field 22 of /proc/<pid>/stat) tell a live owner from a pid
// reused since, and a group of ours from one that took the number over.
type registry struct {
	base, dir string

	mu      sync.Mutex
	groups  map[int]uint64
	nextSys int
	users   int
}

var (
	registriesMu sync.Mutex
	registries   = map[string]*registry{}
)

func openRegistry(base string) (*registry, error) {
	base, err := filepath.Abs(base)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		return nil, fmt.Errorf("etcd: state directory: %w", err)
	}
	reap(base)
	registriesMu.Lock()
	defer registriesMu.Unlock()
	r := registries[base]
	if r == nil {
		pid := os.Getpid()
		r = &registry{base: base, dir: filepath.Join(base, strconv.Itoa(pid)), groups: map[int]uint64{}}
		if err := os.MkdirAll(r.dir, 0o755); err != nil {
			return nil, fmt.Errorf("etcd: state directory: %w", err)
		}
		owner := fmt.Sprintf("%d %d\n", pid, startTime(pid))
		if err := os.WriteFile(filepath.Join(r.dir, "owner"), []byte(owner), 0o644); err != nil {
			return nil, fmt.Errorf("etcd: state directory: %w", err)
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

func (r *registry) release() {
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

func (r *registry) newRunDir() (string, error) {
	r.mu.Lock()
	r.nextSys++
	n := r.nextSys
	r.mu.Unlock()
	d := filepath.Join(r.dir, "sys-"+strconv.Itoa(n))
	if err := os.MkdirAll(d, 0o755); err != nil {
		return "", fmt.Errorf("etcd: run directory: %w", err)
	}
	return d, nil
}

func (r *registry) add(pgid int) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.groups[pgid] = startTime(pgid)
	return r.writeLocked()
}

func (r *registry) remove(pgid int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.groups, pgid)
	_ = r.writeLocked()
}

func (r *registry) writeLocked() error {
	ids := make([]int, 0, len(r.groups))
	for g := range r.groups {
		ids = append(ids, g)
	}
	slices.Sort(ids)
	var b strings.Builder
	for _, g := range ids {
		fmt.Fprintf(&b, "%d %d\n", g, r.groups[g])
	}
	tmp := filepath.Join(r.dir, "pids.tmp")
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("etcd: process registry: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(r.dir, "pids")); err != nil {
		return fmt.Errorf("etcd: process registry: %w", err)
	}
	return nil
}

// reap kills the member groups of fuzzers that are gone and removes
// their directories; live fuzzers' are left alone.
func reap(base string) {
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
			if mine || (ok && ownerStart == startTime(me)) {
				continue
			}
		} else if ok && alive(pid, ownerStart) {
			continue
		} else if !ok && alive(pid, 0) {
			continue
		}
		for _, g := range readGroups(dir) {
			if st, ok := procStat(g[0]); ok && g[1] != 0 && st.start != uint64(g[1]) {
				continue // the number names another process now
			}
			_ = syscall.Kill(-g[0], syscall.SIGKILL)
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

func readGroups(dir string) [][2]int {
	f, err := os.Open(filepath.Join(dir, "pids"))
	if err != nil {
		return nil
	}
	defer f.Close()
	var gs [][2]int
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		x := strings.Fields(sc.Text())
		if len(x) != 2 {
			continue
		}
		pg, err1 := strconv.Atoi(x[0])
		st, err2 := strconv.Atoi(x[1])
		if err1 == nil && err2 == nil && pg > 1 {
			gs = append(gs, [2]int{pg, st})
		}
	}
	return gs
}

func alive(pid int, start uint64) bool {
	if st, ok := procStat(pid); ok {
		return st.state != 'Z' && (start == 0 || st.start == start)
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

func startTime(pid int) uint64 {
	st, _ := procStat(pid)
	return st.start
}

type stat struct {
	state byte
	start uint64
}

func procStat(pid int) (stat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return stat{}, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return stat{}, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return stat{}, false
	}
	start, _ := strconv.ParseUint(f[19], 10, 64)
	return stat{state: f[0][0], start: start}, true
}
