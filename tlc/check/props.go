package check

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelfuzz/modelfuzz/tlc/eval"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// This file checks the cfg's PROPERTIES as TLC does. TLC splits each
// property into conjuncts (expanding definitions, instances and
// quantifiers over constant sets) and checks
//   - a state predicate on every initial state ("Property P is violated by
//     the initial state");
//   - []P, P a state predicate, as an invariant;
//   - [][A]_v on every step the next-state relation generates, including
//     steps a constraint excludes ("Action property P is violated");
//   - the rest (<>P, []<>P, <>[]P, P ~> Q, WF/SF of a refined spec) as
//     liveness, on the complete state graph, under the fairness of the
//     SPECIFICATION (liveness.go).
// The safety parts are checked during the search through its Observer;
// liveness after it.

// ExitNotChecked is the exit code of a check that found no error but did
// not check every property of the configuration. TLC has no such outcome
// (it refuses a property it cannot check before it starts); a script must
// not read it as success, so it is TLC's code for a system error.
const ExitNotChecked = ExitSystem

// Unchecked is a property of the configuration that the check did not
// check, and why.
type Unchecked struct {
	Name, Why string
}

// NotChecked turns a successful result into the outcome "not-checked"
// when some properties were not checked: the run must never say that no
// error was found about a property it did not look at. A violation found
// by the search stands as it is.
func (r *Result) NotChecked(props []Unchecked) {
	if len(props) == 0 || r.Result != "success" {
		return
	}
	r.Result, r.ExitCode = "not-checked", ExitNotChecked
	r.Unchecked = props
	parts := make([]string, len(props))
	for i, p := range props {
		parts[i] = p.Name + " (" + p.Why + ")"
	}
	noun := "properties"
	if len(props) == 1 {
		noun = "property"
	}
	r.Error = fmt.Sprintf("%d %s NOT checked: %s", len(props), noun, strings.Join(parts, ", "))
}

// namedPred is a conjunct of a property checked as a safety property.
type namedPred struct {
	name string
	p    *eval.Pred
}

// Properties are the cfg's PROPERTIES of a model, split as TLC splits them.
type Properties struct {
	m       *eval.Model
	inits   []namedPred   // state predicates: on every initial state
	invs    []namedPred   // []P: on every state
	actions []namedPred   // [][A]_v: on every step
	live    []liveProp    // checked on the state graph
	safety  []*safetyProp // checked during the search (safety.go)
	fair    []*eval.Temporal
	// assume are the behaviours the SPECIFICATION's other temporal
	// conjuncts allow (<>[][A]_v, say), as a disjunction of forms; nil
	// when it has none. assumeT are those conjuncts, for the tableaux;
	// general is set when they are not forms: every property is then
	// checked with a tableau.
	assume  []*form
	assumeT []*eval.Temporal
	general bool
	// Unchecked are the properties (or conjuncts) that cannot be checked.
	Unchecked []Unchecked

	graph *graph // the state graph, when there is liveness to check
}

// liveProp is one liveness conjunct of a property: its negation, the
// behaviours that violate it, as a disjunction of forms, or (when it is
// not one) as a tableau.
type liveProp struct {
	name string // the cfg's property name, as TLC reports it
	text string
	neg  []*form
	tab  *tableau
}

// NewProperties resolves m's PROPERTIES (and the fairness of its
// SPECIFICATION) for a check.
func NewProperties(m *eval.Model) *Properties {
	ps := &Properties{m: m}
	props := m.ResolveProperties()
	if len(props) == 0 {
		return ps
	}
	spec, err := m.SpecTemporal()
	if err != nil {
		for _, p := range props {
			ps.Unchecked = append(ps.Unchecked, Unchecked{p.Name, "the SPECIFICATION's fairness: " + err.Error()})
		}
		return ps
	}
	if spec != nil {
		for _, c := range conjuncts(spec) {
			switch {
			case c.Op == eval.TPred:
			case c.Op == eval.TAlways && c.Args[0].Op == eval.TAction:
			case c.Op == eval.TWF || c.Op == eval.TSF:
				ps.fair = append(ps.fair, c)
			default:
				ps.assumeT = append(ps.assumeT, c)
				forms, err := affirm(c)
				if err == nil && ps.assume == nil {
					ps.assume = forms
				} else if err == nil {
					ps.assume, err = product(ps.assume, forms)
				}
				if err != nil {
					ps.general = true
				}
			}
		}
	}
	if ps.general {
		ps.assume = nil
	}
	for _, p := range props {
		if p.Err != nil {
			ps.Unchecked = append(ps.Unchecked, Unchecked{p.Name, p.Err.Error()})
			continue
		}
		var live []liveProp
		var why string
		for _, c := range conjuncts(p.F) {
			name := c.Name
			if name == "" {
				name = location(c)
			}
			switch {
			case c.Op == eval.TPred:
				ps.inits = append(ps.inits, namedPred{name, c.Pred})
			case c.Op == eval.TAlways && c.Args[0].Op == eval.TPred:
				if n := c.Args[0].Name; n != "" {
					name = n
				}
				ps.invs = append(ps.invs, namedPred{name, c.Args[0].Pred})
			case c.Op == eval.TAlways && c.Args[0].Op == eval.TAction:
				ps.actions = append(ps.actions, namedPred{name, c.Args[0].Pred})
			case c.Op == eval.TAction:
				why = fmt.Sprintf("%s: %s is an action, not a temporal formula (TLC refuses it too)", c.Pos, c.Text)
			case safetyForm(c) && len(ps.fair) == 0 && len(ps.assumeT) == 0:
				ps.safety = append(ps.safety, newSafetyProp(p.Name, c))
			default:
				lp := liveProp{name: p.Name, text: c.Text}
				var err error
				if !ps.general {
					lp.neg, err = negate(c)
				}
				if ps.general || err != nil {
					if lp.tab, err = newTableau(c, ps.assumeT); err != nil {
						why = err.Error()
						break
					}
				}
				live = append(live, lp)
			}
		}
		switch {
		case why != "":
			ps.Unchecked = append(ps.Unchecked, Unchecked{p.Name, why})
		default:
			ps.live = append(ps.live, live...)
		}
	}
	return ps
}

