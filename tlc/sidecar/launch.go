package sidecar

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/modelfuzz/modelfuzz/tlc/sim"
)

// LaunchOptions say how to run the sidecar.
type LaunchOptions struct {
	// Binary is the modelfuzz executable (default: this one).
	Binary string
	// Args run the server, e.g. tlc serve --model microbench.tla.
	Args []string
	// StartTimeout bounds the start up to a healthy server (default 20 s).
	StartTimeout time.Duration
	// RequestTimeout bounds each request (default 30 s); a request that
	// takes longer counts as a hung sidecar, which is restarted.
	RequestTimeout time.Duration
	// Stderr receives the sidecar's stderr (default: dropped; its last
	// line goes into start errors anyway).
	Stderr io.Writer
	// Logger receives restarts (default: none).
	Logger hclog.Logger
	// Name names the server in errors (default: its command line).
	Name string
}

// maxRestarts bounds the restarts one request may cause.
const maxRestarts = 3

// Process is a supervised sidecar: a server subprocess that is restarted
// when it dies, hangs or cannot be reached, and the requests that failed
// with it run again. It is safe for concurrent use.
type Process struct {
	opt LaunchOptions

	mu       sync.Mutex // held during a restart, so that requests wait for it
	inst     *instance  // nil after a failed restart
	gen      uint64     // incremented at every restart, so one failure restarts once
	restarts int
	closed   bool
}

// instance is one run of the subprocess.
type instance struct {
	cmd     *exec.Cmd
	client  *Client
	stderr  *tailWriter
	done    chan struct{} // closed when the process has exited and been reaped
	waitErr error         // set before done is closed
}

// Launch starts the sidecar and waits until it is healthy.
func Launch(ctx context.Context, opt LaunchOptions) (*Process, error) {
	if opt.Binary == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("sidecar: finding the modelfuzz binary: %w", err)
		}
		opt.Binary = exe
	}
	if opt.StartTimeout <= 0 {
		opt.StartTimeout = 20 * time.Second
	}
	if opt.RequestTimeout <= 0 {
		opt.RequestTimeout = 30 * time.Second
	}
	if opt.Logger == nil {
		opt.Logger = hclog.NewNullLogger()
	}
	p := &Process{opt: opt, gen: 1}
	inst, err := p.start(ctx)
	if err != nil {
		return nil, err
	}
	p.inst = inst
	return p, nil
}

// start runs a new subprocess with a fresh token and waits for its ready
// line and a healthy answer.
func (p *Process) start(ctx context.Context) (*instance, error) {
	token := NewToken()
	cmd := exec.Command(p.opt.Binary, p.opt.Args...)
	// The sidecar must not outlive a fuzzer killed with SIGKILL: the kernel
	// kills it with its parent (Linux), and it watches its parent itself
	// (ParentEnv) where that is not available.
	cmd.Env = append(os.Environ(), TokenEnv+"="+token, ParentEnv+"="+strconv.Itoa(os.Getpid()))
	cmd.SysProcAttr = sidecarProcAttr()
	ready := &readyWriter{url: make(chan string, 1)}
	cmd.Stdout = ready
	inst := &instance{cmd: cmd, stderr: &tailWriter{w: p.opt.Stderr}, done: make(chan struct{})}
	cmd.Stderr = inst.stderr
	cmd.WaitDelay = time.Second
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("sidecar: starting %s: %w", p.opt.Binary, err)
	}
	go func() {
		inst.waitErr = cmd.Wait()
		close(inst.done)
	}()
	ctx, cancel := context.WithTimeout(ctx, p.opt.StartTimeout)
	defer cancel()
	fail := func(format string, args ...any) error {
		inst.kill()
		msg := fmt.Sprintf(format, args...)
		if last := inst.stderr.lastLine(); last != "" {
			msg += ": " + last
		}
		return errors.New("sidecar: " + msg)
	}
	name := p.opt.Name
	if name == "" {
		name = cmdLine(cmd)
	}
	var url string
	select {
	case url = <-ready.url:
	case <-inst.done:
		return nil, fail("%s exited before it was ready (%v)", name, inst.waitErr)
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fail("%s was not ready within %s", name, p.opt.StartTimeout)
		}
		return nil, fail("start of %s canceled", name)
	}
	inst.client = NewClient(url, token, p.opt.RequestTimeout)
	if _, err := inst.client.Health(ctx); err != nil {
		return nil, fail("%s at %s is not healthy (%v)", name, url, err)
	}
	p.opt.Logger.Debug("sidecar started", "pid", cmd.Process.Pid, "url", url)
	return inst, nil
}

func cmdLine(cmd *exec.Cmd) string {
	return strings.Join(cmd.Args, " ")
}

func (in *instance) exited() bool {
	select {
	case <-in.done:
		return true
	default:
		return false
	}
}

// exitedWithin reports whether the process exits within d.
func (in *instance) exitedWithin(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-in.done:
		return true
	case <-t.C:
		return false
	}
}

// kill stops the process at once and reaps it.
func (in *instance) kill() {
	in.cmd.Process.Kill()
	<-in.done
	if in.client != nil {
		in.client.CloseIdleConnections()
	}
}

// stop asks the process to terminate, waits up to grace, then kills it.
// The client's idle connections are closed first: the server's graceful
// shutdown waits for every connection to be idle, and a connection the
// client dialed but never used counts as busy on the server for 5 s.
func (in *instance) stop(grace time.Duration) {
	if in.client != nil {
		in.client.CloseIdleConnections()
	}
	if terminate(in.cmd.Process) == nil {
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-in.done:
		case <-t.C:
		}
	}
	in.kill()
}

