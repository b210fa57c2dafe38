package osproc

import (
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Proc is one incarnation of a process of the system under test: an OS
// process leading its own process group.
type Proc struct {
	cmd  *exec.Cmd
	pgid int
	reg  *Registry
	done chan struct{} // closed when the process has exited and is reaped

	mu      sync.Mutex
	killed  bool // we sent the SIGKILL: the exit is expected
	exitErr error
}

// Start starts argv in its own process group, in dir, with env as its
// whole environment and its output going to stdout and stderr, and records
// the group in reg.
func Start(reg *Registry, argv []string, env []string, dir string, stdout, stderr io.Writer) (*Proc, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Dir = dir
	cmd.Stdout = stdout
	cmd.Stderr = stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// The group is killed as a whole, but a stray process outside it could
	// hold the output pipes open; don't wait for it forever.
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Proc{cmd: cmd, pgid: cmd.Process.Pid, reg: reg, done: make(chan struct{})}
	if err := reg.add(p.pgid); err != nil {
		_ = syscall.Kill(-p.pgid, syscall.SIGKILL)
		_ = cmd.Wait()
		return nil, err
	}
	go p.wait()
	return p, nil
}

func (p *Proc) wait() {
	err := p.cmd.Wait()
	p.mu.Lock()
	p.exitErr = err
	killed := p.killed
	p.mu.Unlock()
	if !killed {
		// The leader exited by itself: children it left in its group die
		// with it. (The group's number cannot name another group while a
		// member lives, and a new group needs a new process with exactly
		// this pid to create it between the two calls.)
		_ = syscall.Kill(-p.pgid, syscall.SIGKILL)
	}
	p.reg.remove(p.pgid)
	close(p.done)
}

// Pgid is the process group's number (the leader's pid).
func (p *Proc) Pgid() int { return p.pgid }

// Done is closed when the process has exited and has been reaped.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Kill sends SIGKILL to the process group and waits until the leader is
// reaped.
func (p *Proc) Kill() {
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

// Exited reports whether the process has exited, and whether we killed it.
func (p *Proc) Exited() (exited, killed bool) {
	select {
	case <-p.done:
	default:
		return false, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return true, p.killed
}

// ExitStatus describes how the process ended: "status 2", "signal killed".
func (p *Proc) ExitStatus() string {
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

// Output is the captured stdout and stderr of one process of the system
// over one execution (every incarnation), each capped.
type Output struct {
	Stdout, Stderr *CapBuffer
}

// NewOutput keeps the last limit bytes of each stream.
func NewOutput(limit int) *Output {
	return &Output{Stdout: &CapBuffer{limit: limit}, Stderr: &CapBuffer{limit: limit}}
}

// Mark writes a separator line to both streams (a restart).
func (o *Output) Mark(s string) {
	line := "--- modelfuzz: " + s + " ---\n"
	_, _ = o.Stdout.Write([]byte(line))
	_, _ = o.Stderr.Write([]byte(line))
}

// CapBuffer keeps the last bytes written to it, up to its limit: the end
// of a log is where a crash shows.
type CapBuffer struct {
	mu      sync.Mutex
	limit   int
	buf     []byte
	dropped int64
}

// NewCapBuffer keeps the last limit bytes written to it.
func NewCapBuffer(limit int) *CapBuffer { return &CapBuffer{limit: limit} }

func (b *CapBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.limit; over > 0 {
		b.dropped += int64(over)
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return n, nil
}

// String returns the kept bytes, preceded by a note of how many were
// dropped.
func (b *CapBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dropped == 0 {
		return string(b.buf)
	}
	return fmt.Sprintf("[... %d earlier bytes dropped ...]\n%s", b.dropped, b.buf)
}

// Kept returns the kept bytes alone (a copy).
func (b *CapBuffer) Kept() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}

// FirstLine returns the first line of s that starts with one of the
// prefixes, cut to 160 bytes, and "" when there is none.
func FirstLine(s string, prefixes ...string) string {
	for _, line := range strings.Split(s, "\n") {
		for _, p := range prefixes {
			if strings.HasPrefix(line, p) {
				if len(line) > 160 {
					line = line[:160]
				}
				return line
			}
		}
	}
	return ""
}
