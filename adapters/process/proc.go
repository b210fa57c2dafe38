package process

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// proc is one incarnation of a replica: an OS process leading its own
// process group.
type proc struct {
	cmd  *exec.Cmd
	pgid int
	reg  *registry
	done chan struct{} // closed when the process has exited and is reaped

	mu      sync.Mutex
	killed  bool // we sent the SIGKILL: the exit is expected
	exitErr error
}

// startProc starts argv in its own process group with its output going to
// out.
func startProc(reg *registry, argv []string, env []string, dir string, out *output) (*proc, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Dir = dir
	cmd.Stdout = out.stdout
	cmd.Stderr = out.stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// The group is killed as a whole, but a stray process outside it could
	// hold the output pipes open; don't wait for it forever.
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proc{cmd: cmd, pgid: cmd.Process.Pid, reg: reg, done: make(chan struct{})}
	if err := reg.add(p.pgid); err != nil {
		_ = syscall.Kill(-p.pgid, syscall.SIGKILL)
		_ = cmd.Wait()
		return nil, err
	}
	go p.wait()
	return p, nil
}

func (p *proc) wait() {
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

// kill sends SIGKILL to the process group and waits until the leader is
// reaped.
func (p *proc) kill() {
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

// exited reports whether the process has exited, and whether we killed it.
func (p *proc) exited() (exited, killed bool) {
	select {
	case <-p.done:
	default:
		return false, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return true, p.killed
}

// exitStatus describes how the process ended: "status 2", "signal killed".
func (p *proc) exitStatus() string {
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

// output is the captured stdout and stderr of a replica over one
// execution (every incarnation), each capped.
type output struct {
	stdout, stderr *capBuffer
}

func newOutput(limit int) *output {
	return &output{stdout: &capBuffer{limit: limit}, stderr: &capBuffer{limit: limit}}
}

// mark writes a separator line to both streams (a restart).
func (o *output) mark(s string) {
	line := "--- modelfuzz: " + s + " ---\n"
	_, _ = o.stdout.Write([]byte(line))
	_, _ = o.stderr.Write([]byte(line))
}

// capBuffer keeps the last limit bytes written to it: the end of a log is
// where a crash shows.
type capBuffer struct {
	mu      sync.Mutex
	limit   int
	buf     []byte
	dropped int64
}

func (b *capBuffer) Write(p []byte) (int, error) {
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
func (b *capBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dropped == 0 {
		return string(b.buf)
	}
	return fmt.Sprintf("[... %d earlier bytes dropped ...]\n%s", b.dropped, b.buf)
}

// Output is what one replica printed during an execution, over all its
// incarnations (restarts are marked with a "--- modelfuzz: restart ---"
// line), each stream cut to its last Options.OutputLimit bytes.
type Output struct {
	Process int    `json:"process"`
	Stdout  string `json:"stdout"`
	Stderr  string `json:"stderr"`
}

// formatOutputs renders the outputs for a failure's detail.
func formatOutputs(outs []Output) string {
	var b strings.Builder
	for _, o := range outs {
		for _, s := range []struct{ name, text string }{{"stdout", o.Stdout}, {"stderr", o.Stderr}} {
			fmt.Fprintf(&b, "== n%d %s ==\n", o.Process+1, s.name)
			b.WriteString(s.text)
			if s.text != "" && !strings.HasSuffix(s.text, "\n") {
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

// environ is the replica's environment: the fuzzer's, the cluster file's
// additions, and the two variables of the interception API.
func environ(extra []string, url string, id int) []string {
	env := append(os.Environ(), extra...)
	return append(env, "MODELFUZZ_URL="+url, "MODELFUZZ_ID="+strconv.Itoa(id))
}
