package check

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/modelfuzz/modelfuzz/tlc/eval"
)

// The general liveness check, for the properties whose negation is not one
// of the forms of liveness.go (<>(P \/ []Q), [](P => <>[]Q) nested
// otherwise, implications between temporal formulas, actions inside any of
// them): the negated property is turned into a generalized Büchi automaton
// (a tableau in the manner of Gerth, Peled, Vardi and Wolper), whose product
// with the state graph is searched for a reachable strongly connected
// component that is accepting and fair, with the search of livesearch.go.
//
// A position of a behaviour is a state and the step from it: a state
// predicate is read in the state, an action predicate on the step (as on
// the edges of the state graph), so actions, [A]_v, <<A>>_v and ENABLED can
// stand anywhere in the formula. The spec's WF/SF stay conditions on the
// component, as for the forms; its other temporal conjuncts (<>[][A]_v,
// say) are conjoined to the negated property. The product is built after
// the search, from the graph it recorded: it adds no state to the counts.

// ltlOp is the operator of a formula in negation normal form.
type ltlOp uint8

const (
	ltlTrue ltlOp = iota
	ltlFalse
	ltlLit     // c
	ltlAnd     // a /\ b
	ltlOr      // a \/ b
	ltlUntil   // a U b: b holds some time, a until then
	ltlRelease // a R b: b holds until and including a time a holds, or always
)

// ltl is a formula in negation normal form, interned by its builder: equal
// formulas are the same id.
type ltl struct {
	op   ltlOp
	c    cond
	a, b int // operand ids
}

// ltlBuilder interns the subformulas of one negated property.
type ltlBuilder struct {
	fs  []ltl
	ids map[ltl]int
}

func (lb *ltlBuilder) mk(f ltl) int {
	if lb.ids == nil {
		lb.ids = map[ltl]int{}
	}
	if f.op == ltlAnd || f.op == ltlOr {
		if f.a > f.b {
			f.a, f.b = f.b, f.a
		}
		if f.a == f.b {
			return f.a
		}
		t, fl := lb.mk(ltl{op: ltlTrue}), lb.mk(ltl{op: ltlFalse})
		unit, zero := t, fl
		if f.op == ltlOr {
			unit, zero = fl, t
		}
		switch {
		case f.a == zero || f.b == zero:
			return zero
		case f.a == unit:
			return f.b
		case f.b == unit:
			return f.a
		}
	}
	if id, ok := lb.ids[f]; ok {
		return id
	}
	lb.fs = append(lb.fs, f)
	lb.ids[f] = len(lb.fs) - 1
	return len(lb.fs) - 1
}

func (lb *ltlBuilder) truth(b bool) int {
	if b {
		return lb.mk(ltl{op: ltlTrue})
	}
	return lb.mk(ltl{op: ltlFalse})
}

func (lb *ltlBuilder) and(a, b int) int { return lb.mk(ltl{op: ltlAnd, a: a, b: b}) }
func (lb *ltlBuilder) or(a, b int) int  { return lb.mk(ltl{op: ltlOr, a: a, b: b}) }

// eventually is <>a, always []a.
func (lb *ltlBuilder) eventually(a int) int {
	if op := lb.fs[a].op; op == ltlTrue || op == ltlFalse || lb.tail(a) {
		return a
	}
	return lb.mk(ltl{op: ltlUntil, a: lb.truth(true), b: a})
}

func (lb *ltlBuilder) always(a int) int {
	if op := lb.fs[a].op; op == ltlTrue || op == ltlFalse || lb.tail(a) {
		return a
	}
	return lb.mk(ltl{op: ltlRelease, a: lb.truth(false), b: a})
}

// under returns x when f is <>x (op ltlUntil) or []x (op ltlRelease).
func (lb *ltlBuilder) under(f int, op ltlOp) (int, bool) {
	x := lb.fs[f]
	switch {
	case op == ltlUntil && x.op == ltlUntil && lb.fs[x.a].op == ltlTrue:
		return x.b, true
	case op == ltlRelease && x.op == ltlRelease && lb.fs[x.a].op == ltlFalse:
		return x.b, true
	}
	return 0, false
}

