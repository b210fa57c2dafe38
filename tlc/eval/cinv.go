package eval

import (
	"sync"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// Invariants conjunct by conjunct.
//
// An invariant is checked as the list of its conjuncts, through the
// definitions without parameters it is made of (TypeOK == /\ x \in S /\
// ... is its conjuncts, Inv == TypeOK /\ Safe is TypeOK's and Safe's).
// Each conjunct is a function of the variables it reads, which are few:
// a new state that agrees with one where the conjunct held on every
// variable it read holds it too, without its being evaluated. So the
// checker remembers, per conjunct, the last few states it held in (by
// the values of the variables it read), and the simulator skips the
// conjuncts whose variables a step did not change (tlc/sim).
//
// Conjuncts are evaluated in order and the first false one decides, as
// the conjunction itself would; an error is reported by evaluating the
// whole invariant as written, so that it is the error TLC reports, at its
// place.

// invUnit is one conjunct of an invariant.
type invUnit struct {
	n   node
	eff bool // its evaluation has effects: it is evaluated every time
	// cf is its compiled form, made on first use (nil: interpreted).
	once sync.Once
	cf   *cfunc
	id   int // index into an evaluator's memos
}

// invariantUnits returns the conjuncts of invariant i, split on first
// use.
func (m *Model) invariantUnits(i int) []*invUnit {
	m.unitsOnce.Do(func() {
		id := 0
		m.units = make([][]*invUnit, len(m.Invariants))
		for k, inv := range m.Invariants {
			for _, n := range m.splitConjuncts(inv.node, 0) {
				m.units[k] = append(m.units[k], &invUnit{n: n, eff: m.nodeEffectful(n), id: id})
				id++
			}
		}
		m.nunits = id
	})
	return m.units[i]
}

// splitConjuncts lists the conjuncts of n, a formula evaluated without a
// frame, through labels and the definitions without parameters it calls.
func (m *Model) splitConjuncts(n node, depth int) []node {
	if depth > 32 {
		return []node{n}
	}
	switch x := n.(type) {
	case *labelNode:
		return m.splitConjuncts(x.x, depth+1)
	case *andNode:
		var out []node
		for _, it := range x.items {
			out = append(out, m.splitConjuncts(it, depth+1)...)
		}
		return out
	case *callNode:
		d := x.d
		if d.kind == dkOp && len(x.args) == 0 && len(d.params) == 0 && !d.recursive && !d.sc.paramInst &&
			!x.hasInst && x.site == 0 && d.compiled != nil && d.state && !m.effectful(d) {
			return m.splitConjuncts(d.compiled, depth+1)
		}
	}
	return []node{n}
}

// InvariantUnits is the number of conjuncts invariant i is checked as.
func (m *Model) InvariantUnits(i int) int { return len(m.invariantUnits(i)) }

// unitBool evaluates conjunct u in s. ok is false (and err nil) when the
// conjunct is not a boolean or its evaluation failed: the caller then
// evaluates the whole invariant.
func (ev *Evaluator) unitBool(u *invUnit, s []value.Value) (b, ok bool) {
	c := ev.c
	defer c.save()()
	c.initMode, c.cur, c.next, c.primed = false, s, nil, 0
	var v value.Value
	var err error
	if !c.interp && c.maxSteps == 0 {
		u.once.Do(func() {
			if !u.eff && !ev.m.interpret {
				ev.m.ccMu.Lock()
				defer ev.m.ccMu.Unlock()
				cc := &ccomp{m: ev.m}
				if f, compiled := cc.exprOK(u.n, nil); compiled {
					u.cf = &cfunc{nslots: cc.n, body: f}
				}
			}
		})
	}
	if u.cf != nil && !c.interp && c.maxSteps == 0 {
		v, err = c.runC(u.cf, nil, nil)
	} else {
		v, err = u.n.eval(c, nil)
	}
	if err != nil {
		return false, false
	}
	bv, isBool := v.(value.Bool)
	return bool(bv), isBool
}

// InvariantUnit evaluates conjunct u of invariant i in s, and says which
// variables the evaluation read (bit k: variable k) and whether its
// result may be reused for another state that agrees on them (see
// InvariantReads). An error is the whole invariant's.
func (ev *Evaluator) InvariantUnit(i, u int, s []value.Value) (ok bool, reads uint64, reusable bool, err error) {
	unit := ev.m.invariantUnits(i)[u]
	c := ev.c
	saved, effects := c.readVars, c.effects
	c.readVars, c.effects = 0, 0
	b, fine := ev.unitBool(unit, s)
	reads, reusable = c.readVars, c.effects == 0 && !unit.eff
	if len(s) > 64 {
		reads = ^uint64(0)
	}
	c.readVars, c.effects = saved|c.readVars, effects+c.effects
	if !fine {
		ok, err = ev.stateBool(ev.m.Invariants[i].node, s)
		return ok, reads, false, err
	}
	return b, reads, reusable, nil
}

// Invariant evaluates invariant i of the cfg in state s, conjunct by
// conjunct.
//
// A conjunct is a function of the variables it reads: when it held in a
// recent state and the variables it read there have the same values in s,
// it holds in s, and it is not evaluated again (unless its evaluation had
// an effect, such as printing, that TLC would repeat). Successive states
// differ in a few variables.
func (ev *Evaluator) Invariant(i int, s []value.Value) (bool, error) {
	if x := ev.m.exprCov; x != nil {
		// Every evaluation counted: no result remembered from another state.
		defer ev.c.enterRoot(x.invariants[i])()
		return ev.stateBool(ev.m.Invariants[i].node, s)
	}
	if len(s) > 64 {
		return ev.stateBool(ev.m.Invariants[i].node, s)
	}
	units := ev.m.invariantUnits(i)
	if ev.unitMemos == nil {
		ev.unitMemos = make([]invariantMemo, ev.m.nunits)
	}
	c := ev.c
	for _, u := range units {
		memo := &ev.unitMemos[u.id]
		if !u.eff && memo.holds(s) {
			continue
		}
		reads, effects := c.readVars, c.effects
		c.readVars, c.effects = 0, 0
		b, fine := ev.unitBool(u, s)
		if fine && b && c.effects == 0 && !u.eff {
			memo.add(c.readVars, s)
		}
		c.readVars, c.effects = reads|c.readVars, effects+c.effects
		if !fine {
			return ev.stateBool(ev.m.Invariants[i].node, s)
		}
		if !b {
			return false, nil
		}
	}
	return true, nil
}
