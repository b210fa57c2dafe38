package check

import (
	"errors"
	"fmt"

	"github.com/modelfuzz/modelfuzz/tlc/eval"
)

// Liveness, as TLC checks it: a behaviour of the spec is a path of the
// state graph from an initial state that ends in a cycle (every state may
// stutter forever: each node has a stuttering self-loop). A liveness
// property is violated when a behaviour that satisfies the spec's
// fairness satisfies the property's negation. The negation of each
// supported property form is a form (below): conditions on the path and
// on the strongly connected component the behaviour ends in. Fairness and
// the form's "infinitely often" conditions are conditions on that
// component; weak fairness and []<> need a witness in it, strong fairness
// either a witness or no state where the action is enabled (if the
// component fails there, its states where the action is enabled are
// removed and the rest is searched again, as for Streett automata). TLC
// reaches the same verdicts with a tableau and a disjunctive normal form
// of these conditions.

// cond is a predicate or its negation, on a state or (for an action
// predicate) on a step.
type cond struct {
	p   *eval.Pred
	neg bool
}

func (c cond) not() cond { return cond{c.p, !c.neg} }

// trigger is <>(at /\ [](then)): the behaviour reaches a state where the
// conditions at hold, and from there on the conditions then hold.
type trigger struct {
	at, then []cond
}

// form is a set of behaviours: those whose first state satisfies init,
// every state and step glob, that reach the triggers trig one after the
// other (each from the state where the previous one held), that end in a
// component all of whose states and steps satisfy ea (<>[]), where each
// disjunction of ae holds somewhere (each []<>), and that are fair for
// the extra fairness conditions fair (besides the spec's).
type form struct {
	init []cond
	glob []cond
	trig []trigger
	ea   []cond
	ae   [][]cond
	fair []*eval.Temporal
}

// and is the conjunction of two forms, a disjunction of forms: when both
// have triggers, one form per order in which a behaviour can meet them.
func (f *form) and(g *form) ([]*form, error) {
	orders := interleavings(f.trig, g.trig)
	if len(orders) > maxForms {
		return nil, errors.New("too many <> conditions in one conjunction")
	}
	var out []*form
	for _, trig := range orders {
		h := &form{trig: trig}
		h.init = append(append([]cond(nil), f.init...), g.init...)
		h.glob = append(append([]cond(nil), f.glob...), g.glob...)
		h.ea = append(append([]cond(nil), f.ea...), g.ea...)
		h.ae = append(append([][]cond(nil), f.ae...), g.ae...)
		h.fair = append(append([]*eval.Temporal(nil), f.fair...), g.fair...)
		out = append(out, h)
	}
	return out, nil
}

// interleavings are the merges of two chains of triggers that keep the
// order of each.
func interleavings(a, b []trigger) [][]trigger {
	if len(a) == 0 || len(b) == 0 {
		return [][]trigger{append(append([]trigger(nil), a...), b...)}
	}
	var out [][]trigger
	for _, rest := range interleavings(a[1:], b) {
		out = append(out, append([]trigger{a[0]}, rest...))
		if len(out) > maxForms {
			return out
		}
	}
	for _, rest := range interleavings(a, b[1:]) {
		out = append(out, append([]trigger{b[0]}, rest...))
		if len(out) > maxForms {
			return out
		}
	}
	return out
}

// maxForms bounds the disjunctive normal form of a negated property.
const maxForms = 4096

func product(a, b []*form) ([]*form, error) {
	if len(a)*len(b) > maxForms {
		return nil, fmt.Errorf("the property's normal form has more than %d disjuncts", maxForms)
	}
	var out []*form
	for _, x := range a {
		for _, y := range b {
			z, err := x.and(y)
			if err != nil {
				return nil, err
			}
			out = append(out, z...)
		}
	}
	if len(out) > maxForms {
		return nil, fmt.Errorf("the property's normal form has more than %d disjuncts", maxForms)
	}
	return out, nil
}

func isPred(t *eval.Temporal) bool { return t.Op == eval.TPred || t.Op == eval.TAction }

func unsupported(t *eval.Temporal) error {
	return fmt.Errorf("%s: the temporal formula %s is not supported", t.Pos, shortText(t.Text))
}