// lits returns the literals of f when f is a literal or a tree of op
// (ltlAnd or ltlOr) over literals.
func (lb *ltlBuilder) lits(f int, op ltlOp) ([]cond, bool) {
	x := lb.fs[f]
	switch x.op {
	case ltlLit:
		return []cond{x.c}, true
	case op:
		a, ok := lb.lits(x.a, op)
		if !ok {
			return nil, false
		}
		b, ok := lb.lits(x.b, op)
		return append(a, b...), ok
	}
	return nil, false
}

// infinitely returns the literals of f = []<>(l1 \/ ... \/ ln), finally
// those of f = <>[](l1 /\ ... /\ ln): conditions on the end component
// (livesearch.go's ae and ea).
func (lb *ltlBuilder) infinitely(f int) ([]cond, bool) {
	if x, ok := lb.under(f, ltlRelease); ok {
		if y, ok := lb.under(x, ltlUntil); ok {
			return lb.lits(y, ltlOr)
		}
	}
	return nil, false
}

func (lb *ltlBuilder) finally(f int) ([]cond, bool) {
	if x, ok := lb.under(f, ltlUntil); ok {
		if y, ok := lb.under(x, ltlRelease); ok {
			return lb.lits(y, ltlAnd)
		}
	}
	return nil, false
}

// tail reports whether f is a condition on the end of a behaviour only
// (the same at every position): []<>P, <>[]P, or a conjunction or
// disjunction of such.
func (lb *ltlBuilder) tail(f int) bool {
	if _, ok := lb.infinitely(f); ok {
		return true
	}
	if _, ok := lb.finally(f); ok {
		return true
	}
	x := lb.fs[f]
	return (x.op == ltlAnd || x.op == ltlOr) && lb.tail(x.a) && lb.tail(x.b)
}

// propositional reports whether f has no temporal operator.
func (lb *ltlBuilder) propositional(f int) bool {
	x := lb.fs[f]
	switch x.op {
	case ltlTrue, ltlFalse, ltlLit:
		return true
	case ltlAnd, ltlOr:
		return lb.propositional(x.a) && lb.propositional(x.b)
	}
	return false
}

// finallyAlways returns <>[]x as a tail condition when x is made of
// propositions, <>q and []y this way: <>[] distributes over /\, <>[][]y is
// <>[]y, <>[]<>q is []<>q, and <>[](p \/ <>q) is <>[]p \/ []<>q (after
// the last q, p holds at every position). <>(\A i : P(i) ~> Q(i)) ends as
// conditions on the component, with no automaton.
func (lb *ltlBuilder) finallyAlways(x int) (int, bool) {
	if lb.propositional(x) {
		return lb.eventually(lb.always(x)), true
	}
	if q, ok := lb.under(x, ltlUntil); ok && lb.propositional(q) {
		return lb.always(lb.eventually(q)), true
	}
	if y, ok := lb.under(x, ltlRelease); ok {
		return lb.finallyAlways(y)
	}
	switch lb.fs[x].op {
	case ltlAnd:
		a, ok := lb.finallyAlways(lb.fs[x].a)
		if !ok {
			return 0, false
		}
		b, ok := lb.finallyAlways(lb.fs[x].b)
		return lb.and(a, b), ok
	case ltlOr:
		p, q := lb.truth(false), lb.truth(false)
		for _, d := range lb.disjuncts(x) {
			if lb.propositional(d) {
				p = lb.or(p, d)
			} else if y, ok := lb.under(d, ltlUntil); ok && lb.propositional(y) {
				q = lb.or(q, y)
			} else {
				return 0, false
			}
		}
		return lb.or(lb.eventually(lb.always(p)), lb.always(lb.eventually(q))), true
	}
	return 0, false
}

// conjuncts splits the conjunctions at the top of formula f.
func (lb *ltlBuilder) conjuncts(f int) []int {
	if lb.fs[f].op != ltlAnd {
		return []int{f}
	}
	return append(lb.conjuncts(lb.fs[f].a), lb.conjuncts(lb.fs[f].b)...)
}

