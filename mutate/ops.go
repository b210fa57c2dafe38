package mutate

import (
	"math/rand/v2"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// Op is one kind of mutation.
type Op int

// The mutations. The first three are the ModelFuzz chapter's; the others
// change the shape of the schedule.
const (
	SwapProcesses     Op = iota // swap the processes of two steps
	SwapCrashes                 // swap the processes of two crash steps, or move one crash to another process
	SwapMessageCounts           // swap the message counts of two deliver steps
	ChangeCount                 // draw a new message count for one deliver step
	InsertStep                  // insert a random step
	DeleteStep                  // delete a step
	MoveStep                    // move a step (a request, say) to another position
	MoveCrashPair               // move a crash together with the next restart of that process
	ChangeParam                 // draw new parameters for a step of a newer action (drop's k, a partition's set, ...)
	numOps
)

var opNames = [...]string{"swap-processes", "swap-crashes", "swap-message-counts", "change-count", "insert", "delete", "move", "move-crash-pair", "change-param"}

func (o Op) String() string {
	if o >= 0 && o < numOps {
		return opNames[o]
	}
	return "unknown"
}

// Mutator mutates the inputs of one system, drawing the steps it inserts
// and the parameters it changes with the system's generator.
type Mutator struct {
	g     *schedule.Generator
	spec  *schedule.SystemSpec
	shape schedule.Shape
}

// New returns the mutator of the inputs g makes.
func New(g *schedule.Generator) *Mutator {
	return &Mutator{g: g, spec: g.Spec(), shape: g.Shape()}
}

// Mutate returns a mutant of in: a copy with one to three mutations applied.
// The mutant keeps the generator's invariants: at most Shape.Steps steps,
// at least one step, at most Shape.CrashQuota crashes. in is not modified.
func (m *Mutator) Mutate(r *rand.Rand, in *schedule.Input) *schedule.Input {
	out := in.Clone()
	n := 1
	for n < 3 && r.IntN(2) == 0 {
		n++
	}
	ops := int(numOps)
	if !m.g.DrawsNewer() {
		ops-- // ChangeParam has nothing to change: draw as before it existed
	}
	for applied, tries := 0, 0; applied < n && tries < 20; tries++ {
		if m.Apply(r, out, Op(r.IntN(ops))) {
			applied++
		}
	}
	return out
}

// Apply applies one mutation in place and reports whether it changed
// anything (a swap of two crash steps needs two crash steps, and so on).
func (m *Mutator) Apply(r *rand.Rand, in *schedule.Input, op Op) bool {
	s := in.Steps
	switch op {
	case SwapProcesses:
		if len(s) < 2 {
			return false
		}
		i, j := pair(r, len(s))
		if s[i].Process == s[j].Process {
			return false
		}
		s[i].Process, s[j].Process = s[j].Process, s[i].Process
		return true
	case SwapCrashes:
		idx := indexes(s, schedule.Crash)
		if len(idx) >= 2 && r.IntN(2) == 0 {
			a, b := pair(r, len(idx))
			i, j := idx[a], idx[b]
			if s[i].Process == s[j].Process {
				return false
			}
			s[i].Process, s[j].Process = s[j].Process, s[i].Process
			return true
		}
		if len(idx) == 0 || m.spec.Processes < 2 {
			return false
		}
		i := idx[r.IntN(len(idx))]
		p := r.IntN(m.spec.Processes - 1)
		if p >= s[i].Process {
			p++
		}
		s[i].Process = p
		return true
	case SwapMessageCounts:
		idx := indexes(s, schedule.Deliver)
		if len(idx) < 2 {
			return false
		}
		a, b := pair(r, len(idx))
		i, j := idx[a], idx[b]
		if s[i].Messages == s[j].Messages {
			return false
		}
		s[i].Messages, s[j].Messages = s[j].Messages, s[i].Messages
		return true
	case ChangeCount:
		idx := indexes(s, schedule.Deliver)
		if len(idx) == 0 || m.shape.MaxMessages < 2 {
			return false
		}
		i := idx[r.IntN(len(idx))]
		m := 1 + r.IntN(m.shape.MaxMessages-1)
		if m >= s[i].Messages {
			m++
		}
		s[i].Messages = m
		return true
	case InsertStep:
		if len(s) >= m.shape.Steps {
			return false
		}
		crashes := len(indexes(s, schedule.Crash))
		step := m.g.RandomStep(r, nil, &crashes)
		if step.Action == schedule.Deliver && m.g.Draws(schedule.Restart) && m.g.Draws(schedule.Crash) && r.IntN(8) == 0 {
			step = schedule.Step{Process: step.Process, Action: schedule.Restart}
		}
		at := r.IntN(len(s) + 1)
		s = append(s, schedule.Step{})
		copy(s[at+1:], s[at:])
		s[at] = step
		in.Steps = s
		return true
	case DeleteStep:
		if len(s) < 2 {
			return false
		}
		at := r.IntN(len(s))
		in.Steps = append(s[:at], s[at+1:]...)
		return true
	case MoveStep:
		if len(s) < 2 {
			return false
		}
		// Requests are moved more often: their position relative to the
		// protocol's progress matters most.
		var from int
		if req := indexes(s, schedule.Request); len(req) > 0 && r.IntN(2) == 0 {
			from = req[r.IntN(len(req))]
		} else {
			from = r.IntN(len(s))
		}
		to := r.IntN(len(s) - 1)
		if to >= from {
			to++
		}
		move(s, from, to)
		return true
	case MoveCrashPair:
		idx := indexes(s, schedule.Crash)
		if len(idx) == 0 {
			return false
		}
		c := idx[r.IntN(len(idx))]
		rs := -1
		for k := c + 1; k < len(s); k++ {
			if s[k].Process == s[c].Process && s[k].Action == schedule.Restart {
				rs = k
				break
			}
		}
		if rs < 0 {
			return false
		}
		gap := rs - c
		to := r.IntN(len(s) - gap)
		if to == c {
			return false
		}
		crash, restart := s[c], s[rs]
		rest := make([]schedule.Step, 0, len(s))
		for k := range s {
			if k != c && k != rs {
				rest = append(rest, s[k])
			}
		}
		out := make([]schedule.Step, 0, len(s))
		out = append(out, rest[:to]...)
		out = append(out, crash)
		out = append(out, rest[to:to+gap-1]...)
		out = append(out, restart)
		out = append(out, rest[to+gap-1:]...)
		in.Steps = out
		return true
	case ChangeParam:
		var idx []int
		for i := range s {
			if st := s[i]; st.K != 0 || st.N != 0 || st.Action == schedule.TransferLeader || st.Point != "" || st.Set != 0 || st.Conf != "" {
				idx = append(idx, i)
			}
		}
		if len(idx) == 0 {
			return false
		}
		i := idx[r.IntN(len(idx))]
		old := s[i]
		next := m.g.NewerStep(r, old.Process)
		for tries := 0; next.Action != old.Action && tries < 50; tries++ {
			next = m.g.NewerStep(r, old.Process)
		}
		if old.Action == schedule.Crash && len(m.spec.CrashPoints) > 0 {
			next = old
			next.Point = m.spec.CrashPoints[r.IntN(len(m.spec.CrashPoints))]
		}
		if next.Action != old.Action || next == old {
			return false
		}
		s[i] = next
		return true
	}
	return false
}

func pair(r *rand.Rand, n int) (int, int) {
	i := r.IntN(n)
	j := r.IntN(n - 1)
	if j >= i {
		j++
	}
	return i, j
}

func indexes(s []schedule.Step, a schedule.Action) []int {
	var out []int
	for i := range s {
		if s[i].Action == a {
			out = append(out, i)
		}
	}
	return out
}

// move moves s[from] to position to, shifting the steps between.
func move(s []schedule.Step, from, to int) {
	x := s[from]
	if from < to {
		copy(s[from:], s[from+1:to+1])
	} else {
		copy(s[to+1:], s[to:from])
	}
	s[to] = x
}
