package schedule

import (
	"math/rand/v2"
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

// Mutate returns a mutant of in: a copy with one to three mutations applied.
// The mutant keeps the generator's invariants: at most Shape.Steps steps,
// at least one step, at most Shape.CrashQuota crashes. in is not modified.
func (g *Generator) Mutate(r *rand.Rand, in *Input) *Input {
	out := in.Clone()
	n := 1
	for n < 3 && r.IntN(2) == 0 {
		n++
	}
	ops := int(numOps)
	if len(g.ext) == 0 {
		ops-- // ChangeParam has nothing to change: draw as before it existed
	}
	for applied, tries := 0, 0; applied < n && tries < 20; tries++ {
		if g.Apply(r, out, Op(r.IntN(ops))) {
			applied++
		}
	}
	return out
}

// Apply applies one mutation in place and reports whether it changed
// anything (a swap of two crash steps needs two crash steps, and so on).
func (g *Generator) Apply(r *rand.Rand, in *Input, op Op) bool {
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
		idx := indexes(s, Crash)
		if len(idx) >= 2 && r.IntN(2) == 0 {
			a, b := pair(r, len(idx))
			i, j := idx[a], idx[b]
			if s[i].Process == s[j].Process {
				return false
			}
			s[i].Process, s[j].Process = s[j].Process, s[i].Process
			return true
		}
		if len(idx) == 0 || g.spec.Processes < 2 {
			return false
		}
		i := idx[r.IntN(len(idx))]
		p := r.IntN(g.spec.Processes - 1)
		if p >= s[i].Process {
			p++
		}
		s[i].Process = p
		return true
	case SwapMessageCounts:
		idx := indexes(s, Deliver)
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
		idx := indexes(s, Deliver)
		if len(idx) == 0 || g.p.MaxMessages < 2 {
			return false
		}
		i := idx[r.IntN(len(idx))]
		m := 1 + r.IntN(g.p.MaxMessages-1)
		if m >= s[i].Messages {
			m++
		}
		s[i].Messages = m
		return true
	case InsertStep:
		if len(s) >= g.p.Steps {
			return false
		}
		crashes := len(indexes(s, Crash))
		step := g.randomStep(r, nil, &crashes)
		if step.Action == Deliver && g.restart && g.crash && r.IntN(8) == 0 {
			step = Step{Process: step.Process, Action: Restart}
		}
		at := r.IntN(len(s) + 1)
		s = append(s, Step{})
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
		if req := indexes(s, Request); len(req) > 0 && r.IntN(2) == 0 {
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
		idx := indexes(s, Crash)
		if len(idx) == 0 {
			return false
		}
		c := idx[r.IntN(len(idx))]
		rs := -1
		for k := c + 1; k < len(s); k++ {
			if s[k].Process == s[c].Process && s[k].Action == Restart {
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
		rest := make([]Step, 0, len(s))
		for k := range s {
			if k != c && k != rs {
				rest = append(rest, s[k])
			}
		}
		out := make([]Step, 0, len(s))
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
			if st := s[i]; st.K != 0 || st.N != 0 || st.Action == TransferLeader || st.Point != "" || st.Set != 0 || st.Conf != "" {
				idx = append(idx, i)
			}
		}
		if len(idx) == 0 {
			return false
		}
		i := idx[r.IntN(len(idx))]
		old := s[i]
		next := g.extStep(r, old.Process)
		for tries := 0; next.Action != old.Action && tries < 50; tries++ {
			next = g.extStep(r, old.Process)
		}
		if old.Action == Crash && len(g.spec.CrashPoints) > 0 {
			next = old
			next.Point = g.spec.CrashPoints[r.IntN(len(g.spec.CrashPoints))]
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

func indexes(s []Step, a Action) []int {
	var out []int
	for i := range s {
		if s[i].Action == a {
			out = append(out, i)
		}
	}
	return out
}

// move moves s[from] to position to, shifting the steps between.
func move(s []Step, from, to int) {
	x := s[from]
	if from < to {
		copy(s[from:], s[from+1:to+1])
	} else {
		copy(s[to+1:], s[to:from])
	}
	s[to] = x
}
