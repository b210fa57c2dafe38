package eval

import (
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// enum enumerates the ways action n can be satisfied from the current state
// (or, in init mode, the ways an initial-state predicate can), calling k for
// each with c.next filled in as far as n determines it. It follows TLC: a
// conjunction is processed left to right; x' = e assigns x' when it has no
// value yet and tests it otherwise; x' \in S assigns each element in turn;
// disjunctions, \E and IF/CASE branch; operator calls are expanded.
// Assignments made for one branch are undone before the next.
func (c *ctx) enum(n node, env *Env, k func() error) error {
	if c.cov != nil {
		var t *CovNode
		k, t = c.covEnum(n, k)
		defer c.covOut(t)
	}
	if c.probe == nil && c.allAssigned() {
		// As TLC: once every variable has its value (primed ones in an
		// action), what remains of the formula is evaluated, not
		// enumerated, so that a disjunction whose two sides hold yields
		// its state once (TLC's Tool.getInitStates and
		// getNextStatesAllAssigned; its generated count follows).
		if _, ok := n.(*composeNode); !ok {
			b, err := evalBool(c, env, n)
			if err != nil || !b {
				return err
			}
			return k()
		}
	}
	switch n := n.(type) {
	case *andNode:
		return c.enumAnd(n.items, env, k)
	case *orNode:
		if c.probe != nil {
			return c.enumAlternatives(k, func(k func() error) error { return c.enumOr(n, env, k) })
		}
		return c.enumOr(n, env, k)
	case *eqNode:
		if p, ok := n.l.(*primeNode); ok && c.lenient && !n.neq {
			var d *def
			switch x := p.x.(type) {
			case *substNode:
				d = x.d
			case *callNode:
				if len(x.args) == 0 && !x.hasInst {
					d = x.d
				}
			}
			if _, bound := c.substPrimed[d]; d != nil && !bound {
				return c.enumSubstPrimed(n, d, env, k)
			}
		}
		if idx, ok := c.target(n.l, env); ok && !n.neq {
			if c.next[idx] == nil {
				v, err := n.r.eval(c, env)
				if err != nil {
					return err
				}
				if _, ok := v.(*value.FilterSet); ok {
					return errorf(n.pos, "%s cannot be the value of a variable: it filters a set that cannot be enumerated", short(v))
				}
				c.next[idx] = v
				err = k()
				c.next[idx] = nil
				return err
			}
		}
	case *inNode:
		if idx, ok := c.target(n.x, env); ok && !n.notIn && c.next[idx] == nil {
			s, err := n.set.eval(c, n.s, env)
			if err != nil {
				return err
			}
			elems, err := value.Enumerate(s)
			if err != nil {
				return located(n.pos, err)
			}
			for _, e := range elems {
				c.next[idx] = e
				if err := k(); err != nil {
					c.next[idx] = nil
					return err
				}
			}
			c.next[idx] = nil
			return nil
		}
	case *unchangedNode:
		if n.x == nil && !c.initMode {
			return c.enumUnchanged(n.vars, 0, k)
		}
		if n.x != nil && c.lenient {
			return c.enumUnchangedExpr(n.x, env, k)
		}
	case *quantNode:
		if n.forall {
			// \A x \in S : A is the conjunction of A over S.
			var items []func(k func() error) error
			err := n.b.each(c, env, func(f *Env) (bool, error) {
				fr := &Env{vals: append([]value.Value(nil), f.vals...), parent: f.parent, inst: f.inst}
				items = append(items, func(k func() error) error { return c.enum(n.body, fr, k) })
				return true, nil
			})
			if err != nil {
				return err
			}
			return chain(items, k)
		}
		if c.probe != nil {
			return c.enumAlternatives(k, func(k func() error) error { return c.enumExists(n, env, k) })
		}
		return c.enumExists(n, env, k)
	case *ifNode:
		b, err := evalBool(c, env, n.cond)
		if err != nil {
			return err
		}
		branch := n.els
		if b {
			branch = n.then
		}
		if c.probe != nil {
			return c.enumBranch(branch, env, k)
		}
		return c.enum(branch, env, k)
	case *caseNode:
		for i, cond := range n.conds {
			b, err := evalBool(c, env, cond)
			if err != nil {
				return err
			}
			if b {
				if c.probe != nil {
					return c.enumBranch(n.bodies[i], env, k)
				}
				return c.enum(n.bodies[i], env, k)
			}
		}
		if n.other != nil {
			if c.probe != nil {
				return c.enumBranch(n.other, env, k)
			}
			return c.enum(n.other, env, k)
		}
		return errorf(n.pos, "CASE: no arm applies and there is no OTHER")
	case *impliesNode:
		b, err := evalBool(c, env, n.l)
		if err != nil {
			return err
		}
		if !b {
			return k()
		}
		return c.enum(n.r, env, k)
	case *letNode:
		return c.enum(n.body, n.frame(env), k)
	case *labelNode:
		return c.enum(n.x, env, k)
	case *callNode:
		if n.d.kind == dkOp && n.d.compiled != nil && (n.d.state || n.d.prime || len(n.args) > 0 || n.hasInst) {
			// Under coverage, a call is expanded as TLC expands it, so that its
			// expressions are counted as TLC counts them.
			if c.initMode || c.probe != nil || c.cov != nil || !c.evaluable(n, env) {
				return c.enumCall(n, env, k)
			}
		}
	case *letCallNode:
		f := env.up(n.depth)
		fr, err := c.bindArgs(n.args, env, true)
		if err != nil {
			return err
		}
		fr.parent, fr.inst = f, f.instFrame()
		if err := c.enter(n.pos); err != nil {
			return err
		}
		defer c.leave()
		return c.enum(n.d.body, fr, k)
	case *letRefNode:
		// A LET definition is passed on lazily in TLC: its body is
		// enumerated where it stands in an action, each way it holds
		// continuing (LET ok == \E q \in Q : P(q) IN ok /\ x' = 1 generates
		// one state per such q).
		if n.d.fn == nil {
			if err := c.enter(n.pos); err != nil {
				return err
			}
			defer c.leave()
			return c.enum(n.d.body, env.up(n.depth), k)
		}
	case *funcDefApp, *letFuncApp, *funcAppNode:
		lit, fenv, arg, name, ok, err := c.lazyApp(n, env)
		if err != nil {
			return err
		}
		if ok {
			// TLC enumerates the body of a function it has not built yet
			// (a function literal, a LET or recursive function definition)
			// applied in an action, as if it were an operator's: each way
			// SafeAt[b] holds through its \E continues.
			f, err := lit.bindArg(c, fenv, arg, n.position(), name)
			if err != nil {
				return err
			}
			if err := c.enter(n.position()); err != nil {
				return err
			}
			defer c.leave()
			return c.enum(lit.body, f, k)
		}
	case *substNode:
		return c.enum(n.d.substNode, env.instFrame(), k)
	case *boundNode:
		// A parameter bound to an action passed by name (W(A) == A):
		// enumerate the action where it was written.
		if f := env.up(n.depth); f.lazy != nil && f.lazy[n.idx] != nil {
			la := f.lazy[n.idx]
			return c.enum(la.n, la.env, k)
		}
	case *actionArgNode:
		return c.enum(n.x, env, k)
	case *paramCallNode:
		// Op(v) for an operator argument Op: its body is enumerated, as
		// TLC expands an operator passed as argument (Apply(Set, 1) with
		// Set(v) == x' = v assigns x').
		return c.enumParamCall(n, env, k)
	case *composeNode:
		return c.enumCompose(n, env, k)
	}
	return c.enumTest(n, env, k)
}

// enumTest evaluates n, which assigns nothing, and continues when it holds.
func (c *ctx) enumTest(n node, env *Env, k func() error) error {
	b, err := evalBool(c, env, n)
	if err != nil {
		if c.unbound {
			// See enabledNode.lenient.
			c.unbound = false
			return k()
		}
		return err
	}
	if b {
		return k()
	}
	return nil
}

// allAssigned reports whether the state being built has all its values.
func (c *ctx) allAssigned() bool {
	for _, v := range c.next {
		if v == nil {
			return false
		}
	}
	return c.next != nil
}

// enumSubstPrimed enumerates x' = e where x is an instance variable
// substituted by an expression (or a definition that stands for one),
// under lenient (see enabledNode.lenient):
// when x' cannot be evaluated (it reads primed variables with no value
// yet), x' takes e's value for the rest of the action, as if assigned.
func (c *ctx) enumSubstPrimed(n *eqNode, d *def, env *Env, k func() error) error {
	r, err := n.r.eval(c, env)
	if err != nil {
		return err
	}
	l, err := n.l.eval(c, env)
	if err == nil {
		eq, err := value.Equal(l, r)
		if err != nil || !eq {
			return located(n.pos, err)
		}
		return k()
	}
	if !c.unbound {
		return err
	}
	c.unbound = false
	if c.substPrimed == nil {
		c.substPrimed = map[*def]value.Value{}
	}
	c.substPrimed[d] = r
	err = k()
	delete(c.substPrimed, d)
	return err
}

// target reports whether n is the variable an (init or next-state)
// assignment would give a value to: x' in an action, x in Init, possibly
// through an instance substitution or a parameter passed by name.
func (c *ctx) target(n node, env *Env) (int, bool) {
	if c.initMode {
		return varOf(n, env)
	}
	n, env = deref(n, env)
	if p, ok := n.(*primeNode); ok {
		idx, ok := varOf(p.x, env)
		if ok {
			// Whether x' is assigned or tested depends on the next state.
			c.touchAll()
		}
		return idx, ok
	}
	return 0, false
}

// deref follows instance substitutions and parameters passed by name.
func deref(n node, env *Env) (node, *Env) {
	for {
		switch x := n.(type) {
		case *substNode:
			n, env = x.d.substNode, env.instFrame()
			continue
		case *boundNode:
			f := env.up(x.depth)
			if f.lazy == nil || f.lazy[x.idx] == nil {
				return n, env
			}
			n, env = f.lazy[x.idx].n, f.lazy[x.idx].env
			continue
		case *actionArgNode:
			n = x.x
			continue
		}
		return n, env
	}
}

// varOf reports whether n denotes a state variable.
func varOf(n node, env *Env) (int, bool) {
	n, _ = deref(n, env)
	if v, ok := n.(*varNode); ok {
		return v.idx, true
	}
	return 0, false
}

// byName reports whether a call argument must be passed by name: a
// variable (the operator may prime it) or an assignable x'.
func (c *ctx) byName(a node, env *Env) bool {
	if isActionArg(a) || lazyParam(a, env) {
		return true // an action argument, or a parameter passed by name
	}
	if _, ok := varOf(a, env); ok {
		return true
	}
	_, ok := c.target(a, env)
	return ok
}

func (c *ctx) enumAnd(items []node, env *Env, k func() error) error {
	if len(items) == 0 {
		return k()
	}
	if p := c.probe; p != nil {
		p.level++
		p.reached(items[0])
		err := c.enum(items[0], env, func() error {
			p.level--
			p.passed++
			defer func() { p.passed--; p.level++ }()
			return c.enumAnd(items[1:], env, k)
		})
		p.level--
		return err
	}
	return c.enum(items[0], env, func() error { return c.enumAnd(items[1:], env, k) })
}

func (c *ctx) enumOr(n *orNode, env *Env, k func() error) error {
	for _, it := range n.items {
		if err := c.enum(it, env, k); err != nil {
			return err
		}
	}
	return nil
}

// enumBranch enumerates, under a probe, the branch of an IF or a CASE
// that applies: the branch is reached one level below the IF, since what
// keeps an action from being enabled is inside it, not the IF as a whole.
func (c *ctx) enumBranch(n node, env *Env, k func() error) error {
	p := c.probe
	p.level++
	p.reached(n)
	err := c.enum(n, env, func() error {
		p.level--
		defer func() { p.level++ }()
		return k()
	})
	p.level--
	return err
}

// enumAlternatives runs enum, the enumeration of a disjunction or an \E,
// with continuation k, under a probe: a conjunct of one alternative is
// not taken for the false one of the whole until a conjunct of it held;
// before that, the disjunction as a whole is what is false.
func (c *ctx) enumAlternatives(k func() error, enum func(k func() error) error) error {
	p := c.probe
	p.alts = append(p.alts, p.passed)
	err := enum(func() error {
		top := p.alts[len(p.alts)-1]
		p.alts = p.alts[:len(p.alts)-1]
		defer func() { p.alts = append(p.alts, top) }()
		return k()
	})
	p.alts = p.alts[:len(p.alts)-1]
	return err
}

func chain(items []func(k func() error) error, k func() error) error {
	if len(items) == 0 {
		return k()
	}
	return items[0](func() error { return chain(items[1:], k) })
}

// enumUnchangedExpr enumerates UNCHANGED x under lenient (see
// enabledNode.lenient), x made of variables and instance variables that
// stand for expressions, as TLC's enabledUnchanged: a tuple is taken
// element by element and a definition by its body; a variable with no
// value yet keeps its value; so does an instance variable substituted by
// an expression: its primed value is its current one for the rest of the
// action (UNCHANGED vars of a refinement mapping in WF_vars(A) makes vars'
// = vars, so <<A>>_vars does not hold). Anything else is x' = x.
func (c *ctx) enumUnchangedExpr(x node, env *Env, k func() error) error {
	c.touchAll()
	switch y := x.(type) {
	case *tupleNode:
		items := make([]func(k func() error) error, len(y.elems))
		for i, e := range y.elems {
			items[i] = func(k func() error) error { return c.enumUnchangedExpr(e, env, k) }
		}
		return chain(items, k)
	case *substNode:
		return c.keepSubst(y.d, x, env, k)
	case *callNode:
		if len(y.args) == 0 && !y.hasInst && y.site == 0 {
			if y.d.kind == dkOp && y.d.compiled != nil && !y.d.sc.paramInst && !y.d.recursive {
				if unchangedShape(y.d.compiled) {
					return c.enumUnchangedExpr(y.d.compiled, nil, k)
				}
				// A definition that stands for an expression of the
				// state (pcBar in pc <- pcBar) keeps its value, as an
				// instance variable substituted by that expression.
				return c.keepSubst(y.d, x, env, k)
			}
			if y.d.kind != dkOp {
				return c.keepSubst(y.d, x, env, k)
			}
		}
	}
	if idx, ok := varOf(x, env); ok {
		return c.enumUnchanged([]int{idx}, 0, k)
	}
	// Evaluated, not enumerated: enum would bring an UNCHANGED of an
	// expression back here under lenient.
	return c.enumTest(&unchangedNode{at: at{x.position()}, x: x}, env, k)
}

// unchangedShape reports whether enumUnchangedExpr takes x apart: a tuple,
// a variable, an instance variable or a definition.
func unchangedShape(x node) bool {
	switch x.(type) {
	case *tupleNode, *varNode, *substNode, *callNode:
		return true
	}
	return false
}

// keepSubst gives the instance variable d (the node x) its current value
// as its primed value, or tests that the value it was given is that.
func (c *ctx) keepSubst(d *def, x node, env *Env, k func() error) error {
	cur, err := x.eval(c, env)
	if err != nil {
		return err
	}
	if v, bound := c.substPrimed[d]; bound {
		eq, err := value.Equal(v, cur)
		if err != nil || !eq {
			return err
		}
		return k()
	}
	if c.substPrimed == nil {
		c.substPrimed = map[*def]value.Value{}
	}
	c.substPrimed[d] = cur
	err = k()
	delete(c.substPrimed, d)
	return err
}

func (c *ctx) enumUnchanged(vars []int, i int, k func() error) error {
	c.touchAll()
	if i == len(vars) {
		return k()
	}
	idx := vars[i]
	if c.next[idx] == nil {
		c.next[idx] = c.cur[idx]
		err := c.enumUnchanged(vars, i+1, k)
		c.next[idx] = nil
		return err
	}
	eq, err := value.Equal(c.next[idx], c.cur[idx])
	if err != nil {
		return err
	}
	if !eq {
		return nil
	}
	return c.enumUnchanged(vars, i+1, k)
}

// enumCall expands a call of an action operator.
func (c *ctx) enumCall(n *callNode, env *Env, k func() error) error {
	fr, err := c.bindArgs(n.args, env, true)
	if err != nil {
		return err
	}
	if fr.inst, err = n.instFrame(c, env); err != nil {
		return err
	}
	if len(n.args) == 0 && fr.inst == nil {
		fr = nil
	}
	if err := c.enter(n.pos); err != nil {
		return err
	}
	defer c.leave()
	if p := c.probe; p != nil && n.d.prime {
		f := p.push(n.d, fr)
		defer p.pop(f)
	}
	if err, ok := c.enumBody(n.d, fr, k); ok {
		return err
	}
	return c.enum(n.d.compiled, fr, k)
}

// composeNode is A \cdot B, action composition: a step of A to some
// intermediate state, then a step of B from it.
type composeNode struct {
	at
	l, r node
}

func (n *composeNode) eval(c *ctx, env *Env) (value.Value, error) {
	return nil, errorf(n.pos, "action composition (\\cdot) can only be used in the next-state relation")
}

func (c *ctx) enumCompose(n *composeNode, env *Env, k func() error) error {
	if c.initMode {
		return errorf(n.pos, "action composition (\\cdot) in the initial predicate")
	}
	c.touchAll()
	outer, cur := c.next, c.cur
	defer func() { c.next, c.cur = outer, cur }()
	mid := make([]value.Value, len(outer))
	c.next = mid
	return c.enum(n.l, env, func() error {
		for i, v := range mid {
			if v == nil {
				return &IncompleteError{Var: c.m.Vars[i]}
			}
		}
		// TLC counts each intermediate state as generated too.
		c.composed++
		state := append([]value.Value(nil), mid...)
		last := append([]value.Value(nil), outer...)
		c.cur, c.next = state, last
		err := c.enum(n.r, env, func() error {
			// Variables B leaves alone keep their intermediate value.
			var filled []int
			for i := range outer {
				if outer[i] == nil {
					v := last[i]
					if v == nil {
						v = state[i]
					}
					outer[i] = v
					filled = append(filled, i)
				}
			}
			c.cur, c.next = cur, outer
			err := k()
			for _, i := range filled {
				outer[i] = nil
			}
			c.cur, c.next = state, last
			return err
		})
		c.cur, c.next = cur, mid
		return err
	})
}

// evaluable reports whether enumerating call n is evaluating it: its
// operator mentions no primed variable, no argument is one passed by name
// to be assigned, and its body (through the calls enumeration expands)
// has no disjunction or \E, so it continues at most once, when it is
// true. LoglineIsEvent(e) == l <= Len(TraceLog) /\ logline.event.name = e
// is then evaluated (as TLC evaluates it) without the continuations of
// enumeration, which cost an allocation per conjunct.
func (c *ctx) evaluable(n *callNode, env *Env) bool {
	if n.d.prime || !n.d.linear() {
		return false
	}
	for _, a := range n.args {
		if isActionArg(a) || lazyParam(a, env) {
			return false
		}
		if _, ok := c.target(a, env); ok {
			return false
		}
	}
	return true
}

// linear reports whether enumerating d's body continues at most once (see
// evaluable); it is computed once.
func (d *def) linear() bool {
	switch d.linearity.Load() {
	case 1:
		return true
	case 2:
		return false
	}
	ok := enumLinear(d.compiled, map[*def]bool{d: true})
	if ok {
		d.linearity.Store(1)
	} else {
		d.linearity.Store(2)
	}
	return ok
}

// enumLinear reports whether enumerating n continues at most once:
// whether n has no disjunction or \E where enumeration reaches. A
// definition already being walked (recursion) counts as branching.
func enumLinear(n node, walking map[*def]bool) bool {
	switch n := n.(type) {
	case *andNode:
		for _, it := range n.items {
			if !enumLinear(it, walking) {
				return false
			}
		}
		return true
	case *orNode, *composeNode:
		return false
	case *quantNode:
		return n.forall && enumLinear(n.body, walking)
	case *ifNode:
		return enumLinear(n.then, walking) && enumLinear(n.els, walking)
	case *caseNode:
		for _, b := range n.bodies {
			if !enumLinear(b, walking) {
				return false
			}
		}
		return n.other == nil || enumLinear(n.other, walking)
	case *impliesNode:
		return enumLinear(n.r, walking)
	case *letNode:
		return enumLinear(n.body, walking)
	case *labelNode:
		return enumLinear(n.x, walking)
	case *callNode:
		if n.d.kind != dkOp {
			return true
		}
		if n.d.compiled == nil || walking[n.d] {
			return false
		}
		walking[n.d] = true
		ok := enumLinear(n.d.compiled, walking)
		delete(walking, n.d)
		return ok
	case *letCallNode, *letRefNode, *substNode, *letFuncApp, *funcDefApp, *paramCallNode, *actionArgNode:
		// Enumerated through bodies this walk does not follow.
		return false
	case *funcAppNode:
		switch n.f.(type) {
		case *funcLitNode, *letRefNode:
			return false // see lazyApp
		}
	}
	return true
}

// lazyApp reports whether the function application n applies a function
// that TLC keeps unbuilt (a FcnLambdaValue without its table) when it
// evaluates an action: a function literal written in place, a LET
// function definition or a LET definition equal to a function literal, a
// recursive function definition, and a definition of a function whose
// value depends on the state or whose domain is not a set TLC enumerates
// eagerly (an interval or a set of listed elements). TLC evaluates the
// constant ones once, building the table, and then merely applies them.
// It returns the literal, the frame its body lives in and the argument.
func (c *ctx) lazyApp(n node, env *Env) (lit *funcLitNode, fenv *Env, arg value.Value, name string, ok bool, err error) {
	var argNode node
	switch n := n.(type) {
	case *funcDefApp:
		if !n.d.recursive && !n.d.state && !n.d.sc.paramInst && c.eagerDomains(n.d) {
			return nil, nil, nil, "", false, nil
		}
		lit, fenv, argNode, name = n.d.compiled.(*funcDefNode).lit, nil, n.arg, n.d.name
	case *letFuncApp:
		lit, fenv, argNode, name = n.d.fn, env.up(n.depth), n.arg, n.d.name
	case *funcAppNode:
		switch f := n.f.(type) {
		case *funcLitNode:
			lit, fenv, name = f, env, "the function"
		case *letRefNode:
			l, isLit := f.d.body.(*funcLitNode)
			if f.d.fn != nil || !isLit {
				return nil, nil, nil, "", false, nil
			}
			lit, fenv, name = l, env.up(f.depth), f.d.name
		default:
			return nil, nil, nil, "", false, nil
		}
		argNode = n.arg
	default:
		return nil, nil, nil, "", false, nil
	}
	arg, err = argNode.eval(c, env)
	if err != nil {
		return nil, nil, nil, "", false, err
	}
	return lit, fenv, arg, name, true, nil
}

// eagerDomains reports whether TLC builds the constant function definition
// d when it evaluates it: when every domain is an interval or a set of
// listed elements (TLC's Reducible sets), not a SUBSET, a set of
// functions, a product, a set built by a filter or set operators, or an
// infinite set.
func (c *ctx) eagerDomains(d *def) bool {
	lit := d.compiled.(*funcDefNode).lit
	for _, s := range lit.b.sets {
		switch s := s.(type) {
		case *setFilterNode, *productNode, *recordNode:
			return false
		case *arithNode:
			if s.op != ".." {
				return false // \cup, \cap, \, ->: TLC's lazy set values
			}
		}
		v, err := s.eval(c, nil)
		if err != nil {
			return false
		}
		switch v.(type) {
		case *value.Set, *value.Interval:
		default:
			return false
		}
	}
	return true
}

func isActionArg(n node) bool {
	_, ok := n.(*actionArgNode)
	return ok
}

// lazyParam reports whether n is a parameter bound to an argument passed
// by name: passed on, it is passed by name again (V(A) == W(A)).
func lazyParam(n node, env *Env) bool {
	b, ok := n.(*boundNode)
	if !ok {
		return false
	}
	f := env.up(b.depth)
	return f.lazy != nil && f.lazy[b.idx] != nil
}

// enumParamCall enumerates a call of an operator parameter.
func (c *ctx) enumParamCall(n *paramCallNode, env *Env, k func() error) error {
	f := env.up(n.depth)
	if f == nil || n.idx >= len(f.ops) || f.ops[n.idx] == nil {
		return errorf(n.pos, "operator parameter %s has no operator", n.name)
	}
	cl := f.ops[n.idx]
	if cl.builtin != nil || cl.def != nil && cl.def.kind != dkOp {
		return c.enumBool(n, env, k)
	}
	fr, err := c.bindArgs(n.args, env, true)
	if err != nil {
		return err
	}
	if len(fr.vals) != cl.arity {
		return errorf(cl.pos, "operator %s takes %d arguments, got %d", cl.name, cl.arity, len(fr.vals))
	}
	if err := c.enter(n.pos); err != nil {
		return err
	}
	defer c.leave()
	if cl.def != nil {
		if cl.def.compiled == nil {
			return errorf(n.pos, "%s is used before its definition was compiled", cl.def.name)
		}
		fr.inst = cl.inst
		return c.enum(cl.def.compiled, fr, k)
	}
	fr.parent, fr.inst = cl.env, cl.env.instFrame()
	return c.enum(cl.body, fr, k)
}

// enumBool continues with k when n holds.
func (c *ctx) enumBool(n node, env *Env, k func() error) error {
	b, err := evalBool(c, env, n)
	if err != nil || !b {
		return err
	}
	return k()
}
