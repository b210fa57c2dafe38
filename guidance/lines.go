package guidance

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/linecov"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// UnitsMeasure covers the source lines of the system under test: the items
// LineCoverage records in Execution.Units.
type UnitsMeasure struct{}

// Name implements fuzzer.Measure.
func (UnitsMeasure) Name() string { return MeasureLines }

// Measure implements fuzzer.Measure.
func (UnitsMeasure) Measure(_ *schedule.Input, ex *schedule.Execution) (fuzzer.Observation, error) {
	return fuzzer.Observation{Items: ex.Units}, nil
}

// lineSlot is held by the one execution whose coverage Go's counters
// record: they are global to the process, so the executions of every
// system LineCoverage wraps take turns, whatever the number of executors.
// It is a mutex made of a channel so that waiting for it can be
// interrupted.
var lineSlot = make(chan struct{}, 1)

// interruptGrace is how long a hung system has to return after Interrupt
// before it is given up (as long as the fuzzer's executor waits).
const interruptGrace = time.Second

// LineCoverage wraps fac so that every execution of its systems records
// the source lines of the system under test it ran (Execution.Units, the
// items of UnitsMeasure). It needs a coverage build of this binary (make
// cover); without one it returns linecov's error, which says how to make
// one.
//
// Executions of wrapped systems run one at a time, in the whole process:
// each takes the counters, clears them, executes and reads them. Waiting
// for the counters counts in an execution's time limit, so an execution
// queued behind one that hangs may be stopped as a hang too.
//
// A wrapped system is always interruptible, so that a hang never keeps the
// counters: Interrupt makes Execute return soon. If the system under it is
// interruptible, it is interrupted and has one second to return its partial
// execution; otherwise, or if it does not return in time, it is given up
// (its goroutine is left behind, still running and counted) and Execute
// returns an empty execution with the lines counted so far; the next
// execution runs on a new system from fac.
func LineCoverage(fac schedule.Factory) (schedule.Factory, error) {
	lines, err := newLineTracker()
	if err != nil {
		return nil, err
	}
	return &lineFactory{Factory: fac, lines: lines}, nil
}

type lineFactory struct {
	schedule.Factory
	lines counters
}

// counters are the coverage counters as a lineTracker reads them (tests
// fake them: a test binary has none).
type counters interface {
	Reset() error
	Covered(dst []uint64) ([]uint64, error)
}

// New implements schedule.Factory.
func (f *lineFactory) New() (schedule.System, error) {
	sys, err := f.Factory.New()
	if err != nil {
		return nil, err
	}
	return &lineSystem{fac: f.Factory, sys: sys, spec: sys.Spec(), lines: f.lines}, nil
}

// Close closes the wrapped factory (the process adapter's replicas), if it
// has anything to close.
func (f *lineFactory) Close() error {
	if c, ok := f.Factory.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

type lineSystem struct {
	fac   schedule.Factory
	sys   schedule.System // nil once given up
	spec  *schedule.SystemSpec
	lines counters
	mu    sync.Mutex
	stop  chan struct{} // of the execution in flight, closed by Interrupt; nil between executions
}

type lineResult struct {
	ex  *schedule.Execution
	err error
}

// Spec implements schedule.System.
func (s *lineSystem) Spec() *schedule.SystemSpec { return s.spec }

// Interrupt implements schedule.Interruptible.
func (s *lineSystem) Interrupt() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stop != nil {
		close(s.stop)
		s.stop = nil
	}
}

// Execute implements schedule.System.
func (s *lineSystem) Execute(in *schedule.Input) (*schedule.Execution, error) {
	stop := make(chan struct{})
	s.mu.Lock()
	s.stop = stop
	s.mu.Unlock()
	defer s.Interrupt() // from now on, Interrupt has nothing to stop
	if s.sys == nil {
		sys, err := s.fac.New()
		if err != nil {
			return nil, err
		}
		s.sys = sys
	}
	select {
	case lineSlot <- struct{}{}:
	case <-stop:
		return &schedule.Execution{}, nil // stopped before it began
	}
	defer func() { <-lineSlot }()
	if err := s.lines.Reset(); err != nil {
		return nil, fmt.Errorf("line coverage: %v", err)
	}
	sys := s.sys
	done := make(chan lineResult, 1)
	go func() {
		ex, err := sys.Execute(in)
		done <- lineResult{ex, err}
	}()
	r, ok := s.wait(sys, done, stop)
	if !ok {
		s.sys = nil
		r.ex = &schedule.Execution{}
	}
	if r.err != nil {
		return r.ex, r.err
	}
	units, err := s.lines.Covered(nil)
	if err != nil {
		return nil, fmt.Errorf("line coverage: %v", err)
	}
	r.ex.Units = units
	return r.ex, nil
}

