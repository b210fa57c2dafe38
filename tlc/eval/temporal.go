package eval

import (
	"fmt"
	"os"
	"strings"

	"github.com/modelfuzz/modelfuzz/tlc/syntax"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// This file resolves temporal formulas (the cfg's PROPERTIES and the
// fairness conjuncts of the SPECIFICATION) into trees whose leaves are
// compiled state and action predicates, as TLC's SpecProcessor does:
// definitions are expanded (through instances, with their substitutions),
// operator arguments and quantifiers over constant sets are evaluated and
// unrolled. The model checker decides what to do with the tree.

// TOp is the operator of a temporal formula node.
type TOp uint8

const (
	TPred       TOp = iota // a constant- or state-level predicate (Pred)
	TAction                // an action-level predicate (Pred): [A]_v, <<A>>_v, A
	TAnd                   // Args[0] /\ Args[1] /\ ...
	TOr                    // Args[0] \/ Args[1] \/ ...
	TNot                   // ~Args[0]
	TAlways                // []Args[0]
	TEventually            // <>Args[0]
	TLeadsTo               // Args[0] ~> Args[1]
	TWF                    // WF_v(A): Pred is ENABLED <<A>>_v, Step is <<A>>_v
	TSF                    // SF_v(A): as TWF
)

// Temporal is a resolved temporal formula.
type Temporal struct {
	Op   TOp
	Args []*Temporal
	// Pred is the leaf of TPred and TAction; for TWF and TSF, whether
	// <<A>>_v is enabled.
	Pred *Pred
	// Step is <<A>>_v of TWF and TSF.
	Step *Pred
	// Text is the formula as written (for messages), Pos where, End
	// where its last token ends (TLC names a conjunct by its extent).
	Text string
	Pos  syntax.Pos
	End  syntax.Pos
	// Name is the definition the formula is the body of (the innermost,
	// when definitions refer to definitions), or the name a leaf refers
	// to: how TLC names a conjunct of a property.
	Name string
	// Const is the value of a constant leaf (one that reads no variable,
	// such as oi # oj under \A oi, oj), nil otherwise: the formula is
	// simplified with it, as a quantified implication (c => WF_v(A))
	// would otherwise double the normal form for each binding.
	Const *bool
}

// simplify folds the constant arguments of a conjunction, disjunction or
// negation.
func simplify(t *Temporal) *Temporal {
	switch t.Op {
	case TNot:
		if c := t.Args[0].Const; c != nil {
			return constTemporal(!*c, t)
		}
	case TAnd, TOr:
		unit := t.Op == TAnd // TRUE leaves a conjunction as it is
		var keep []*Temporal
		for _, a := range t.Args {
			if a.Const != nil {
				if *a.Const == unit {
					continue
				}
				return constTemporal(!unit, t)
			}
			keep = append(keep, a)
		}
		switch len(keep) {
		case 0:
			return constTemporal(unit, t)
		case 1:
			if keep[0].Name == "" {
				keep[0].Name = t.Name
			}
			return keep[0]
		}
		t.Args = keep
	}
	return t
}

func constTemporal(b bool, at0 *Temporal) *Temporal {
	p := &Pred{n: &litNode{at: at{at0.Pos}, v: value.Bool(b)}, Text: fmt.Sprint(b), Pos: at0.Pos}
	return &Temporal{Op: TPred, Pred: p, Text: at0.Text, Pos: at0.Pos, End: at0.End, Name: at0.Name, Const: &b}
}

// Pred is a compiled predicate with the values of the names it is under
// (quantifier variables, operator parameters).
type Pred struct {
	n   node
	env *Env
	// Action is true for an action-level predicate (it reads primed
	// variables): it is evaluated on a step, else on a state.
	Action bool
	// Angle is true for <<A>>_v: it is false on a step that changes no
	// variable.
	Angle bool
	Text  string
	Pos   syntax.Pos
	c     predC // compiled, on first use
}

// Holds evaluates p in state s (a state predicate) or on the step s -> t
// (an action predicate).
func (ev *Evaluator) Holds(p *Pred, s, t []value.Value) (bool, error) {
	c := ev.c
	defer c.save()()
	c.initMode, c.cur, c.next, c.primed = false, s, nil, 0
	if p.Action {
		c.next = t
	}
	// The states are fixed during the evaluation: substitutions can be
	// kept.
	if ev.substs == nil {
		ev.substs = map[substKey]value.Value{}
	}
	c.substCache = ev.substs
	defer func() {
		c.substCache = nil
		clear(ev.substs)
	}()
	if pc := c.compiledPred(p); pc != nil {
		v, err := c.holdsC(pc)
		if err != nil {
			return false, err
		}
		if b, ok := v.(value.Bool); ok {
			return bool(b), nil
		}
	}
	return evalBool(c, p.env, p.n)
}

// Property is one PROPERTY of the cfg, resolved; Err says why it could not
// be (the checker reports it as not checked).
type Property struct {
	Name string
	F    *Temporal
	Err  error
}

// ResolveProperties resolves the cfg's PROPERTIES.
func (m *Model) ResolveProperties() []Property {
	var out []Property
	for _, id := range m.Config.Properties {
		p := Property{Name: id.Name}
		m.compileMu.Lock()
		d := m.root.lookup(id.Name)
		switch {
		case d == nil:
			p.Err = fmt.Errorf("the spec has no definition %s", id.Name)
		case d.kind != dkOp || len(d.params) > 0:
			p.Err = fmt.Errorf("%s is not a definition without arguments", id.Name)
		default:
			w := &twalker{m: m}
			p.F, p.Err = w.walk(d.body, d.sc, nil, nil, 0)
			if p.Err == nil && p.F.Name == "" {
				p.F.Name = id.Name
			}
		}
		m.compileMu.Unlock()
		out = append(out, p)
	}
	return out
}

// SpecTemporal is the SPECIFICATION formula resolved (nil with INIT and
// NEXT in the cfg): its conjuncts are the initial predicate (TPred), the
// next-state relation (TAlways of a TAction) and the fairness conditions.
func (m *Model) SpecTemporal() (*Temporal, error) {
	name := m.Config.Specification.Name
	if name == "" {
		return nil, nil
	}
	m.compileMu.Lock()
	defer m.compileMu.Unlock()
	d := m.root.lookup(name)
	if d == nil || d.kind != dkOp {
		return nil, fmt.Errorf("the spec has no definition %s", name)
	}
	w := &twalker{m: m}
	return w.walk(d.body, d.sc, nil, nil, 0)
}

type twalker struct {
	m *Model
	// temporalDefs memoizes whether a definition's body is temporal,
	// actionDefs whether it has primes outside ENABLED.
	temporalDefs, actionDefs map[*def]bool
	// lets are the LETs around the formula being walked, outermost first:
	// a reference to one of their definitions whose body is temporal is
	// walked into; a leaf is compiled inside them.
	lets []*syntax.Let
}

// letDef finds the LET definition name refers to, innermost first.
func (w *twalker) letDef(name string) *syntax.OpDef {
	for i := len(w.lets) - 1; i >= 0; i-- {
		for _, u := range w.lets[i].Defs {
			if d, ok := u.(*syntax.OpDef); ok && d.Name == name {
				return d
			}
		}
	}
	return nil
}

// paramLex is the frame of a LET definition's parameters under lx.
func paramLex(d *syntax.OpDef, lx *lex) *lex {
	if len(d.Params) == 0 {
		return lx
	}
	inner := &lex{parent: lx}
	for _, p := range d.Params {
		inner.names = append(inner.names, p.Name)
		inner.arities = append(inner.arities, p.Arity)
	}
	return inner
}

// letRef walks a reference to the LET definition d whose body is temporal:
// its arguments are evaluated here, as constants (as ref does).
func (w *twalker) letRef(e syntax.Expr, d *syntax.OpDef, args []syntax.Expr, sc *scope, lx *lex, env *Env, depth int) (*Temporal, error) {
	if len(args) != len(d.Params) {
		return nil, w.unsupported(e, "operator %s takes %d argument(s), got %d", d.Name, len(d.Params), len(args))
	}
	named := func(t *Temporal, err error) (*Temporal, error) {
		if err == nil && t.Name == "" && len(args) == 0 {
			t.Name = d.Name
		}
		return t, err
	}
	if len(args) == 0 {
		return named(w.walk(d.Body, sc, lx, env, depth+1))
	}
	inner := &lex{parent: lx}
	f := &Env{parent: env, inst: env.instFrame()}
	if err := w.bindArgs(d.Name, d.Params, args, func(a syntax.Expr) syntax.Expr { return w.inLets(a, sc, lx) }, sc, lx, env, inner, f); err != nil {
		return nil, err
	}
	return named(w.walk(d.Body, sc, inner, f, depth+1))
}

// inLets puts e inside the LETs around it (their definitions that are not
// temporal), so that it compiles with their names.
func (w *twalker) inLets(e syntax.Expr, sc *scope, lx *lex) syntax.Expr {
	for i := len(w.lets) - 1; i >= 0; i-- {
		var defs []syntax.Unit
		for _, u := range w.lets[i].Defs {
			if d, ok := u.(*syntax.OpDef); ok && w.temporal(d.Body, sc, paramLex(d, lx), 0) {
				continue
			}
			defs = append(defs, u)
		}
		if len(defs) > 0 {
			e = &syntax.Let{Pos: e.Position(), Defs: defs, Body: e}
		}
	}
	return e
}

const maxTemporalDepth = 100

func (w *twalker) unsupported(e syntax.Expr, format string, args ...any) error {
	return errorf(e.Position(), format, args...)
}

// walk resolves e, in scope sc under the lexical frames lx whose values are
// env.
func (w *twalker) walk(e syntax.Expr, sc *scope, lx *lex, env *Env, depth int) (*Temporal, error) {
	if depth > maxTemporalDepth {
		return nil, w.unsupported(e, "the formula nests definitions too deeply")
	}
	if !w.temporal(e, sc, lx, 0) {
		return w.leaf(e, sc, lx, env)
	}
	text := syntax.ExprString(e)
	node := func(op TOp, args ...*Temporal) *Temporal {
		return &Temporal{Op: op, Args: args, Text: text, Pos: e.Position(), End: exprEnd(e)}
	}
	walkAll := func(op TOp, es []syntax.Expr) (*Temporal, error) {
		t := node(op)
		for _, x := range es {
			a, err := w.walk(x, sc, lx, env, depth+1)
			if err != nil {
				return nil, err
			}
			t.Args = append(t.Args, a)
		}
		return simplify(t), nil
	}
	switch x := e.(type) {
	case *syntax.BulletList:
		if x.Kind == `/\` {
			return walkAll(TAnd, x.Items)
		}
		return walkAll(TOr, x.Items)
	case *syntax.Label:
		return w.walk(x.Body, sc, lx, env, depth+1)
	case *syntax.Let:
		w.lets = append(w.lets, x)
		t, err := w.walk(x.Body, sc, lx, env, depth+1)
		w.lets = w.lets[:len(w.lets)-1]
		return t, err
	case *syntax.Always:
		if box, ok := x.X.(*syntax.ActionBox); ok {
			a, err := w.leaf(box, sc, lx, env)
			if err != nil {
				return nil, err
			}
			return node(TAlways, a), nil
		}
		return walkAll(TAlways, []syntax.Expr{x.X})
	case *syntax.Eventually:
		if ang, ok := x.X.(*syntax.ActionAngle); ok {
			a, err := w.leaf(ang, sc, lx, env)
			if err != nil {
				return nil, err
			}
			return node(TEventually, a), nil
		}
		return walkAll(TEventually, []syntax.Expr{x.X})
	case *syntax.LeadsTo:
		return walkAll(TLeadsTo, []syntax.Expr{x.L, x.R})
	case *syntax.Fairness:
		angle := &syntax.ActionAngle{Pos: x.Pos, Action: x.Action, Sub: x.Sub}
		en, err := w.leaf(&syntax.Enabled{Pos: x.Pos, X: angle}, sc, lx, env)
		if err != nil {
			return nil, err
		}
		if e, ok := en.Pred.n.(*enabledNode); ok {
			e.lenient = true
		}
		step, err := w.leaf(angle, sc, lx, env)
		if err != nil {
			return nil, err
		}
		op := TWF
		if x.Strong {
			op = TSF
		}
		t := node(op)
		t.Pred, t.Step = en.Pred, step.Pred
		t.Pred.Action, t.Step.Action, t.Step.Angle = false, true, true
		return t, nil
	case *syntax.Quant:
		return w.quant(x, sc, lx, env, depth)
	case *syntax.If:
		// IF c THEN A ELSE B, c a state predicate: (c /\ A) \/ (~c /\ B).
		if w.temporal(x.Cond, sc, lx, 0) {
			break
		}
		c, err := w.leaf(x.Cond, sc, lx, env)
		if err != nil {
			return nil, err
		}
		a, err := w.walk(x.Then, sc, lx, env, depth+1)
		if err != nil {
			return nil, err
		}
		b, err := w.walk(x.Else, sc, lx, env, depth+1)
		if err != nil {
			return nil, err
		}
		notC := &Temporal{Op: TNot, Args: []*Temporal{c}, Text: c.Text, Pos: c.Pos}
		return node(TOr, node(TAnd, c, a), node(TAnd, notC, b)), nil
	case *syntax.Ident:
		if d := w.letDef(x.Name); d != nil {
			return w.letRef(e, d, nil, sc, lx, env, depth)
		}
		return w.ref(e, x.Name, nil, nil, sc, lx, env, depth)
	case *syntax.OpApp:
		if d := w.letDef(x.Name); d != nil && len(x.Path) == 0 {
			return w.letRef(e, d, x.Args, sc, lx, env, depth)
		}
		if len(x.Path) == 0 {
			switch {
			case (x.Name == `/\` || x.Name == `\/`) && len(x.Args) == 2:
				op := TAnd
				if x.Name == `\/` {
					op = TOr
				}
				return walkAll(op, x.Args)
			case x.Name == "~" && len(x.Args) == 1:
				return walkAll(TNot, x.Args)
			case x.Name == "=>" && len(x.Args) == 2:
				l, err := w.walk(x.Args[0], sc, lx, env, depth+1)
				if err != nil {
					return nil, err
				}
				r, err := w.walk(x.Args[1], sc, lx, env, depth+1)
				if err != nil {
					return nil, err
				}
				notL := simplify(&Temporal{Op: TNot, Args: []*Temporal{l}, Text: l.Text, Pos: l.Pos, End: l.End})
				return simplify(node(TOr, notL, r)), nil
			}
		}
		return w.ref(e, x.Name, x.Path, x.Args, sc, lx, env, depth)
	}
	return nil, w.unsupported(e, "the temporal formula %s is not supported", shortText(text))
}

func shortText(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}

// leaf compiles a formula without temporal operators.
func (w *twalker) leaf(e syntax.Expr, sc *scope, lx *lex, env *Env) (*Temporal, error) {
	n, state, _, err := w.m.compileIn(sc, w.inLets(e, sc, lx), lx)
	if err != nil {
		return nil, err
	}
	// The compiler's prime flag counts primes under ENABLED, which leave
	// ENABLED A a state predicate.
	prime := w.action(e, sc, lx, 0)
	p := &Pred{n: n, env: env, Action: prime, Text: syntax.ExprString(e), Pos: e.Position()}
	op := TPred
	if prime {
		op = TAction
	}
	t := &Temporal{Op: op, Pred: p, Text: p.Text, Pos: p.Pos, End: exprEnd(e)}
	switch x := e.(type) {
	case *syntax.Ident:
		t.Name = x.Name
	case *syntax.OpApp:
		if len(x.Args) == 0 {
			t.Name = p.Text
		}
	}
	if !state && !prime {
		if v, err := n.eval(w.m.newCtx(), env); err == nil {
			if b, ok := v.(value.Bool); ok {
				c := bool(b)
				t.Const = &c
			}
		}
	}
	return t, nil
}

// quant unrolls a quantifier over constant sets into a conjunction (\A) or
// a disjunction (\E), as TLC does.
func (w *twalker) quant(x *syntax.Quant, sc *scope, lx *lex, env *Env, depth int) (*Temporal, error) {
	if len(x.Bounds) == 0 || x.Bounds[0].Set == nil {
		return nil, w.unsupported(x, "an unbounded quantifier over a temporal formula")
	}
	c := &compiler{m: w.m, sc: sc}
	b, inner, err := c.binder(x.Bounds, lx)
	if err != nil {
		return nil, err
	}
	if c.state {
		return nil, w.unsupported(x, "a quantifier over a temporal formula whose set depends on the state")
	}
	op := TAnd
	if !x.Forall {
		op = TOr
	}
	t := &Temporal{Op: op, Text: syntax.ExprString(x), Pos: x.Pos}
	ctx := w.m.newCtx()
	err = b.each(ctx, env, func(f *Env) (bool, error) {
		g := &Env{vals: append([]value.Value(nil), f.vals...), parent: f.parent, inst: f.inst}
		a, err := w.walk(x.Body, sc, inner, g, depth+1)
		if err != nil {
			return false, err
		}
		t.Args = append(t.Args, a)
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	return simplify(t), nil
}

// ref expands a reference to a definition whose body is temporal: name
// (with an instance path and arguments) in scope sc.
func (w *twalker) ref(e syntax.Expr, name string, path []syntax.PathStep, args []syntax.Expr, sc *scope, lx *lex, env *Env, depth int) (*Temporal, error) {
	d, err := w.lookup(e, name, path, sc, lx)
	if err != nil {
		return nil, err
	}
	if d == nil || d.kind != dkOp || d.sc.paramInst {
		return nil, w.unsupported(e, "the temporal formula %s is not supported", shortText(syntax.ExprString(e)))
	}
	if len(args) != len(d.params) {
		return nil, w.unsupported(e, "operator %s takes %d argument(s), got %d", name, len(d.params), len(args))
	}
	named := func(t *Temporal, err error) (*Temporal, error) {
		if err == nil && t.Name == "" {
			t.Name = name
		}
		return t, err
	}
	if len(args) == 0 {
		return named(w.walk(d.body, d.sc, nil, nil, depth+1))
	}
	// The arguments are values: evaluate them here, as constants.
	inner := &lex{}
	f := &Env{}
	if err := w.bindArgs(name, d.params, args, nil, sc, lx, env, inner, f); err != nil {
		return nil, err
	}
	return named(w.walk(d.body, d.sc, inner, f, depth+1))
}

// bindArgs evaluates the arguments of the temporal formula name, as
// constants in env (each through expr first when it is set), and binds
// them to params in inner and f. An operator argument, or one that
// depends on the state, is not supported.
func (w *twalker) bindArgs(name string, params []syntax.Param, args []syntax.Expr, expr func(syntax.Expr) syntax.Expr, sc *scope, lx *lex, env *Env, inner *lex, f *Env) error {
	for i, a := range args {
		p := params[i]
		if p.Arity > 0 {
			return w.unsupported(a, "an operator argument of a temporal formula is not supported")
		}
		e := a
		if expr != nil {
			e = expr(a)
		}
		n, st, _, err := w.m.compileIn(sc, e, lx)
		if err != nil {
			return err
		}
		if st {
			return w.unsupported(a, "the argument %s of temporal formula %s depends on the state", shortText(syntax.ExprString(a)), name)
		}
		v, err := n.eval(w.m.newCtx(), env)
		if err != nil {
			return err
		}
		inner.names = append(inner.names, p.Name)
		inner.arities = append(inner.arities, 0)
		f.vals = append(f.vals, v)
	}
	return nil
}

// lookup finds the definition name refers to (nil for a bound name).
func (w *twalker) lookup(e syntax.Expr, name string, path []syntax.PathStep, sc *scope, lx *lex) (*def, error) {
	if len(path) == 0 {
		if _, _, fr := lx.resolve(name); fr != nil {
			return nil, nil
		}
		return sc.lookup(name), nil
	}
	for _, st := range path {
		if len(st.Args) > 0 {
			return nil, w.unsupported(e, "a parameterized instance in a temporal formula is not supported")
		}
	}
	c := &compiler{m: w.m, sc: sc}
	d, _, _, err := c.resolvePath(&syntax.OpApp{Pos: e.Position(), Path: path, Name: name}, lx)
	return d, err
}

// temporal reports whether e has a temporal operator, following the
// definitions it references.
func (w *twalker) temporal(e syntax.Expr, sc *scope, lx *lex, depth int) bool {
	if depth > maxTemporalDepth {
		return false
	}
	switch x := e.(type) {
	case *syntax.Always, *syntax.Eventually, *syntax.LeadsTo, *syntax.Fairness, *syntax.TemporalQuant:
		return true
	case *syntax.Ident:
		if d := w.letDef(x.Name); d != nil {
			return w.temporal(d.Body, sc, paramLex(d, lx), depth+1)
		}
		return w.defTemporal(e, x.Name, nil, sc, lx, depth)
	case *syntax.OpApp:
		if d := w.letDef(x.Name); d != nil && len(x.Path) == 0 {
			if w.temporal(d.Body, sc, paramLex(d, lx), depth+1) {
				return true
			}
		} else if w.defTemporal(e, x.Name, x.Path, sc, lx, depth) {
			return true
		}
	case *syntax.Quant:
		// The bound names shadow definitions in the body.
		inner := &lex{parent: lx}
		for _, b := range x.Bounds {
			inner.names = append(inner.names, b.Names...)
			for range b.Names {
				inner.arities = append(inner.arities, 0)
			}
		}
		return w.temporal(x.Body, sc, inner, depth+1)
	}
	for _, ch := range children(e) {
		if w.temporal(ch, sc, lx, depth+1) {
			return true
		}
	}
	return false
}

func (w *twalker) defTemporal(e syntax.Expr, name string, path []syntax.PathStep, sc *scope, lx *lex, depth int) bool {
	d, err := w.lookup(e, name, path, sc, lx)
	if err != nil || d == nil || d.kind != dkOp {
		return false
	}
	if t, ok := w.temporalDefs[d]; ok {
		return t
	}
	if w.temporalDefs == nil {
		w.temporalDefs = map[*def]bool{}
	}
	w.temporalDefs[d] = false // a recursive definition is not temporal
	inner := &lex{}
	for _, p := range d.params {
		inner.names = append(inner.names, p.Name)
		inner.arities = append(inner.arities, p.Arity)
	}
	t := w.temporal(d.body, d.sc, inner, depth+1)
	w.temporalDefs[d] = t
	return t
}

// action reports whether e reads primed variables (outside ENABLED),
// following the definitions it references.
func (w *twalker) action(e syntax.Expr, sc *scope, lx *lex, depth int) bool {
	if depth > maxTemporalDepth {
		return true
	}
	switch x := e.(type) {
	case *syntax.Prime, *syntax.Unchanged, *syntax.ActionBox, *syntax.ActionAngle:
		return true
	case *syntax.Enabled:
		return false
	case *syntax.Ident:
		if d := w.letDef(x.Name); d != nil {
			return w.action(d.Body, sc, paramLex(d, lx), depth+1)
		}
		return w.defAction(e, x.Name, nil, sc, lx, depth)
	case *syntax.OpApp:
		if d := w.letDef(x.Name); d != nil && len(x.Path) == 0 {
			if w.action(d.Body, sc, paramLex(d, lx), depth+1) {
				return true
			}
		} else if w.defAction(e, x.Name, x.Path, sc, lx, depth) {
			return true
		}
	case *syntax.Quant:
		inner := &lex{parent: lx}
		for _, b := range x.Bounds {
			if b.Set != nil && w.action(b.Set, sc, lx, depth+1) {
				return true
			}
			inner.names = append(inner.names, b.Names...)
			for range b.Names {
				inner.arities = append(inner.arities, 0)
			}
		}
		return w.action(x.Body, sc, inner, depth+1)
	}
	for _, ch := range children(e) {
		if w.action(ch, sc, lx, depth+1) {
			return true
		}
	}
	return false
}

func (w *twalker) defAction(e syntax.Expr, name string, path []syntax.PathStep, sc *scope, lx *lex, depth int) bool {
	d, err := w.lookup(e, name, path, sc, lx)
	if err != nil || d == nil {
		return false
	}
	if d.kind == dkSubst {
		// An instance's variable replaced by an expression: primed only
		// when the expression is.
		return false
	}
	if d.kind != dkOp {
		return false
	}
	if a, ok := w.actionDefs[d]; ok {
		return a
	}
	if w.actionDefs == nil {
		w.actionDefs = map[*def]bool{}
	}
	w.actionDefs[d] = false
	inner := &lex{}
	for _, p := range d.params {
		inner.names = append(inner.names, p.Name)
		inner.arities = append(inner.arities, p.Arity)
	}
	a := w.action(d.body, d.sc, inner, depth+1)
	w.actionDefs[d] = a
	return a
}

// exprEnd is where e's last token ends, as far as the syntax tree tells:
// the end of its rightmost name, number or string, then the closing
// brackets on that line that balance brackets opened since e's start.
func exprEnd(e syntax.Expr) syntax.Pos {
	start := e.Position()
	end := start
	syntax.Inspect(e, func(n syntax.Node) bool {
		x, ok := n.(syntax.Expr)
		if !ok {
			return true
		}
		p := x.Position()
		if p.File != start.File {
			return true
		}
		w := 1
		switch y := x.(type) {
		case *syntax.Ident:
			w = len(y.Name)
		case *syntax.Number:
			w = len(y.Text)
		case *syntax.StringLit:
			w = len(y.Value) + 2
		case *syntax.Bool:
			w = 4
			if !y.Value {
				w = 5
			}
		case *syntax.OpApp:
			if len(y.Args) == 0 && len(y.Path) == 0 {
				w = len(y.Name)
			}
		}
		if p.Line > end.Line || p.Line == end.Line && p.Col+w-1 > end.Col {
			end = syntax.Pos{File: p.File, Line: p.Line, Col: p.Col + w - 1}
		}
		return true
	})
	if end.Line != start.Line {
		return end
	}
	src, err := os.ReadFile(start.File)
	if err != nil {
		return end
	}
	lines := strings.Split(string(src), "\n")
	if start.Line > len(lines) {
		return end
	}
	line := []rune(lines[start.Line-1])
	if end.Col > len(line) || start.Col < 1 {
		return end
	}
	open := 0
	for _, r := range line[start.Col-1 : end.Col] {
		switch r {
		case '(', '[', '{':
			open++
		case ')', ']', '}':
			open--
		}
	}
	for i := end.Col; i < len(line) && open > 0; i++ {
		switch line[i] {
		case ')', ']', '}':
			open--
			end.Col = i + 1
		case ' ', '\t':
		default:
			return end
		}
	}
	return end
}
