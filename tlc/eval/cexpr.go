package eval

import (
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/modelfuzz/modelfuzz/tlc/stdlib"
	"github.com/modelfuzz/modelfuzz/tlc/syntax"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// The compiled evaluator.
//
// A definition's tree of nodes (compile.go) is compiled a second time,
// into Go closures over a flat frame of slots (cframe.go): a bound name, a
// parameter, a LET value or an EXCEPT's @ is read at an offset fixed at
// compile time, an operator call carves its callee's frame from the
// context's stack, and a LET operator is expanded where it is called. The
// closures do what the interpreter's nodes do, in the same order, with
// the same caches (constant definitions, per-state definitions, operator
// results, quantifier bodies) and the same side records (the variables
// read, the watch bits of pruning, the parts of the state a memoized body
// read), so that everything the two evaluators share stays exact.
//
// What the compiled code does not do itself, it asks of the interpreter,
// node by node: a construct not compiled (an island), or any error or
// unusual case met at run time (the node is evaluated again by the
// interpreter, which gives its own value or its own error). So the
// compiled evaluator returns what the interpreter returns, value for
// value and error for error, and a definition that prints, reads TLC's
// registers or draws at random is not compiled at all (a node evaluated
// twice would do it twice). TestCompiledAgreesWithInterpreter (tlc/check)
// runs both on the conformance suite's specs and our models.

// cfn is a compiled expression: its value in frame s.
type cfn func(c *ctx, s []slot) (value.Value, error)

// cfunc is a compiled definition: its body and the size of its frame,
// whose first nparams slots are its parameters.
type cfunc struct {
	nslots  int
	nparams int
	body    cfn
}

// ccomp compiles the body of one definition.
type ccomp struct {
	m *Model
	// init: an enumeration is compiled for the initial predicate.
	init bool
	// inConst: a constant expression is being compiled (see hoisted).
	inConst bool
	n       int // slots allocated so far
	// inlining holds the LET operators being expanded, against recursion.
	inlining map[*letDef]bool
	// compiled counts the nodes compiled, islands those left to the
	// interpreter.
	compiled, islands int
	// lets holds the compiled bodies of LET definitions, once per LET
	// frame, and letFns the compiled LET functions applied in place: a
	// recursive definition refers to itself through them.
	lets   map[letKey]*cfn
	letFns map[letKey]*letFnC
}

type letKey struct {
	d *letDef
	l *clevel
}

// letFnC is a LET function definition of one bound name, compiled to be
// applied without being built.
type letFnC struct {
	set, body cfn
	k         int // the bound name's slot
	// recursive: the body applies the function again, and would reuse
	// the slots of the application in progress; the interpreter, whose
	// frames are made per application, evaluates it.
	recursive, done bool
}

func (cc *ccomp) alloc(k int) int {
	b := cc.n
	cc.n += k
	return b
}

// compiledOf returns d's compiled body, compiling it on first use, or nil
// when the evaluation is left to the interpreter.
func (c *ctx) compiledOf(d *def) *cfunc {
	if c.interp || c.maxSteps > 0 || d.kind != dkOp {
		return nil
	}
	d.ccOnce.Do(func() { d.cc = c.m.compileDef(d) })
	return d.cc
}

// compileDef compiles d, an operator definition, or returns nil when it
// is left to the interpreter: a definition of a parameterized instance,
// one that takes operator arguments, one with effects, and one whose body
// would be an island anyway.
func (m *Model) compileDef(d *def) *cfunc {
	m.ccMu.Lock()
	defer m.ccMu.Unlock()
	if m.interpret || d.compiled == nil || d.sc.paramInst || m.effectful(d) {
		return nil
	}
	for _, p := range d.params {
		if p.Arity > 0 {
			return nil
		}
	}
	cc := &ccomp{m: m}
	var l *clevel
	if len(d.params) > 0 {
		l = &clevel{base: cc.alloc(len(d.params)), n: len(d.params)}
	}
	body, ok := cc.exprOK(d.compiled, l)
	if !ok {
		return nil
	}
	return &cfunc{nslots: cc.n, nparams: len(d.params), body: body}
}

// evalBody evaluates the body of d in env, by its compiled form when
// there is one and env is a frame of plain parameter values.
func (c *ctx) evalBody(d *def, env *Env) (value.Value, error) {
	if cf := c.compiledOf(d); cf != nil {
		if env == nil && cf.nparams == 0 {
			return c.runC(cf, nil, nil)
		}
		if env != nil && env.lazy == nil && env.ops == nil && env.inst == nil && env.lets == nil && env.parent == nil && len(env.vals) == cf.nparams {
			return c.runC(cf, env.vals, env.taint)
		}
	}
	return d.compiled.eval(c, env)
}

// runC runs cf on args (with their watch bits, when not nil).
func (c *ctx) runC(cf *cfunc, args []value.Value, taint []uint64) (value.Value, error) {
	s, mk := c.stk.push(cf.nslots)
	for i, a := range args {
		s[i].v = a
	}
	for i, t := range taint {
		s[i].t = t
	}
	v, err := cf.body(c, s)
	c.stk.pop(mk, s)
	return v, err
}

// noteIsland records that n, in a compiled definition, is left to the
// interpreter (under ccMu).
func (m *Model) noteIsland(n node) {
	m.islands = append(m.islands, fmt.Sprintf("%s (%T)", n.position(), n))
}

// Islands lists the expressions of the definitions compiled so far that
// are left to the interpreter, by position and kind.
func (m *Model) Islands() []string {
	m.ccMu.Lock()
	defer m.ccMu.Unlock()
	return slices.Clone(m.islands)
}

// island leaves n to the interpreter.
func (cc *ccomp) island(n node, l *clevel) cfn {
	cc.islands++
	cc.m.noteIsland(n)
	return func(c *ctx, s []slot) (value.Value, error) { return n.eval(c, materialize(l, s)) }
}

// exprOK compiles n, reporting false when all of it is an island.
func (cc *ccomp) exprOK(n node, l *clevel) (cfn, bool) {
	before := cc.compiled
	f := cc.expr(n, l)
	return f, cc.compiled > before
}

// cbool is evalBool for compiled code.
func cbool(c *ctx, s []slot, f cfn, n node) (bool, error) {
	v, err := f(c, s)
	if err != nil {
		return false, err
	}
	b, ok := v.(value.Bool)
	if !ok {
		return false, errorf(n.position(), "expected a boolean, got %s", short(v))
	}
	return bool(b), nil
}

func (cc *ccomp) exprs(ns []node, l *clevel) []cfn {
	out := make([]cfn, len(ns))
	for i, n := range ns {
		out[i] = cc.expr(n, l)
	}
	return out
}

// expr compiles n, seen at level l.
func (cc *ccomp) expr(n node, l *clevel) cfn {
	if !cc.inConst {
		if _, lit := n.(*litNode); !lit && cc.m.constant(n, 0) {
			cc.inConst = true
			f := cc.expr(n, l)
			cc.inConst = false
			return hoisted(f)
		}
	}
	f := cc.node(n, l)
	if f == nil {
		return cc.island(n, l)
	}
	cc.compiled++
	return f
}

// hoisted evaluates f, an expression that depends on nothing around it
// (see Model.constant), once: its value is kept, as TLC keeps the values
// of constant expressions. An error is not kept: it is met again.
func hoisted(f cfn) cfn {
	var kept atomic.Pointer[value.Value]
	return func(c *ctx, s []slot) (value.Value, error) {
		if v := kept.Load(); v != nil {
			return *v, nil
		}
		v, err := f(c, s)
		if err == nil {
			kept.Store(&v)
		}
		return v, err
	}
}

func (cc *ccomp) node(n node, l *clevel) cfn {
	switch n := n.(type) {
	case *litNode:
		v := n.v
		return func(*ctx, []slot) (value.Value, error) { return v, nil }
	case *varNode:
		return cc.varNode(n)
	case *primeNode:
		x := cc.expr(n.x, l)
		return func(c *ctx, s []slot) (value.Value, error) {
			if c.initMode || c.next == nil || c.primed > 0 {
				return n.eval(c, materialize(l, s))
			}
			c.primed++
			v, err := x(c, s)
			c.primed--
			return v, err
		}
	case *boundNode:
		f := l.up(n.depth)
		if f == nil || f.lets != nil || n.idx >= f.n {
			return nil
		}
		k := f.base + n.idx
		return func(c *ctx, s []slot) (value.Value, error) {
			sl := &s[k]
			c.touched |= sl.t
			return sl.v, nil
		}
	case *substNode:
		if n.d.substLex != nil {
			return nil
		}
		return func(c *ctx, _ []slot) (value.Value, error) { return n.eval(c, nil) }
	case *callNode:
		return cc.call(n, l)
	case *funcDefApp:
		arg := cc.expr(n.arg, l)
		return func(c *ctx, s []slot) (value.Value, error) {
			a, err := arg(c, s)
			if err != nil {
				return nil, err
			}
			return c.applyFuncDef(n, a)
		}
	case *letNode:
		return cc.let(n, l)
	case *letRefNode:
		return cc.letRef(n, l)
	case *letCallNode:
		return cc.letCall(n, l)
	case *letFuncApp:
		return cc.letFuncApp(n, l)
	case *builtinNode:
		return cc.builtin(n, l)
	case *labelNode:
		return cc.expr(n.x, l)
	case *actionArgNode:
		return cc.expr(n.x, l)
	case *andNode:
		items := cc.exprs(n.items, l)
		return func(c *ctx, s []slot) (value.Value, error) {
			for i, it := range items {
				b, err := cbool(c, s, it, n.items[i])
				if err != nil {
					return nil, err
				}
				if !b {
					return value.False, nil
				}
			}
			return value.True, nil
		}
	case *orNode:
		items := cc.exprs(n.items, l)
		return func(c *ctx, s []slot) (value.Value, error) {
			for i, it := range items {
				b, err := cbool(c, s, it, n.items[i])
				if err != nil {
					return nil, err
				}
				if b {
					return value.True, nil
				}
			}
			return value.False, nil
		}
	case *notNode:
		x := cc.expr(n.x, l)
		return func(c *ctx, s []slot) (value.Value, error) {
			b, err := cbool(c, s, x, n.x)
			if err != nil {
				return nil, err
			}
			return value.Bool(!b), nil
		}
	case *impliesNode:
		a, b := cc.expr(n.l, l), cc.expr(n.r, l)
		return func(c *ctx, s []slot) (value.Value, error) {
			x, err := cbool(c, s, a, n.l)
			if err != nil || !x {
				return value.True, err
			}
			y, err := cbool(c, s, b, n.r)
			return value.Bool(y), err
		}
	case *equivNode:
		a, b := cc.expr(n.l, l), cc.expr(n.r, l)
		return func(c *ctx, s []slot) (value.Value, error) {
			x, err := cbool(c, s, a, n.l)
			if err != nil {
				return nil, err
			}
			y, err := cbool(c, s, b, n.r)
			if err != nil {
				return nil, err
			}
			return value.Bool(x == y), nil
		}
	case *eqNode:
		a, b := cc.expr(n.l, l), cc.expr(n.r, l)
		neq := n.neq
		return func(c *ctx, s []slot) (value.Value, error) {
			x, err := a(c, s)
			if err != nil {
				return nil, err
			}
			y, err := b(c, s)
			if err != nil {
				return nil, err
			}
			if p, ok := x.(value.Int); ok {
				if q, ok := y.(value.Int); ok {
					return value.Bool((p == q) != neq), nil
				}
			}
			eq, err := value.Equal(x, y)
			if err != nil {
				return nil, located(n.pos, err)
			}
			return value.Bool(eq != neq), nil
		}
	case *inNode:
		return cc.in(n, l)
	case *arithNode:
		return cc.arith(n, l)
	case *cmpNode:
		a, b := cc.expr(n.l, l), cc.expr(n.r, l)
		fn := n.fn
		return func(c *ctx, s []slot) (value.Value, error) {
			x, err := a(c, s)
			if err != nil {
				return nil, err
			}
			y, err := b(c, s)
			if err != nil {
				return nil, err
			}
			v, err := fn(x, y)
			if err != nil {
				return nil, located(n.pos, err)
			}
			return value.Bool(v), nil
		}
	case *unaryNode:
		x := cc.expr(n.x, l)
		fn := n.fn
		return func(c *ctx, s []slot) (value.Value, error) {
			a, err := x(c, s)
			if err != nil {
				return nil, err
			}
			v, err := fn(a)
			return v, located(n.pos, err)
		}
	case *setEnumNode:
		elems := cc.exprs(n.elems, l)
		return func(c *ctx, s []slot) (value.Value, error) {
			vs := make([]value.Value, len(elems))
			for i, e := range elems {
				v, err := e(c, s)
				if err != nil {
					return nil, err
				}
				vs[i] = v
			}
			return value.NewSet(vs...), nil
		}
	case *tupleNode:
		elems := cc.exprs(n.elems, l)
		return func(c *ctx, s []slot) (value.Value, error) {
			vs := make([]value.Value, len(elems))
			for i, e := range elems {
				v, err := e(c, s)
				if err != nil {
					return nil, err
				}
				vs[i] = v
			}
			return value.Tuple(vs...), nil
		}
	case *recordNode:
		return cc.record(n, l)
	case *funcAppNode:
		return cc.apply(n, l)
	case *componentNode:
		return cc.apply(&n.funcAppNode, l)
	case *varAppNode:
		return cc.varApp(n, l)
	case *fieldNode:
		rec := cc.expr(n.rec, l)
		name := n.name
		field := string(name.(value.Str))
		site := new(value.FieldSite)
		return func(c *ctx, s []slot) (value.Value, error) {
			r, err := rec(c, s)
			if err != nil {
				return nil, err
			}
			if f, ok := r.(*value.Func); ok {
				if v, ok := site.Field(f, field); ok {
					return v, nil
				}
			}
			v, err := value.Apply(r, name)
			return v, located(n.pos, err)
		}
	case *ifNode:
		cond, th, el := cc.expr(n.cond, l), cc.expr(n.then, l), cc.expr(n.els, l)
		return func(c *ctx, s []slot) (value.Value, error) {
			b, err := cbool(c, s, cond, n.cond)
			if err != nil {
				return nil, err
			}
			if b {
				return th(c, s)
			}
			return el(c, s)
		}
	case *caseNode:
		conds, bodies := cc.exprs(n.conds, l), cc.exprs(n.bodies, l)
		var other cfn
		if n.other != nil {
			other = cc.expr(n.other, l)
		}
		return func(c *ctx, s []slot) (value.Value, error) {
			for i, cond := range conds {
				b, err := cbool(c, s, cond, n.conds[i])
				if err != nil {
					return nil, err
				}
				if b {
					return bodies[i](c, s)
				}
			}
			if other != nil {
				return other(c, s)
			}
			return n.eval(c, materialize(l, s))
		}
	case *exceptNode:
		return cc.except(n, l)
	case *quantNode:
		return cc.quant(n, l)
	case *chooseNode:
		return cc.choose(n, l)
	case *setFilterNode:
		return cc.setFilter(n, l)
	case *setMapNode:
		return cc.setMap(n, l)
	case *funcLitNode:
		return cc.funcLit(n, l)
	case *productNode:
		sets := cc.exprs(n.sets, l)
		return func(c *ctx, s []slot) (value.Value, error) {
			vs := make([]value.Value, len(sets))
			for i, e := range sets {
				v, err := e(c, s)
				if err != nil {
					return nil, err
				}
				vs[i] = v
			}
			v, err := value.Product(vs...)
			return v, located(n.pos, err)
		}
	case *unchangedNode:
		return cc.unchanged(n, l)
	}
	return nil
}

func (cc *ccomp) varNode(n *varNode) cfn {
	idx, bit := n.idx, uint64(1)<<uint(n.idx)
	return func(c *ctx, _ []slot) (value.Value, error) {
		if idx < len(c.cur) {
			if c.primed == 0 {
				if v := c.cur[idx]; v != nil {
					c.readVars |= bit
					if c.recording > 0 {
						c.recordRead(idx, nil, v)
					}
					return v, nil
				}
			} else if v := c.next[idx]; v != nil {
				c.touchAll()
				return v, nil
			}
		}
		return n.eval(c, nil)
	}
}

// evalArg evaluates an argument to be kept in a slot: with the watch bits
// it read, which reach c.touched only when the slot is read (see
// evalDeferred).
func evalArg(c *ctx, s []slot, a cfn) (slot, error) {
	if c.watches == 0 {
		v, err := a(c, s)
		return slot{v: v}, err
	}
	saved := c.touched
	c.touched = 0
	v, err := a(c, s)
	m := c.touched
	c.touched = saved
	if err != nil {
		c.touched |= m
	}
	return slot{v, m}, err
}

// byNameArg reports whether the interpreter passes argument a by name
// whatever the frame: a variable, x', or an action or branching formula.
func byNameArg(a node) bool {
	switch x := a.(type) {
	case *actionArgNode:
		return true
	case *varNode:
		return true
	case *primeNode:
		_, ok := x.x.(*varNode)
		return ok
	case *substNode:
		return true
	}
	return false
}

func (cc *ccomp) call(n *callNode, l *clevel) cfn {
	d := n.d
	if n.site > 0 || n.hasInst || d.sc.paramInst {
		return nil
	}
	switch d.kind {
	case dkValue:
		v := d.val
		return func(*ctx, []slot) (value.Value, error) { return v, nil }
	case dkFunc:
		if len(n.args) > 0 {
			return nil
		}
		return func(c *ctx, _ []slot) (value.Value, error) { return c.callDef(d, nil, nil, nil, n.pos) }
	case dkOp:
	default:
		return nil
	}
	if len(n.args) == 0 {
		return func(c *ctx, _ []slot) (value.Value, error) {
			if c.primed > 0 && c.substPrimed != nil {
				if v, ok := c.substPrimed[d]; ok {
					return v, nil
				}
			}
			return c.callDef(d, nil, nil, nil, n.pos)
		}
	}
	for i, a := range n.args {
		if _, ok := a.(*closureNode); ok || i < len(d.params) && d.params[i].Arity > 0 {
			return nil
		}
		if d.prime && byNameArg(a) {
			return nil
		}
	}
	args := cc.exprs(n.args, l)
	pure := !d.state && !d.recursive
	return func(c *ctx, s []slot) (value.Value, error) {
		cf := c.compiledOf(d)
		if cf == nil {
			fr := newFrame(len(args), nil)
			for i, a := range args {
				sl, err := evalArg(c, s, a)
				if err != nil {
					return nil, err
				}
				fr.vals[i] = sl.v
				if sl.t != 0 {
					if fr.taint == nil {
						fr.taint = make([]uint64, len(args))
					}
					fr.taint[i] = sl.t
				}
			}
			if pure {
				return c.pureCall(d, fr, n.pos)
			}
			if err := c.enter(n.pos); err != nil {
				return nil, err
			}
			v, err := d.compiled.eval(c, fr)
			c.leave()
			return v, err
		}
		cs, mk := c.stk.push(cf.nslots)
		for i, a := range args {
			sl, err := evalArg(c, s, a)
			if err != nil {
				c.stk.pop(mk, cs)
				return nil, err
			}
			cs[i] = sl
		}
		var v value.Value
		var err error
		if pure {
			v, err = c.pureCallC(d, cf, cs, n.pos)
		} else if err = c.enter(n.pos); err == nil {
			v, err = cf.body(c, cs)
			c.leave()
		}
		c.stk.pop(mk, cs)
		return v, err
	}
}

// pureCallC is pureCall for a compiled callee whose arguments are in cs.
func (c *ctx) pureCallC(d *def, cf *cfunc, cs []slot, pos syntax.Pos) (value.Value, error) {
	args := cs[:cf.nparams]
	m := c.memos[d]
	var key uint64
	if m != nil {
		var h value.Hasher
		for _, a := range args {
			h.Add(a.v)
		}
		key = h.Sum()
		for _, e := range m.entries[key] {
			if sameSlots(e.args, args) {
				for _, a := range args {
					c.touched |= a.t
				}
				return e.v, nil
			}
		}
	}
	if err := c.enter(pos); err != nil {
		return nil, err
	}
	steps, effects := c.steps, c.effects
	v, err := cf.body(c, cs)
	c.leave()
	if err != nil || c.effects != effects {
		return v, err
	}
	if m == nil {
		if c.steps-steps < memoMinSteps {
			return v, nil
		}
		if c.memos == nil {
			c.memos = map[*def]*callMemo{}
		}
		m = &callMemo{}
		c.memos[d] = m
		var h value.Hasher
		for _, a := range args {
			h.Add(a.v)
		}
		key = h.Sum()
	}
	if m.entries == nil || m.size >= memoMaxEntries {
		m.entries, m.size = map[uint64][]memoEntry{}, 0
	}
	vals := make([]value.Value, len(args))
	for i, a := range args {
		vals[i] = a.v
	}
	m.entries[key] = append(m.entries[key], memoEntry{vals, v})
	m.size++
	return v, nil
}

func sameSlots(a []value.Value, b []slot) bool {
	for i := range a {
		if a[i] == b[i].v {
			continue
		}
		if eq, err := value.Equal(a[i], b[i].v); err != nil || !eq {
			return false
		}
	}
	return true
}

// applyFuncDef is funcDefApp.eval on the argument a.
func (c *ctx) applyFuncDef(n *funcDefApp, a value.Value) (value.Value, error) {
	fc := n.d.compiled.(*funcDefNode)
	if !n.d.recursive && !n.d.state && !n.d.sc.paramInst {
		f, err := n.d.constValue(c)
		if err != nil {
			return nil, err
		}
		if fn, ok := f.(*value.Func); ok {
			if v, ok := fn.Lookup(a); ok {
				return v, nil
			}
		}
		v, err := value.Apply(f, a)
		return v, located(n.pos, err)
	}
	if err := c.enter(n.pos); err != nil {
		return nil, err
	}
	v, err := fc.lit.applyTo(c, nil, a, n.pos, n.d.name)
	c.leave()
	return v, err
}

// let compiles LET defs IN body: the definitions' values get slots, empty
// until first used.
func (cc *ccomp) let(n *letNode, l *clevel) cfn {
	f := &clevel{parent: l, base: cc.alloc(len(n.defs)), n: len(n.defs), lets: n.defs}
	body := cc.expr(n.body, f)
	lo, hi := f.base, f.base+f.n
	return func(c *ctx, s []slot) (value.Value, error) {
		clear(s[lo:hi])
		return body(c, s)
	}
}

func (cc *ccomp) letRef(n *letRefNode, l *clevel) cfn {
	f := l.up(n.depth)
	if f == nil || f.lets == nil || n.idx >= f.n || f.lets[n.idx] != n.d {
		return nil
	}
	d := n.d
	if d.fn == nil && d.arity > 0 {
		return nil
	}
	key := letKey{d, f}
	cell, ok := cc.lets[key]
	if ok && *cell == nil {
		return nil // a definition that refers to itself
	}
	if !ok {
		cell = new(cfn)
		if cc.lets == nil {
			cc.lets = map[letKey]*cfn{}
		}
		cc.lets[key] = cell
		var body cfn
		if d.fn != nil {
			body = cc.expr(d.fn, f)
		} else {
			body = cc.expr(d.body, f)
		}
		*cell = body
	}
	body := func(c *ctx, s []slot) (value.Value, error) { return (*cell)(c, s) }
	k := f.base + n.idx
	if d.constant {
		return func(c *ctx, s []slot) (value.Value, error) {
			if !d.constDone.Load() {
				d.constOnce.Do(func() {
					d.constVal, d.constErr = body(c, s)
					d.constDone.Store(true)
				})
			}
			return d.constVal, d.constErr
		}
	}
	prime := d.prime
	return func(c *ctx, s []slot) (value.Value, error) {
		sl := &s[k]
		if sl.v != nil && !prime {
			c.touched |= sl.t
			return sl.v, nil
		}
		if err := c.enter(n.pos); err != nil {
			return nil, err
		}
		saved := c.touched
		c.touched = 0
		v, err := body(c, s)
		c.leave()
		taint := c.touched
		c.touched |= saved
		if !prime && err == nil {
			sl.v, sl.t = v, taint
		}
		return v, err
	}
}

// letCall expands a LET operator where it is called: its parameters get
// slots of this frame, and its body is compiled for this call.
func (cc *ccomp) letCall(n *letCallNode, l *clevel) cfn {
	f := l.up(n.depth)
	d := n.d
	if f == nil || f.lets == nil || cc.inlining[d] || len(cc.inlining) > 16 {
		return nil
	}
	for i, a := range n.args {
		if _, ok := a.(*closureNode); ok || i < len(d.params) && d.params[i].Arity > 0 {
			return nil
		}
		if d.prime && byNameArg(a) {
			return nil
		}
	}
	args := cc.exprs(n.args, l)
	p := &clevel{parent: f, base: cc.alloc(len(n.args)), n: len(n.args)}
	if cc.inlining == nil {
		cc.inlining = map[*letDef]bool{}
	}
	cc.inlining[d] = true
	body := cc.expr(d.body, p)
	delete(cc.inlining, d)
	base := p.base
	return func(c *ctx, s []slot) (value.Value, error) {
		// The arguments are evaluated before any is stored: one may
		// call the same operator.
		var buf [4]slot
		tmp := buf[:0]
		if len(args) > len(buf) {
			tmp = make([]slot, 0, len(args))
		}
		for _, a := range args {
			sl, err := evalArg(c, s, a)
			if err != nil {
				return nil, err
			}
			tmp = append(tmp, sl)
		}
		copy(s[base:], tmp)
		if err := c.enter(n.pos); err != nil {
			return nil, err
		}
		v, err := body(c, s)
		c.leave()
		return v, err
	}
}

// letFuncApp applies a LET function definition of one bound name without
// building it.
func (cc *ccomp) letFuncApp(n *letFuncApp, l *clevel) cfn {
	f := l.up(n.depth)
	lit := n.d.fn
	if f == nil || f.lets == nil || lit == nil || len(lit.b.sets) != 1 || lit.b.width != 1 || lit.b.tuple[0] {
		return nil
	}
	arg := cc.expr(n.arg, l)
	key := letKey{n.d, f}
	fc, ok := cc.letFns[key]
	if !ok {
		fc = &letFnC{}
		if cc.letFns == nil {
			cc.letFns = map[letKey]*letFnC{}
		}
		cc.letFns[key] = fc
		b := &clevel{parent: f, base: cc.alloc(1), n: 1}
		fc.k = b.base
		fc.set = cc.expr(lit.b.sets[0], f)
		fc.body = cc.expr(lit.body, b)
		fc.done = true
	} else if !fc.done {
		fc.recursive = true
	}
	return func(c *ctx, s []slot) (value.Value, error) {
		if fc.recursive {
			return n.eval(c, materialize(l, s))
		}
		a, err := arg(c, s)
		if err != nil {
			return nil, err
		}
		if err := c.enter(n.pos); err != nil {
			return nil, err
		}
		defer c.leave()
		sv, err := fc.set(c, s)
		if err != nil {
			return nil, err
		}
		in, err := value.Member(a, sv)
		if err != nil || !in {
			// The interpreter's error.
			return lit.applyTo(c, materialize(f, s), a, n.pos, n.d.name)
		}
		s[fc.k] = slot{v: a}
		return fc.body(c, s)
	}
}

func (cc *ccomp) builtin(n *builtinNode, l *clevel) cfn {
	if n.b.SideEffect || volatile[n.b.Name] {
		return nil
	}
	type argc struct {
		f  cfn
		op *Closure
	}
	args := make([]argc, len(n.args))
	for i, a := range n.args {
		if cn, ok := a.(*closureNode); ok {
			if cn.d == nil || cn.inst || cn.param >= 0 {
				return nil
			}
			cl, err := cn.closure(nil, nil)
			if err != nil {
				return nil
			}
			args[i].op = cl
			continue
		}
		args[i].f = cc.expr(a, l)
	}
	fn := n.b.Fn
	return func(c *ctx, s []slot) (value.Value, error) {
		base := len(c.bargs)
		for _, a := range args {
			if a.op != nil {
				c.bargs = append(c.bargs, stdlib.Arg{Op: opArg{a.op, c}})
				continue
			}
			v, err := a.f(c, s)
			if err != nil {
				clear(c.bargs[base:])
				c.bargs = c.bargs[:base]
				return nil, err
			}
			c.bargs = append(c.bargs, stdlib.Arg{V: v})
		}
		v, err := fn(c, c.bargs[base:len(c.bargs):len(c.bargs)])
		clear(c.bargs[base:])
		c.bargs = c.bargs[:base]
		return v, located(n.pos, err)
	}
}

func (cc *ccomp) in(n *inNode, l *clevel) cfn {
	x := cc.expr(n.x, l)
	notIn := n.notIn
	if sf, ok := n.s.(*setFilterNode); ok && len(sf.b.sets) == 1 && sf.b.width == 1 && !sf.b.tuple[0] {
		// x \in {y \in S : P(y)} without building the set.
		base := cc.expr(sf.b.sets[0], l)
		b := &clevel{parent: l, base: cc.alloc(1), n: 1}
		pred := cc.expr(sf.pred, b)
		k := b.base
		return func(c *ctx, s []slot) (value.Value, error) {
			v, err := x(c, s)
			if err != nil {
				return nil, err
			}
			bs, err := base(c, s)
			if err != nil {
				return nil, err
			}
			in, err := value.Member(v, bs)
			if err != nil {
				return nil, located(sf.pos, err)
			}
			if in {
				s[k] = slot{v: v}
				if in, err = cbool(c, s, pred, sf.pred); err != nil {
					return nil, err
				}
			}
			return value.Bool(in != notIn), nil
		}
	}
	if _, ok := n.s.(*setFilterNode); ok {
		return nil
	}
	if f, _ := filterOf(n.s, nil); f != nil {
		// A definition equal to a filter: the interpreter tests it.
		return func(c *ctx, s []slot) (value.Value, error) {
			v, err := x(c, s)
			if err != nil {
				return nil, err
			}
			ok, err := f.member(c, nil, v)
			if err != nil {
				return nil, err
			}
			return value.Bool(ok != notIn), nil
		}
	}
	set := cc.expr(n.s, l)
	return func(c *ctx, s []slot) (value.Value, error) {
		v, err := x(c, s)
		if err != nil {
			return nil, err
		}
		sv, err := set(c, s)
		if err != nil {
			return nil, err
		}
		ok, err := value.Member(v, sv)
		if err != nil {
			return nil, located(n.pos, err)
		}
		return value.Bool(ok != notIn), nil
	}
}

func (cc *ccomp) arith(n *arithNode, l *clevel) cfn {
	a, b := cc.expr(n.l, l), cc.expr(n.r, l)
	fn := n.fn
	switch n.op {
	case "+", "-":
		plus := n.op == "+"
		return func(c *ctx, s []slot) (value.Value, error) {
			x, err := a(c, s)
			if err != nil {
				return nil, err
			}
			y, err := b(c, s)
			if err != nil {
				return nil, err
			}
			if p, ok := x.(value.Int); ok {
				if q, ok := y.(value.Int); ok {
					// Small operands cannot overflow.
					if p > -1<<40 && p < 1<<40 && q > -1<<40 && q < 1<<40 {
						if plus {
							return value.IntOf(int64(p + q)), nil
						}
						return value.IntOf(int64(p - q)), nil
					}
				}
			}
			v, err := fn(x, y)
			return v, located(n.pos, err)
		}
	}
	return func(c *ctx, s []slot) (value.Value, error) {
		x, err := a(c, s)
		if err != nil {
			return nil, err
		}
		y, err := b(c, s)
		if err != nil {
			return nil, err
		}
		v, err := fn(x, y)
		return v, located(n.pos, err)
	}
}

func (cc *ccomp) record(n *recordNode, l *clevel) cfn {
	vals := cc.exprs(n.vals, l)
	return func(c *ctx, s []slot) (value.Value, error) {
		var vbuf [4]value.Value
		vs := vbuf[:0]
		if len(vals) > len(vbuf) || n.set {
			vs = make([]value.Value, 0, len(vals))
		}
		for _, e := range vals {
			v, err := e(c, s)
			if err != nil {
				return nil, err
			}
			vs = append(vs, v)
		}
		if n.set {
			v, err := value.SetOfRecords(n.names, vs)
			return v, located(n.pos, err)
		}
		shape := n.shape.Load()
		if shape == nil {
			var err error
			if shape, err = value.NewRecordShape(n.names...); err != nil {
				return nil, located(n.pos, err)
			}
			n.shape.Store(shape)
		}
		v, err := shape.Make(vs)
		return v, located(n.pos, err)
	}
}

func (cc *ccomp) apply(n *funcAppNode, l *clevel) cfn {
	f, arg := cc.expr(n.f, l), cc.expr(n.arg, l)
	return func(c *ctx, s []slot) (value.Value, error) {
		fv, err := f(c, s)
		if err != nil {
			return nil, err
		}
		a, err := arg(c, s)
		if err != nil {
			return nil, err
		}
		if fn, ok := fv.(*value.Func); ok {
			if v, ok := fn.Lookup(a); ok {
				return v, nil
			}
		}
		v, err := value.Apply(fv, a)
		return v, located(n.pos, err)
	}
}

// varApp is v[e] for a state variable v (see varAppNode).
func (cc *ccomp) varApp(n *varAppNode, l *clevel) cfn {
	plain := cc.apply(&n.funcAppNode, l)
	arg := cc.expr(n.arg, l)
	idx, bit := n.v.idx, uint64(1)<<uint(n.v.idx)
	return func(c *ctx, s []slot) (value.Value, error) {
		if c.recording == 0 || c.primed > 0 || idx >= len(c.cur) || c.cur[idx] == nil {
			return plain(c, s)
		}
		f := c.cur[idx]
		c.readVars |= bit
		a, err := arg(c, s)
		if err != nil {
			c.recordRead(idx, nil, f)
			return nil, err
		}
		v, err := value.Apply(f, a)
		if err != nil {
			c.recordRead(idx, nil, f)
			return nil, located(n.pos, err)
		}
		c.recordRead(idx, a, v)
		return v, nil
	}
}

func (cc *ccomp) except(n *exceptNode, l *clevel) cfn {
	f := cc.expr(n.f, l)
	type upd struct {
		path   []cfn
		val    cfn
		at     int // the @ slot
		usesAt bool
	}
	ups := make([]upd, len(n.updates))
	for i, u := range n.updates {
		a := &clevel{parent: l, base: cc.alloc(1), n: 1}
		ups[i] = upd{path: cc.exprs(u.path, l), val: cc.expr(u.val, a), at: a.base, usesAt: u.usesAt}
	}
	return func(c *ctx, s []slot) (value.Value, error) {
		fv, err := f(c, s)
		if err != nil {
			return nil, err
		}
		for _, u := range ups {
			if len(u.path) == 1 {
				k, err := u.path[0](c, s)
				if err != nil {
					return nil, err
				}
				g, ok := fv.(*value.Func)
				if !ok {
					return n.eval(c, materialize(l, s))
				}
				if !u.usesAt {
					s[u.at] = slot{}
					v, err := u.val(c, s)
					if err != nil {
						return nil, err
					}
					fv = value.UpdateOne(g, k, v)
					continue
				}
				old, ok := g.Lookup(k)
				if !ok {
					continue
				}
				s[u.at] = slot{v: old}
				v, err := u.val(c, s)
				if err != nil {
					return nil, err
				}
				fv = value.UpdateOne(g, k, v)
				continue
			}
			path := make([]value.Value, len(u.path))
			for i, p := range u.path {
				v, err := p(c, s)
				if err != nil {
					return nil, err
				}
				path[i] = v
			}
			if !u.usesAt {
				s[u.at] = slot{}
				v, err := u.val(c, s)
				if err != nil {
					return nil, err
				}
				if fv, err = value.Update(fv, path, v); err != nil {
					return nil, located(n.pos, err)
				}
				continue
			}
			fv, err = value.UpdateWith(fv, path, func(old value.Value) (value.Value, error) {
				s[u.at] = slot{v: old}
				return u.val(c, s)
			})
			if err != nil {
				return nil, located(n.pos, err)
			}
		}
		return fv, nil
	}
}

func (cc *ccomp) unchanged(n *unchangedNode, l *clevel) cfn {
	if n.x == nil {
		vars := n.vars
		return func(c *ctx, s []slot) (value.Value, error) {
			if c.next == nil {
				return n.eval(c, nil)
			}
			c.touchAll()
			for _, i := range vars {
				if c.next[i] == nil {
					return n.eval(c, nil)
				}
				eq, err := value.Equal(c.cur[i], c.next[i])
				if err != nil || !eq {
					return value.False, located(n.pos, err)
				}
			}
			return value.True, nil
		}
	}
	x := cc.expr(n.x, l)
	return func(c *ctx, s []slot) (value.Value, error) {
		if c.next == nil {
			return n.eval(c, materialize(l, s))
		}
		c.touchAll()
		a, err := x(c, s)
		if err != nil {
			return nil, err
		}
		c.primed++
		b, err := x(c, s)
		c.primed--
		if err != nil {
			return nil, err
		}
		eq, err := value.Equal(a, b)
		return value.Bool(eq), located(n.pos, err)
	}
}

// ---------------------------------------------------------------- binders

// cbinder is a compiled binder: its sets, evaluated at the level around
// it, and the slots of its names.
type cbinder struct {
	b    *binder
	sets []cfn
	base int
	lvl  *clevel // the level of the names
}

func (cc *ccomp) binder(b *binder, l *clevel) *cbinder {
	cb := &cbinder{b: b, sets: cc.exprs(b.sets, l)}
	cb.lvl = &clevel{parent: l, base: cc.alloc(b.width), n: b.width}
	cb.base = cb.lvl.base
	return cb
}

// simple reports whether the binder is one name over one set.
func (cb *cbinder) simple() bool {
	return len(cb.sets) == 1 && cb.b.width == 1 && !cb.b.tuple[0]
}

// domain evaluates and enumerates the single set of a simple binder: its
// elements, listed, or (an interval) lo..hi without listing them.
func (cb *cbinder) domain(c *ctx, s []slot) (d cdomain, err error) {
	sv, err := cb.sets[0](c, s)
	if err != nil {
		return d, err
	}
	return enumerateC(sv, cb.b.sets[0])
}

// cdomain is the elements of a set in canonical order: elems, or the
// integers lo..hi.
type cdomain struct {
	elems    []value.Value
	lo, hi   int64
	interval bool
}

func (d *cdomain) len() int {
	if d.interval {
		return int(d.hi - d.lo + 1)
	}
	return len(d.elems)
}

func (d *cdomain) at(i int) value.Value {
	if d.interval {
		return value.IntOf(d.lo + int64(i))
	}
	return d.elems[i]
}

// enumerateC is value.Enumerate, without listing an interval; set is the
// expression sv came from, for the interpreter's error.
func enumerateC(sv value.Value, set node) (cdomain, error) {
	if iv, ok := sv.(*value.Interval); ok && iv.Len() > 0 && iv.Len() <= 1<<16 {
		return cdomain{lo: iv.Lo(), hi: iv.Hi(), interval: true}, nil
	}
	elems, err := value.Enumerate(sv)
	if err != nil {
		return cdomain{}, located(set.position(), err)
	}
	return cdomain{elems: elems}, nil
}

// each calls fn for every binding of the names, in the interpreter's
// order (binder.eachAt), with the slots set; fn returns false to stop.
func (cb *cbinder) each(c *ctx, s []slot, n node, l *clevel, fn func() (bool, error)) error {
	return cb.eachAt(c, s, n, l, func([]int) (bool, error) { return fn() })
}

// eachAt is each, also passing the position of each name's value in its
// set (the names of a tuple share one). A tuple that does not fit its
// names is reported by the interpreter.
func (cb *cbinder) eachAt(c *ctx, s []slot, n node, l *clevel, fn func(at []int) (bool, error)) error {
	b := cb.b
	type position struct {
		dom   []value.Value
		slot  int
		bound int
	}
	var ps []position
	next := cb.base
	for i, set := range cb.sets {
		sv, err := set(c, s)
		if err != nil {
			return err
		}
		elems, err := value.Enumerate(sv)
		if err != nil {
			return located(b.sets[i].position(), err)
		}
		if b.tuple[i] {
			ps = append(ps, position{elems, next, i})
			next += len(b.names[i])
			continue
		}
		for range b.names[i] {
			ps = append(ps, position{elems, next, i})
			next++
		}
	}
	for _, p := range ps {
		if len(p.dom) == 0 {
			return nil
		}
	}
	set := func(p position, e value.Value) bool {
		if !b.tuple[p.bound] {
			s[p.slot] = slot{v: e}
			return true
		}
		names := b.names[p.bound]
		t, ok := e.(*value.Func)
		if !ok || !t.IsSeq() || t.Len() != len(names) {
			return false
		}
		for i, v := range t.Values() {
			s[p.slot+i] = slot{v: v}
		}
		return true
	}
	bad := func() error {
		_, err := n.eval(c, materialize(l, s))
		if err == nil {
			err = errorf(b.sets[0].position(), "cannot bind a tuple")
		}
		return err
	}
	pos := b.sets[0].position()
	at := make([]int, b.width)
	idx := make([]int, len(ps))
	for _, p := range ps {
		if !set(p, p.dom[0]) {
			return bad()
		}
	}
	for {
		if err := c.step(pos); err != nil {
			return err
		}
		for i, p := range ps {
			w := 1
			if b.tuple[p.bound] {
				w = len(b.names[p.bound])
			}
			for k := p.slot - cb.base; k < p.slot-cb.base+w; k++ {
				at[k] = idx[i]
			}
		}
		more, err := fn(at)
		if err != nil || !more {
			return err
		}
		i := 0
		for ; i < len(ps); i++ {
			idx[i]++
			if idx[i] < len(ps[i].dom) {
				break
			}
			idx[i] = 0
			if !set(ps[i], ps[i].dom[0]) {
				return bad()
			}
		}
		if i == len(ps) {
			return nil
		}
		if !set(ps[i], ps[i].dom[idx[i]]) {
			return bad()
		}
	}
}

// current is the value a one-bound binder binds: x, or <<a, b>>.
func (cb *cbinder) current(s []slot) value.Value {
	if cb.b.tuple[0] {
		vs := make([]value.Value, cb.b.width)
		for i := range vs {
			vs[i] = s[cb.base+i].v
		}
		return value.Tuple(vs...)
	}
	return s[cb.base].v
}

// bindingVals copies the values of the names.
func (cb *cbinder) bindingVals(s []slot, buf []value.Value) []value.Value {
	buf = buf[:0]
	for i := 0; i < cb.b.width; i++ {
		buf = append(buf, s[cb.base+i].v)
	}
	return buf
}

func (cc *ccomp) quant(n *quantNode, l *clevel) cfn {
	cb := cc.binder(n.b, l)
	body := cc.expr(n.body, cb.lvl)
	forall := n.forall
	memoable := l == nil
	// one evaluates the body for the binding in the slots.
	one := func(c *ctx, s []slot, memo bool) (bool, error) {
		if !memo {
			return cbool(c, s, body, n.body)
		}
		var buf [4]value.Value
		vals := cb.bindingVals(s, buf[:])
		key, ok, found := c.memoLookup(n, vals)
		if found {
			return ok, nil
		}
		base, outerBase, effects := c.memoStart()
		ok, err := cbool(c, s, body, n.body)
		c.memoEnd(n, vals, key, base, outerBase, effects, ok, err)
		return ok, err
	}
	return func(c *ctx, s []slot) (value.Value, error) {
		memo := memoable && c.memoBodies(nil)
		if cb.simple() {
			dom, err := cb.domain(c, s)
			if err != nil {
				return nil, err
			}
			pos := cb.b.sets[0].position()
			for i, n := 0, dom.len(); i < n; i++ {
				if err := c.step(pos); err != nil {
					return nil, err
				}
				s[cb.base] = slot{v: dom.at(i)}
				ok, err := one(c, s, memo)
				if err != nil {
					return nil, err
				}
				if ok != forall {
					return value.Bool(!forall), nil
				}
			}
			return value.Bool(forall), nil
		}
		result := forall
		err := cb.each(c, s, n, l, func() (bool, error) {
			ok, err := one(c, s, memo)
			if err != nil {
				return false, err
			}
			if ok != forall {
				result = !forall
				return false, nil
			}
			return true, nil
		})
		return value.Bool(result), err
	}
}

func (cc *ccomp) choose(n *chooseNode, l *clevel) cfn {
	cb := cc.binder(n.b, l)
	body := cc.expr(n.body, cb.lvl)
	return func(c *ctx, s []slot) (value.Value, error) {
		var found value.Value
		err := cb.each(c, s, n, l, func() (bool, error) {
			ok, err := cbool(c, s, body, n.body)
			if err != nil {
				return false, err
			}
			if ok {
				found = cb.current(s)
				return false, nil
			}
			return true, nil
		})
		if err != nil {
			return nil, err
		}
		if found == nil {
			return n.eval(c, materialize(l, s))
		}
		return found, nil
	}
}

func (cc *ccomp) setFilter(n *setFilterNode, l *clevel) cfn {
	cb := cc.binder(n.b, l)
	pred := cc.expr(n.pred, cb.lvl)
	base := cb.sets[0]
	return func(c *ctx, s []slot) (value.Value, error) {
		bv, err := base(c, s)
		if err != nil {
			return nil, err
		}
		if fin, err := value.IsFinite(bv); err != nil || !fin {
			return n.eval(c, materialize(l, s))
		}
		var out []value.Value
		if cb.simple() {
			dom, err := enumerateC(bv, n.b.sets[0])
			if err != nil {
				return nil, err
			}
			pos := n.b.sets[0].position()
			for i, k := 0, dom.len(); i < k; i++ {
				if err := c.step(pos); err != nil {
					return nil, err
				}
				e := dom.at(i)
				s[cb.base] = slot{v: e}
				ok, err := cbool(c, s, pred, n.pred)
				if err != nil {
					return nil, err
				}
				if ok {
					out = append(out, e)
				}
			}
			return value.NewSet(out...), nil
		}
		err = cb.each(c, s, n, l, func() (bool, error) {
			ok, err := cbool(c, s, pred, n.pred)
			if err != nil {
				return false, err
			}
			if ok {
				out = append(out, cb.current(s))
			}
			return true, nil
		})
		if err != nil {
			return nil, err
		}
		return value.NewSet(out...), nil
	}
}

func (cc *ccomp) setMap(n *setMapNode, l *clevel) cfn {
	cb := cc.binder(n.b, l)
	elem := cc.expr(n.elem, cb.lvl)
	return func(c *ctx, s []slot) (value.Value, error) {
		var out []value.Value
		if cb.simple() {
			dom, err := cb.domain(c, s)
			if err != nil {
				return nil, err
			}
			out = make([]value.Value, 0, dom.len())
			pos := n.b.sets[0].position()
			for i, k := 0, dom.len(); i < k; i++ {
				if err := c.step(pos); err != nil {
					return nil, err
				}
				s[cb.base] = slot{v: dom.at(i)}
				v, err := elem(c, s)
				if err != nil {
					return nil, err
				}
				out = append(out, v)
			}
			return value.NewSet(out...), nil
		}
		err := cb.each(c, s, n, l, func() (bool, error) {
			v, err := elem(c, s)
			if err != nil {
				return false, err
			}
			out = append(out, v)
			return true, nil
		})
		if err != nil {
			return nil, err
		}
		return value.NewSet(out...), nil
	}
}

func (cc *ccomp) funcLit(n *funcLitNode, l *clevel) cfn {
	cb := cc.binder(n.b, l)
	body := cc.expr(n.body, cb.lvl)
	if len(n.b.sets) == 1 && !n.b.tuple[0] && len(n.b.names[0]) == 1 {
		set := cb.sets[0]
		k := cb.base
		return func(c *ctx, s []slot) (value.Value, error) {
			sv, err := set(c, s)
			if err != nil {
				return nil, err
			}
			v, err := value.FuncOver(sv, func(x value.Value) (value.Value, error) {
				s[k] = slot{v: x}
				return body(c, s)
			})
			if err != nil {
				return nil, located(n.pos, err)
			}
			return v, nil
		}
	}
	return func(c *ctx, s []slot) (value.Value, error) {
		var dom, vals []value.Value
		err := cb.each(c, s, n, l, func() (bool, error) {
			v, err := body(c, s)
			if err != nil {
				return false, err
			}
			vs := make([]value.Value, n.b.width)
			for i := range vs {
				vs[i] = s[cb.base+i].v
			}
			dom = append(dom, value.Tuple(vs...))
			vals = append(vals, v)
			return true, nil
		})
		if err != nil {
			return nil, err
		}
		v, err := value.NewFunc(dom, vals)
		return v, located(n.pos, err)
	}
}