// SimulateBatch is Simulate for several requests in one round trip, with
// the same restarts.
func (p *Process) SimulateBatch(ctx context.Context, reqs []*sim.Request) ([]*sim.Result, error) {
	var res []*sim.Result
	err := p.do(ctx, func(c *Client) (err error) {
		res, err = c.SimulateBatch(ctx, reqs)
		return err
	})
	return res, err
}

// Simulate runs req on the sidecar, restarting it (at most 3 times for
// this request) when it is dead, hung or unreachable; an error answer is
// returned as it is.
func (p *Process) Simulate(ctx context.Context, req *sim.Request) (*sim.Result, error) {
	var res *sim.Result
	err := p.do(ctx, func(c *Client) (err error) {
		res, err = c.Simulate(ctx, req)
		return err
	})
	return res, err
}

// Health asks the sidecar whether it is up (restarting it if not).
func (p *Process) Health(ctx context.Context) (*Health, error) {
	var h *Health
	err := p.do(ctx, func(c *Client) (err error) {
		h, err = c.Health(ctx)
		return err
	})
	return h, err
}

// Model describes the sidecar's model.
func (p *Process) Model(ctx context.Context) (*ModelInfo, error) {
	var m *ModelInfo
	err := p.do(ctx, func(c *Client) (err error) {
		m, err = c.Model(ctx)
		return err
	})
	return m, err
}

// ErrClosed is the error of a request to a Process after Close.
var ErrClosed = errors.New("sidecar: closed")

// do runs fn with the current server's client, restarting the server and
// running fn again when the server is gone.
func (p *Process) do(ctx context.Context, fn func(*Client) error) error {
	for attempt := 0; ; attempt++ {
		p.mu.Lock()
		inst, gen, closed := p.inst, p.gen, p.closed
		p.mu.Unlock()
		if closed {
			return ErrClosed
		}
		var err error
		if inst != nil && !inst.exited() {
			err = fn(inst.client)
			if err == nil || !transient(err) || ctx.Err() != nil {
				return err
			}
			// A connection cut by a dying process is seen before the
			// process is reaped: wait a moment so the cause names the exit.
			if inst.exitedWithin(250 * time.Millisecond) {
				err = fmt.Errorf("%w (the process exited: %v)", err, inst.waitErr)
			}
		} else if inst != nil {
			err = fmt.Errorf("sidecar: the process exited (%v)", inst.waitErr)
		} else {
			err = errors.New("sidecar: not running (its last restart failed)")
		}
		if attempt == maxRestarts {
			return fmt.Errorf("%w (gave up after %d restarts)", err, maxRestarts)
		}
		if err := p.restart(ctx, gen, err); err != nil {
			return err
		}
	}
}

// restart replaces the server of generation gen, unless another request
// has done so already.
func (p *Process) restart(ctx context.Context, gen uint64, cause error) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return ErrClosed
	}
	if p.gen != gen {
		return nil
	}
	p.gen++
	if p.inst != nil {
		p.inst.kill() // it may be alive but hung
		p.inst = nil
	}
	what := p.opt.Name
	if what == "" {
		what = "the sidecar"
	}
	p.opt.Logger.Warn("restarting "+what, "cause", cause)
	inst, err := p.start(ctx)
	if err != nil {
		return fmt.Errorf("%w (restarting after: %v)", err, cause)
	}
	p.inst = inst
	p.restarts++
	return nil
}

// Restarts counts the restarts since Launch.
func (p *Process) Restarts() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.restarts
}

// PID returns the current server's process id (0 when none runs).
func (p *Process) PID() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.inst == nil {
		return 0
	}
	return p.inst.cmd.Process.Pid
}

// URL returns the current server's base URL ("" when none runs).
func (p *Process) URL() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.inst == nil {
		return ""
	}
	return p.inst.client.URL()
}

// Close stops the sidecar: SIGTERM, then SIGKILL after 2 s. Requests
// after Close fail.
func (p *Process) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	if p.inst != nil {
		p.inst.stop(2 * time.Second)
		p.inst = nil
	}
	return nil
}

// readyWriter takes the server's stdout and reports the URL of its ready
// line; it drops everything else.
type readyWriter struct {
	url  chan string
	line []byte
	sent bool
}

func (w *readyWriter) Write(b []byte) (int, error) {
	n := len(b)
	for !w.sent && len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			if len(w.line) < 4096 {
				w.line = append(w.line, b...)
			}
			break
		}
		line := strings.TrimSpace(string(append(w.line, b[:i]...)))
		w.line, b = w.line[:0], b[i+1:]
		if url, ok := strings.CutPrefix(line, ReadyPrefix); ok {
			w.url <- url
			w.sent = true
		}
	}
	return n, nil
}

// tailWriter passes the server's stderr on and keeps its last line.
type tailWriter struct {
	w    io.Writer
	mu   sync.Mutex
	last string
	part []byte
}

func (t *tailWriter) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.w != nil {
		t.w.Write(b)
	}
	t.part = append(t.part, b...)
	for {
		i := bytes.IndexByte(t.part, '\n')
		if i < 0 {
			break
		}
		if l := strings.TrimSpace(string(t.part[:i])); l != "" {
			t.last = l
		}
		t.part = t.part[i+1:]
	}
	if len(t.part) > 4096 {
		t.part = t.part[len(t.part)-4096:]
	}
	return len(b), nil
}

func (t *tailWriter) lastLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if l := strings.TrimSpace(string(t.part)); l != "" {
		return l
	}
	return t.last
}
