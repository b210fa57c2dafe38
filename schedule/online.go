package schedule

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
)

// Online scheduling: instead of running a stored input, a strategy looks at
// the events the system has enabled at each point (the messages waiting in
// the inboxes, the timers that may fire, the client requests and crashes the
// harness may still inject) and picks the next one. Every pick is an
// ordinary step, and the steps taken are recorded as an Input: executing
// that input replays the online execution byte for byte, so the corpus,
// replay, minimization and bug reports need nothing else.

// Stepper is a System that can also be driven one step at a time. Execute
// must be Begin, Step for every step, End: one code path, so that an input
// recorded online replays the same execution.
type Stepper interface {
	System
	// Begin starts a new execution from the system's initial state.
	Begin()
	// Step runs st as the next step of the execution, as Execute runs it.
	// It reports false when the execution has ended (a panic stopped the
	// system); later steps are not run.
	Step(st Step) bool
	// Pending appends to dst the events the system has enabled now, each
	// with the step that runs it: the messages deliverable to live
	// processes, and a system's own start events. Timers, requests and
	// crashes are the harness's (OnlineRun adds them).
	Pending(dst []Enabled) []Enabled
	// Trace is the execution's events so far (valid until the next call).
	Trace() Trace
	// End finishes the execution and returns it, as Execute does.
	End() *Execution
}

// HarnessErr is a Stepper whose harness can fail (real processes that do
// not start): Err, after End, is that failure, nil when the execution ran.
// An execution that failed so says nothing about the system.
type HarnessErr interface {
	Err() error
}

// StepperErr is the harness's failure in s's last execution, if s can
// fail so.
func StepperErr(s Stepper) error {
	if h, ok := s.(HarnessErr); ok {
		return h.Err()
	}
	return nil
}

// RunSteps runs the steps of in on s (Begin, Step until one ends the
// execution, End): the Execute of a Stepper, so that an input and an
// online run take the same path. The caller validates in. An execution
// whose trace passes MaxEvents is stopped after that step, with Limit set.
func RunSteps(s interface {
	Begin()
	Step(st Step) bool
	End() *Execution
	Trace() Trace
}, in *Input) *Execution {
	s.Begin()
	for i, st := range in.Steps {
		if !s.Step(st) {
			break
		}
		if n := len(s.Trace()); n > MaxEvents {
			ex := s.End()
			ex.Limit = &LimitError{Step: i, Events: n}
			return ex
		}
	}
	return s.End()
}

// LimitError is an execution stopped at MaxEvents: a limit of ours, not a
// failure of the system.
type LimitError struct {
	Step   int // the step that passed it
	Events int
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("the execution recorded %d events by step %d, more than the %d an execution may (schedule.MaxEvents): it was stopped there", e.Events, e.Step, MaxEvents)
}

// The kinds of enabled events.
const (
	KindRecv    = "recv"    // a message is received
	KindStart   = "start"   // a process starts (the micro-benchmark's first step of a worker)
	KindTimeout = "timeout" // the process's election timer fires
	KindRequest = "request" // a client request arrives
	KindRead    = "read"    // a client read arrives
	KindCrash   = "crash"   // the process crashes (within the crash quota)
	KindRestart = "restart" // a crashed process restarts
	// The network, membership and storage faults of the harness
	// (Harness.Faults):
	KindDrop       = "drop"        // a pending message is lost
	KindDuplicate  = "duplicate"   // a pending message gets a second copy (a new message)
	KindPartition  = "partition"   // the processes of a set are cut from the others
	KindHeal       = "heal"        // the partition ends
	KindTransfer   = "transfer"    // a process is asked to hand leadership to another
	KindConfChange = "conf-change" // a process is asked to change the configuration
	KindTick       = "tick"        // a process's clock advances by several ticks
	KindHold       = "hold-writes" // a process's storage holds its writes for a while
	// KindPersist: a process's held writes become durable (a system's
	// own event, enabled while it holds writes).
	KindPersist = "persist"
)

