package check

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/modelfuzz/modelfuzz/tlc/eval"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// Temporal properties whose violations are finite behaviours.
//
// A property built from state predicates with /\, \/, negated predicates
// and [] (say [](P => []Q)) is violated by a behaviour exactly when some
// finite prefix of it is. TLC finds such a violation while it searches:
// the tableau of the property's negation has nothing to fulfil forever
// (an empty PEM), so reaching its accepting sink in the behaviour graph is
// a violation, reported at once as "Temporal property P was violated"
// with the behaviour up to that state, exit code 12
// (tlc2.tool.liveness.LiveCheck: the hasEmptyPEM short cut).
//
// TLC evaluates the predicates of temporal properties when it adds a
// state's outgoing steps to the behaviour graph: after all the state's
// successors are generated and the new ones queued, on every step to a
// successor, and on the state's own stuttering step. Trace validation
// relies on it: Traceetcdraft's
//
//	TraceMatched == [](l <= Len(TraceLog) => [](TLCGet("queue") = 1 \/ l > Len(TraceLog)))
//
// is false on the stuttering step of a state that has not consumed the
// whole log when nothing is left in the queue (the trace cannot be
// matched) or more than one state is (more than one behaviour is being
// followed). So the property is checked here the same way, with a monitor
// per property: a formula progressed along the steps TLC adds, whose state
// is what the behaviour up to a state still has to satisfy (a disjunction
// of conjunctions of its [] subformulas); it reaches FALSE on a violation.
// The violation is reported when TLC reports it: on a step into a state
// already expanded (its own stuttering step included), at once; on a step
// into a state still queued, when that state is expanded. The search is
// then one state at a time, in the queue's order (Options.Ordered), as
// TLC's single worker, so that TLCGet("queue") is TLC's.
//
// Only without fairness or other temporal assumptions in the
// SPECIFICATION: TLC's short cut needs them absent too, and a finite
// violation is then all there is to find.

// safetyForm reports whether t is in the fragment checked here.
func safetyForm(t *eval.Temporal) bool {
	switch t.Op {
	case eval.TPred:
		return true
	case eval.TNot:
		return t.Args[0].Op == eval.TPred
	case eval.TAnd, eval.TOr:
		for _, a := range t.Args {
			if !safetyForm(a) {
				return false
			}
		}
		return true
	case eval.TAlways:
		return safetyForm(t.Args[0])
	}
	return false
}

// safetyProp is one conjunct of a property checked by a monitor.
type safetyProp struct {
	name  string // the cfg's property, as TLC names it
	f     *eval.Temporal
	preds []*eval.Pred           // the leaves, evaluated on each state
	pi    map[*eval.Temporal]int // leaf -> index in preds
	boxes []*eval.Temporal       // the [] subformulas: the obligations
	bi    map[*eval.Temporal]int
	// dnfs are the monitor's states: a disjunction of clauses, each the
	// sorted indexes of the boxes that must hold from the next state on.
	// dnfs[0] is FALSE (no clause).
	dnfs  []dnf
	ids   map[string]int32
	steps map[stepKey]int32 // (monitor state, leaf values) -> monitor state
}

type dnf [][]int

type stepKey struct {
	m    int32
	bits string
}

func newSafetyProp(name string, f *eval.Temporal) *safetyProp {
	sp := &safetyProp{name: name, f: f, pi: map[*eval.Temporal]int{}, bi: map[*eval.Temporal]int{},
		ids: map[string]int32{}, steps: map[stepKey]int32{}}
	var walk func(t *eval.Temporal)
	walk = func(t *eval.Temporal) {
		switch t.Op {
		case eval.TPred:
			if t.Const == nil {
				sp.pi[t] = len(sp.preds)
				sp.preds = append(sp.preds, t.Pred)
			}
			return
		case eval.TAlways:
			sp.bi[t] = len(sp.boxes)
			sp.boxes = append(sp.boxes, t)
		}
		for _, a := range t.Args {
			walk(a)
		}
	}
	walk(f)
	sp.intern(nil) // FALSE is 0
	return sp
}

// intern returns the id of monitor state d (normalized).
func (sp *safetyProp) intern(d dnf) int32 {
	d = normalize(d)
	var b strings.Builder
	for _, c := range d {
		b.WriteByte('|')
		for _, x := range c {
			b.WriteString(strconv.Itoa(x))
			b.WriteByte(',')
		}
	}
	k := b.String()
	if id, ok := sp.ids[k]; ok {
		return id
	}
	id := int32(len(sp.dnfs))
	sp.ids[k] = id
	sp.dnfs = append(sp.dnfs, d)
	return id
}

// normalize sorts and dedups the clauses and drops those that contain
// another (a weaker obligation makes a stronger one redundant).
func normalize(d dnf) dnf {
	for _, c := range d {
		slices.Sort(c)
	}
	slices.SortFunc(d, func(a, b []int) int {
		if len(a) != len(b) {
			return len(a) - len(b)
		}
		return slices.Compare(a, b)
	})
	var out dnf
	for _, c := range d {
		absorbed := false
		for _, o := range out {
			if subset(o, c) {
				absorbed = true
				break
			}
		}
		if !absorbed {
			out = append(out, c)
		}
	}
	return out
}

