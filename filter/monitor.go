package filter

import (
	"fmt"
	"slices"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// Fate is what the filters decided for a message.
type Fate int

const (
	// Offer: the message is left to the search (the default).
	Offer Fate = iota
	// Drop: the message is lost; the driver drops it as soon as it is pending.
	Drop
	// Hold: the message is kept in a set until a release or reorder.
	Hold
	// Delay: the message is not offered until a number of steps ran.
	Delay
	// Duplicate: the message is received twice; the driver duplicates it
	// once (then calls Duplicated) and offers both copies.
	Duplicate
)

var fateNames = [...]string{"offer", "drop", "hold", "delay", "duplicate"}

func (f Fate) String() string { return fateNames[f] }

// ModelFunc answers a model predicate of the test (an index into
// Test.Models) in the model state the execution has reached.
type ModelFunc func(i int) (bool, error)

// Monitor runs one test on one execution: it is told every event of the
// trace in order (Observe) and keeps what the filters decided. It is the
// thesis's monitor: its context (counters, message sets), the scenario's
// state, and the fates of the messages.
type Monitor struct {
	t        *Test
	counters map[string]int64
	sets     map[string][]int // message ids, in the order they were held
	fates    map[int]fate
	released []int // message ids to deliver before anything else, in order
	steps    []schedule.Step
	state    string
	accepted bool
	// rejectedAt is the step at which the scenario entered its rejecting
	// state; -1 while it has not.
	rejectedAt int
	model      ModelFunc
	fired      []int // how many times each filter acted
}

type fate struct {
	f     Fate
	until int // Delay: the first step at which the message is offered again
}

// NewMonitor starts a monitor for one execution. model answers the test's
// model predicates; it may be nil when the test has none.
func (t *Test) NewMonitor(model ModelFunc) *Monitor {
	m := &Monitor{t: t, counters: map[string]int64{}, sets: map[string][]int{}, fates: map[int]fate{},
		model: model, fired: make([]int, len(t.Filters)), rejectedAt: -1}
	if len(t.States) > 0 {
		m.state = t.States[0]
		m.accepted = t.Accept == m.state
	}
	return m
}

// Observe feeds the next event of the trace. The filters are tried in
// order and the first whose condition holds acts; then the scenario takes
// the first move out of its state whose condition holds. An error is a
// model predicate that could not be evaluated.
func (m *Monitor) Observe(ev *schedule.Event) error {
	for i := range m.t.Filters {
		f := &m.t.Filters[i]
		ok, err := m.holds(f.Cond, ev)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		m.fired[i]++
		for _, a := range f.Actions {
			m.act(a, ev)
		}
		break
	}
	for i := range m.t.Moves {
		mv := &m.t.Moves[i]
		if mv.From != m.state {
			continue
		}
		ok, err := m.holds(mv.Cond, ev)
		if err != nil {
			return err
		}
		if ok {
			m.state = mv.To
			if m.state == m.t.Accept {
				m.accepted = true
			}
			if m.state == m.t.Reject && m.rejectedAt < 0 {
				m.rejectedAt = ev.Step
			}
			break
		}
	}
	return nil
}

func (m *Monitor) act(a Action, ev *schedule.Event) {
	proc := a.Proc
	if proc < 0 {
		proc = ev.Node
	}
	switch a.Op {
	case "drop":
		m.fates[ev.Msg] = fate{f: Drop}
	case "deliver":
		m.fates[ev.Msg] = fate{f: Offer}
	case "duplicate":
		m.fates[ev.Msg] = fate{f: Duplicate}
	case "delay":
		m.fates[ev.Msg] = fate{f: Delay, until: ev.Step + 1 + a.N}
	case "hold":
		m.fates[ev.Msg] = fate{f: Hold}
		m.sets[a.Name] = append(m.sets[a.Name], ev.Msg)
	case "release", "reorder":
		ids := m.sets[a.Name]
		if a.Op == "reorder" {
			slices.Reverse(ids)
		}
		for _, id := range ids {
			m.fates[id] = fate{f: Offer}
		}
		m.released = append(m.released, ids...)
		m.sets[a.Name] = nil
	case "crash":
		m.steps = append(m.steps, schedule.Step{Process: proc, Action: schedule.Crash})
	case "restart":
		m.steps = append(m.steps, schedule.Step{Process: proc, Action: schedule.Restart})
	case "timeout":
		m.steps = append(m.steps, schedule.Step{Process: proc, Action: schedule.Timeout})
	case "read":
		m.steps = append(m.steps, schedule.Step{Process: proc, Action: schedule.Read})
	case "transfer":
		m.steps = append(m.steps, schedule.Step{Process: proc, Action: schedule.TransferLeader, To: a.To})
	case "partition":
		set := a.Set
		if set == 0 && ev.Node >= 0 && ev.Node < 16 {
			set = 1 << ev.Node
		}
		m.steps = append(m.steps, schedule.Step{Action: schedule.Partition, Set: set})
	case "heal":
		m.steps = append(m.steps, schedule.Step{Action: schedule.Heal})
	case "incr":
		m.counters[a.Name]++
	case "reset":
		m.counters[a.Name] = 0
	}
}

// Fate says what becomes of message id at step (the index of the step
// about to run): a delayed message is offered again once its delay ran out.
func (m *Monitor) Fate(id, step int) Fate {
	f, ok := m.fates[id]
	if !ok {
		return Offer
	}
	if f.f == Delay && step >= f.until {
		delete(m.fates, id)
		return Offer
	}
	return f.f
}

// Duplicated records that the driver duplicated message id: both copies
// are offered from now on.
func (m *Monitor) Duplicated(id int) { delete(m.fates, id) }

// TakeReleased returns the messages a release or reorder freed since the
// last call, in the order the driver must deliver them (before anything
// the search would choose).
func (m *Monitor) TakeReleased() []int {
	r := m.released
	m.released = nil
	return r
}

// TakeSteps returns the steps the filters asked for since the last call
// (crash, restart, timeout, partition, heal), to run before anything the
// search would choose.
func (m *Monitor) TakeSteps() []schedule.Step {
	s := m.steps
	m.steps = nil
	return s
}

// State is the scenario's current state ("" without a scenario).
func (m *Monitor) State() string { return m.state }

// Satisfied reports whether the execution satisfied the scenario: it
// reached the accepting state (a test without a scenario is satisfied by
// every execution). A rejected execution may also be satisfied: it met the
// scenario and broke its property.
func (m *Monitor) Satisfied() bool { return len(m.t.States) == 0 || m.accepted }

// Rejected reports whether the execution entered the rejecting state, and
// at which step: the scenario's property failed there.
func (m *Monitor) Rejected() (bool, int) { return m.rejectedAt >= 0, m.rejectedAt }

// Counter is a counter's value.
func (m *Monitor) Counter(name string) int64 { return m.counters[name] }

// Held lists the messages held in set name, in the order they were held.
func (m *Monitor) Held(name string) []int { return slices.Clone(m.sets[name]) }

// Fired is how many times each filter acted, in the file's order.
func (m *Monitor) Fired() []int { return slices.Clone(m.fired) }

func (m *Monitor) holds(c *Cond, ev *schedule.Event) (bool, error) {
	switch c.Op {
	case "true":
		return true, nil
	case "and":
		ok, err := m.holds(c.L, ev)
		if err != nil || !ok {
			return false, err
		}
		return m.holds(c.R, ev)
	case "or":
		ok, err := m.holds(c.L, ev)
		if err != nil || ok {
			return ok, err
		}
		return m.holds(c.R, ev)
	case "not":
		ok, err := m.holds(c.L, ev)
		return !ok, err
	case "kind":
		return ev.Kind == c.Kind, nil
	case "model":
		if m.model == nil {
			return false, &Error{m.t.File, c.Pos, "model predicates need a model (run the test with --model)"}
		}
		ok, err := m.model(c.Model)
		if err != nil {
			return false, &Error{m.t.File, m.t.Models[c.Model].Pos, fmt.Sprintf("model predicate: %v", err)}
		}
		return ok, nil
	}
	v, ok := m.field(c, ev)
	if !ok {
		return false, nil
	}
	if c.Op == "in" {
		for _, w := range c.Values {
			if equal(v, w) {
				return true, nil
			}
		}
		return false, nil
	}
	w := c.Values[0]
	switch c.Cmp {
	case "==":
		return equal(v, w), nil
	case "!=":
		return !equal(v, w), nil
	}
	if v.IsStr {
		return false, nil
	}
	switch c.Cmp {
	case "<":
		return v.Int < w.Int, nil
	case "<=":
		return v.Int <= w.Int, nil
	case ">":
		return v.Int > w.Int, nil
	default:
		return v.Int >= w.Int, nil
	}
}

func equal(a, b Value) bool { return a.IsStr == b.IsStr && a.Int == b.Int && a.Str == b.Str }

// field is the value of the condition's left side for ev, and false when
// the event has no such field (a comparison on it does not hold).
func (m *Monitor) field(c *Cond, ev *schedule.Event) (Value, bool) {
	num := func(n int64) (Value, bool) { return Value{Int: n}, true }
	switch c.Field {
	case "count":
		return num(m.counters[c.Arg])
	case "size":
		return num(int64(len(m.sets[c.Arg])))
	case "state":
		return Value{Str: m.state, IsStr: true}, m.state != ""
	case "step":
		return num(int64(ev.Step))
	case "kind":
		return Value{Str: ev.Kind, IsStr: true}, true
	case "type":
		return Value{Str: ev.Type, IsStr: true}, true
	case "node":
		return num(int64(ev.Node))
	case "from", "to":
		var from, to int
		switch ev.Kind {
		case schedule.EvSend:
			from, to = ev.Node, ev.Peer
		case schedule.EvRecv, schedule.EvDuplicate:
			from, to = ev.Peer, ev.Node
		default:
			return Value{}, false
		}
		if c.Field == "from" {
			return num(int64(from))
		}
		return num(int64(to))
	}
	for _, a := range ev.Args {
		if a.Key == c.Field {
			if a.IsStr {
				return Value{Str: a.Str, IsStr: true}, true
			}
			return num(a.Int)
		}
	}
	return Value{}, false
}
