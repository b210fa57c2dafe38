package eval

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/modelfuzz/modelfuzz/tlc/syntax"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// ActionProbe says how far the calls of one action operator got while the
// successors of a state were enumerated: what a trace validation reports
// when no action can take the next event.
type ActionProbe struct {
	// Name is the operator; Args the arguments of its call that got
	// furthest (nil for operator arguments and unevaluated ones).
	Name   string
	Params []string
	Args   []value.Value
	// Calls is how many times it was called, Enabled how many of those
	// produced a successor.
	Calls, Enabled int
	// Progress is the number of conjuncts the furthest call passed, and
	// Stuck the conjunct it was evaluating when it gave up (the one that
	// was false, or the last one reached).
	Progress int
	Stuck    syntax.Pos
	// Innermost (ProbeAction only) is the false conjunct inside Stuck
	// when Stuck is not one by itself: in the branch of an IF or a CASE
	// that applied, or in a conjunction nested in a conjunct.
	Innermost syntax.Pos
}

// probe collects ActionProbes; it is attached to a ctx only for
// diagnostics, so that the checker's hot path pays one nil test.
type probe struct {
	passed int // conjuncts passed on the current path
	stack  []*probeFrame
	by     map[*def]*ActionProbe
	order  []*def
	// For ProbeAction: top is the action's frame; deep the innermost
	// conjunct reached when the action had got furthest (a conjunct of an
	// action it calls rather than the call).
	top                 *probeFrame
	deep                syntax.Pos
	deepBest, deepDepth int
	// inner is the conjunct reached last at the furthest progress, the
	// most deeply nested (level counts the conjunctions and IF/CASE
	// branches being entered on the current path, calls aside).
	level                int
	inner                syntax.Pos
	innerBest, innerNest int
	// alts holds, for each disjunction or \E being enumerated, the
	// conjuncts passed when it was entered.
	alts []int
}

type probeFrame struct {
	d        *def
	args     []value.Value
	base     int
	best     int
	bestPos  syntax.Pos
	bestArgs []value.Value
	enabled  bool
}

// reached records that conjunct n is being evaluated, all the conjuncts
// before it on the current path having held.
func (p *probe) reached(n node) {
	if p.top != nil && len(p.stack) > 0 && p.stack[0] == p.top {
		d := p.passed - p.top.base
		if d > p.deepBest || d == p.deepBest && len(p.stack) > p.deepDepth || p.deep.Line == 0 {
			p.deep, p.deepBest, p.deepDepth = n.position(), d, len(p.stack)
		}
		nest := p.level + len(p.stack)
		inAlt := len(p.alts) > 0 && p.alts[len(p.alts)-1] == p.passed
		if d > p.innerBest || d == p.innerBest && nest > p.innerNest && !inAlt || p.inner.Line == 0 {
			p.inner, p.innerBest, p.innerNest = n.position(), d, nest
		}
	}
	for _, f := range p.stack {
		if d := p.passed - f.base; d > f.best || f.bestPos.Line == 0 {
			f.best, f.bestPos = d, n.position()
		}
	}
}

func (p *probe) push(d *def, fr *Env) *probeFrame {
	f := &probeFrame{d: d, base: p.passed}
	if fr != nil {
		f.args = append([]value.Value(nil), fr.vals...)
	}
	p.stack = append(p.stack, f)
	return f
}

func (p *probe) pop(f *probeFrame) {
	p.stack = p.stack[:len(p.stack)-1]
	ap := p.by[f.d]
	if ap == nil {
		ap = &ActionProbe{Name: f.d.name, Progress: -1}
		for _, q := range f.d.params {
			ap.Params = append(ap.Params, q.Name)
		}
		p.by[f.d] = ap
		p.order = append(p.order, f.d)
	}
	ap.Calls++
	if f.enabled {
		ap.Enabled++
	}
	if f.best > ap.Progress {
		ap.Progress, ap.Stuck, ap.Args = f.best, f.bestPos, f.args
	}
}

