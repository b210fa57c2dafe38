package eval

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelfuzz/modelfuzz/tlc/stdlib"
	"github.com/modelfuzz/modelfuzz/tlc/syntax"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// node is a compiled expression.
type node interface {
	eval(c *ctx, env *Env) (value.Value, error)
	position() syntax.Pos
}

type at struct{ pos syntax.Pos }

func (a at) position() syntax.Pos { return a.pos }

// ---------------------------------------------------------------- leaves

type litNode struct {
	at
	v value.Value
	// counted: a reference to a CONSTANT, TRUE or FALSE, which TLC's
	// coverage counts (operators in TLC, unlike numbers and strings).
	counted bool
}

func (n *litNode) eval(c *ctx, _ *Env) (value.Value, error) {
	if c.cov != nil && n.counted {
		c.covOut(c.covIn(n))
	}
	return n.v, nil
}

type varNode struct {
	at
	idx  int
	name string
}

func (n *varNode) eval(c *ctx, _ *Env) (value.Value, error) {
	if c.cov != nil {
		c.covOut(c.covIn(n))
	}
	if n.idx >= len(c.cur) {
		// A constant-level evaluation: an ASSUME, a SYMMETRY set.
		return nil, errorf(n.pos, "variable %s is used where there is no state (in a constant expression)", n.name)
	}
	var v value.Value
	if c.primed > 0 {
		c.touchAll()
		v = c.next[n.idx]
		if v == nil {
			c.unbound = c.lenient
			return nil, errorf(n.pos, "%s' is used before it is given a value", n.name)
		}
		return v, nil
	}
	v = c.cur[n.idx]
	c.readVars |= 1 << uint(n.idx)
	if v == nil {
		return nil, errorf(n.pos, "variable %s is used before it is given a value", n.name)
	}
	if c.recording > 0 {
		c.recordRead(n.idx, nil, v)
	}
	return v, nil
}

// primeNode is e': e evaluated in the next state.
type primeNode struct {
	at
	x node
}

func (n *primeNode) eval(c *ctx, env *Env) (value.Value, error) {
	if c.initMode {
		return nil, errorf(n.pos, "a primed expression in the initial predicate")
	}
	if c.next == nil {
		return nil, errorf(n.pos, "a primed expression (%s) is evaluated where there is no next state", "'")
	}
	if c.primed > 0 {
		return nil, errorf(n.pos, "double prime: a primed expression inside a primed expression")
	}
	c.primed++
	v, err := n.x.eval(c, env)
	c.primed--
	return v, err
}

type boundNode struct {
	at
	depth, idx int
	name       string
}

func (n *boundNode) eval(c *ctx, env *Env) (value.Value, error) {
	if c.cov != nil {
		c.covOut(c.covIn(n))
	}
	f := env.up(n.depth)
	if f.lazy != nil && f.lazy[n.idx] != nil {
		la := f.lazy[n.idx]
		if c.cov != nil && la.cov != nil {
			prev := c.cov
			c.cov = la.cov
			if la.counted {
				c.cov = nil
			}
			la.counted = true
			v, err := la.n.eval(c, la.env)
			c.cov = prev
			return v, err
		}
		return la.n.eval(c, la.env)
	}
	if f.taint != nil {
		c.touched |= f.taint[n.idx]
	}
	return f.vals[n.idx], nil
}

// substNode is a constant or variable of an instance, replaced by an
// expression of the instantiating module.
type substNode struct {
	at
	d *def
}

func (n *substNode) eval(c *ctx, env *Env) (value.Value, error) {
	if c.primed > 0 && c.substPrimed != nil {
		if v, ok := c.substPrimed[n.d]; ok {
			return v, nil
		}
	}
	if c.substCache != nil && n.d.substLex == nil && env.instFrame() == nil {
		return c.cachedSubst(n, env)
	}
	return n.d.substNode.eval(c, env.instFrame())
}

// substKey is a substitution's value in the current or the next state.
type substKey struct {
	d      *def
	primed bool
}

// cachedSubst evaluates an instance's substitution once per state (see
// ctx.substCache), as TLC keeps the value of a substitution: a refinement
// mapping such as pc <- [p \in ProcSet |-> f(p)] is read many times by
// one evaluation of the abstract spec's next-state relation.
func (c *ctx) cachedSubst(n *substNode, env *Env) (value.Value, error) {
	key := substKey{n.d, c.primed > 0}
	if v, ok := c.substCache[key]; ok {
		// What the first evaluation read is not known here: count it all
		// as read, for the memos that depend on it.
		c.touchAll()
		c.readVars = ^uint64(0)
		if c.recording > 0 {
			c.recordVars(^uint64(0))
		}
		return v, nil
	}
	v, err := n.d.substNode.eval(c, env.instFrame())
	if err == nil {
		c.substCache[key] = v
	}
	return v, err
}

// ---------------------------------------------------------------- calls

// callNode calls a module-level definition.
type callNode struct {
	at
	d    *def
	args []node
	// instArgs, for M(a, b)!Op: the instance's parameters, evaluated in the
	// caller's frame to build the instance frame.
	instArgs []node
	hasInst  bool
	// site, for CC!Op where CC is an instance defined in a LET, is one more
	// than the number of frames between the call and the LET: the frame
	// there is the instance's (see loader.instanceAt).
	site int
}

func (n *callNode) eval(c *ctx, env *Env) (value.Value, error) {
	if c.cov != nil {
		defer c.covOut(c.covIn(n))
	}
	if c.primed > 0 && c.substPrimed != nil && len(n.args) == 0 {
		if v, ok := c.substPrimed[n.d]; ok {
			return v, nil
		}
	}
	if n.d.kind != dkOp || len(n.args) == 0 {
		var vals []value.Value
		var ops []*Closure
		if len(n.args) > 0 {
			fr, err := c.bindArgs(n.args, env, false)
			if err != nil {
				return nil, err
			}
			vals, ops = fr.vals, fr.ops
		}
		inst, err := n.instFrame(c, env)
		if err != nil {
			return nil, err
		}
		return c.callDef(n.d, vals, ops, inst, n.pos)
	}
	if n.d.compiled == nil {
		return nil, errorf(n.pos, "%s is used before its definition was compiled", n.d.name)
	}
	fr, err := c.bindArgs(n.args, env, true)
	if err != nil {
		return nil, err
	}
	if fr.inst, err = n.instFrame(c, env); err != nil {
		return nil, err
	}
	if d := n.d; !d.state && !d.recursive && !d.sc.paramInst && fr.inst == nil && fr.ops == nil && fr.lazy == nil {
		return c.pureCall(d, fr, n.pos)
	}
	if err := c.enter(n.pos); err != nil {
		return nil, err
	}
	v, err := c.evalBody(n.d, fr)
	c.leave()
	return v, err
}

