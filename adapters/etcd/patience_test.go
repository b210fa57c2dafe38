package etcd

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestParseStall(t *testing.T) {
	d, ok := parseStall([]byte("some avg10=0.08 avg60=2.68 avg300=26.42 total=45083124149\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"))
	require.True(t, ok)
	require.Equal(t, 45083124149*time.Microsecond, d)
	for _, bad := range []string{"", "full avg10=0 total=5\n", "some avg10=0.08 total=x\n", "some avg10=0.08\n", "some total=-3\n"} {
		_, ok := parseStall([]byte(bad))
		require.False(t, ok, "%q", bad)
	}
}

// Without stall figures a patience is its budget of wall time and never
// undecided; with them it lasts at most its limit.
func TestPatienceBounds(t *testing.T) {
	p := newPatienceFrom(20*time.Millisecond, func() (time.Duration, bool) { return 0, false })
	p.start = p.start.Add(-30 * time.Millisecond)
	require.True(t, p.expired())
	require.Equal(t, -1.0, p.starved())
	require.False(t, p.undecided())
	require.Contains(t, p.String(), "CPU pressure unknown")

	q := newPatience(time.Hour)
	q.start = time.Now().Add(-5 * time.Hour)
	require.True(t, q.expired(), "past its limit")
	q = newPatience(time.Hour)
	require.False(t, q.expired())
}

// A member that refuses connections is absent however starved the
// machine; one that answers late is not known to be.
func TestRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	c := newV3Client()
	_, err = c.status(t.Context(), addr)
	require.Error(t, err)
	require.True(t, refused(&lateMember{name: "n3", err: err}), "%v", err)
	require.True(t, refused(fmt.Errorf("members did not agree: %w", &lateMember{name: "n3", err: syscall.ECONNREFUSED})))
	require.False(t, refused(errors.New("#0 leader 1 applied 5 revision 2; #1 leader 0 applied 4 revision 2")))
	require.False(t, refused(&lateMember{name: "n2", err: fmt.Errorf("post: %w", errors.ErrUnsupported)}))
}

// A machine whose CPUs were always taken stretches the wait to its limit
// and leaves the check undecided; an idle one neither.
func TestPatienceStarved(t *testing.T) {
	var start time.Time
	always := func() (time.Duration, bool) { return time.Since(start), true }
	start = time.Now()
	p := newPatienceFrom(time.Minute, always)
	p.start = start.Add(-2 * time.Minute) // two budgets of wall time, all of it stalled
	p.stall0 = -2 * time.Minute
	require.False(t, p.expired(), "a starved budget is not spent")
	require.True(t, p.undecided())
	require.Contains(t, p.String(), "100%")
	p.start = start.Add(-4 * time.Minute)
	require.True(t, p.expired(), "past four budgets")

	idle := func() (time.Duration, bool) { return 0, true }
	q := newPatienceFrom(time.Minute, idle)
	q.start = q.start.Add(-61 * time.Second)
	require.True(t, q.expired())
	require.False(t, q.undecided())
	require.Contains(t, q.String(), " 0%")
}

func TestParsePreemptions(t *testing.T) {
	n, ok := parsePreemptions([]byte("Name:\tetcd\nvoluntary_ctxt_switches:\t1204\nnonvoluntary_ctxt_switches:\t87\n"))
	require.True(t, ok)
	require.Equal(t, int64(87), n)
	for _, bad := range []string{"", "voluntary_ctxt_switches:\t3\n", "nonvoluntary_ctxt_switches:\tx\n"} {
		_, ok := parsePreemptions([]byte(bad))
		require.False(t, ok, "%q", bad)
	}
	// This process's own threads are readable.
	_, ok = preemptions(os.Getpid())
	require.True(t, ok)
	_, ok = preemptions(1 << 30)
	require.False(t, ok)
}

// A process that spins beside as many spinners as there are CPUs is
// preempted; a stopped one is not, however loaded the machine.
func TestPreemptionsTellStarvedFromStopped(t *testing.T) {
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("no /proc on this system")
	}
	spin := func() *exec.Cmd {
		c := exec.Command("sh", "-c", "while :; do :; done")
		require.NoError(t, c.Start())
		t.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait() })
		return c
	}
	var spinners []*exec.Cmd
	for range runtime.NumCPU() + 1 {
		spinners = append(spinners, spin())
	}
	stopped := spin()
	require.NoError(t, stopped.Process.Signal(syscall.SIGSTOP))
	time.Sleep(50 * time.Millisecond)
	s0, ok := preemptions(spinners[0].Process.Pid)
	require.True(t, ok)
	p0, ok := preemptions(stopped.Process.Pid)
	require.True(t, ok)
	deadline := time.Now().Add(30 * time.Second)
	for {
		s1, _ := preemptions(spinners[0].Process.Pid)
		if s1-s0 >= minPreemptions {
			break
		}
		require.True(t, time.Now().Before(deadline), "a spinner among more spinners than CPUs was preempted %d times in 30 s", s1-s0)
		time.Sleep(50 * time.Millisecond)
	}
	p1, _ := preemptions(stopped.Process.Pid)
	require.Zero(t, p1-p0, "a stopped process was preempted")
}