// Enabled is one event a strategy may schedule next.
type Enabled struct {
	// ID identifies the event within the execution for as long as it stays
	// enabled: a message's id (positive), or a number the driver gives the
	// harness's events (negative).
	ID      int
	Kind    string
	Process int    // where it happens: the receiver of a message
	From    int    // recv: the sender (-1: a client); otherwise -1
	Type    string // recv: the message type; otherwise the kind
	K       int    // recv: the message's position among the receiver's pending ones (1-based)
	Step    Step   // the step that runs it
	// DropStep and DupStep are, for a recv event, the steps that lose the
	// message and that put a second copy of it in the inbox; a zero
	// Action when the system cannot (the positions they name may differ
	// from K: a system counts held messages, or leaves some out).
	DropStep, DupStep Step
	// Target is, for a drop or duplicate of the harness, the ID of the
	// message's recv event.
	Target int
	// Cause is the ID of the event whose execution created this one (a
	// message is caused by the event during which its sender sent it at
	// the sender); 0 when none (the harness's events, a timer's message).
	Cause int
}

// Signature identifies an event across executions by what it is rather
// than when it happens: kind, process, sender and type (the taPCT paper
// identifies events by sender, receiver and message content).
func (e *Enabled) Signature() string {
	return e.Kind + "/" + strconv.Itoa(e.Process) + "/" + strconv.Itoa(e.From) + "/" + e.Type
}

// Chooser is an online strategy: it sees the enabled events at each point
// and picks the next. One Chooser serves one execution at a time.
type Chooser interface {
	// Start begins an execution with the random choices of r.
	Start(r *rand.Rand)
	// Choose picks the next event: an index into evs (never empty), and
	// whether the message is dropped instead of received (only for recv
	// events, on a system that supports drop).
	Choose(evs []Enabled) (i int, drop bool)
	// Executed tells the strategy the event ran (or its message was
	// dropped). The events it created appear in later calls' evs, with
	// Cause set to its ID.
	Executed(e Enabled)
	// Finish ends the execution; the strategy returns its quantities
	// (events, racy events, chains...) for OnlineStats.
	Finish() map[string]int
}

// Director is a Chooser that also runs steps of its own (a filter test's
// drops, duplicates, crashes, partitions): before each choice, OnlineRun
// shows it the enabled events and runs the steps it returns, recorded in
// the input like the others; stop ends the execution (nothing it allows
// is enabled).
type Director interface {
	Chooser
	Direct(evs []Enabled) (steps []Step, stop bool)
}

// Harness bounds what the driver injects besides the messages: client
// requests (Shape.Requests are offered, one at a time), as many client
// reads on systems that serve them, crashes (Shape.CrashQuota), election
// timeouts (Timeouts, on systems with a timer), network and membership
// faults (Faults of each kind), and the execution's length (Shape.Steps).
// Only actions of Shape.Actions are injected, when it is set.
type Harness struct {
	Shape
	Timeouts int
	// Faults is how many of each fault the driver may inject in one
	// execution, on a system that supports its action: drops and
	// duplicates of a pending message, partitions (each then healed when
	// the strategy picks the heal on offer), leadership transfers,
	// configuration changes, tick steps and held writes (each then made
	// durable when the strategy picks the system's persist event, or after
	// the steps the hold lasts). Each kind has one event on
	// offer at a time, drawn at random (the message, the set, the
	// processes, the change, the ticks) and kept until it runs or can no
	// longer run.
	Faults int
}

// OnlineRun builds one input online: from the system's initial state, it
// offers chooser the enabled events, runs the step of the one it picks,
// and records it, until Steps steps ran, nothing is enabled or the system
// failed. It returns the recorded input, its execution (as Execute would
// return for that input) and the chooser's quantities.
func OnlineRun(sys Stepper, ch Chooser, h Harness, r *rand.Rand) (*Input, *Execution, map[string]int) {
	return OnlineRunFrom(sys, ch, h, r, nil)
}