// hoist moves the tail conditions of f out of its <> and [], which they
// commute with (<>(X /\ T) = <>X /\ T, [](X \/ T) = []X \/ T, T the same
// at every position): at the top they become conditions on the end
// component, and the automaton is left with the rest. <>(\A s : P(s) /\
// []<>Q(s)) needs 2^N states of the tableau, <>(\A s : P(s)) two.
func (lb *ltlBuilder) hoist(f int) int {
	x := lb.fs[f]
	switch x.op {
	case ltlAnd:
		return lb.and(lb.hoist(x.a), lb.hoist(x.b))
	case ltlOr:
		return lb.or(lb.hoist(x.a), lb.hoist(x.b))
	}
	if y, ok := lb.under(f, ltlUntil); ok {
		out := lb.truth(false)
		for _, d := range lb.disjuncts(lb.hoist(y)) {
			core, tails := lb.truth(true), lb.truth(true)
			boxed, allBoxed := lb.truth(true), true
			for _, c := range lb.conjuncts(d) {
				if lb.tail(c) {
					tails = lb.and(tails, c)
					continue
				}
				core = lb.and(core, c)
				if z, ok := lb.under(c, ltlRelease); ok {
					boxed = lb.and(boxed, z)
				} else {
					allBoxed = false
				}
			}
			// <>([]Y1 /\ ... /\ T) = <>[](Y1 /\ ...) /\ T, a tail when
			// the Ys are simple enough.
			if allBoxed {
				if t, ok := lb.finallyAlways(boxed); ok {
					out = lb.or(out, lb.and(t, tails))
					continue
				}
			}
			out = lb.or(out, lb.and(lb.eventually(core), tails))
		}
		return out
	}
	if y, ok := lb.under(f, ltlRelease); ok {
		out := lb.truth(true)
		for _, c := range lb.conjuncts(lb.hoist(y)) {
			core, tails := lb.truth(false), lb.truth(false)
			for _, d := range lb.disjuncts(c) {
				if lb.tail(d) {
					tails = lb.or(tails, d)
				} else {
					core = lb.or(core, d)
				}
			}
			out = lb.and(out, lb.or(lb.always(core), tails))
		}
		return out
	}
	return f
}

// nnf builds t (its negation when neg) in negation normal form.
func (lb *ltlBuilder) nnf(t *eval.Temporal, neg bool) (int, error) {
	if t.Const != nil {
		return lb.truth(*t.Const != neg), nil
	}
	switch t.Op {
	case eval.TPred, eval.TAction:
		return lb.mk(ltl{op: ltlLit, c: cond{t.Pred, neg}}), nil
	case eval.TAnd, eval.TOr:
		conj := (t.Op == eval.TAnd) != neg
		out := lb.truth(conj)
		for _, a := range t.Args {
			x, err := lb.nnf(a, neg)
			if err != nil {
				return 0, err
			}
			if conj {
				out = lb.and(out, x)
			} else {
				out = lb.or(out, x)
			}
		}
		return out, nil
	case eval.TNot:
		return lb.nnf(t.Args[0], !neg)
	case eval.TAlways, eval.TEventually:
		x, err := lb.nnf(t.Args[0], neg)
		if err != nil {
			return 0, err
		}
		if (t.Op == eval.TAlways) != neg {
			return lb.always(x), nil
		}
		return lb.eventually(x), nil
	case eval.TLeadsTo: // [](~P \/ <>Q); negated, <>(P /\ []~Q)
		p, err := lb.nnf(t.Args[0], !neg)
		if err != nil {
			return 0, err
		}
		q, err := lb.nnf(t.Args[1], neg)
		if err != nil {
			return 0, err
		}
		if neg {
			return lb.eventually(lb.and(p, lb.always(q))), nil
		}
		return lb.always(lb.or(p, lb.eventually(q))), nil
	case eval.TWF, eval.TSF:
		en := lb.mk(ltl{op: ltlLit, c: cond{t.Pred, false}})
		notEn := lb.mk(ltl{op: ltlLit, c: cond{t.Pred, true}})
		step := lb.mk(ltl{op: ltlLit, c: cond{t.Step, false}})
		notStep := lb.mk(ltl{op: ltlLit, c: cond{t.Step, true}})
		switch {
		case t.Op == eval.TWF && !neg: // []<>(~ENABLED \/ <<A>>)
			return lb.always(lb.eventually(lb.or(notEn, step))), nil
		case t.Op == eval.TWF: // <>[](ENABLED /\ ~<<A>>)
			return lb.eventually(lb.always(lb.and(en, notStep))), nil
		case !neg: // <>[]~ENABLED \/ []<><<A>>
			return lb.or(lb.eventually(lb.always(notEn)), lb.always(lb.eventually(step))), nil
		default: // []<>ENABLED /\ <>[]~<<A>>
			return lb.and(lb.always(lb.eventually(en)), lb.eventually(lb.always(notStep))), nil
		}
	}
	return 0, unsupported(t)
}

