package mapper

import (
	"fmt"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// Inverse is the way back of a mapper: from a model action with its
// parameters to the schedule steps that make the system take it. It is
// asked online, one action at a time, while a driver runs the steps on the
// system (schedule.Stepper): it sees what the system has enabled and the
// trace so far, so it can pick the very message an action handles among
// the ones the system sent, and let the system do what the model splits
// into actions of their own (a leader's commit after the answers that
// make it). Like a mapper, it is a pure function of what it is given.
type Inverse interface {
	// Prepare returns the path the driver should follow: path itself, or
	// an equivalent ordering (actions that commute in the model, moved so
	// that the system can take them in that order).
	Prepare(path []schedule.ModelAction) []schedule.ModelAction
	// Steps returns the steps to run next for action a, in the round-th
	// call for it (from 0; the driver runs the steps and asks again while
	// done is false, up to MaxRounds), given what the system has enabled
	// now and its trace so far. No steps and done true: the system takes
	// the action by itself. An error says the action cannot be taken
	// now; the driver goes on with the next.
	Steps(a schedule.ModelAction, round int, pending []schedule.Enabled, tr schedule.Trace) (steps []schedule.Step, done bool, err error)
}

// MaxRounds bounds the calls of Inverse.Steps for one action.
const MaxRounds = 8

// intParam reads an integer parameter of a.
func intParam(a schedule.ModelAction, name string) (int, error) {
	switch v := a.Params[name].(type) {
	case int64:
		return int(v), nil
	case int:
		return v, nil
	case float64:
		return int(v), nil
	}
	return 0, fmt.Errorf("%s: parameter %s is not an integer (%v)", a.Name, name, a.Params[name])
}

// pendingAt returns the enabled recv events at process p that satisfy ok,
// in the system's order.
func pendingAt(pending []schedule.Enabled, p int, ok func(e *schedule.Enabled) bool) []*schedule.Enabled {
	var out []*schedule.Enabled
	for i := range pending {
		e := &pending[i]
		if e.Process == p && ok(e) {
			out = append(out, e)
		}
	}
	return out
}

// MicrobenchInverse is the inverse of Microbench: the micro-benchmark's
// only steps are deliver (the head of a process's FIFO inbox; a process's
// first deliver starts it) and request (at the master).
type MicrobenchInverse struct{}

// Inverse returns the inverse of m.
func (m *Microbench) Inverse() Inverse { return MicrobenchInverse{} }

// Prepare moves every Terminate(r, w) as late as it can go: just before
// the last Execute of r that precedes r's Flush (to the end of the path
// when there is no Flush). The model lets the terminator's flush overtake
// the worker's chain; the system cannot, since the worker's next execute
// is already in its FIFO inbox when the flush arrives, so the flush
// arrives right before the execute after the next. Terminate commutes
// with Execute in the model (they change different fields of the
// request), so the path ends in the same state.
func (MicrobenchInverse) Prepare(path []schedule.ModelAction) []schedule.ModelAction {
	out := make([]schedule.ModelAction, 0, len(path))
	var moved []schedule.ModelAction
	var movedTo []int // where each of moved goes: before path[k]
	for i, a := range path {
		if a.Name != "Terminate" {
			continue
		}
		r, _ := intParam(a, "r")
		flush, lastExec := -1, -1
		for k := i + 1; k < len(path); k++ {
			b := path[k]
			br, _ := intParam(b, "r")
			if br != r {
				continue
			}
			if b.Name == "Execute" {
				lastExec = k
			}
			if b.Name == "Flush" {
				flush = k
				break
			}
		}
		at := len(path) // after everything: no flush follows
		if flush >= 0 {
			at = flush
			if lastExec >= 0 {
				at = lastExec
			}
		}
		moved, movedTo = append(moved, a), append(movedTo, at)
	}
	emit := func(k int) {
		for i, m := range moved {
			if movedTo[i] == k {
				out = append(out, m)
			}
		}
	}
	for k, a := range path {
		emit(k)
		if a.Name != "Terminate" {
			out = append(out, a)
		}
	}
	emit(len(path))
	return out
}

// The message each action of microbench.tla handles, by the process that
// receives it.
var microbenchMsg = map[string]string{
	"RecvRegister": "register", "RecvDone": "done", "Terminate": "terminate",
	"Execute": "execute", "Flush": "flush",
}

// Steps implements Inverse.
func (MicrobenchInverse) Steps(a schedule.ModelAction, _ int, pending []schedule.Enabled, tr schedule.Trace) ([]schedule.Step, bool, error) {
	deliver := func(p int) schedule.Step {
		return schedule.Step{Process: p, Action: schedule.Deliver, Messages: 1}
	}
	switch a.Name {
	case "Start":
		p, err := intParam(a, "p")
		if err != nil {
			return nil, false, err
		}
		if len(pendingAt(pending, p, func(e *schedule.Enabled) bool { return e.Kind == schedule.KindStart })) == 0 {
			return nil, false, fmt.Errorf("Start(%d): process %d has started", p, p)
		}
		return []schedule.Step{deliver(p)}, true, nil
	case "Reject", "Serve":
		v, err := intParam(a, "v")
		if err != nil {
			return nil, false, err
		}
		if len(pendingAt(pending, 0, func(*schedule.Enabled) bool { return true })) > 0 {
			return nil, false, fmt.Errorf("%s: the master's inbox holds messages the request would wait behind", a.Name)
		}
		return []schedule.Step{{Process: 0, Action: schedule.Request, Value: v}, deliver(0)}, true, nil
	}
	typ, ok := microbenchMsg[a.Name]
	if !ok {
		return nil, false, fmt.Errorf("microbench.tla has no action %s", a.Name)
	}
	p := 0
	switch a.Name {
	case "Terminate":
		p = 1
	case "Execute", "Flush":
		w, err := intParam(a, "w")
		if err != nil {
			return nil, false, err
		}
		p = w
	}
	head := pendingAt(pending, p, func(e *schedule.Enabled) bool { return e.Kind == schedule.KindRecv })
	if len(head) == 0 || head[0].Type != typ {
		got := "nothing"
		if len(head) > 0 {
			got = head[0].Type
		}
		return nil, false, fmt.Errorf("%s: process %d's next message is %s, not %s", a.Name, p, got, typ)
	}
	// The request (and task) it carries must be the action's: the
	// inboxes are FIFO, the model's handlers take any message.
	if send := sendsByID(tr)[head[0].ID]; send != nil {
		for _, k := range [][2]string{{"r", "req"}, {"k", "task"}} {
			want, ok := a.Params[k[0]]
			got, has := arg(send, k[1])
			if ok && has && fmt.Sprint(want) != fmt.Sprint(got) {
				return nil, false, fmt.Errorf("%s: process %d's next message is %s with %s %d, not %v", a.Name, p, typ, k[1], got, want)
			}
		}
	}
	return []schedule.Step{deliver(p)}, true, nil
}