func subset(a, b []int) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

func and(a, b dnf) dnf {
	var out dnf
	for _, x := range a {
		for _, y := range b {
			c := append(append([]int(nil), x...), y...)
			slices.Sort(c)
			out = append(out, slices.Compact(c))
		}
	}
	return out
}

var dnfTrue = dnf{{}}

// prog is what t asks of the behaviour after a state where the leaves
// have the values vals.
func (sp *safetyProp) prog(t *eval.Temporal, vals []bool) dnf {
	switch t.Op {
	case eval.TPred:
		v := false
		if t.Const != nil {
			v = *t.Const
		} else {
			v = vals[sp.pi[t]]
		}
		if v {
			return dnfTrue
		}
		return nil
	case eval.TNot:
		if sp.prog(t.Args[0], vals) == nil {
			return dnfTrue
		}
		return nil
	case eval.TAnd:
		out := dnfTrue
		for _, a := range t.Args {
			out = and(out, sp.prog(a, vals))
		}
		return out
	case eval.TOr:
		var out dnf
		for _, a := range t.Args {
			out = append(out, sp.prog(a, vals)...)
		}
		return out
	case eval.TAlways:
		return and(sp.prog(t.Args[0], vals), dnf{{sp.bi[t]}})
	}
	return nil
}

// start is the monitor's state after an initial state with leaf values
// vals.
func (sp *safetyProp) start(vals []bool) int32 {
	return sp.intern(sp.prog(sp.f, vals))
}

// step is the monitor's state after m and a state with leaf values vals.
func (sp *safetyProp) step(m int32, vals []bool) int32 {
	k := stepKey{m, boolsKey(vals)}
	if n, ok := sp.steps[k]; ok {
		return n
	}
	var out dnf
	for _, c := range sp.dnfs[m] {
		d := dnfTrue
		for _, b := range c {
			d = and(d, sp.prog(sp.boxes[b], vals))
		}
		out = append(out, d...)
	}
	n := sp.intern(out)
	sp.steps[k] = n
	return n
}

func boolsKey(vals []bool) string {
	b := make([]byte, len(vals))
	for i, v := range vals {
		if v {
			b[i] = 1
		}
	}
	return string(b)
}

// safetyMonitor checks the safety properties of a search (see above). It
// is used by one goroutine: the search is ordered.
type safetyMonitor struct {
	props  []*safetyProp
	states map[uint64]*monState // by fingerprint
}

// monState is what the monitor knows of one state of the search.
type monState struct {
	id   uint64 // its trace record
	done bool   // expanded
	// ms are, per property, the monitor states the steps into it reached;
	// pending the properties a step into it violated (reported when it is
	// expanded).
	ms      [][]int32
	pending []bool
}

func newSafetyMonitor(props []*safetyProp) *safetyMonitor {
	return &safetyMonitor{props: props, states: map[uint64]*monState{}}
}

func (sm *safetyMonitor) state(fp, id uint64) *monState {
	st := sm.states[fp]
	if st == nil {
		st = &monState{id: id, ms: make([][]int32, len(sm.props)), pending: make([]bool, len(sm.props))}
		sm.states[fp] = st
	}
	return st
}

// leaves evaluates every property's leaves in state s, now.
func (sm *safetyMonitor) leaves(ev *eval.Evaluator, s []value.Value) ([][]bool, error) {
	out := make([][]bool, len(sm.props))
	for i, sp := range sm.props {
		out[i] = make([]bool, len(sp.preds))
		for j, p := range sp.preds {
			ok, err := ev.Holds(p, s, nil)
			if err != nil {
				return nil, fmt.Errorf("evaluating property %s: %s: %w", sp.name, p.Text, err)
			}
			out[i][j] = ok
		}
	}
	return out, nil
}

func (sm *safetyMonitor) violated(sp *safetyProp, at uint64, then []value.Value) error {
	return &StepViolation{PropertyViolation: PropertyViolation{Property: sp.name, Temporal: true,
		Message: fmt.Sprintf("Temporal property %s was violated.", sp.name)}, At: at, Then: then}
}

// initial handles an initial state once it is queued.
func (sm *safetyMonitor) initial(ev *eval.Evaluator, id, fp uint64, s []value.Value) error {
	vals, err := sm.leaves(ev, s)
	if err != nil {
		return err
	}
	st := sm.state(fp, id)
	for i, sp := range sm.props {
		if m := sp.start(vals[i]); m == 0 {
			st.pending[i] = true
		} else if !slices.Contains(st.ms[i], m) {
			st.ms[i] = append(st.ms[i], m)
		}
	}
	return nil
}