// disjuncts splits the disjunctions at the top of formula f.
func (lb *ltlBuilder) disjuncts(f int) []int {
	if lb.fs[f].op != ltlOr {
		return []int{f}
	}
	return append(lb.disjuncts(lb.fs[f].a), lb.disjuncts(lb.fs[f].b)...)
}

// fset is a set of formula ids.
type fset []uint64

func newFset(n int) fset { return make(fset, (n+63)/64) }

func (s fset) has(i int) bool { return s[i/64]&(1<<uint(i%64)) != 0 }
func (s fset) add(i int)      { s[i/64] |= 1 << uint(i%64) }
func (s fset) clone() fset    { return append(fset(nil), s...) }

func (s fset) key() string {
	var b strings.Builder
	for _, w := range s {
		fmt.Fprintf(&b, "%x,", w)
	}
	return b.String()
}

// automaton is the generalized Büchi automaton of a formula: a run is a
// sequence of its states, state i's literals holding at position i of the
// behaviour, state i+1 a successor of state i; it is accepting when each
// acceptance set is visited infinitely often.
type automaton struct {
	states []autState
	inits  []int
	nacc   int // the number of acceptance sets
	// accept stand for the acceptance sets in the product graph's node
	// bits; they are never evaluated.
	accept []*eval.Pred
}

type autState struct {
	lits   []cond // state and action literals
	succ   []int
	accept []bool // membership in each acceptance set
}

// maxAutStates bounds a tableau: a property whose negation needs more
// states is reported as not checked.
const maxAutStates = 4096

// tnode is a node of the tableau's construction.
type tnode struct {
	incoming       []int // -1: initial
	new, old, next fset
}

