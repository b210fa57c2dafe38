package eval

import (
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// The key of a state's VIEW without building the VIEW's value.
//
// A VIEW written as a tuple (View == <<[i \in S |-> f(i)], role, log>>)
// is fingerprinted from its components' fingerprints, the way the tuple's
// own fingerprint is: a component that is a variable costs nothing (its
// value's fingerprint is kept), an expression is evaluated alone. Without
// a VIEW the key is the state's, as a tuple of its variables, with no
// tuple built.

// viewPart is a component of a tuple VIEW: a variable, or an expression.
type viewPart struct {
	v int // the variable, or -1
	u *invUnit
}

// viewParts returns the components of the VIEW when it is a tuple (nil
// otherwise).
func (m *Model) viewParts() []*viewPart {
	m.viewOnce.Do(func() {
		n := m.View
		for depth := 0; n != nil && depth < 32; depth++ {
			switch x := n.(type) {
			case *labelNode:
				n = x.x
				continue
			case *callNode:
				d := x.d
				if d.kind == dkOp && len(x.args) == 0 && len(d.params) == 0 && !d.recursive && !d.sc.paramInst &&
					!x.hasInst && x.site == 0 && d.compiled != nil && !m.effectful(d) {
					n = d.compiled
					continue
				}
			case *tupleNode:
				parts := make([]*viewPart, len(x.elems))
				for i, e := range x.elems {
					parts[i] = &viewPart{v: -1}
					if v, ok := e.(*varNode); ok {
						parts[i].v = v.idx
					} else {
						parts[i].u = &invUnit{n: e, eff: m.nodeEffectful(e)}
					}
				}
				m.viewPartList = parts
			}
			break
		}
	})
	return m.viewPartList
}

// ViewKey is the fingerprint of the VIEW's value in s (of s itself,
// as a tuple, when there is no VIEW): value.Fingerprint of ViewOf(s),
// computed without building the VIEW's value where it can be. reads says
// which variables it depends on (bit k: variable k).
func (ev *Evaluator) ViewKey(s []value.Value) (key uint64, reads uint64, err error) {
	if ev.m.View == nil {
		return value.FingerprintTuple(s), ^uint64(0), nil
	}
	c := ev.c
	saved := c.readVars
	c.readVars = 0
	defer func() { c.readVars = saved | c.readVars }()
	parts := ev.m.viewParts()
	if parts == nil {
		v, err := ev.ViewOf(s)
		if err != nil {
			return 0, 0, err
		}
		if len(s) > 64 {
			return value.Fingerprint(v), ^uint64(0), nil
		}
		return value.Fingerprint(v), c.readVars, nil
	}
	var buf [8]value.Value
	vals := buf[:0]
	for _, p := range parts {
		if p.v >= 0 {
			if p.v >= len(s) || s[p.v] == nil {
				break
			}
			c.readVars |= 1 << uint(p.v)
			vals = append(vals, s[p.v])
			continue
		}
		v, ok := ev.partValue(p, s)
		if !ok {
			break
		}
		vals = append(vals, v)
	}
	if len(vals) < len(parts) {
		// The VIEW's own error.
		v, err := ev.ViewOf(s)
		if err != nil {
			return 0, 0, err
		}
		return value.Fingerprint(v), ^uint64(0), nil
	}
	if len(s) > 64 || c.effects > 0 {
		return value.FingerprintTuple(vals), ^uint64(0), nil
	}
	return value.FingerprintTuple(vals), c.readVars, nil
}

// partValue evaluates a component of a tuple VIEW; ok is false when it
// failed.
func (ev *Evaluator) partValue(p *viewPart, s []value.Value) (value.Value, bool) {
	c := ev.c
	defer c.save()()
	c.initMode, c.cur, c.next, c.primed = false, s, nil, 0
	u := p.u
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
	var v value.Value
	var err error
	if u.cf != nil && !c.interp && c.maxSteps == 0 {
		v, err = c.runC(u.cf, nil, nil)
	} else {
		v, err = u.n.eval(c, nil)
	}
	return v, err == nil
}