// wait waits for the execution of sys to finish, or for stop; then it
// interrupts sys if it can and gives it interruptGrace to return. ok is
// false when sys did not return: it is given up.
func (s *lineSystem) wait(sys schedule.System, done <-chan lineResult, stop <-chan struct{}) (r lineResult, ok bool) {
	select {
	case r = <-done:
		return r, true
	case <-stop:
	}
	is, ok := sys.(schedule.Interruptible)
	if !ok {
		select {
		case r = <-done: // it finished as it was stopped
			return r, true
		default:
			return r, false
		}
	}
	is.Interrupt()
	select {
	case r = <-done:
		return r, true
	case <-time.After(interruptGrace):
		return r, false
	}
}

// lineTracker turns the code units an execution covered (linecov) into the
// source lines they span: the items of the "lines" measure are lines, so
// its coverage is the number of lines of the system under test covered.
// It is used by the holder of lineSlot only.
type lineTracker struct {
	t     unitCounters
	lines map[uint64][]uint64 // unit -> its line items; its keys are every unit covered so far
	units []uint64
	seen  map[uint64]struct{}
}

// unitCounters are the coverage counters as linecov reads them (tests fake
// them).
type unitCounters interface {
	Reset() error
	Covered(dst []uint64) ([]uint64, error)
	Lines(item uint64) (file string, first, last int, ok bool)
}

// sessionUnits are the units (linecov items) covered by the executions of
// every system LineCoverage wrapped in this process. The lineTrackers add
// the units they meet for the first time, under mu: a report may read them
// while executions run.
var sessionUnits struct {
	mu    sync.Mutex
	units []uint64
	set   map[uint64]struct{}
}

// CoveredUnits returns the units (linecov items, for linecov.Tracker's
// Coverage, Describe, Lines) covered so far by the executions of every
// system LineCoverage wrapped in this process, in the order they were
// first covered: the union of the units behind the lines of all the
// executions of a session (including those of minimizations in the
// background, and of executions given up, as far as they ran). Executions
// that failed with an error record nothing, as the "lines" measure does.
func CoveredUnits() []uint64 {
	sessionUnits.mu.Lock()
	defer sessionUnits.mu.Unlock()
	return slices.Clone(sessionUnits.units)
}

func addSessionUnit(u uint64) {
	sessionUnits.mu.Lock()
	defer sessionUnits.mu.Unlock()
	if sessionUnits.set == nil {
		sessionUnits.set = map[uint64]struct{}{}
	}
	if _, ok := sessionUnits.set[u]; !ok {
		sessionUnits.set[u] = struct{}{}
		sessionUnits.units = append(sessionUnits.units, u)
	}
}

func newLineTracker() (*lineTracker, error) {
	if err := linecov.Available(); err != nil {
		return nil, err
	}
	t, err := linecov.NewTracker()
	if err != nil {
		return nil, err
	}
	return &lineTracker{t: t, lines: map[uint64][]uint64{}, seen: map[uint64]struct{}{}}, nil
}

// Reset clears the counters.
func (l *lineTracker) Reset() error { return l.t.Reset() }

// Covered appends to dst the lines of the units covered since Reset.
func (l *lineTracker) Covered(dst []uint64) ([]uint64, error) {
	var err error
	l.units, err = l.t.Covered(l.units[:0])
	if err != nil {
		return dst, err
	}
	clear(l.seen)
	for _, u := range l.units {
		items, ok := l.lines[u]
		if !ok { // the first time this tracker sees u covered
			items = l.unitLines(u)
			l.lines[u] = items
			addSessionUnit(u)
		}
		for _, it := range items {
			if _, dup := l.seen[it]; !dup {
				l.seen[it] = struct{}{}
				dst = append(dst, it)
			}
		}
	}
	return dst, nil
}

func (l *lineTracker) unitLines(u uint64) []uint64 {
	file, first, last, ok := l.t.Lines(u)
	if !ok {
		return []uint64{u}
	}
	var out []uint64
	for ln := first; ln <= last; ln++ {
		out = append(out, xxhash.Sum64String(file+":"+strconv.Itoa(ln)))
	}
	return out
}