// buildAutomaton is the tableau of formula f (GPVW's construction).
func (lb *ltlBuilder) buildAutomaton(f int) (*automaton, error) {
	// Every literal's negation is interned first: the expansion looks them
	// up.
	for i := 0; i < len(lb.fs); i++ {
		if lb.fs[i].op == ltlLit {
			lb.mk(ltl{op: ltlLit, c: lb.fs[i].c.not()})
		}
	}
	n := len(lb.fs)
	type done struct {
		incoming []int
		old      fset
		next     fset
	}
	var nodes []*done
	byKey := map[string]int{}
	var expand func(q tnode) error
	expand = func(q tnode) error {
		// Take a formula out of New.
		eta := -1
		for i := 0; i < n; i++ {
			if q.new.has(i) {
				eta = i
				break
			}
		}
		if eta < 0 {
			key := q.old.key() + "|" + q.next.key()
			if id, ok := byKey[key]; ok {
				nodes[id].incoming = append(nodes[id].incoming, q.incoming...)
				return nil
			}
			if len(nodes) >= maxAutStates {
				return fmt.Errorf("the negated property's tableau has more than %d states", maxAutStates)
			}
			id := len(nodes)
			byKey[key] = id
			nodes = append(nodes, &done{incoming: q.incoming, old: q.old, next: q.next})
			return expand(tnode{incoming: []int{id}, new: q.next.clone(), old: newFset(n), next: newFset(n)})
		}
		q.new[eta/64] &^= 1 << uint(eta%64)
		if q.old.has(eta) {
			return expand(q)
		}
		x := lb.fs[eta]
		switch x.op {
		case ltlTrue:
			return expand(q)
		case ltlFalse:
			return nil
		case ltlLit:
			if neg := lb.ids[ltl{op: ltlLit, c: x.c.not()}]; q.old.has(neg) {
				return nil
			}
			q.old.add(eta)
			return expand(q)
		case ltlAnd:
			q.old.add(eta)
			for _, y := range []int{x.a, x.b} {
				if !q.old.has(y) {
					q.new.add(y)
				}
			}
			return expand(q)
		}
		// Or, Until, Release: two nodes.
		q.old.add(eta)
		q1 := tnode{incoming: q.incoming, new: q.new.clone(), old: q.old.clone(), next: q.next.clone()}
		q2 := tnode{incoming: q.incoming, new: q.new, old: q.old, next: q.next}
		addNew := func(t tnode, ys ...int) {
			for _, y := range ys {
				if !t.old.has(y) {
					t.new.add(y)
				}
			}
		}
		switch x.op {
		case ltlOr:
			addNew(q1, x.a)
			addNew(q2, x.b)
		case ltlUntil:
			addNew(q1, x.a)
			q1.next.add(eta)
			addNew(q2, x.b)
		case ltlRelease:
			addNew(q1, x.b)
			q1.next.add(eta)
			addNew(q2, x.a, x.b)
		}
		if err := expand(q1); err != nil {
			return err
		}
		return expand(q2)
	}
	start := tnode{incoming: []int{-1}, new: newFset(n), old: newFset(n), next: newFset(n)}
	start.new.add(f)
	if err := expand(start); err != nil {
		return nil, err
	}
	var untils []int
	for i := 0; i < n; i++ {
		if lb.fs[i].op == ltlUntil {
			untils = append(untils, i)
		}
	}
	a := &automaton{nacc: len(untils), states: make([]autState, len(nodes))}
	for id, d := range nodes {
		st := &a.states[id]
		for i := 0; i < n; i++ {
			if d.old.has(i) && lb.fs[i].op == ltlLit {
				st.lits = append(st.lits, lb.fs[i].c)
			}
		}
		st.accept = make([]bool, len(untils))
		for k, u := range untils {
			st.accept[k] = !d.old.has(u) || d.old.has(lb.fs[u].b)
		}
		for _, from := range d.incoming {
			if from < 0 {
				a.inits = append(a.inits, id)
			} else {
				a.states[from].succ = append(a.states[from].succ, id)
			}
		}
	}
	for i := range a.states {
		slices.Sort(a.states[i].succ)
		a.states[i].succ = slices.Compact(a.states[i].succ)
	}
	slices.Sort(a.inits)
	a.inits = slices.Compact(a.inits)
	a.dropUniversalSets()
	return a, nil
}

// dropUniversalSets removes the acceptance sets every state is in.
func (a *automaton) dropUniversalSets() {
	var keep []int
	for k := 0; k < a.nacc; k++ {
		for _, st := range a.states {
			if !st.accept[k] {
				keep = append(keep, k)
				break
			}
		}
	}
	for i := range a.states {
		acc := make([]bool, len(keep))
		for j, k := range keep {
			acc[j] = a.states[i].accept[k]
		}
		a.states[i].accept = acc
	}
	a.nacc = len(keep)
	a.accept = make([]*eval.Pred, a.nacc)
	for k := range a.accept {
		a.accept[k] = &eval.Pred{Text: fmt.Sprintf("acceptance set %d", k)}
	}
}

// tableau is the general check of one liveness conjunct: the negation
// (with the spec's temporal assumptions) as a disjunction of parts, each an
// automaton and conditions on the end component.
type tableau struct {
	parts []tabPart
}

// tabPart is a behaviour the automaton accepts that ends in a component
// where each disjunction of ae holds somewhere and all of ea everywhere.
type tabPart struct {
	aut *automaton
	ae  [][]cond
	ea  []cond
}