// OnlineRunFrom is OnlineRun after prefix: it runs the steps of prefix
// first (recorded as the input's first steps, counted against the
// harness's quotas: the requests, crashes, timeouts and faults they
// took, the processes they left crashed), then lets chooser pick the
// rest from the state they reached. A prefix that stops the system ends
// the execution there.
func OnlineRunFrom(sys Stepper, ch Chooser, h Harness, r *rand.Rand, prefix []Step) (*Input, *Execution, map[string]int) {
	d := newDriver(sys, h, r)
	ch.Start(r)
	sys.Begin()
	in := &Input{}
	for _, st := range prefix {
		if len(in.Steps) >= h.Steps {
			break
		}
		in.Steps = append(in.Steps, st)
		before := len(sys.Trace())
		if !sys.Step(st) {
			return in, sys.End(), ch.Finish()
		}
		d.replayed(st)
		d.followCrashes(sys.Trace()[before:])
	}
	// A crash of the prefix may be armed (a crash point) and happen later:
	// the driver then learns of crashes and restarts from the trace.
	armed := slices.ContainsFunc(prefix, func(st Step) bool { return st.Action == Crash && st.Point != "" })
	var evs []Enabled
	for len(in.Steps) < h.Steps {
		evs = d.enabled(evs[:0])
		if dir, ok := ch.(Director); ok {
			steps, stop := dir.Direct(evs)
			if stop {
				break
			}
			if len(steps) > 0 {
				if !directed(sys, in, steps, h.Steps) {
					break
				}
				continue
			}
		}
		if len(evs) == 0 {
			break
		}
		i, drop := ch.Choose(evs)
		e := evs[i]
		st := e.Step
		if drop {
			if e.Kind != KindRecv || e.DropStep.Action == "" {
				drop = false
			} else {
				st = e.DropStep
			}
		}
		in.Steps = append(in.Steps, st)
		before := len(sys.Trace())
		ok := sys.Step(st)
		d.took(e, drop)
		if !ok {
			break
		}
		d.created(e, drop, sys.Trace()[before:])
		if armed {
			d.followCrashes(sys.Trace()[before:])
		}
		ch.Executed(e)
	}
	return in, sys.End(), ch.Finish()
}

// directed runs a Director's steps, within the execution's length; it
// reports false when the system stopped.
func directed(sys Stepper, in *Input, steps []Step, limit int) bool {
	for _, st := range steps {
		if len(in.Steps) >= limit {
			return true
		}
		in.Steps = append(in.Steps, st)
		if !sys.Step(st) {
			return false
		}
	}
	return true
}

// driver keeps the harness's side of an online execution: its events, the
// quotas left, the causes of messages.
type driver struct {
	sys       Stepper
	spec      *SystemSpec
	h         Harness
	r         *rand.Rand
	requests  int // taken so far
	value     int // the largest request value a prefix's requests took (OnlineRunFrom)
	reqAt     int // the target of the request on offer (-1: not drawn yet)
	reads     int // taken so far
	readAt    int // the target of the read on offer
	readID    int
	actions   []Action // the actions the harness may inject (nil: every one)
	crashes   int      // taken
	timeouts  int      // taken
	crashed   []bool   // by the driver
	nextID    int      // the next harness event's id (negative, decreasing)
	timerID   []int    // the id of each process's timeout on offer (0: none yet)
	crashID   []int
	reqID     int
	cause     map[int]int // message id -> cause
	restartID []int
	// The faults on offer, one of each kind (Harness.Faults).
	faults [numFaults]fault
	cut    bool // a partition of the driver's is in force
}

// The kinds of fault, in the order they are offered.
const (
	fDrop = iota
	fDuplicate
	fPartition
	fTransfer
	fConfChange
	fTick
	fHold
	numFaults
)

var faultKinds = [numFaults]string{KindDrop, KindDuplicate, KindPartition, KindTransfer, KindConfChange, KindTick, KindHold}
var faultActions = [numFaults]Action{Drop, Duplicate, Partition, TransferLeader, ConfChange, Tick, HoldWrites}

// fault is one kind of fault: how many ran, and the one on offer.
type fault struct {
	taken int
	id    int  // the event on offer (0: none drawn)
	msg   int  // drop, duplicate: the message's id
	step  Step // partition, transfer, conf-change, tick: the drawn step
}

func newDriver(sys Stepper, h Harness, r *rand.Rand) *driver {
	spec := sys.Spec()
	n := spec.Processes
	actions, _ := ParseActions(h.Actions)
	return &driver{sys: sys, spec: spec, h: h, r: r, crashed: make([]bool, n), nextID: -1, actions: actions, readAt: -1,
		timerID: make([]int, n), crashID: make([]int, n), restartID: make([]int, n), reqAt: -1, cause: map[int]int{}}
}

func (d *driver) id(slot *int) int {
	if *slot == 0 {
		*slot = d.nextID
		d.nextID--
	}
	return *slot
}

// may reports whether the harness may inject action a.
func (d *driver) may(a Action) bool {
	return d.spec.Supports(a) && (d.actions == nil || slices.Contains(d.actions, a))
}