// conjuncts flattens the conjunctions at the top of f.
func conjuncts(f *eval.Temporal) []*eval.Temporal {
	if f.Op != eval.TAnd {
		return []*eval.Temporal{f}
	}
	var out []*eval.Temporal
	for _, a := range f.Args {
		out = append(out, conjuncts(a)...)
	}
	return out
}

// location names a conjunct as TLC does when it has no name of its own.
func location(f *eval.Temporal) string {
	mod := strings.TrimSuffix(filepath.Base(f.Pos.File), ".tla")
	return fmt.Sprintf("line %d, col %d to line %d, col %d of module %s", f.Pos.Line, f.Pos.Col, f.End.Line, f.End.Col, mod)
}

// Liveness reports whether there are liveness properties to check after
// the search.
func (ps *Properties) Liveness() bool { return len(ps.live) > 0 }

// Observer returns the observer of the search that checks the safety
// parts of the properties and records the state graph for liveness (nil
// when there is nothing to do).
func (ps *Properties) Observer() Observer {
	if len(ps.inits)+len(ps.invs)+len(ps.actions)+len(ps.safety) == 0 && !ps.Liveness() {
		return nil
	}
	if ps.Liveness() {
		ps.graph = newGraph(ps)
	}
	o := &propObserver{ps: ps, raw: !ps.m.HasView() && ps.m.Symmetry == nil}
	if len(ps.actions) > 0 || ps.graph != nil {
		o.done = make([]atomic.Uint64, doneSlots)
	}
	if len(ps.safety) > 0 {
		return &monObserver{propObserver: o, mon: newSafetyMonitor(ps.safety)}
	}
	return o
}

// Ordered reports whether the search must expand one state at a time, in
// the queue's order (Options.Ordered): temporal properties are checked
// during it, as TLC checks them (see safety.go).
func (ps *Properties) Ordered() bool { return len(ps.safety) > 0 }

// monObserver is the observer of properties of which some are checked by
// a safety monitor during the search.
type monObserver struct {
	*propObserver
	mon *safetyMonitor
}

func (o *monObserver) Initial(ev *eval.Evaluator, id, fp uint64, s []value.Value) error {
	return o.mon.initial(ev, id, fp, s)
}

func (o *monObserver) Expanded(ev *eval.Evaluator, id, fp uint64, s []value.Value, succ []Successor, sr Search) error {
	return o.mon.expanded(ev, id, fp, s, succ, sr)
}

type propObserver struct {
	ps *Properties
	mu sync.Mutex
	// done remembers the steps already handled (their action properties
	// held and their edge is in the state graph), so that a step generated
	// again (by another witness of the same action, or by another action:
	// MCCRDT generates 54 steps per distinct state) is not evaluated or
	// recorded again. It is a direct-mapped table of stepKey, lossy: a
	// step that was overwritten is handled again, which checks the same
	// properties and adds an edge the graph already has. A state is
	// expanded once, on one level, so TLCGet("level") is the same for every
	// repetition of a step.
	done []atomic.Uint64
	raw  bool // the search's fingerprints are of the whole state
}

// doneSlots is the size of propObserver.done: the repetitions of a step
// come from one expansion of its first state, close together.
const doneSlots = 1 << 16

// stepKey identifies the step from the state fingerprinted sfp (by the
// search, which expands it once) to t. Under VIEW or SYMMETRY the search's
// fingerprint of t stands for other states too, on which the properties
// may differ: t's own values are hashed then.
func (o *propObserver) stepKey(sfp, tfp uint64, t []value.Value, inModel bool) uint64 {
	if !o.raw || tfp == 0 {
		tfp = value.FingerprintState(t)
	}
	k := sfp*0x9e3779b97f4a7c15 ^ tfp
	if !inModel {
		k = ^k
	}
	if k == 0 {
		k = 1
	}
	return k
}