// newTableau builds the automata of ~t /\ assume.
func newTableau(t *eval.Temporal, assume []*eval.Temporal) (*tableau, error) {
	lb := &ltlBuilder{}
	f, err := lb.nnf(t, true)
	if err != nil {
		return nil, err
	}
	for _, a := range assume {
		x, err := lb.nnf(a, false)
		if err != nil {
			return nil, err
		}
		f = lb.and(f, x)
	}
	f = lb.hoist(f)
	// The disjunctive normal form of the top, whose atoms are the
	// component's conditions and the formulas left to the automaton.
	type dnf struct {
		core int
		ae   [][]cond
		ea   []cond
	}
	var norm func(f int) ([]dnf, error)
	norm = func(f int) ([]dnf, error) {
		x := lb.fs[f]
		switch x.op {
		case ltlOr, ltlAnd:
			a, err := norm(x.a)
			if err != nil {
				return nil, err
			}
			b, err := norm(x.b)
			if err != nil {
				return nil, err
			}
			if x.op == ltlOr {
				return append(a, b...), nil
			}
			if len(a)*len(b) > maxForms {
				return nil, fmt.Errorf("the property's normal form has more than %d disjuncts", maxForms)
			}
			var out []dnf
			for _, p := range a {
				for _, q := range b {
					out = append(out, dnf{core: lb.and(p.core, q.core),
						ae: append(append([][]cond(nil), p.ae...), q.ae...),
						ea: append(append([]cond(nil), p.ea...), q.ea...)})
				}
			}
			return out, nil
		case ltlFalse:
			return nil, nil
		}
		if cs, ok := lb.infinitely(f); ok {
			return []dnf{{core: lb.truth(true), ae: [][]cond{cs}}}, nil
		}
		if cs, ok := lb.finally(f); ok {
			return []dnf{{core: lb.truth(true), ea: cs}}, nil
		}
		return []dnf{{core: f}}, nil
	}
	ds, err := norm(f)
	if err != nil {
		return nil, err
	}
	tb := &tableau{}
	for _, d := range ds {
		if lb.fs[d.core].op == ltlFalse {
			continue
		}
		a, err := lb.buildAutomaton(d.core)
		if err != nil {
			return nil, err
		}
		tb.parts = append(tb.parts, tabPart{aut: a, ae: d.ae, ea: d.ea})
	}
	return tb, nil
}

// conds are the literals of the tableau (the graph evaluates them on its
// states and steps).
func (tb *tableau) conds() []cond {
	var out []cond
	for _, p := range tb.parts {
		for _, st := range p.aut.states {
			out = append(out, st.lits...)
		}
		for _, d := range p.ae {
			out = append(out, d...)
		}
		out = append(out, p.ea...)
	}
	return out
}

// errProductTooLarge ends a product that would not fit in memory.
var errProductTooLarge = errors.New("the product of the state graph and the property's tableau has more than 2^31 edges")

// product is the product of graph g with automaton a, reachable from its
// initial nodes: a graph whose nodes are pairs (state, automaton state),
// with g's predicate bits and a bit per acceptance set, and whose edges
// are g's; node[i] and edge[i] are the state and the edge of g that
// product node and edge i stand for.
type productGraph struct {
	g          *graph
	node, edge []int32
}