// target draws the process a client operation goes to.
func (d *driver) target() int {
	if t := d.spec.RequestTargets; len(t) > 0 {
		return t[d.r.IntN(len(t))]
	}
	return d.r.IntN(d.spec.Processes)
}

// enabled lists the system's pending events, then the harness's.
func (d *driver) enabled(dst []Enabled) []Enabled {
	dst = d.sys.Pending(dst)
	msgs := len(dst)
	for i := range dst {
		dst[i].Cause = d.cause[dst[i].ID]
	}
	if d.requests < d.h.Requests && d.may(Request) {
		if d.reqAt < 0 {
			d.reqAt = d.target()
		}
		if !d.crashed[d.reqAt] {
			dst = append(dst, Enabled{ID: d.id(&d.reqID), Kind: KindRequest, Process: d.reqAt, From: -1, Type: KindRequest,
				Step: Step{Process: d.reqAt, Action: Request, Value: max(d.requests, d.value) + 1}})
		}
	}
	if d.reads < d.h.Requests && d.may(Read) {
		if d.readAt < 0 {
			d.readAt = d.target()
		}
		if !d.crashed[d.readAt] {
			dst = append(dst, Enabled{ID: d.id(&d.readID), Kind: KindRead, Process: d.readAt, From: -1, Type: KindRead,
				Step: Step{Process: d.readAt, Action: Read}})
		}
	}
	for p := 0; p < d.spec.Processes; p++ {
		if d.crashed[p] {
			if d.may(Restart) {
				dst = append(dst, Enabled{ID: d.id(&d.restartID[p]), Kind: KindRestart, Process: p, From: -1, Type: KindRestart,
					Step: Step{Process: p, Action: Restart}})
			}
			continue
		}
		if d.timeouts < d.h.Timeouts && d.may(Timeout) {
			dst = append(dst, Enabled{ID: d.id(&d.timerID[p]), Kind: KindTimeout, Process: p, From: -1, Type: KindTimeout,
				Step: Step{Process: p, Action: Timeout}})
		}
		if d.crashes < d.h.CrashQuota && d.may(Crash) {
			dst = append(dst, Enabled{ID: d.id(&d.crashID[p]), Kind: KindCrash, Process: p, From: -1, Type: KindCrash,
				Step: Step{Process: p, Action: Crash}})
		}
	}
	for k := range d.faults {
		dst = d.offerFault(dst, k, msgs)
	}
	return dst
}

// offerFault appends the fault of kind k on offer, drawing one when none
// is or the one drawn can no longer run; dst[:msgs] are the system's
// pending events.
func (d *driver) offerFault(dst []Enabled, k, msgs int) []Enabled {
	f := &d.faults[k]
	if k == fPartition && d.cut {
		// The heal of the driver's partition, outside the quota.
		if !d.may(Heal) {
			return dst
		}
		return append(dst, Enabled{ID: d.id(&f.id), Kind: KindHeal, Process: -1, From: -1, Type: KindHeal,
			Step: Step{Action: Heal}})
	}
	if f.taken >= d.h.Faults || !d.may(faultActions[k]) ||
		k == fPartition && (!d.may(Heal) || d.spec.Processes < 2) || k == fTransfer && d.spec.Processes < 2 {
		return dst
	}
	switch k {
	case fDrop, fDuplicate:
		// A pending message the system can drop (duplicate): the one
		// drawn while it stays pending, else a new draw.
		can := func(e *Enabled) bool {
			if k == fDrop {
				return e.DropStep.Action != ""
			}
			return e.DupStep.Action != ""
		}
		at := -1
		for i := 0; i < msgs; i++ {
			if dst[i].Kind == KindRecv && dst[i].ID == f.msg && can(&dst[i]) {
				at = i
			}
		}
		if at < 0 {
			var ok []int
			for i := 0; i < msgs; i++ {
				if dst[i].Kind == KindRecv && can(&dst[i]) {
					ok = append(ok, i)
				}
			}
			if len(ok) == 0 {
				return dst
			}
			at = ok[d.r.IntN(len(ok))]
			f.msg, f.id = dst[at].ID, 0
		}
		m := dst[at]
		st := m.DropStep
		if k == fDuplicate {
			st = m.DupStep
		}
		return append(dst, Enabled{ID: d.id(&f.id), Kind: faultKinds[k], Process: m.Process, From: m.From, Type: m.Type,
			Step: st, Cause: m.Cause, Target: m.ID})
	}
	if f.id == 0 {
		f.step = d.drawFault(k)
	}
	p := f.step.Process
	if k == fPartition {
		p = -1
	} else if d.crashed[p] {
		return dst
	}
	return append(dst, Enabled{ID: d.id(&f.id), Kind: faultKinds[k], Process: p, From: -1, Type: f.step.Call(), Step: f.step})
}