// bindArgs evaluates the arguments of a call into the callee's frame.
// Operator arguments become closures. With byName, an argument that is a
// state variable (or an assignable x') is passed by name, as TLC passes
// arguments lazily: the callee reads it in the state it evaluates it in,
// so Step(v) == v' > v called as Step(x) compares x' with x, and
// Lose(q) == q' = Tail(q) assigns q'.
func (c *ctx) bindArgs(args []node, env *Env, byName bool) (*Env, error) {
	fr := newFrame(len(args), nil)
	if len(args) == 0 {
		return fr, nil
	}
	for i, a := range args {
		if cn, ok := a.(*closureNode); ok {
			if fr.ops == nil {
				fr.ops = make([]*Closure, len(args))
			}
			cl, err := cn.closure(c, env)
			if err != nil {
				return nil, err
			}
			fr.ops[i] = cl
			continue
		}
		if byName && c.byName(a, env) {
			if fr.lazy == nil {
				fr.lazy = make([]*lazyArg, len(args))
			}
			fr.lazy[i] = &lazyArg{n: a, env: env, cov: c.cov}
			continue
		}
		if t, ok := a.(*tupleNode); ok && c.watches > 0 {
			v, taint, parts, err := c.evalTupleDeferred(t, env)
			if err != nil {
				return nil, err
			}
			fr.vals[i] = v
			if taint != 0 {
				if fr.taint == nil {
					fr.taint = make([]uint64, len(args))
				}
				if fr.parts == nil {
					fr.parts = make([][]uint64, len(args))
				}
				fr.taint[i], fr.parts[i] = taint, parts
			}
			continue
		}
		v, taint, err := c.evalDeferred(a, env)
		if err != nil {
			return nil, err
		}
		fr.vals[i] = v
		if taint != 0 {
			if fr.taint == nil {
				fr.taint = make([]uint64, len(args))
			}
			fr.taint[i] = taint
		}
	}
	return fr, nil
}

// instFrame builds the frame of a parameterized instance's parameters for
// M(a, b)!Op; variables are passed by name (see bindArgs), so that
// M(x)!Init can assign x.
func (n *callNode) instFrame(c *ctx, env *Env) (*Env, error) {
	if n.site > 0 {
		for i := 1; i < n.site && env != nil; i++ {
			env = env.parent
		}
		return env, nil
	}
	if !n.hasInst {
		if n.d.sc.paramInst {
			return env.instFrame(), nil
		}
		return nil, nil
	}
	f, err := c.bindArgs(n.instArgs, env, true)
	if err != nil {
		return nil, err
	}
	f.inst = env.instFrame()
	return f, nil
}

// callDef evaluates definition d applied to args.
func (c *ctx) callDef(d *def, args []value.Value, ops []*Closure, inst *Env, pos syntax.Pos) (value.Value, error) {
	switch d.kind {
	case dkOp:
		if d.compiled == nil {
			return nil, errorf(pos, "%s is used before its definition was compiled", d.name)
		}
		if len(args) == 0 && !d.sc.paramInst && !d.recursive {
			if !d.state {
				return d.constValue(c)
			}
			if !d.prime && inst == nil && c.primed == 0 && !c.initMode && len(c.cur) > 0 && c.cov == nil {
				return c.stateValue(d, pos)
			}
		}
		var env *Env
		if len(args) > 0 || inst != nil {
			env = &Env{vals: args, ops: ops, inst: inst}
		}
		if err := c.enter(pos); err != nil {
			return nil, err
		}
		v, err := c.evalBody(d, env)
		c.leave()
		return v, err
	case dkValue:
		return d.val, nil
	case dkBuiltin:
		bargs := make([]stdlib.Arg, len(args))
		for i := range args {
			bargs[i] = stdlib.Arg{V: args[i]}
			if ops != nil && ops[i] != nil {
				bargs[i] = stdlib.Arg{Op: opArg{ops[i], c}}
			}
		}
		if d.builtin.SideEffect {
			c.effect()
		}
		v, err := d.builtin.Fn(c, bargs)
		return v, located(pos, err)
	case dkFunc:
		return c.funcValue(d, pos)
	case dkConst:
		return nil, errorf(pos, "constant %s has no value: give it one in the cfg file (CONSTANT %s = ...)", d.name, d.name)
	}
	return nil, errorf(pos, "%s cannot be evaluated here", d.name)
}

// constValue evaluates a constant zero-arity definition once.
func (d *def) constValue(c *ctx) (value.Value, error) {
	if d.input {
		return c.inputValue(d)
	}
	if d.cacheDone.Load() {
		return d.cacheVal, d.cacheErr
	}
	d.cacheOnce.Do(func() {
		// Computed once, as TLC computes constant definitions before the
		// search: not counted under the expression that first needs it.
		if c.cov != nil {
			defer c.enterRoot(nil)()
		}
		if d.kind == dkOp {
			d.cacheVal, d.cacheErr = c.evalBody(d, nil)
		} else {
			d.cacheVal, d.cacheErr = d.compiled.eval(c, nil)
		}
		d.cacheDone.Store(true)
	})
	return d.cacheVal, d.cacheErr
}

// funcValue is the value of a function definition f[x \in S] == e.
func (c *ctx) funcValue(d *def, pos syntax.Pos) (value.Value, error) {
	fc := d.compiled.(*funcDefNode)
	if !d.state && !d.sc.paramInst && !d.recursive {
		return d.constValue(c)
	}
	if !d.prime && !d.sc.paramInst && !d.recursive && c.primed == 0 && !c.initMode && len(c.cur) > 0 && c.cov == nil {
		// A function of the state (GameOfLife's sc[<<x, y>> \in ...] ==
		// ... grid ...) is built once per state, like a zero-arity
		// definition, not at each use.
		return c.stateValue(d, pos)
	}
	if err := c.enter(pos); err != nil {
		return nil, err
	}
	v, err := fc.eval(c, nil)
	c.leave()
	return v, err
}

// funcDefNode builds the value of a function definition.
type funcDefNode struct {
	at
	lit *funcLitNode
}

func (n *funcDefNode) eval(c *ctx, env *Env) (value.Value, error) { return n.lit.eval(c, env) }