func (g *graph) product(a *automaton) (*productGraph, error) {
	nq := int64(len(a.states))
	// Product ids of the pairs reached, by v*nq+q.
	ids := map[int64]int32{}
	p := &graph{statePreds: append([]*eval.Pred(nil), g.statePreds...), stepPreds: g.stepPreds,
		stateBit: map[*eval.Pred]int{}, stepBit: g.stepBit, ew: g.ew}
	for k, pr := range g.statePreds {
		p.stateBit[pr] = k
	}
	for k := 0; k < a.nacc; k++ {
		pr := a.accept[k]
		p.stateBit[pr] = len(p.statePreds)
		p.statePreds = append(p.statePreds, pr)
	}
	p.sw = (len(p.statePreds) + 63) / 64
	pg := &productGraph{g: p}
	// stateOK: q's state literals hold in v.
	stateOK := func(v int32, q int) bool { return g.nodeOK(v, a.states[q].lits) }
	var aut []int32 // the automaton state of each product node
	visit := func(v int32, q int) int32 {
		key := int64(v)*nq + int64(q)
		if id, ok := ids[key]; ok {
			return id
		}
		id := int32(len(pg.node))
		ids[key] = id
		pg.node = append(pg.node, v)
		p.fps = append(p.fps, g.fps[v])
		bits := make([]uint64, p.sw)
		copy(bits, g.nbits[int(v)*g.sw:int(v+1)*g.sw])
		for k, in := range a.states[q].accept {
			if in {
				i := len(g.statePreds) + k
				bits[i/64] |= 1 << uint(i%64)
			}
		}
		p.nbits = append(p.nbits, bits...)
		aut = append(aut, int32(q))
		return id
	}
	for _, v := range g.inits {
		for _, q := range a.inits {
			if stateOK(v, q) {
				p.inits = append(p.inits, visit(v, q))
			}
		}
	}
	p.off = []int32{0}
	for i := 0; i < len(pg.node); i++ {
		v, q := pg.node[i], int(aut[i])
		st := &a.states[q]
		for e := g.off[v]; e < g.off[v+1]; e++ {
			if !g.edgeOK(e, st.lits) {
				continue
			}
			w := g.to[e]
			for _, r := range st.succ {
				if !stateOK(w, r) {
					continue
				}
				if len(p.to) >= 1<<31-1 {
					return nil, errProductTooLarge
				}
				p.to = append(p.to, visit(w, r))
				pg.edge = append(pg.edge, e)
				p.ebits = append(p.ebits, g.ebits[int(e)*g.ew:int(e+1)*g.ew]...)
			}
		}
		p.off = append(p.off, int32(len(p.to)))
	}
	return pg, nil
}

// find looks for a fair accepting behaviour of the product: its lasso,
// in g's nodes and edges.
func (pg *productGraph) find(g *graph, part tabPart, fair []fairCond) *lasso {
	a := part.aut
	f := &form{ae: append([][]cond(nil), part.ae...), ea: part.ea}
	for k := 0; k < a.nacc; k++ {
		f.ae = append(f.ae, []cond{{p: a.accept[k]}})
	}
	l := pg.g.find(f, fair)
	if l == nil {
		return nil
	}
	out := &lasso{loop: l.loop, back: pg.edge[l.back]}
	for i, n := range l.nodes {
		out.nodes = append(out.nodes, pg.node[n])
		e := l.edges[i]
		if e >= 0 {
			e = pg.edge[e]
		}
		out.edges = append(out.edges, e)
	}
	out.shorten()
	return out
}

// shorten writes lasso l as the shortest lasso of the same behaviour: the
// product's cycle can pass a state of the graph several times (in
// different states of the automaton), and its entry can be later than
// needed.
func (l *lasso) shorten() {
	// Roll the cycle back while the state before it is its last one,
	// entered by the same edge.
	for l.loop > 0 {
		m := len(l.nodes)
		if l.nodes[l.loop-1] != l.nodes[m-1] || l.edges[l.loop] != l.back {
			break
		}
		l.back = l.edges[m-1]
		l.nodes, l.edges = l.nodes[:m-1], l.edges[:m-1]
		l.loop--
	}
	l.dropRepeats()
}

// dropRepeats keeps one turn of a cycle that goes round the same edges
// several times (TLC prints one).
func (l *lasso) dropRepeats() {
	// The cycle's edges, and their smallest period.
	cyc := append(append([]int32(nil), l.edges[l.loop+1:]...), l.back)
	n := len(cyc)
	for p := 1; p < n; p++ {
		if n%p != 0 {
			continue
		}
		periodic := true
		for i := p; i < n && periodic; i++ {
			periodic = cyc[i] == cyc[i-p]
		}
		if periodic {
			l.nodes, l.edges = l.nodes[:l.loop+p], l.edges[:l.loop+p]
			l.back = cyc[p-1]
			return
		}
	}
}

// findTableau looks for a fair behaviour of g that violates the conjunct
// checked by tb.
func (g *graph) findTableau(tb *tableau, fair []fairCond) (*lasso, error) {
	for _, part := range tb.parts {
		pg, err := g.product(part.aut)
		if err != nil {
			return nil, err
		}
		if l := pg.find(g, part, fair); l != nil {
			return l, nil
		}
	}
	return nil, nil
}