// expanded handles state s (fingerprint fp, record id) once its
// successors succ are generated and queued: the steps to them and the
// stuttering step.
func (sm *safetyMonitor) expanded(ev *eval.Evaluator, id, fp uint64, s []value.Value, succ []Successor, sr Search) error {
	st := sm.state(fp, id)
	for i, p := range st.pending {
		if p {
			return sm.violated(sm.props[i], st.id, nil)
		}
	}
	st.done = true
	for _, t := range succ {
		if t.Fresh {
			sm.state(t.FP, t.ID)
		}
	}
	// Steps out of a state, and out of the states already expanded that a
	// step brings a new monitor state to (TLC's LiveCheck explores those
	// again), until none is left.
	type work struct {
		fp   uint64
		st   *monState
		vals []value.Value
	}
	queue := []work{{fp, st, s}}
	first := true
	for len(queue) > 0 {
		w := queue[0]
		queue = queue[1:]
		targets := succ
		if !first {
			var err error
			if w.vals, err = sr.Values(w.st.id); err != nil {
				return err
			}
			if targets, err = sr.Successors(ev, w.vals); err != nil {
				return err
			}
		}
		first = false
		// Each step's target, then the stuttering step.
		steps := make([]Successor, 0, len(targets)+1)
		steps = append(steps, targets...)
		steps = append(steps, Successor{FP: w.fp, Vals: w.vals})
		vals := make([][][]bool, len(steps))
		for k, t := range steps {
			v, err := sm.leaves(ev, t.Vals)
			if err != nil {
				return err
			}
			vals[k] = v
		}
		for i, sp := range sm.props {
			for j := 0; j < len(w.st.ms[i]); j++ { // ms may grow (stuttering)
				m := w.st.ms[i][j]
				for k, t := range steps {
					n := sp.step(m, vals[k][i])
					ts := sm.states[t.FP]
					if ts == nil {
						// A state the search found before the monitor
						// did (it cannot be: every state is initial or a
						// successor it saw).
						return fmt.Errorf("property %s: a step into a state the search did not report", sp.name)
					}
					if n == 0 {
						if ts.done {
							var then []value.Value
							if ts != w.st {
								then = t.Vals
							}
							return sm.violated(sp, w.st.id, then)
						}
						ts.pending[i] = true
						continue
					}
					if slices.Contains(ts.ms[i], n) {
						continue
					}
					ts.ms[i] = append(ts.ms[i], n)
					if ts.done && ts != w.st {
						queue = append(queue, work{fp: t.FP, st: ts})
					}
				}
			}
		}
	}
	return nil
}

// The monitor's part of a checkpoint: its states and what it knows of
// each state of the search (the table of steps is a cache, left out).

func (o *monObserver) saveState(w *ckWriter) {
	o.propObserver.saveState(w)
	sm := o.mon
	w.uint(uint64(len(sm.props)))
	for _, sp := range sm.props {
		w.uint(uint64(len(sp.dnfs)))
		for _, d := range sp.dnfs {
			w.uint(uint64(len(d)))
			for _, c := range d {
				w.uint(uint64(len(c)))
				for _, b := range c {
					w.uint(uint64(b))
				}
			}
		}
	}
	fps := slices.Sorted(maps.Keys(sm.states))
	w.uint(uint64(len(fps)))
	for _, fp := range fps {
		st := sm.states[fp]
		w.u64(fp)
		w.uint(st.id)
		w.uint(boolUint(st.done))
		for i := range sm.props {
			w.uint(boolUint(st.pending[i]))
			w.uint(uint64(len(st.ms[i])))
			for _, m := range st.ms[i] {
				w.uint(uint64(m))
			}
		}
	}
}

func boolUint(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func (o *monObserver) loadState(r *ckReader) error {
	if err := o.propObserver.loadState(r); err != nil {
		return err
	}
	sm := o.mon
	bad := errors.New("its temporal properties' monitors are not for this check's properties")
	if n := r.uint(); r.err == nil && n != uint64(len(sm.props)) {
		return bad
	}
	for _, sp := range sm.props {
		n := r.count(1)
		sp.dnfs, sp.ids, sp.steps = nil, map[string]int32{}, map[stepKey]int32{}
		for i := uint64(0); i < n && r.err == nil; i++ {
			var d dnf
			nc := r.count(1)
			for j := uint64(0); j < nc && r.err == nil; j++ {
				c := make([]int, r.count(1))
				for k := range c {
					b := r.uint()
					if b >= uint64(len(sp.boxes)) {
						return bad
					}
					c[k] = int(b)
				}
				d = append(d, c)
			}
			if id := sp.intern(d); r.err == nil && id != int32(i) {
				return bad
			}
		}
		if r.err == nil && len(sp.dnfs) == 0 {
			return bad
		}
	}
	n := r.count(16)
	for i := uint64(0); i < n && r.err == nil; i++ {
		fp := r.u64()
		st := sm.state(fp, r.uint())
		st.done = r.uint() == 1
		for j, sp := range sm.props {
			st.pending[j] = r.uint() == 1
			nm := r.count(1)
			for k := uint64(0); k < nm && r.err == nil; k++ {
				m := r.uint()
				if m >= uint64(len(sp.dnfs)) {
					return bad
				}
				st.ms[j] = append(st.ms[j], int32(m))
			}
		}
	}
	return nil
}