// funcDefApp applies a function definition to an argument without building
// the whole function: recursive definitions over infinite domains work, as
// in TLC.
type funcDefApp struct {
	at
	d   *def
	arg node
}

func (n *funcDefApp) eval(c *ctx, env *Env) (value.Value, error) {
	if c.cov != nil {
		defer c.covOut(c.covIn(n))
	}
	a, err := n.arg.eval(c, env)
	if err != nil {
		return nil, err
	}
	fc := n.d.compiled.(*funcDefNode)
	if !n.d.recursive && !n.d.state && !n.d.sc.paramInst {
		f, err := n.d.constValue(c)
		if err != nil {
			return nil, err
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

// paramCallNode calls an operator parameter (a higher-order argument).
type paramCallNode struct {
	at
	depth, idx int
	name       string
	args       []node
}

func (n *paramCallNode) eval(c *ctx, env *Env) (value.Value, error) {
	if c.cov != nil {
		defer c.covOut(c.covIn(n))
	}
	f := env.up(n.depth)
	if f == nil || n.idx >= len(f.ops) || f.ops[n.idx] == nil {
		return nil, errorf(n.pos, "operator parameter %s has no operator", n.name)
	}
	cl := f.ops[n.idx]
	args := make([]value.Value, len(n.args))
	for i, a := range n.args {
		v, err := a.eval(c, env)
		if err != nil {
			return nil, err
		}
		args[i] = v
	}
	return cl.call(c, args)
}

// closureNode makes an operator argument: a definition, a LAMBDA, a LET
// definition or an operator parameter passed on.
type closureNode struct {
	at
	name    string
	arity   int
	d       *def // module-level definition or builtin
	inst    bool // d needs the caller's instance frame
	body    node // LAMBDA / LET definition body
	depth   int  // LET definition or operator parameter: frame depth
	param   int  // operator parameter index, or -1
	letBody bool // body is evaluated with its params frame above frame (depth)
}

func (n *closureNode) eval(c *ctx, env *Env) (value.Value, error) {
	return nil, errorf(n.pos, "operator %s used as a value", n.name)
}

func (n *closureNode) closure(c *ctx, env *Env) (*Closure, error) {
	switch {
	case n.param >= 0:
		f := env.up(n.depth)
		if f == nil || n.param >= len(f.ops) || f.ops[n.param] == nil {
			return nil, errorf(n.pos, "operator parameter %s has no operator", n.name)
		}
		return f.ops[n.param], nil
	case n.d != nil && n.d.kind == dkBuiltin:
		return &Closure{arity: n.arity, name: n.name, builtin: n.d.builtin, pos: n.pos}, nil
	case n.d != nil:
		cl := &Closure{arity: n.arity, name: n.name, def: n.d, pos: n.pos}
		if n.inst {
			cl.inst = env.instFrame()
		}
		return cl, nil
	default:
		return &Closure{arity: n.arity, name: n.name, body: n.body, env: env.up(n.depth), pos: n.pos}, nil
	}
}

// letNode is LET defs IN body: a frame whose slots hold the zero-arity
// definitions' values, computed on first use.
type letNode struct {
	at
	defs []*letDef
	body node
}

type letDef struct {
	isFunc bool // a function definition f[x \in S] == e
	name   string
	arity  int
	body   node
	prime  bool // mentions primed variables: never cached
	fn     *funcLitNode
	pos    syntax.Pos
	params []syntax.Param

	// constant: the definition depends on nothing around it; its value
	// is computed once (see compiler.let).
	constant  bool
	constOnce sync.Once
	constDone atomic.Bool
	constVal  value.Value
	constErr  error
}

func (n *letNode) frame(env *Env) *Env {
	return newLetFrame(len(n.defs), env)
}

func (n *letNode) eval(c *ctx, env *Env) (value.Value, error) {
	return n.body.eval(c, n.frame(env))
}

// letRefNode is a use of a zero-arity LET definition (or a LET function).
type letRefNode struct {
	at
	depth, idx int
	d          *letDef
}

func (n *letRefNode) eval(c *ctx, env *Env) (value.Value, error) {
	if c.cov != nil {
		defer c.covOut(c.covIn(n))
	}
	f := env.up(n.depth)
	if d := n.d; d.constant {
		d.constOnce.Do(func() {
			if d.fn != nil {
				d.constVal, d.constErr = d.fn.eval(c, f)
			} else {
				d.constVal, d.constErr = d.body.eval(c, f)
			}
			d.constDone.Store(true)
		})
		return d.constVal, d.constErr
	}
	s := &f.lets[n.idx]
	if s.done && !n.d.prime {
		c.touched |= s.taint
		return s.val, s.err
	}
	if err := c.enter(n.pos); err != nil {
		return nil, err
	}
	saved := c.touched
	c.touched = 0
	var v value.Value
	var err error
	if n.d.fn != nil {
		v, err = n.d.fn.eval(c, f)
	} else {
		v, err = n.d.body.eval(c, f)
	}
	c.leave()
	taint := c.touched
	c.touched |= saved
	if !n.d.prime {
		s.done, s.val, s.err, s.taint = true, v, err, taint
	}
	return v, err
}

// letCallNode applies a LET definition with parameters.
type letCallNode struct {
	at
	depth int
	d     *letDef
	args  []node
}

func (n *letCallNode) eval(c *ctx, env *Env) (value.Value, error) {
	if c.cov != nil {
		defer c.covOut(c.covIn(n))
	}
	f := env.up(n.depth)
	fr, err := c.bindArgs(n.args, env, true)
	if err != nil {
		return nil, err
	}
	fr.parent, fr.inst = f, f.instFrame()
	if err := c.enter(n.pos); err != nil {
		return nil, err
	}
	v, err := n.d.body.eval(c, fr)
	c.leave()
	return v, err
}

// letFuncApp applies a LET function definition to an argument.
type letFuncApp struct {
	at
	depth int
	d     *letDef
	arg   node
}

func (n *letFuncApp) eval(c *ctx, env *Env) (value.Value, error) {
	if c.cov != nil {
		defer c.covOut(c.covIn(n))
	}
	a, err := n.arg.eval(c, env)
	if err != nil {
		return nil, err
	}
	if err := c.enter(n.pos); err != nil {
		return nil, err
	}
	v, err := n.d.fn.applyTo(c, env.up(n.depth), a, n.pos, n.d.name)
	c.leave()
	return v, err
}

// builtinNode applies an operator of a standard module.
type builtinNode struct {
	at
	b    *stdlib.Builtin
	args []node
}

func (n *builtinNode) eval(c *ctx, env *Env) (value.Value, error) {
	if c.cov != nil {
		defer c.covOut(c.covIn(n))
	}
	bargs := make([]stdlib.Arg, len(n.args))
	for i, a := range n.args {
		if cn, ok := a.(*closureNode); ok {
			cl, err := cn.closure(c, env)
			if err != nil {
				return nil, err
			}
			bargs[i] = stdlib.Arg{Op: opArg{cl, c}}
			continue
		}
		v, err := a.eval(c, env)
		if err != nil {
			return nil, err
		}
		bargs[i] = stdlib.Arg{V: v}
	}
	if n.b.SideEffect {
		c.effect()
	}
	v, err := n.b.Fn(c, bargs)
	return v, located(n.pos, err)
}

// ---------------------------------------------------------------- logic

type andNode struct {
	at
	items []node
}

func (n *andNode) eval(c *ctx, env *Env) (value.Value, error) {
	if c.cov != nil {
		defer c.covOut(c.covIn(n))
	}
	for _, it := range n.items {
		b, err := evalBool(c, env, it)
		if err != nil {
			return nil, err
		}
		if !b {
			return value.False, nil
		}
	}
	return value.True, nil
}

type orNode struct {
	at
	items []node
}

func (n *orNode) eval(c *ctx, env *Env) (value.Value, error) {
	if c.cov != nil {
		defer c.covOut(c.covIn(n))
	}
	for _, it := range n.items {
		b, err := evalBool(c, env, it)
		if err != nil {
			return nil, err
		}
		if b {
			return value.True, nil
		}
	}
	return value.False, nil
}

type notNode struct {
	at
	x node
}

func (n *notNode) eval(c *ctx, env *Env) (value.Value, error) {
	if c.cov != nil {
		defer c.covOut(c.covIn(n))
	}
	b, err := evalBool(c, env, n.x)
	if err != nil {
		return nil, err
	}
	return value.Bool(!b), nil
}

type impliesNode struct {
	at
	l, r node
}

func (n *impliesNode) eval(c *ctx, env *Env) (value.Value, error) {
	if c.cov != nil {
		defer c.covOut(c.covIn(n))
	}
	b, err := evalBool(c, env, n.l)
	if err != nil || !b {
		return value.True, err
	}
	b, err = evalBool(c, env, n.r)
	return value.Bool(b), err
}

type equivNode struct {
	at
	l, r node
}

func (n *equivNode) eval(c *ctx, env *Env) (value.Value, error) {
	if c.cov != nil {
		defer c.covOut(c.covIn(n))
	}
	a, err := evalBool(c, env, n.l)
	if err != nil {
		return nil, err
	}
	b, err := evalBool(c, env, n.r)
	if err != nil {
		return nil, err
	}
	return value.Bool(a == b), nil
}

func evalBool(c *ctx, env *Env, n node) (bool, error) {
	v, err := n.eval(c, env)
	if err != nil {
		return false, err
	}
	b, ok := v.(value.Bool)
	if !ok {
		return false, errorf(n.position(), "expected a boolean, got %s", short(v))
	}
	return bool(b), nil
}

func short(v value.Value) string {
	s := v.String()
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

type eqNode struct {
	at
	l, r node
	neq  bool
}

func (n *eqNode) eval(c *ctx, env *Env) (value.Value, error) {
	if c.cov != nil {
		defer c.covOut(c.covIn(n))
	}
	a, err := n.l.eval(c, env)
	if err != nil {
		return nil, err
	}
	b, err := n.r.eval(c, env)
	if err != nil {
		return nil, err
	}
	eq, err := value.Equal(a, b)
	if err != nil {
		return nil, located(n.pos, err)
	}
	return value.Bool(eq != n.neq), nil
}

type inNode struct {
	at
	x, s  node
	notIn bool
	// set keeps the value of s when s depends on no variable and no name
	// bound around it (TypeOK's [Servers -> Nat]): the interpreter then
	// builds it once per check, as the compiled evaluator does (hoisted).
	set keptConst
}

// keptConst is the value of a constant-level subexpression (see
// Model.constant), computed on first use and kept. An error is not kept:
// it is met again.
type keptConst struct {
	state atomic.Uint32 // 0: not yet decided; 1: constant; 2: not constant
	v     atomic.Pointer[value.Value]
}

// eval is n's value in env, kept when n is constant.
func (k *keptConst) eval(c *ctx, n node, env *Env) (value.Value, error) {
	if c.cov != nil {
		// Every evaluation made and counted, as in TLC.
		return n.eval(c, env)
	}
	if v := k.v.Load(); v != nil {
		return *v, nil
	}
	st := k.state.Load()
	if st == 0 {
		st = 2
		if c.m.constantLocked(n) {
			st = 1
		}
		k.state.Store(st)
	}
	v, err := n.eval(c, env)
	if st == 1 && err == nil {
		k.v.Store(&v)
	}
	return v, err
}

func (n *inNode) eval(c *ctx, env *Env) (value.Value, error) {
	if c.cov != nil {
		defer c.covOut(c.covIn(n))
	}
	x, err := n.x.eval(c, env)
	if err != nil {
		return nil, err
	}
	if f, fenv := filterOf(n.s, env); f != nil {
		ok, err := f.member(c, fenv, x)
		if err != nil {
			return nil, err
		}
		return value.Bool(ok != n.notIn), nil
	}
	s, err := n.set.eval(c, n.s, env)
	if err != nil {
		return nil, err
	}
	ok, err := value.Member(x, s)
	if err != nil {
		return nil, located(n.pos, err)
	}
	return value.Bool(ok != n.notIn), nil
}

// ---------------------------------------------------------------- arithmetic fast paths

type arithNode struct {
	at
	op   string
	l, r node
	fn   func(a, b value.Value) (value.Value, error)
}

func (n *arithNode) eval(c *ctx, env *Env) (value.Value, error) {
	if c.cov != nil {
		defer c.covOut(c.covIn(n))
	}
	a, err := n.l.eval(c, env)
	if err != nil {
		return nil, err
	}
	b, err := n.r.eval(c, env)
	if err != nil {
		return nil, err
	}
	v, err := n.fn(a, b)
	return v, located(n.pos, err)
}

type cmpNode struct {
	at
	l, r node
	fn   func(a, b value.Value) (bool, error)
}

func (n *cmpNode) eval(c *ctx, env *Env) (value.Value, error) {
	if c.cov != nil {
		defer c.covOut(c.covIn(n))
	}
	a, err := n.l.eval(c, env)
	if err != nil {
		return nil, err
	}
	b, err := n.r.eval(c, env)
	if err != nil {
		return nil, err
	}
	v, err := n.fn(a, b)
	if err != nil {
		return nil, located(n.pos, err)
	}
	return value.Bool(v), nil
}

// unaryNode applies a value function of one argument (DOMAIN, SUBSET, ...).
type unaryNode struct {
	at
	x  node
	fn func(a value.Value) (value.Value, error)
}

func (n *unaryNode) eval(c *ctx, env *Env) (value.Value, error) {
	if c.cov != nil {
		defer c.covOut(c.covIn(n))
	}
	a, err := n.x.eval(c, env)
	if err != nil {
		return nil, err
	}
	v, err := n.fn(a)
	return v, located(n.pos, err)
}

// ---------------------------------------------------------------- structures

type setEnumNode struct {
	at
	elems []node
}

func (n *setEnumNode) eval(c *ctx, env *Env) (value.Value, error) {
	if c.cov != nil {
		defer c.covOut(c.covIn(n))
	}
	vs := make([]value.Value, len(n.elems))
	for i, e := range n.elems {
		v, err := e.eval(c, env)
		if err != nil {
			return nil, err
		}
		vs[i] = v
	}
	return value.NewSet(vs...), nil
}

type tupleNode struct {
	at
	elems []node
}

func (n *tupleNode) eval(c *ctx, env *Env) (value.Value, error) {
	if c.cov != nil {
		defer c.covOut(c.covIn(n))
	}
	vs := make([]value.Value, len(n.elems))
	for i, e := range n.elems {
		v, err := e.eval(c, env)
		if err != nil {
			return nil, err
		}
		vs[i] = v
	}
	return value.Tuple(vs...), nil
}

type recordNode struct {
	at
	names []string
	vals  []node
	set   bool // [a : S, b : T]
	// pairs locate the fields ("a |-> e") for coverage.
	pairs []*pairNode
	// shape is the record's shape, made once (a record literal's field
	// names are fixed); nil until the first evaluation.
	shape atomic.Pointer[value.RecordShape]
}

func (n *recordNode) eval(c *ctx, env *Env) (value.Value, error) {
	if c.cov != nil {
		defer c.covOut(c.covIn(n))
	}
	var vbuf [4]value.Value
	vs := vbuf[:0]
	if len(n.vals) > len(vbuf) || n.set {
		vs = make([]value.Value, 0, len(n.vals))
	}
	for i, e := range n.vals {
		var prev *CovNode
		if c.cov != nil {
			// A field is not counted itself (TLC's), only what is in it.
			prev = c.cov
			c.cov = prev.child(n.pairs[i])
		}
		v, err := e.eval(c, env)
		if prev != nil {
			c.covOut(prev)
		}
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

type funcAppNode struct {
	at
	f, arg node
}

func (n *funcAppNode) eval(c *ctx, env *Env) (value.Value, error) {
	if c.cov != nil {
		defer c.covOut(c.covIn(n))
	}
	f, err := n.f.eval(c, env)
	if err != nil {
		return nil, err
	}
	a, err := n.arg.eval(c, env)
	if err != nil {
		return nil, err
	}
	v, err := value.Apply(f, a)
	return v, located(n.pos, err)
}

// varAppNode is v[e] for a state variable v: while a quantifier's body is
// recorded (see quantmemo.go), it reads the part v[e] of the state rather
// than the whole of v.
type varAppNode struct {
	funcAppNode
	v *varNode
}

func (n *varAppNode) eval(c *ctx, env *Env) (value.Value, error) {
	if c.cov != nil {
		defer c.covOut(c.covIn(n))
	}
	if c.recording == 0 || c.primed > 0 || n.v.idx >= len(c.cur) || c.cur[n.v.idx] == nil {
		return n.funcAppNode.eval(c, env)
	}
	f := c.cur[n.v.idx]
	c.readVars |= 1 << uint(n.v.idx)
	a, err := n.arg.eval(c, env)
	if err != nil {
		c.recordRead(n.v.idx, nil, f)
		return nil, err
	}
	v, err := value.Apply(f, a)
	if err != nil {
		c.recordRead(n.v.idx, nil, f)
		return nil, located(n.pos, err)
	}
	c.recordRead(n.v.idx, a, v)
	return v, nil
}

// componentNode is p[k] for a bound name p and an integer literal k: when
// p is bound to a tuple literal argument, it reads only the k-th
// component's watch bits (see Env.parts).
type componentNode struct {
	funcAppNode
	b *boundNode
	k int64
}

func (n *componentNode) eval(c *ctx, env *Env) (value.Value, error) {
	if c.cov != nil {
		defer c.covOut(c.covIn(n))
	}
	f := env.up(n.b.depth)
	if f.parts != nil && f.parts[n.b.idx] != nil && (f.lazy == nil || f.lazy[n.b.idx] == nil) {
		parts := f.parts[n.b.idx]
		if n.k >= 1 && n.k <= int64(len(parts)) {
			c.touched |= parts[n.k-1]
			return f.vals[n.b.idx].(*value.Func).Values()[n.k-1], nil
		}
	}
	return n.funcAppNode.eval(c, env)
}

type fieldNode struct {
	at
	rec  node
	name value.Value
}

func (n *fieldNode) eval(c *ctx, env *Env) (value.Value, error) {
	if c.cov != nil {
		defer c.covOut(c.covIn(n))
	}
	r, err := n.rec.eval(c, env)
	if err != nil {
		return nil, err
	}
	v, err := value.Apply(r, n.name)
	return v, located(n.pos, err)
}

type ifNode struct {
	at
	cond, then, els node
}

func (n *ifNode) eval(c *ctx, env *Env) (value.Value, error) {
	if c.cov != nil {
		defer c.covOut(c.covIn(n))
	}
	b, err := evalBool(c, env, n.cond)
	if err != nil {
		return nil, err
	}
	if b {
		return n.then.eval(c, env)
	}
	return n.els.eval(c, env)
}

type caseNode struct {
	at
	conds, bodies []node
	other         node
}

func (n *caseNode) eval(c *ctx, env *Env) (value.Value, error) {
	if c.cov != nil {
		defer c.covOut(c.covIn(n))
	}
	for i, cond := range n.conds {
		b, err := evalBool(c, env, cond)
		if err != nil {
			return nil, err
		}
		if b {
			return n.bodies[i].eval(c, env)
		}
	}
	if n.other != nil {
		return n.other.eval(c, env)
	}
	return nil, errorf(n.pos, "CASE: no arm applies and there is no OTHER")
}

// exceptNode is [f EXCEPT !a.b = e, ...]; @ is the old value, in frame slot 0
// of the frame each update's value is evaluated in.
type exceptNode struct {
	at
	f       node
	updates []exceptUpdate
}

type exceptUpdate struct {
	path   []node // index values (field names are literal strings)
	val    node
	usesAt bool
	// pair locates the update ("![i] = e") for coverage.
	pair *pairNode
}

// pairNode is a part of an expression that TLC's coverage counts as an
// expression of its own (a record field, an EXCEPT update): a key of the
// coverage tree, never evaluated.
type pairNode struct{ at }

func (n *pairNode) eval(*ctx, *Env) (value.Value, error) {
	return nil, errorf(n.pos, "internal error: a field or update evaluated on its own")
}

func (n *exceptNode) eval(c *ctx, env *Env) (value.Value, error) {
	if c.cov != nil {
		defer c.covOut(c.covIn(n))
	}
	f, err := n.f.eval(c, env)
	if err != nil {
		return nil, err
	}
	for _, u := range n.updates {
		if c.cov != nil {
			f, err = n.coveredUpdate(c, env, f, u)
			if err != nil {
				return nil, err
			}
			continue
		}
		if f, err = n.update(c, env, f, u); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// coveredUpdate is update counted as the update's own expression.
func (n *exceptNode) coveredUpdate(c *ctx, env *Env, f value.Value, u exceptUpdate) (value.Value, error) {
	defer c.covOut(c.covIn(u.pair))
	return n.update(c, env, f, u)
}

// update applies one update of the EXCEPT to f.
func (n *exceptNode) update(c *ctx, env *Env, f value.Value, u exceptUpdate) (value.Value, error) {
	path := make([]value.Value, len(u.path))
	for i, p := range u.path {
		v, err := p.eval(c, env)
		if err != nil {
			return nil, err
		}
		path[i] = v
	}
	var err error
	if !u.usesAt {
		v, err := u.val.eval(c, &Env{vals: []value.Value{nil}, parent: env, inst: env.instFrame()})
		if err != nil {
			return nil, err
		}
		if f, err = value.Update(f, path, v); err != nil {
			return nil, located(n.pos, err)
		}
		return f, nil
	}
	f, err = value.UpdateWith(f, path, func(old value.Value) (value.Value, error) {
		return u.val.eval(c, &Env{vals: []value.Value{old}, parent: env, inst: env.instFrame()})
	})
	if err != nil {
		return nil, located(n.pos, err)
	}
	return f, nil
}

// ---------------------------------------------------------------- binders

// binder is a compiled list of bounds: the names a quantifier, CHOOSE, set
// constructor or function literal introduces, all in one frame.
type binder struct {
	sets  []node // one per bound
	names [][]string
	tuple []bool
	width int // number of names
}

// each calls fn for every assignment of the bound names, reusing one
// frame. The order is TLC's (ContextEnumerator): every name (or tuple of
// names) ranges over its set in canonical order, and the first one varies
// fastest. The order decides which successor TLC finds first, and so its
// error traces.
func (b *binder) each(c *ctx, env *Env, fn func(f *Env) (bool, error)) error {
	return b.eachAt(c, env, func(f *Env, _ []int) (bool, error) { return fn(f) })
}

// eachAt is each, also passing the position of each slot's value in its
// set (the slots of a tuple share one position).
func (b *binder) eachAt(c *ctx, env *Env, fn func(f *Env, at []int) (bool, error)) error {
	f := newFrame(b.width, env)
	// One position per name, or per tuple of names.
	type position struct {
		dom   []value.Value
		slot  int
		bound int
	}
	var ps []position
	slot := 0
	for i, s := range b.sets {
		sv, err := s.eval(c, env)
		if err != nil {
			return err
		}
		elems, err := value.Enumerate(sv)
		if err != nil {
			return located(s.position(), err)
		}
		if b.tuple[i] {
			ps = append(ps, position{elems, slot, i})
			slot += len(b.names[i])
			continue
		}
		for range b.names[i] {
			ps = append(ps, position{elems, slot, i})
			slot++
		}
	}
	for _, p := range ps {
		if len(p.dom) == 0 {
			return nil
		}
	}
	set := func(p position, e value.Value) error {
		if !b.tuple[p.bound] {
			f.vals[p.slot] = e
			return nil
		}
		names := b.names[p.bound]
		t, ok := e.(*value.Func)
		if !ok || !t.IsSeq() || t.Len() != len(names) {
			return errorf(b.sets[p.bound].position(), "cannot bind the tuple <<%s>> to %s", strings.Join(names, ", "), short(e))
		}
		copy(f.vals[p.slot:], t.Values())
		return nil
	}
	pos := b.sets[0].position()
	at := make([]int, b.width)
	if len(ps) == 1 && !b.tuple[0] {
		for i, e := range ps[0].dom {
			if err := c.step(pos); err != nil {
				return err
			}
			f.vals[0] = e
			at[0] = i
			more, err := fn(f, at)
			if err != nil || !more {
				return err
			}
		}
		return nil
	}
	idx := make([]int, len(ps))
	for _, p := range ps {
		if err := set(p, p.dom[0]); err != nil {
			return err
		}
	}
	for {
		if err := c.step(pos); err != nil {
			return err
		}
		for i, p := range ps {
			n := 1
			if b.tuple[p.bound] {
				n = len(b.names[p.bound])
			}
			for s := p.slot; s < p.slot+n; s++ {
				at[s] = idx[i]
			}
		}
		more, err := fn(f, at)
		if err != nil || !more {
			return err
		}
		// Advance the odometer, first position fastest.
		i := 0
		for ; i < len(ps); i++ {
			idx[i]++
			if idx[i] < len(ps[i].dom) {
				break
			}
			idx[i] = 0
			if err := set(ps[i], ps[i].dom[0]); err != nil {
				return err
			}
		}
		if i == len(ps) {
			return nil
		}
		if err := set(ps[i], ps[i].dom[idx[i]]); err != nil {
			return err
		}
	}
}

type quantNode struct {
	at
	forall bool
	b      *binder
	body   node
}

func (n *quantNode) eval(c *ctx, env *Env) (value.Value, error) {
	if c.cov != nil {
		defer c.covOut(c.covIn(n))
	}
	result := n.forall
	// Under coverage, every evaluation is made and counted, as in TLC.
	memo := c.cov == nil && c.memoBodies(env)
	err := n.b.each(c, env, func(f *Env) (bool, error) {
		var ok bool
		var err error
		if memo {
			ok, err = c.memoBody(n, f)
		} else {
			ok, err = evalBool(c, f, n.body)
		}
		if err != nil {
			return false, err
		}
		if ok != n.forall {
			result = !n.forall
			return false, nil
		}
		return true, nil
	})
	return value.Bool(result), err
}

type chooseNode struct {
	at
	b    *binder
	body node
}

func (n *chooseNode) eval(c *ctx, env *Env) (value.Value, error) {
	if c.cov != nil {
		defer c.covOut(c.covIn(n))
	}
	var found value.Value
	err := n.b.each(c, env, func(f *Env) (bool, error) {
		ok, err := evalBool(c, f, n.body)
		if err != nil {
			return false, err
		}
		if ok {
			found = n.b.current(f)
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	if found == nil {
		return nil, errorf(n.pos, "CHOOSE: no value satisfies the condition")
	}
	return found, nil
}

// current is the value bound by a one-bound binder: x, or <<a, b>>.
func (b *binder) current(f *Env) value.Value {
	if b.tuple[0] {
		return value.Tuple(append([]value.Value(nil), f.vals[:b.width]...)...)
	}
	return f.vals[0]
}

type setFilterNode struct {
	at
	b    *binder
	pred node
	text string // as written, to print the set when it stays unbuilt
}

func (n *setFilterNode) eval(c *ctx, env *Env) (value.Value, error) {
	if c.cov != nil {
		defer c.covOut(c.covIn(n))
	}
	base, err := n.b.sets[0].eval(c, env)
	if err != nil {
		return nil, err
	}
	if fin, err := value.IsFinite(base); err != nil || !fin {
		// {n \in Nat : n > 0}: kept unbuilt, as TLC keeps it; membership
		// tests x \in Nat /\ x > 0.
		return n.unbuilt(c, env, base), nil
	}
	var out []value.Value
	err = n.b.each(c, env, func(f *Env) (bool, error) {
		ok, err := evalBool(c, f, n.pred)
		if err != nil {
			return false, err
		}
		if ok {
			out = append(out, n.b.current(f))
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	return value.NewSet(out...), nil
}

type setMapNode struct {
	at
	b    *binder
	elem node
}

func (n *setMapNode) eval(c *ctx, env *Env) (value.Value, error) {
	if c.cov != nil {
		defer c.covOut(c.covIn(n))
	}
	var out []value.Value
	err := n.b.each(c, env, func(f *Env) (bool, error) {
		v, err := n.elem.eval(c, f)
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

// funcLitNode is [x \in S, y \in T |-> e].
type funcLitNode struct {
	at
	b    *binder
	body node
}

func (n *funcLitNode) eval(c *ctx, env *Env) (value.Value, error) {
	if c.cov != nil {
		defer c.covOut(c.covIn(n))
	}
	if len(n.b.sets) == 1 && !n.b.tuple[0] && len(n.b.names[0]) == 1 {
		s, err := n.b.sets[0].eval(c, env)
		if err != nil {
			return nil, err
		}
		f := newFrame(1, env)
		v, err := value.FuncOver(s, func(x value.Value) (value.Value, error) {
			f.vals[0] = x
			c.covCost(1)
			return n.body.eval(c, f)
		})
		if err != nil {
			return nil, located(n.pos, err)
		}
		return v, nil
	}
	var dom, vals []value.Value
	err := n.b.each(c, env, func(f *Env) (bool, error) {
		c.covCost(1)
		v, err := n.body.eval(c, f)
		if err != nil {
			return false, err
		}
		dom = append(dom, value.Tuple(append([]value.Value(nil), f.vals...)...))
		vals = append(vals, v)
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	v, err := value.NewFunc(dom, vals)
	return v, located(n.pos, err)
}

// applyTo evaluates the function literal at one argument, checking that
// the argument is in the domain.
func (n *funcLitNode) applyTo(c *ctx, env *Env, a value.Value, pos syntax.Pos, name string) (value.Value, error) {
	f, err := n.bindArg(c, env, a, pos, name)
	if err != nil {
		return nil, err
	}
	return n.body.eval(c, f)
}

// bindArg checks that a is in the function literal's domain and returns
// the frame its body sees for argument a.
func (n *funcLitNode) bindArg(c *ctx, env *Env, a value.Value, pos syntax.Pos, name string) (*Env, error) {
	f := newFrame(n.b.width, env)
	var parts []value.Value
	if n.b.width == 1 {
		parts = []value.Value{a}
	} else {
		t, ok := a.(*value.Func)
		if !ok || !t.IsSeq() || t.Len() != n.b.width {
			return nil, errorf(pos, "%s applied to %s, which is not a %d-tuple", name, short(a), n.b.width)
		}
		parts = t.Values()
	}
	slot := 0
	for i, s := range n.b.sets {
		sv, err := s.eval(c, env)
		if err != nil {
			return nil, err
		}
		k := len(n.b.names[i])
		for j := 0; j < k; j++ {
			x := parts[slot+j]
			if n.b.tuple[i] {
				x = value.Tuple(parts[slot : slot+k]...)
			}
			ok, err := value.Member(x, sv)
			if err != nil {
				return nil, located(pos, err)
			}
			if !ok {
				return nil, errorf(pos, "%s applied outside its domain: %s", name, short(a))
			}
			if n.b.tuple[i] {
				break
			}
		}
		copy(f.vals[slot:], parts[slot:slot+k])
		slot += k
	}
	return f, nil
}

// ---------------------------------------------------------------- actions as values

// unchangedNode is UNCHANGED e: e' = e.
type unchangedNode struct {
	at
	vars []int // when e is a tuple of variables
	x    node  // otherwise
}

func (n *unchangedNode) eval(c *ctx, env *Env) (value.Value, error) {
	if c.cov != nil {
		defer c.covOut(c.covIn(n))
	}
	if c.next == nil {
		return nil, errorf(n.pos, "UNCHANGED evaluated where there is no next state")
	}
	c.touchAll()
	if n.x == nil {
		for _, i := range n.vars {
			if c.next[i] == nil {
				c.unbound = c.lenient
				return nil, errorf(n.pos, "%s' is used before it is given a value", c.m.Vars[i])
			}
			eq, err := value.Equal(c.cur[i], c.next[i])
			if err != nil || !eq {
				return value.False, located(n.pos, err)
			}
		}
		return value.True, nil
	}
	a, err := n.x.eval(c, env)
	if err != nil {
		return nil, err
	}
	c.primed++
	b, err := n.x.eval(c, env)
	c.primed--
	if err != nil {
		return nil, err
	}
	eq, err := value.Equal(a, b)
	return value.Bool(eq), located(n.pos, err)
}

// enabledNode is ENABLED A: whether A has a successor from the current state.
type enabledNode struct {
	at
	x node
	// lenient is set for the ENABLED of a fairness condition, which TLC
	// evaluates assuming that a conjunct it cannot decide (one reading a
	// primed variable the action does not assign, as a refinement mapping
	// does) can be satisfied.
	lenient bool
}

var errFound = errors.New("found")

func (n *enabledNode) eval(c *ctx, env *Env) (value.Value, error) {
	if c.cov != nil {
		defer c.covOut(c.covIn(n))
	}
	c.touchAll()
	c.readVars = ^uint64(0) // the sub-evaluation reads the state too
	if c.recording > 0 {
		c.recordVars(^uint64(0))
	}
	sub := &ctx{m: c.m, cur: c.cur, next: make([]value.Value, len(c.m.Vars)), level: c.level,
		depth: c.depth, steps: c.steps, maxSteps: c.maxSteps, quiet: c.quiet, lenient: n.lenient,
		interp: c.interp, env: c.env, files: c.files}
	// The sub-evaluation carves its compiled frames above this one's, on
	// the same stack: a stack of its own would be allocated (and
	// cleared) at every ENABLED, as often as once per state and action.
	sub.stk = c.stk
	err := sub.enum(n.x, env, func() error { return errFound })
	c.stk.chunks = sub.stk.chunks
	c.effects += sub.effects
	if err == errFound {
		return value.True, nil
	}
	if err != nil {
		return nil, err
	}
	return value.False, nil
}

// labelNode is lbl:: e.
type labelNode struct {
	at
	x node
}

func (n *labelNode) eval(c *ctx, env *Env) (value.Value, error) { return n.x.eval(c, env) }

// unsupportedNode reports a construct the evaluator cannot evaluate, when
// (and only when) it is evaluated.
type unsupportedNode struct {
	at
	what string
}

func (n *unsupportedNode) eval(*ctx, *Env) (value.Value, error) {
	return nil, errorf(n.pos, "%s cannot be evaluated by the model checker", n.what)
}

var _ = fmt.Sprint

// unbuilt returns the filter over base as a set that is not built. Its
// predicate runs in a context of its own, on copies of the frames and the
// state it was made in: the set may be kept (as a constant's value) and
// tested by any worker.
func (n *setFilterNode) unbuilt(c *ctx, env *Env, base value.Value) value.Value {
	m, level, primed, initMode := c.m, c.level, c.primed, c.initMode
	cur := append([]value.Value(nil), c.cur...)
	next := append([]value.Value(nil), c.next...)
	if c.next == nil {
		next = nil
	}
	env = env.snapshot()
	return &value.FilterSet{Base: base, Text: n.text, Pred: func(x value.Value) (bool, error) {
		sub := m.newCtx()
		sub.cur, sub.next, sub.level, sub.primed, sub.initMode = cur, next, level, primed, initMode
		f := newFrame(n.b.width, env)
		if !n.b.bindOne(f, x) {
			return false, nil
		}
		return evalBool(sub, f, n.pred)
	}}
}

// member reports whether x is in the filter, without building it: x is in
// the filtered set and satisfies the predicate, as TLC tests
// x \in {y \in S : P(y)}.
func (n *setFilterNode) member(c *ctx, env *Env, x value.Value) (bool, error) {
	base, err := n.b.sets[0].eval(c, env)
	if err != nil {
		return false, err
	}
	in, err := value.Member(x, base)
	if err != nil || !in {
		return false, located(n.pos, err)
	}
	f := newFrame(n.b.width, env)
	if !n.b.bindOne(f, x) {
		return false, nil
	}
	return evalBool(c, f, n.pred)
}

// bindOne binds the names of a one-bound binder to x in frame f (the
// components of x for a tuple of names); false when x has not the tuple's
// shape.
func (b *binder) bindOne(f *Env, x value.Value) bool {
	if !b.tuple[0] {
		f.vals[0] = x
		return true
	}
	t, ok := x.(*value.Func)
	if !ok || !t.IsSeq() || t.Len() != len(b.names[0]) {
		return false
	}
	copy(f.vals, t.Values())
	return true
}

// snapshot copies the frames of e (values, LET slots), so that they can be
// kept while the evaluation that made them goes on reusing them.
func (e *Env) snapshot() *Env {
	if e == nil {
		return nil
	}
	c := *e
	c.vals = append([]value.Value(nil), e.vals...)
	if e.lets != nil {
		c.lets = append([]letSlot(nil), e.lets...)
	}
	c.parent = e.parent.snapshot()
	if e.inst != nil {
		c.inst = e.inst.snapshot()
	}
	return &c
}

// filterOf returns n when it is a set filter {y \in S : P(y)} written in
// place: x \in n then tests x \in S /\ P(x) without building the set
// (TLC's SetPredValue), which evaluates S and P once at most where building
// the set evaluates them for every element. So does a zero-arity module
// definition equal to a filter that depends on the state: it would be
// built again in every state (MCQuicksort's UV \in DomainPartitions, a
// filter of SUBSET SUBSET (1..Len(seq0)), 65,536 sets per state). A
// constant definition keeps its value, built once, and tests membership in
// it (MCBinarySearch's SortedSeqs: testing lazily re-evaluated its base at
// every test); one over a set that cannot be enumerated stays unbuilt (see
// setFilterNode.unbuilt).
func filterOf(n node, env *Env) (*setFilterNode, *Env) {
	switch x := n.(type) {
	case *setFilterNode:
		return x, env
	case *callNode:
		if x.d.kind == dkOp && x.d.state && len(x.args) == 0 && !x.hasInst && x.site == 0 && !x.d.sc.paramInst {
			if f, ok := x.d.compiled.(*setFilterNode); ok {
				return f, nil
			}
		}
	}
	return nil, nil
}