// drawFault draws the step of a partition, transfer, conf-change, tick or
// hold of writes.
func (d *driver) drawFault(k int) Step {
	n := d.spec.Processes
	p := d.r.IntN(n)
	switch k {
	case fPartition:
		// A non-empty proper subset of the processes.
		return Step{Action: Partition, Set: ProcSet(1 + d.r.IntN(1<<n-2))}
	case fTransfer:
		return Step{Process: p, Action: TransferLeader, To: (p + 1 + d.r.IntN(n-1)) % n}
	case fConfChange:
		return Step{Process: p, Action: ConfChange, Conf: randomConf(d.r, n)}
	case fHold:
		return Step{Process: p, Action: HoldWrites, N: 1 + d.r.IntN(maxHold)}
	}
	return Step{Process: p, Action: Tick, N: 1 + d.r.IntN(maxTicks)}
}

// took records that e ran: the harness's event on offer is used up, and
// the next one of its kind gets a new id.
func (d *driver) took(e Enabled, drop bool) {
	switch e.Kind {
	case KindRequest:
		d.requests++
		d.reqAt, d.reqID = -1, 0
	case KindRead:
		d.reads++
		d.readAt, d.readID = -1, 0
	case KindTimeout:
		d.timeouts++
		d.timerID[e.Process] = 0
	case KindCrash:
		d.crashes++
		d.crashed[e.Process] = true
		d.crashID[e.Process] = 0
		d.timerID[e.Process] = 0
	case KindRestart:
		d.crashed[e.Process] = false
		d.restartID[e.Process] = 0
	case KindHeal:
		d.cut = false
		d.faults[fPartition].id = 0
	default:
		for k, kind := range faultKinds {
			if e.Kind == kind {
				f := &d.faults[k]
				f.taken++
				f.id, f.msg = 0, 0
				if k == fPartition {
					d.cut = true
				}
			}
		}
	}
}

// replayed counts a step run before the driver offered anything (a
// prefix of OnlineRunFrom) as took counts a chosen event: the quotas it
// used, the processes it crashed or restarted, the partition it made.
func (d *driver) replayed(st Step) {
	switch st.Action {
	case Request:
		d.requests++
		d.value = max(d.value, st.Value)
	case Read:
		d.reads++
	case Timeout:
		d.timeouts++
	case Crash:
		d.crashes++ // the process is down when the trace says so (followCrashes)
	case Heal:
		d.cut = false
	default:
		for k, a := range faultActions {
			if st.Action == a {
				d.faults[k].taken++
				if k == fPartition {
					d.cut = true
				}
			}
		}
	}
}

// followCrashes follows the processes' crashes and restarts in events, a step's
// events: a prefix's crash may be armed, and happen when the process
// reaches its crash point, in a later step.
func (d *driver) followCrashes(events Trace) {
	for _, ev := range events {
		if ev.Node < 0 || ev.Node >= len(d.crashed) {
			continue
		}
		switch ev.Kind {
		case EvCrash:
			d.crashed[ev.Node] = true
			d.crashID[ev.Node], d.timerID[ev.Node] = 0, 0
		case EvRestart:
			d.crashed[ev.Node] = false
			d.restartID[ev.Node] = 0
		}
	}
}

// created records the causes of the messages the step that ran e sent:
// those sent at e's process are caused by e, the others (a leader's
// heartbeat at a tick) by nothing; a duplicate's copy is caused by the
// duplicate. A dropped message causes nothing, and a harness event's
// successor (the next timeout of a process) is the harness's, not e's.
func (d *driver) created(e Enabled, drop bool, events Trace) {
	if drop {
		return
	}
	for _, ev := range events {
		if (ev.Kind == EvSend || ev.Kind == EvDuplicate) && ev.Msg != 0 && ev.Node == e.Process {
			d.cause[ev.Msg] = e.ID
		}
	}
}

// SortedKeys lists a stats map's keys in order (for printing).
func SortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