func shortText(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

// negate returns the behaviours that violate t, as a disjunction of forms.
func negate(t *eval.Temporal) ([]*form, error) {
	switch t.Op {
	case eval.TPred:
		return []*form{{init: []cond{{t.Pred, true}}}}, nil
	case eval.TAnd:
		var out []*form
		for _, a := range t.Args {
			n, err := negate(a)
			if err != nil {
				return nil, err
			}
			out = append(out, n...)
		}
		return out, nil
	case eval.TOr:
		out := []*form{{}}
		for _, a := range t.Args {
			n, err := negate(a)
			if err != nil {
				return nil, err
			}
			if out, err = product(out, n); err != nil {
				return nil, err
			}
		}
		return out, nil
	case eval.TNot:
		return affirm(t.Args[0])
	case eval.TAlways:
		a := t.Args[0]
		switch {
		case a.Op == eval.TPred: // <>~P
			return []*form{{trig: []trigger{{at: []cond{{a.Pred, true}}}}}}, nil
		case a.Op == eval.TAlways:
			return negate(a)
		case a.Op == eval.TEventually && isPred(a.Args[0]): // <>[]~P
			return []*form{{ea: []cond{{a.Args[0].Pred, true}}}}, nil
		case a.Op == eval.TOr:
			// [](P => F): <>(P /\ ~F), F one of <>Q, []Q, <>[]Q, []<>Q.
			var at []cond
			var f *eval.Temporal
			for _, d := range a.Args {
				switch {
				case d.Op == eval.TPred:
					at = append(at, cond{d.Pred, true})
				case d.Op == eval.TNot && d.Args[0].Op == eval.TPred:
					at = append(at, cond{d.Args[0].Pred, false})
				case f == nil && (d.Op == eval.TEventually || d.Op == eval.TAlways):
					f = d
				default:
					return nil, unsupported(t)
				}
			}
			if f == nil {
				return nil, unsupported(t)
			}
			g := f.Args[0]
			switch {
			case f.Op == eval.TEventually && g.Op == eval.TPred: // P ~> Q: <>(P /\ []~Q)
				notQ := cond{g.Pred, true}
				return []*form{{trig: []trigger{{at: append(at, notQ), then: []cond{notQ}}}}}, nil
			case f.Op == eval.TAlways && g.Op == eval.TPred: // <>(P /\ <>~Q)
				return []*form{{trig: []trigger{{at: at}, {at: []cond{{g.Pred, true}}}}}}, nil
			case f.Op == eval.TEventually && g.Op == eval.TAlways && isPred(g.Args[0]): // <>(P /\ []<>~Q)
				return []*form{{trig: []trigger{{at: at}}, ae: [][]cond{{{g.Args[0].Pred, true}}}}}, nil
			case f.Op == eval.TAlways && g.Op == eval.TEventually && isPred(g.Args[0]): // <>(P /\ <>[]~Q)
				return []*form{{trig: []trigger{{at: at}}, ea: []cond{{g.Args[0].Pred, true}}}}, nil
			}
			return nil, unsupported(t)
		}
	case eval.TEventually:
		a := t.Args[0]
		switch {
		case isPred(a): // []~P
			return []*form{{glob: []cond{{a.Pred, true}}}}, nil
		case a.Op == eval.TEventually:
			return negate(a)
		case a.Op == eval.TAlways && isPred(a.Args[0]): // []<>~P
			return []*form{{ae: [][]cond{{{a.Args[0].Pred, true}}}}}, nil
		}
	case eval.TLeadsTo:
		p, q := t.Args[0], t.Args[1]
		if p.Op == eval.TPred && q.Op == eval.TPred { // <>(P /\ []~Q)
			notQ := cond{q.Pred, true}
			return []*form{{trig: []trigger{{at: []cond{{p.Pred, false}, notQ}, then: []cond{notQ}}}}}, nil
		}
	case eval.TWF: // <>[](ENABLED <<A>>_v /\ ~<<A>>_v)
		return []*form{{ea: []cond{{t.Pred, false}, {t.Step, true}}}}, nil
	case eval.TSF: // []<>ENABLED <<A>>_v /\ <>[]~<<A>>_v
		return []*form{{ea: []cond{{t.Step, true}}, ae: [][]cond{{{t.Pred, false}}}}}, nil
	}
	return nil, unsupported(t)
}

// affirm returns the behaviours that satisfy t, as a disjunction of forms.
func affirm(t *eval.Temporal) ([]*form, error) {
	switch t.Op {
	case eval.TPred:
		return []*form{{init: []cond{{t.Pred, false}}}}, nil
	case eval.TAnd:
		out := []*form{{}}
		for _, a := range t.Args {
			n, err := affirm(a)
			if err != nil {
				return nil, err
			}
			if out, err = product(out, n); err != nil {
				return nil, err
			}
		}
		return out, nil
	case eval.TOr:
		var out []*form
		for _, a := range t.Args {
			n, err := affirm(a)
			if err != nil {
				return nil, err
			}
			out = append(out, n...)
		}
		return out, nil
	case eval.TNot:
		return negate(t.Args[0])
	case eval.TAlways:
		a := t.Args[0]
		switch {
		case isPred(a):
			return []*form{{glob: []cond{{a.Pred, false}}}}, nil
		case a.Op == eval.TAlways:
			return affirm(a)
		case a.Op == eval.TEventually && isPred(a.Args[0]):
			return []*form{{ae: [][]cond{{{a.Args[0].Pred, false}}}}}, nil
		}
	case eval.TEventually:
		a := t.Args[0]
		switch {
		case a.Op == eval.TPred:
			return []*form{{trig: []trigger{{at: []cond{{a.Pred, false}}}}}}, nil
		case a.Op == eval.TEventually:
			return affirm(a)
		case a.Op == eval.TAlways && isPred(a.Args[0]):
			return []*form{{ea: []cond{{a.Args[0].Pred, false}}}}, nil
		}
	case eval.TWF, eval.TSF:
		return []*form{{fair: []*eval.Temporal{t}}}, nil
	}
	return nil, unsupported(t)
}
