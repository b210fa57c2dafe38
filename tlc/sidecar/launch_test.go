package sidecar

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/internal/testutil"
	"github.com/modelfuzz/modelfuzz/tlc/sim"
)

func killProcess(t *testing.T, pid int, sig syscall.Signal) {
	t.Helper()
	require.NotZero(t, pid)
	require.NoError(t, syscall.Kill(pid, sig))
}

// waitStopped waits until the kernel reports pid stopped: a signal is
// delivered asynchronously, and a busy machine can let a request through
// before it takes effect.
func waitStopped(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return // not Linux: nothing to wait for
		}
		if i := strings.LastIndexByte(string(b), ')'); i >= 0 && i+2 < len(b) && (b[i+2] == 'T' || b[i+2] == 't') {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("process %d did not stop", pid)
}

func TestLaunchRestartsAKilledSidecar(t *testing.T) {
	p := launch(t, LaunchOptions{}, microbenchArgs()...)
	ctx := context.Background()
	req := &sim.Request{Actions: microbenchTrace(60, 2), States: boolp(false)}
	first, err := p.Simulate(ctx, req)
	require.NoError(t, err)
	require.Nil(t, first.Divergence)

	pid := p.PID()
	killProcess(t, pid, syscall.SIGKILL)
	again, err := p.Simulate(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, first, again)
	assert.Equal(t, 1, p.Restarts())
	assert.NotEqual(t, pid, p.PID())

	// Killed between requests, when the supervisor may already know.
	pid = p.PID()
	killProcess(t, pid, syscall.SIGKILL)
	time.Sleep(100 * time.Millisecond)
	_, err = p.Simulate(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, 2, p.Restarts())
}

func TestLaunchConcurrentRequestsSurviveAKill(t *testing.T) {
	p := launch(t, LaunchOptions{}, microbenchArgs()...)
	ctx := context.Background()
	req := &sim.Request{Actions: microbenchTrace(120, 2), States: boolp(false)}
	want, err := InProc{newSim(t, "microbench.tla", microbenchConsts...)}.Simulate(ctx, req)
	require.NoError(t, err)

	const workers = 8
	var (
		done  = make(chan struct{})
		calls atomic.Int64
		wg    sync.WaitGroup
		mu    sync.Mutex
		errs  []error
	)
	for range workers {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				res, err := p.Simulate(ctx, req)
				if err == nil && !assert.ObjectsAreEqual(want, res) {
					err = assert.AnError
				}
				if err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
				calls.Add(1)
			}
		})
	}
	waitCalls := func(n int64) {
		deadline := time.Now().Add(30 * time.Second)
		for calls.Load() < n && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		require.GreaterOrEqual(t, calls.Load(), n)
	}
	waitCalls(50)
	killProcess(t, p.PID(), syscall.SIGKILL)
	waitCalls(calls.Load() + 100)
	close(done)
	wg.Wait()
	assert.Empty(t, errs)
	assert.Equal(t, 1, p.Restarts(), "one kill, one restart")
}

func TestLaunchRestartsAHungSidecar(t *testing.T) {
	p := launch(t, LaunchOptions{RequestTimeout: 300 * time.Millisecond}, microbenchArgs()...)
	ctx := context.Background()
	req := &sim.Request{Actions: microbenchTrace(20, 2)}
	killProcess(t, p.PID(), syscall.SIGSTOP)
	waitStopped(t, p.PID())
	res, err := p.Simulate(ctx, req)
	require.NoError(t, err)
	assert.Nil(t, res.Divergence)
	assert.Equal(t, 1, p.Restarts())
}

func TestLaunchDoesNotRetryAnswers(t *testing.T) {
	p := launch(t, LaunchOptions{}, append(microbenchArgs(), "--max-body", "200")...)
	ctx := context.Background()
	_, err := p.Simulate(ctx, &sim.Request{Actions: microbenchTrace(20, 2)})
	var se *StatusError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 413, se.Code)

	// An unknown action is an answer too: a divergence, not an error.
	res, err := p.Simulate(ctx, &sim.Request{Actions: []sim.Action{act("Nope")}})
	require.NoError(t, err)
	assert.Equal(t, &sim.Divergence{Index: 0, Action: "Nope", Reason: `the model has no action "Nope"`}, res.Divergence)
	assert.Equal(t, 0, p.Restarts())

	h, err := p.Health(ctx)
	require.NoError(t, err)
	assert.Equal(t, "microbench", h.Model)
	assert.EqualValues(t, 2, h.Requests)
	m, err := p.Model(ctx)
	require.NoError(t, err)
	assert.Equal(t, "microbench", m.Module)
}