// ProbeNext enumerates the successors of s as Next does and reports, for
// every action operator called on the way, how far its calls got, the
// actions that got furthest first.
func (ev *Evaluator) ProbeNext(s []value.Value) ([]ActionProbe, int, error) {
	c := ev.c
	p := &probe{by: map[*def]*ActionProbe{}}
	c.probe = p
	defer func() { c.probe = nil }()
	n := 0
	err := ev.Next(s, func([]value.Value) error {
		n++
		for _, f := range p.stack {
			f.enabled = true
		}
		return nil
	})
	out := make([]ActionProbe, 0, len(p.order))
	for _, d := range p.order {
		out = append(out, *p.by[d])
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Progress > out[j].Progress })
	return out, n, err
}

// ProbeAction enumerates the successors of s by action operator name
// with args, as ActionSuccessors does, and reports how far it got: for an
// action that is not enabled, Stuck is the conjunct that was false (inside
// the action operators it calls, when one of theirs was), Innermost the
// false conjunct inside it, and Progress how many conjuncts held before
// it. n is the number of successors.
func (ev *Evaluator) ProbeAction(name string, args, s []value.Value) (ap ActionProbe, n int, err error) {
	d := ev.m.root.lookup(name)
	if d == nil || d.kind != dkOp {
		return ap, 0, fmt.Errorf("the model has no action %s", name)
	}
	c := ev.c
	p := &probe{by: map[*def]*ActionProbe{}}
	c.probe = p
	defer func() { c.probe = nil }()
	var fr *Env
	if len(args) > 0 {
		fr = &Env{vals: args}
	}
	f := p.push(d, fr)
	p.top = f
	err = ev.ActionSuccessors(name, args, s, func([]value.Value) error {
		n++
		return nil
	})
	f.enabled = n > 0
	p.pop(f)
	ap = *p.by[d]
	if p.deep.Line != 0 {
		ap.Stuck = p.deep
	}
	ap.Innermost = p.inner
	return ap, n, err
}

// ExprText is the source of the expression that starts at pos in the
// model's modules, as the parser read it ("" when there is none).
func (m *Model) ExprText(pos syntax.Pos) string {
	mods := []*syntax.Module{m.Module}
	for _, name := range slices.Sorted(maps.Keys(m.loader.extended)) {
		if mod, err := m.loader.syn.Load(name); err == nil {
			mods = append(mods, mod)
		}
	}
	for _, mod := range mods {
		var found syntax.Expr
		syntax.Inspect(mod, func(n syntax.Node) bool {
			if found != nil {
				return false
			}
			if _, ok := n.(*syntax.BulletList); ok {
				return true // its position is its first item's
			}
			if e, ok := n.(syntax.Expr); ok && e.Position() == pos {
				found = e
				return false
			}
			return true
		})
		if found != nil {
			return trimParens(syntax.ExprString(found))
		}
	}
	return ""
}

// trimParens removes the parentheses around a whole rendered expression.
func trimParens(s string) string {
	for len(s) >= 2 && s[0] == '(' && s[len(s)-1] == ')' {
		depth := 0
		for i := 0; i < len(s)-1; i++ {
			switch s[i] {
			case '(':
				depth++
			case ')':
				depth--
			}
			if depth == 0 {
				return s // the first ( closes before the end
			}
		}
		s = s[1 : len(s)-1]
	}
	return s
}

// Call is one action operator's call: its name, formal parameters and
// the arguments it was called with.
type Call struct {
	Name   string
	Params []string
	Args   []value.Value
}

// StepCalls finds the first successor of s under Next, in the engine's
// order, that equals t, and returns the action operators being called
// when it was produced, outermost first (Next's own definitions
// included): which action, with which arguments, leads from s to t.
// found is false when no successor of s is t.
func (ev *Evaluator) StepCalls(s, t []value.Value) (calls []Call, found bool, err error) {
	c := ev.c
	p := &probe{by: map[*def]*ActionProbe{}}
	c.probe = p
	defer func() { c.probe = nil }()
	errFound := fmt.Errorf("found")
	err = ev.Next(s, func(u []value.Value) error {
		for j := range u {
			if eq, err := value.Equal(u[j], t[j]); err != nil || !eq {
				return err
			}
		}
		for _, f := range p.stack {
			cl := Call{Name: f.d.name, Args: slices.Clone(f.args)}
			for _, q := range f.d.params {
				cl.Params = append(cl.Params, q.Name)
			}
			calls = append(calls, cl)
		}
		return errFound
	})
	if err == errFound {
		return calls, true, nil
	}
	return nil, false, err
}
