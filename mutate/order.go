package mutate

import (
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// The ordering mutations make, inside a kept input, the orderings the
// online strategies make in every execution and that random steps and
// the other operators almost never do: a message delivered from deep in
// an inbox (past Shape.MaxMessages, which bounds the deliver-one of a
// random step), one process starved while the others run (its deliveries
// held back for a stretch of steps, then one of its many waiting messages
// taken out of order), and a crash with its restart inside the window of
// a joint configuration change. Each is an input transformation: the
// mutant is an ordinary input that replays the same way.
type OrderOp int

// The ordering mutations.
const (
	DeepDeliverOne OrderOp = iota // a deliver-one whose k reaches deep into the inbox
	Starve                        // hold one process's deliveries for a stretch of steps, then take a deep message
	CrashInJoint                  // a crash and its restart between a joint conf change and the step that leaves it
	numOrderOps
)

var orderNames = [...]string{"deep-deliver-one", "starve", "crash-in-joint"}

func (o OrderOp) String() string {
	if o >= 0 && o < numOrderOps {
		return orderNames[o]
	}
	return "unknown"
}

// The bounds of the ordering mutations' draws.
const (
	// DeepK bounds a deep deliver-one's k; the adapters count k modulo the
	// deliverable messages, so any message of an inbox of up to DeepK is
	// as likely (a term-zero bug of etcd raft took the 19th).
	DeepK = 32
	// starveMin and starveMax bound the steps a process is starved for.
	starveMin, starveMax = 8, 60
	// jointSpan bounds how far after a conf change a crash and its
	// restart fall when the input never leaves the joint configuration.
	jointSpan = 30
)

// Reorder returns a copy of in with one ordering mutation applied (which
// one drawn among those that apply), after step keep when keep is positive
// and half the time (so that the prefix that reached a rare state stays
// whole), and half the time one ordinary round of mutation on top. The
// copy keeps the generator's invariants: at most Shape.Steps steps (the
// last ones go), at most Shape.CrashQuota crashes. in is not modified.
func (m *Mutator) Reorder(r *rand.Rand, in *schedule.Input, keep int) *schedule.Input {
	out := in.Clone()
	from := 0
	if keep > 0 && keep < len(out.Steps) && r.IntN(2) == 0 {
		from = keep
	}
	for tries := 0; tries < 6; tries++ {
		if m.ApplyOrder(r, out, OrderOp(r.IntN(int(numOrderOps))), from) {
			break
		}
	}
	if len(out.Steps) > m.shape.Steps {
		out.Steps = out.Steps[:m.shape.Steps]
	}
	if r.IntN(2) == 0 {
		m.Apply(r, out, Op(r.IntN(int(numOps))))
	}
	return out
}

// ApplyOrder applies one ordering mutation in place, at or after step
// from, and reports whether it changed anything (a crash in a joint
// window needs crashes and conf changes to be drawn, and so on). The input
// may end up longer than Shape.Steps; Reorder trims it.
func (m *Mutator) ApplyOrder(r *rand.Rand, in *schedule.Input, op OrderOp, from int) bool {
	if m.spec.Processes < 1 || !m.g.Draws(schedule.DeliverOne) {
		return false
	}
	from = min(from, len(in.Steps))
	switch op {
	case DeepDeliverOne:
		p := r.IntN(m.spec.Processes)
		room := len(in.Steps) - from + 1
		if len(in.Steps) >= m.shape.Steps && room > 1 {
			room-- // not last in a full input: Reorder would trim it away
		}
		at := from + r.IntN(room)
		in.Steps = insert(in.Steps, at, m.deep(r, p))
		return true
	case Starve:
		return m.starve(r, in, from)
	case CrashInJoint:
		return m.crashInJoint(r, in, from)
	}
	return false
}

// deep is a deliver-one at p whose k reaches past the campaign's
// --max-messages.
func (m *Mutator) deep(r *rand.Rand, p int) schedule.Step {
	lo := max(m.shape.MaxMessages, 1)
	return schedule.Step{Process: p, Action: schedule.DeliverOne, K: lo + 1 + r.IntN(max(DeepK-lo, 1))}
}

// starve picks a process and a stretch of steps from step from; the
// process's deliveries (deliver and deliver-one) in the stretch move to
// just after it, in their order, and a deep deliver-one at the process
// goes first among them: the others run while its inbox fills, and then
// a message from deep in it overtakes those before it.
func (m *Mutator) starve(r *rand.Rand, in *schedule.Input, from int) bool {
	s := in.Steps
	if len(s)-from < 2 {
		return false
	}
	p := r.IntN(m.spec.Processes)
	span := starveMin + r.IntN(starveMax-starveMin+1)
	start := from + r.IntN(len(s)-from)
	end := min(start+span, len(s))
	var kept, held []schedule.Step
	for _, st := range s[start:end] {
		if st.Process == p && (st.Action == schedule.Deliver || st.Action == schedule.DeliverOne) {
			held = append(held, st)
			continue
		}
		kept = append(kept, st)
	}
	out := make([]schedule.Step, 0, len(s)+1)
	out = append(out, s[:start]...)
	out = append(out, kept...)
	out = append(out, m.deep(r, p))
	out = append(out, held...)
	out = append(out, s[end:]...)
	in.Steps = out
	return true
}

// crashInJoint puts a crash of a process and its restart inside the
// window of a joint configuration change: between a conf-change of two
// changes and the next conf-change (the one that leaves it, or jointSpan
// steps when none follows). With no such change at or after step from,
// one is inserted (entered by itself, "auto", half the time). An input at
// its crash quota moves one of its crashes, with its restart, into the
// window instead.
func (m *Mutator) crashInJoint(r *rand.Rand, in *schedule.Input, from int) bool {
	if !m.g.Draws(schedule.ConfChange) || !m.g.Draws(schedule.Crash) || !m.g.Draws(schedule.Restart) || m.spec.Processes < 2 {
		return false
	}
	s := in.Steps
	var joints []int
	for i := from; i < len(s); i++ {
		if s[i].Action == schedule.ConfChange && isJoint(s[i].Conf) {
			joints = append(joints, i)
		}
	}
	var c int
	if len(joints) > 0 && r.IntN(4) != 0 {
		c = joints[r.IntN(len(joints))]
	} else {
		c = from + r.IntN(len(s)-from+1)
		conf := jointConf(r, m.spec.Processes)
		s = insert(s, c, schedule.Step{Process: r.IntN(m.spec.Processes), Action: schedule.ConfChange, Conf: conf})
		if !strings.HasPrefix(conf, "auto ") {
			// Left by a step of its own, some steps on.
			leave := c + 1 + r.IntN(jointSpan)
			s = insert(s, min(leave, len(s)), schedule.Step{Process: r.IntN(m.spec.Processes), Action: schedule.ConfChange, Conf: "leave"})
		}
	}
	end := min(c+1+jointSpan, len(s))
	for i := c + 1; i < len(s); i++ {
		if s[i].Action == schedule.ConfChange {
			end = i
			break
		}
	}
	crashes := 0
	for _, st := range s {
		if st.Action == schedule.Crash {
			crashes++
		}
	}
	p := r.IntN(m.spec.Processes)
	crash := schedule.Step{Process: p, Action: schedule.Crash}
	if crashes >= m.shape.CrashQuota {
		// Take one crash (and its restart) out, to put it in the window.
		var idx []int
		for i := range s {
			if s[i].Action == schedule.Crash {
				idx = append(idx, i)
			}
		}
		if len(idx) == 0 {
			in.Steps = s
			return false
		}
		k := idx[r.IntN(len(idx))]
		crash = s[k]
		p = crash.Process
		rs := -1
		for i := k + 1; i < len(s); i++ {
			if s[i].Process == p && s[i].Action == schedule.Restart {
				rs = i
				break
			}
		}
		if rs >= 0 {
			s = remove(s, rs)
			if rs < c {
				c--
			}
			if rs < end {
				end--
			}
		}
		s = remove(s, k)
		if k < c {
			c--
		}
		if k < end {
			end--
		}
	}
	// The crash falls after the conf change, before the window's end; the
	// restart after it, inside the window or up to a few steps past it.
	at := c + 1 + r.IntN(max(end-c, 1))
	s = insert(s, at, crash)
	rat := at + 1 + r.IntN(max(end-at+4, 1))
	s = insert(s, min(rat, len(s)), schedule.Step{Process: p, Action: schedule.Restart})
	in.Steps = s
	return true
}

// isJoint reports whether a conf-change's request enters a joint
// configuration (several changes at once).
func isJoint(conf string) bool {
	c, err := schedule.ParseConf(conf)
	return err == nil && len(c.Ops) > 1
}

// jointConf draws a change of two processes' roles at once, which enters
// a joint configuration, left by itself half the time ("auto").
func jointConf(r *rand.Rand, n int) string {
	ops := []string{"add-voter", "add-learner", "remove"}
	p := r.IntN(n)
	q := (p + 1 + r.IntN(n-1)) % n
	c := ops[r.IntN(len(ops))] + " " + strconv.Itoa(p) + ", " + ops[r.IntN(len(ops))] + " " + strconv.Itoa(q)
	if r.IntN(2) == 0 {
		return "auto " + c
	}
	return c
}

func insert(s []schedule.Step, at int, st schedule.Step) []schedule.Step {
	s = append(s, schedule.Step{})
	copy(s[at+1:], s[at:])
	s[at] = st
	return s
}

func remove(s []schedule.Step, at int) []schedule.Step {
	return append(s[:at], s[at+1:]...)
}
