package etcd

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// A patience is a wait for the members (to start, to catch up) that a
// starved machine lengthens. etcd runs on real time: on a machine whose
// CPUs are taken by other work, a correct member can miss its heartbeats,
// lose its leader and answer its clients late, and a fixed wall-clock
// wait would report it as a member that did not come back. The kernel's
// CPU pressure stall information (/proc/pressure/cpu, Linux 4.20 and
// later) says for how long some runnable task waited for a CPU; a
// patience lasts budget of wall time during which no task waited, and at
// most limit of wall time in all. Where the kernel does not give the
// figure (another system, or PSI turned off), a patience is budget of
// wall time and starved reports -1: a late member is then a failure, as
// before, and the docs say so.
type patience struct {
	start  time.Time
	stall0 time.Duration
	psi    bool
	budget time.Duration
	limit  time.Duration
	stall  func() (time.Duration, bool) // cpuStall; a test's own
}

// patienceLimit is how many budgets of wall time a patience may last on
// a starved machine.
const patienceLimit = 4

// starvedShare is the share of a patience's wall time with a task waiting
// for a CPU above which a member that neither answers nor refuses makes
// the check undecided rather than failed.
const starvedShare = 0.5

func newPatience(budget time.Duration) *patience {
	return newPatienceFrom(budget, cpuStall)
}

func newPatienceFrom(budget time.Duration, stall func() (time.Duration, bool)) *patience {
	p := &patience{start: time.Now(), budget: budget, limit: patienceLimit * budget, stall: stall}
	p.stall0, p.psi = stall()
	return p
}

// expired reports whether the wait is over.
func (p *patience) expired() bool {
	wall := time.Since(p.start)
	if wall >= p.limit {
		return true
	}
	if !p.psi {
		return wall >= p.budget
	}
	s, ok := p.stall()
	if !ok {
		return wall >= p.budget
	}
	return wall-(s-p.stall0) >= p.budget
}

// starved is the share of the wall time so far during which some task
// waited for a CPU, or -1 when the kernel does not say.
func (p *patience) starved() float64 {
	if !p.psi {
		return -1
	}
	s, ok := p.stall()
	wall := time.Since(p.start)
	if !ok || wall <= 0 {
		return -1
	}
	return min(1, float64(s-p.stall0)/float64(wall))
}

// undecided reports whether a member that did not answer in time may
// only have been starved: the machine was starved for most of the wait.
func (p *patience) undecided() bool { return p.starved() >= starvedShare }

// String says how long the wait was and how starved the machine was.
func (p *patience) String() string {
	wall := time.Since(p.start).Round(100 * time.Millisecond)
	s := p.starved()
	if s < 0 {
		return "waited " + wall.String() + ", CPU pressure unknown"
	}
	return "waited " + wall.String() + ", a task waited for a CPU " + strconv.Itoa(int(s*100+0.5)) + "% of it"
}

// cpuStall reads the total time some task waited for a CPU from
// /proc/pressure/cpu's "some" line.
func cpuStall() (time.Duration, bool) {
	b, err := os.ReadFile("/proc/pressure/cpu")
	if err != nil {
		return 0, false
	}
	return parseStall(b)
}

// parseStall takes the total= field, in microseconds, of the "some" line.
func parseStall(b []byte) (time.Duration, bool) {
	for line := range bytes.Lines(b) {
		if !bytes.HasPrefix(line, []byte("some ")) {
			continue
		}
		for f := range bytes.FieldsSeq(line) {
			if v, ok := bytes.CutPrefix(f, []byte("total=")); ok {
				us, err := strconv.ParseInt(string(v), 10, 64)
				if err != nil || us < 0 {
					return 0, false
				}
				return time.Duration(us) * time.Microsecond, true
			}
		}
	}
	return 0, false
}

// minPreemptions is how many times the kernel must have taken a CPU from
// a member that still wanted it, over a wait, for the member to count as
// starved: a starved etcd member keeps being preempted; one that is hung
// (blocked, or stopped) is not, however loaded the machine.
const minPreemptions = 20

// preemptions sums nonvoluntary_ctxt_switches over the threads of
// process pid: the times the kernel took a CPU from one of them while it
// could still run.
func preemptions(pid int) (int64, bool) {
	tasks, err := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "status"))
	if err != nil || len(tasks) == 0 {
		return 0, false
	}
	var sum int64
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue // the thread ended
		}
		n, ok := parsePreemptions(b)
		if !ok {
			return 0, false
		}
		sum += n
	}
	return sum, true
}

func parsePreemptions(b []byte) (int64, bool) {
	for line := range bytes.Lines(b) {
		if v, ok := bytes.CutPrefix(line, []byte("nonvoluntary_ctxt_switches:")); ok {
			n, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
			return n, err == nil && n >= 0
		}
	}
	return 0, false
}