func TestLaunchGivesUpAfterThreeRestarts(t *testing.T) {
	for _, mode := range []string{"hang", "crash"} {
		t.Run(mode, func(t *testing.T) {
			t.Setenv(fakeEnv, mode)
			p, err := Launch(context.Background(), LaunchOptions{Binary: os.Args[0], RequestTimeout: 200 * time.Millisecond})
			require.NoError(t, err)
			defer p.Close()
			_, err = p.Simulate(context.Background(), &sim.Request{Actions: microbenchTrace(5, 2)})
			require.Error(t, err)
			assert.Contains(t, err.Error(), "gave up after 3 restarts")
			assert.Equal(t, 3, p.Restarts())
		})
	}
}

func TestLaunchStopsRetryingWhenTheCallerGivesUp(t *testing.T) {
	t.Setenv(fakeEnv, "hang")
	p, err := Launch(context.Background(), LaunchOptions{Binary: os.Args[0], RequestTimeout: time.Minute})
	require.NoError(t, err)
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err = p.Simulate(ctx, &sim.Request{})
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, 0, p.Restarts(), "the caller's deadline is not the sidecar's fault")
}

func TestLaunchErrors(t *testing.T) {
	needBinary(t)
	ctx := context.Background()
	var stderr bytes.Buffer
	_, err := Launch(ctx, LaunchOptions{Binary: binary, Args: []string{"tlc", "serve", "--model", "nope.tla"}, Stderr: &stderr})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "exited before it was ready")
	assert.Contains(t, err.Error(), "modelfuzz: model nope.tla: no such file")
	assert.NotContains(t, err.Error(), "\n")
	assert.Contains(t, stderr.String(), "no such file")

	if _, err := exec.LookPath("sh"); err == nil {
		start := time.Now()
		_, err = Launch(ctx, LaunchOptions{Binary: "sh", Args: []string{"-c", "echo warming up >&2; exec sleep 30"}, StartTimeout: 300 * time.Millisecond})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "was not ready within 300ms: warming up")
		assert.Less(t, time.Since(start), 10*time.Second, "the hung process is killed")
	}

	_, err = Launch(ctx, LaunchOptions{Binary: "/nonexistent/modelfuzz"})
	require.Error(t, err)
}

func TestCloseStopsTheSidecar(t *testing.T) {
	p := launch(t, LaunchOptions{}, microbenchArgs()...)
	pid := p.PID()
	require.NoError(t, p.Close())
	assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "terminated and reaped")
	_, err := p.Simulate(context.Background(), &sim.Request{})
	assert.ErrorIs(t, err, ErrClosed)
	require.NoError(t, p.Close())
}

func TestServeCommandOutput(t *testing.T) {
	needBinary(t)
	// Run by hand: no token in the environment, so one is made and shown;
	// stdout has the ready line only, even when the model prints.
	cmd := exec.Command(binary, "tlc", "serve", "--model", "testdata/counter.tla")
	cmd.Env = append(os.Environ(), TokenEnv+"=")
	var stdout, stderr testutil.SyncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Start())
	defer cmd.Process.Kill()
	var url string
	require.Eventually(t, func() bool {
		line, ok := bytes.CutSuffix(stdout.Bytes(), []byte("\n"))
		url = string(bytes.TrimPrefix(line, []byte(ReadyPrefix)))
		return ok
	}, 20*time.Second, 10*time.Millisecond)
	assert.Regexp(t, `^http://127\.0\.0\.1:\d+$`, url)
	m := regexpToken.FindSubmatch(stderr.Bytes())
	require.NotNil(t, m, stderr.String())
	c := NewClient(url, string(m[1]), 10*time.Second)
	res, err := c.Simulate(context.Background(), &sim.Request{Actions: []sim.Action{act("Shout")}})
	require.NoError(t, err)
	assert.Nil(t, res.Divergence)

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, cmd.Wait(), "a clean exit on SIGTERM")
	assert.Equal(t, ReadyPrefix+url+"\n", stdout.String())
	assert.Contains(t, stderr.String(), "hello from the model")
}

func TestServeRefusesNonLoopback(t *testing.T) {
	needBinary(t)
	out, err := exec.Command(binary, "tlc", "serve", "--model", "microbench.tla", "--addr", "0.0.0.0:0").CombinedOutput()
	require.Error(t, err)
	assert.Equal(t, "modelfuzz: --addr: address \"0.0.0.0:0\": 0.0.0.0 is not a loopback address: the sidecar listens on loopback only\n", string(out))
}