func (o *propObserver) State(ev *eval.Evaluator, fp uint64, s []value.Value, initial bool) error {
	ps := o.ps
	for _, inv := range ps.invs {
		ok, err := ev.Holds(inv.p, s, nil)
		if err != nil {
			return fmt.Errorf("evaluating property %s: %w", inv.name, err)
		}
		if !ok {
			return &PropertyViolation{Property: inv.name, Invariant: true,
				Message: fmt.Sprintf("Invariant %s is violated.", inv.name)}
		}
	}
	if initial {
		for _, in := range ps.inits {
			ok, err := ev.Holds(in.p, s, nil)
			if err != nil {
				return fmt.Errorf("evaluating property %s: %w", in.name, err)
			}
			if !ok {
				return &PropertyViolation{Property: in.name, Initial: true,
					Message: fmt.Sprintf("Property %s is violated by the initial state:", in.name)}
			}
		}
	}
	if ps.graph != nil {
		return ps.graph.addState(ev, fp, s, initial)
	}
	return nil
}

func (o *propObserver) Step(ev *eval.Evaluator, sfp uint64, s []value.Value, tfp uint64, t []value.Value, inModel bool) error {
	ps := o.ps
	record := ps.graph != nil && inModel
	if len(ps.actions) == 0 && !record {
		return nil
	}
	k := o.stepKey(sfp, tfp, t, inModel)
	slot := &o.done[k%doneSlots]
	if slot.Load() == k {
		return nil
	}
	for _, a := range ps.actions {
		ok, err := ev.Holds(a.p, s, t)
		if err != nil {
			return fmt.Errorf("evaluating action property %s: %w", a.name, err)
		}
		if !ok {
			return &PropertyViolation{Property: a.name, Message: fmt.Sprintf("Action property %s is violated.", a.name)}
		}
	}
	if record {
		if err := ps.graph.addStep(ev, sfp, s, tfp, t); err != nil {
			return err
		}
	}
	slot.Store(k)
	return nil
}

// CheckWithProperties checks m as Check does, with its PROPERTIES: the
// safety parts during the search, liveness on the complete state graph
// after it. Properties it cannot check are reported by NotChecked.
func CheckWithProperties(m *eval.Model, opt Options) *Result {
	ps := NewProperties(m)
	opt.Observer = ps.Observer()
	opt.Ordered = opt.Ordered || ps.Ordered()
	branches := ps.Branches()
	if branches > 0 && opt.Live != nil && opt.Recover == "" {
		opt.Live.Branches(branches)
	}
	res := Check(m, opt)
	if res.Result == "success" && branches > 0 {
		if opt.Live != nil {
			opt.Live.Checking(branches, res.Distinct, Progress{Depth: res.Depth, Generated: res.Generated, Distinct: res.Distinct})
		}
		start := time.Now()
		if ps.Liveness() {
			ps.checkLiveness(res, opt)
		}
		res.LiveChecked = res.Result != "error"
		res.LiveDuration = time.Since(start)
	}
	res.NotChecked(ps.Unchecked)
	return res
}

// Branches is the number of problems TLC's liveness check solves for
// these properties (0: none to check after the search). TLC puts the
// negations of all the temporal properties, in disjunctive normal form,
// into bins by the part of each disjunct that needs a tableau (what is
// not <>[], []<> or the fairness): a bin per distinct part, one for the
// disjuncts without one. The parts are told apart as TLC tells them,
// syntactically: each instance of a quantified property is its own.
func (ps *Properties) Branches() int {
	bins := map[string]bool{}
	assume := ps.assume
	if assume == nil {
		assume = []*form{{}}
	}
	forms := func(neg []*form) {
		for _, nf := range neg {
			for _, a := range assume {
				fs, err := nf.and(a)
				if err != nil {
					bins[fmt.Sprintf("%p", nf)] = true
					continue
				}
				for _, f := range fs {
					bins[f.tableauPart()] = true
				}
			}
		}
	}
	for _, lp := range ps.live {
		if lp.tab != nil {
			bins[fmt.Sprintf("%p", lp.tab)] = true
			continue
		}
		forms(lp.neg)
	}
	for _, sp := range ps.safety {
		if neg, err := negate(sp.f); err == nil {
			forms(neg)
		} else {
			bins[fmt.Sprintf("%p", sp)] = true
		}
	}
	return len(bins)
}

// tableauPart names the conditions of f that TLC checks with a tableau:
// those on the first state, on every state and the <>s ("" when there are
// none), by the identity of their predicates.
func (f *form) tableauPart() string {
	conds := func(b *strings.Builder, tag string, cs []cond) {
		for _, c := range cs {
			fmt.Fprintf(b, "%s%p%v;", tag, c.p, c.neg)
		}
	}
	var b strings.Builder
	conds(&b, "i", f.init)
	conds(&b, "g", f.glob)
	// TLC has one conjunction of the <>s where a form has one order of
	// them (see form.and).
	trig := make([]string, len(f.trig))
	for i, t := range f.trig {
		var tb strings.Builder
		conds(&tb, "<>", t.at)
		conds(&tb, "[]", t.then)
		trig[i] = tb.String()
	}
	slices.Sort(trig)
	return b.String() + strings.Join(trig, "|")
}
