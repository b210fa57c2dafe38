package eval

import (
	"math/bits"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// Compiled enumeration of actions (and initial predicates): what
// ctx.enum does, compiled over the same frames as expressions (cexpr.go).
//
// A conjunction runs its items in order. An item that continues at most
// once and needs no continuation (a guard, x' = e, x' \in S of one
// element is not one of them, UNCHANGED, a conjunction or IF of such
// items) is a step: it runs, records the variables it assigned on an undo
// list, and the conjunction goes on; the assignments are undone once the
// conjunction's continuation has returned. Any other item (a disjunction,
// \E, x' \in S, a call that branches) is enumerated with the rest of the
// conjunction as its continuation. The rule of TLC that once every
// variable has its value what remains is evaluated, not enumerated, is
// applied where the interpreter applies it: on entering each item.
//
// An action is compiled twice, for the initial predicate (x = e assigns
// x, nothing is pruned, every call is expanded) and for steps. The
// compiled enumeration is used where the interpreter's enumeration has
// nothing of its own to do: not while probing why an action is disabled,
// not under ENABLED's lenient rule, not with arguments passed by name.

// kont is a continuation: the rest of a conjunction in its frame, or the
// interpreter's continuation.
type kont struct {
	run  cenum
	s    []slot
	next *kont
	top  func() error
}

func (k *kont) call(c *ctx) error {
	if k.run != nil {
		return k.run(c, k.s, k.next)
	}
	return k.top()
}

// cenum is a compiled enumeration: it calls k for each way it holds from
// the current state, with c.next filled in as far as it determines it.
type cenum func(c *ctx, s []slot, k *kont) error

// cstep is a compiled item that continues at most once: it reports
// whether it holds, having recorded on c.undo the variables it assigned.
type cstep func(c *ctx, s []slot) (bool, error)

// cefunc is a compiled action: its enumeration and frame size.
type cefunc struct {
	nslots  int
	nparams int
	body    cenum
}

// enumOf returns d's compiled enumeration, compiling it on first use, or
// nil.
func (c *ctx) enumOf(d *def) *cefunc {
	if c.interp || c.maxSteps > 0 || c.probe != nil || c.lenient || d.kind != dkOp {
		return nil
	}
	if c.initMode {
		d.ceInitOnce.Do(func() { d.ceInit = c.m.compileEnumDef(d, true) })
		return d.ceInit
	}
	d.ceOnce.Do(func() { d.ce = c.m.compileEnumDef(d, false) })
	return d.ce
}

// compileEnumDef compiles the enumeration of d's body, for the initial
// predicate (init) or for a step.
func (m *Model) compileEnumDef(d *def, init bool) *cefunc {
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
	cc := &ccomp{m: m, init: init}
	var l *clevel
	if len(d.params) > 0 {
		l = &clevel{base: cc.alloc(len(d.params)), n: len(d.params)}
	}
	before := cc.compiled
	body := cc.enum(d.compiled, l)
	if cc.compiled == before {
		return nil
	}
	return &cefunc{nslots: cc.n, nparams: len(d.params), body: body}
}

// enumBody enumerates the body of action d in env with the compiled
// enumeration when there is one and env is a frame of plain values; ok is
// false when the interpreter must do it.
func (c *ctx) enumBody(d *def, env *Env, k func() error) (err error, ok bool) {
	switch {
	case env == nil:
		return c.enumBodyArgs(d, nil, nil, k)
	case env.lazy == nil && env.ops == nil && env.inst == nil && env.lets == nil && env.parent == nil:
		return c.enumBodyArgs(d, env.vals, env.taint, k)
	}
	return nil, false
}

// enumBodyArgs is enumBody with the parameters' values (and their watch
// bits, when not nil).
func (c *ctx) enumBodyArgs(d *def, vals []value.Value, taint []uint64, k func() error) (err error, ok bool) {
	ce := c.enumOf(d)
	if ce == nil || len(vals) != ce.nparams {
		return nil, false
	}
	s, mk := c.stk.push(ce.nslots)
	for i, v := range vals {
		s[i].v = v
	}
	for i, t := range taint {
		s[i].t = t
	}
	err = ce.body(c, s, &kont{top: k})
	c.stk.pop(mk, s)
	return err, true
}

// undoTo unassigns the variables assigned since the undo list had length
// mark.
func (c *ctx) undoTo(mark int) {
	for _, i := range c.undo[mark:] {
		c.next[i] = nil
	}
	c.undo = c.undo[:mark]
}

// assign gives x' (x in Init) the value v, to be undone.
func (c *ctx) assign(idx int, v value.Value) {
	c.next[idx] = v
	c.undo = append(c.undo, idx)
}

// enumIsland leaves the enumeration of n to the interpreter.
func (cc *ccomp) enumIsland(n node, l *clevel) cenum {
	cc.islands++
	cc.m.noteIsland(n)
	return func(c *ctx, s []slot, k *kont) error {
		return c.enum(n, materialize(l, s), func() error { return k.call(c) })
	}
}

// enum compiles the enumeration of n at level l.
func (cc *ccomp) enum(n node, l *clevel) cenum {
	if st := cc.step(n, l); st != nil {
		return func(c *ctx, s []slot, k *kont) error {
			mark := len(c.undo)
			ok, err := st(c, s)
			if err == nil && ok {
				err = k.call(c)
			}
			c.undoTo(mark)
			return err
		}
	}
	e := cc.enumNode(n, l)
	if e == nil {
		return cc.enumIsland(n, l)
	}
	cc.compiled++
	if _, ok := n.(*composeNode); ok {
		return e
	}
	// TLC's rule: with every variable assigned, n is evaluated.
	x := cc.expr(n, l)
	return func(c *ctx, s []slot, k *kont) error {
		if c.allAssigned() {
			b, err := cbool(c, s, x, n)
			if err != nil || !b {
				return err
			}
			return k.call(c)
		}
		return e(c, s, k)
	}
}

func (cc *ccomp) enumNode(n node, l *clevel) cenum {
	switch n := n.(type) {
	case *andNode:
		return cc.conj(n.items, l)
	case *orNode:
		items := make([]cenum, len(n.items))
		for i, it := range n.items {
			items[i] = cc.enum(it, l)
		}
		return func(c *ctx, s []slot, k *kont) error {
			for _, it := range items {
				if err := it(c, s, k); err != nil {
					return err
				}
			}
			return nil
		}
	case *inNode:
		if e := cc.enumIn(n, l); e != nil {
			return e
		}
	case *quantNode:
		if n.forall {
			return nil
		}
		return cc.enumExists(n, l)
	case *ifNode:
		cond, th, el := cc.expr(n.cond, l), cc.enum(n.then, l), cc.enum(n.els, l)
		return func(c *ctx, s []slot, k *kont) error {
			b, err := cbool(c, s, cond, n.cond)
			if err != nil {
				return err
			}
			if b {
				return th(c, s, k)
			}
			return el(c, s, k)
		}
	case *caseNode:
		conds := cc.exprs(n.conds, l)
		bodies := make([]cenum, len(n.bodies))
		for i, b := range n.bodies {
			bodies[i] = cc.enum(b, l)
		}
		var other cenum
		if n.other != nil {
			other = cc.enum(n.other, l)
		}
		return func(c *ctx, s []slot, k *kont) error {
			for i, cond := range conds {
				b, err := cbool(c, s, cond, n.conds[i])
				if err != nil {
					return err
				}
				if b {
					return bodies[i](c, s, k)
				}
			}
			if other != nil {
				return other(c, s, k)
			}
			return c.enum(n, materialize(l, s), func() error { return k.call(c) })
		}
	case *impliesNode:
		cond, r := cc.expr(n.l, l), cc.enum(n.r, l)
		return func(c *ctx, s []slot, k *kont) error {
			b, err := cbool(c, s, cond, n.l)
			if err != nil {
				return err
			}
			if !b {
				return k.call(c)
			}
			return r(c, s, k)
		}
	case *letNode:
		f := &clevel{parent: l, base: cc.alloc(len(n.defs)), n: len(n.defs), lets: n.defs}
		body := cc.enum(n.body, f)
		lo, hi := f.base, f.base+f.n
		return func(c *ctx, s []slot, k *kont) error {
			clear(s[lo:hi])
			return body(c, s, k)
		}
	case *labelNode:
		return cc.enum(n.x, l)
	case *actionArgNode:
		return cc.enum(n.x, l)
	case *callNode:
		return cc.enumCall(n, l)
	case *letCallNode:
		return cc.enumLetCall(n, l)
	case *letRefNode:
		f := l.up(n.depth)
		if n.d.fn != nil || f == nil || f.lets == nil || n.d.arity > 0 {
			return nil
		}
		body := cc.enum(n.d.body, f)
		return func(c *ctx, s []slot, k *kont) error {
			if err := c.enter(n.pos); err != nil {
				return err
			}
			err := body(c, s, k)
			c.leave()
			return err
		}
	case *eqNode, *unchangedNode:
		return nil // handled as steps, or by the interpreter
	case *funcAppNode:
		if lazyFunc(n) {
			return nil
		}
	case *funcDefApp, *letFuncApp, *substNode, *paramCallNode, *composeNode:
		return nil
	}
	// Anything else holds or not.
	x := cc.expr(n, l)
	return func(c *ctx, s []slot, k *kont) error {
		b, err := cbool(c, s, x, n)
		if err != nil || !b {
			return err
		}
		return k.call(c)
	}
}

// conj compiles a conjunction.
func (cc *ccomp) conj(items []node, l *clevel) cenum {
	type citem struct {
		step cstep
		enum cenum
	}
	its := make([]citem, len(items))
	for i, it := range items {
		if st := cc.step(it, l); st != nil {
			its[i].step = st
		} else {
			its[i].enum = cc.enum(it, l)
		}
	}
	// rest[i] enumerates items[i:].
	rest := make([]cenum, len(items)+1)
	for i := len(items); i >= 0; i-- {
		from := i
		rest[i] = func(c *ctx, s []slot, k *kont) error {
			mark := len(c.undo)
			for j := from; j < len(its); j++ {
				it := its[j]
				if it.step == nil {
					err := it.enum(c, s, &kont{run: rest[j+1], s: s, next: k})
					c.undoTo(mark)
					return err
				}
				ok, err := it.step(c, s)
				if err != nil || !ok {
					c.undoTo(mark)
					return err
				}
			}
			err := k.call(c)
			c.undoTo(mark)
			return err
		}
	}
	return rest[0]
}

// stepTarget resolves the variable x of an assignment to n = x' (in
// Init, n = x; -1: none), through the substitutions and action arguments
// the interpreter's target follows.
func (cc *ccomp) stepTarget(n node) int {
	n = stripArgs(n)
	if cc.init {
		if v, ok := n.(*varNode); ok {
			return v.idx
		}
		return -1
	}
	p, ok := n.(*primeNode)
	if !ok {
		return -1
	}
	if v, ok := stripArgs(p.x).(*varNode); ok {
		return v.idx
	}
	return -1
}

func stripArgs(n node) node {
	for {
		switch x := n.(type) {
		case *actionArgNode:
			n = x.x
			continue
		case *substNode:
			if x.d.substLex != nil || x.d.substNode == nil {
				return n
			}
			n = x.d.substNode
			continue
		}
		return n
	}
}

// step compiles n as a step, or returns nil when n may continue more
// than once or needs the interpreter's enumeration.
func (cc *ccomp) step(n node, l *clevel) cstep {
	switch n := n.(type) {
	case *eqNode:
		if n.neq {
			return cc.guardStep(n, l)
		}
		prime := cc.stepTarget(n.l)
		if prime < 0 {
			return cc.guardStep(n, l)
		}
		if _, ok := n.l.(*substNode); ok {
			return nil
		}
		r := cc.expr(n.r, l)
		x := cc.expr(n, l)
		init := cc.init
		cc.compiled++
		return func(c *ctx, s []slot) (bool, error) {
			if c.allAssigned() {
				return cbool(c, s, x, n)
			}
			idx := prime
			if !init {
				c.touchAll()
			}
			if c.next[idx] != nil {
				return cbool(c, s, x, n)
			}
			v, err := r(c, s)
			if err != nil {
				return false, err
			}
			if _, ok := v.(*value.FilterSet); ok {
				// The interpreter's error.
				return false, c.enum(n, materialize(l, s), func() error { return nil })
			}
			c.assign(idx, v)
			return true, nil
		}
	case *unchangedNode:
		x := cc.expr(n, l)
		if n.x != nil || cc.init {
			return cc.guardStep(n, l)
		}
		vars := n.vars
		cc.compiled++
		return func(c *ctx, s []slot) (bool, error) {
			if c.allAssigned() {
				return cbool(c, s, x, n)
			}
			c.touchAll()
			for _, i := range vars {
				if c.next[i] == nil {
					c.assign(i, c.cur[i])
					continue
				}
				eq, err := value.Equal(c.next[i], c.cur[i])
				if err != nil || !eq {
					return false, err
				}
			}
			return true, nil
		}
	case *andNode:
		steps := make([]cstep, len(n.items))
		for i, it := range n.items {
			if steps[i] = cc.step(it, l); steps[i] == nil {
				return nil
			}
		}
		x := cc.expr(n, l)
		cc.compiled++
		return func(c *ctx, s []slot) (bool, error) {
			if c.allAssigned() {
				return cbool(c, s, x, n)
			}
			for _, st := range steps {
				ok, err := st(c, s)
				if err != nil || !ok {
					return false, err
				}
			}
			return true, nil
		}
	case *ifNode:
		th, el := cc.step(n.then, l), cc.step(n.els, l)
		if th == nil || el == nil {
			return nil
		}
		cond := cc.expr(n.cond, l)
		x := cc.expr(n, l)
		cc.compiled++
		return func(c *ctx, s []slot) (bool, error) {
			if c.allAssigned() {
				return cbool(c, s, x, n)
			}
			b, err := cbool(c, s, cond, n.cond)
			if err != nil {
				return false, err
			}
			if b {
				return th(c, s)
			}
			return el(c, s)
		}
	case *labelNode:
		return cc.step(n.x, l)
	case *callNode:
		d := n.d
		if d.kind == dkOp && d.compiled != nil && (d.state || d.prime || len(n.args) > 0 || n.hasInst) && (cc.init || !cc.evaluableCall(n)) {
			return nil
		}
		return cc.guardStep(n, l)
	case *inNode:
		if !n.notIn && cc.stepTarget(n.x) >= 0 {
			return nil
		}
		return cc.guardStep(n, l)
	case *funcAppNode:
		if lazyFunc(n) {
			return nil
		}
	case *orNode, *quantNode, *letNode, *letCallNode, *letRefNode, *caseNode, *impliesNode,
		*funcDefApp, *letFuncApp, *substNode, *paramCallNode, *composeNode, *actionArgNode:
		return nil
	}
	return cc.guardStep(n, l)
}

// lazyFunc reports whether the interpreter enumerates the body of the
// function n applies (see ctx.lazyApp).
func lazyFunc(n *funcAppNode) bool {
	switch f := n.f.(type) {
	case *funcLitNode:
		return true
	case *letRefNode:
		_, isLit := f.d.body.(*funcLitNode)
		return f.d.fn == nil && isLit
	}
	return false
}

// guardStep is a step that only holds or not.
func (cc *ccomp) guardStep(n node, l *clevel) cstep {
	x := cc.expr(n, l)
	return func(c *ctx, s []slot) (bool, error) { return cbool(c, s, x, n) }
}

// evaluableCall reports whether enumerating call n, outside Init, is
// evaluating it (see ctx.evaluable and the callNode case of ctx.enum).
func (cc *ccomp) evaluableCall(n *callNode) bool {
	d := n.d
	if d.kind != dkOp || d.compiled == nil || !(d.state || d.prime || len(n.args) > 0 || n.hasInst) {
		return true // enum evaluates it
	}
	if n.hasInst || n.site > 0 || d.sc.paramInst || d.prime || !d.linear() {
		return false
	}
	for _, a := range n.args {
		if byNameArg(a) {
			return false
		}
	}
	return true
}

func (cc *ccomp) enumIn(n *inNode, l *clevel) cenum {
	prime := cc.stepTarget(n.x)
	if n.notIn || prime < 0 {
		return nil
	}
	init := cc.init
	if _, ok := n.x.(*substNode); ok {
		return nil
	}
	set := cc.expr(n.s, l)
	x := cc.expr(n, l)
	return func(c *ctx, s []slot, k *kont) error {
		idx := prime
		if !init {
			c.touchAll()
		}
		if c.next[idx] != nil {
			b, err := cbool(c, s, x, n)
			if err != nil || !b {
				return err
			}
			return k.call(c)
		}
		sv, err := set(c, s)
		if err != nil {
			return err
		}
		elems, err := value.Enumerate(sv)
		if err != nil {
			return located(n.pos, err)
		}
		for _, e := range elems {
			c.next[idx] = e
			if err := k.call(c); err != nil {
				c.next[idx] = nil
				return err
			}
		}
		c.next[idx] = nil
		return nil
	}
}

func (cc *ccomp) enumCall(n *callNode, l *clevel) cenum {
	d := n.d
	if !(d.kind == dkOp && d.compiled != nil && (d.state || d.prime || len(n.args) > 0 || n.hasInst)) {
		return nil // the default: evaluated
	}
	if n.hasInst || n.site > 0 || d.sc.paramInst {
		return nil
	}
	for i, a := range n.args {
		if _, ok := a.(*closureNode); ok || i < len(d.params) && d.params[i].Arity > 0 {
			return nil
		}
		if byNameArg(a) {
			return nil
		}
	}
	evaluable := !cc.init && cc.evaluableCall(n)
	x := cc.expr(n, l)
	args := cc.exprs(n.args, l)
	return func(c *ctx, s []slot, k *kont) error {
		if evaluable {
			b, err := cbool(c, s, x, n)
			if err != nil || !b {
				return err
			}
			return k.call(c)
		}
		ce := c.enumOf(d)
		if ce == nil {
			return c.enum(n, materialize(l, s), func() error { return k.call(c) })
		}
		cs, mk := c.stk.push(ce.nslots)
		for i, a := range args {
			sl, err := evalArg(c, s, a)
			if err != nil {
				c.stk.pop(mk, cs)
				return err
			}
			cs[i] = sl
		}
		err := c.enter(n.pos)
		if err == nil {
			err = ce.body(c, cs, k)
			c.leave()
		}
		c.stk.pop(mk, cs)
		return err
	}
}

func (cc *ccomp) enumLetCall(n *letCallNode, l *clevel) cenum {
	f := l.up(n.depth)
	d := n.d
	if f == nil || f.lets == nil || cc.inlining[d] || len(cc.inlining) > 16 {
		return nil
	}
	for i, a := range n.args {
		if _, ok := a.(*closureNode); ok || i < len(d.params) && d.params[i].Arity > 0 {
			return nil
		}
		if byNameArg(a) {
			return nil
		}
	}
	args := cc.exprs(n.args, l)
	p := &clevel{parent: f, base: cc.alloc(len(n.args)), n: len(n.args)}
	if cc.inlining == nil {
		cc.inlining = map[*letDef]bool{}
	}
	cc.inlining[d] = true
	body := cc.enum(d.body, p)
	delete(cc.inlining, d)
	base := p.base
	return func(c *ctx, s []slot, k *kont) error {
		var buf [4]slot
		tmp := buf[:0]
		if len(args) > len(buf) {
			tmp = make([]slot, 0, len(args))
		}
		for _, a := range args {
			sl, err := evalArg(c, s, a)
			if err != nil {
				return err
			}
			tmp = append(tmp, sl)
		}
		copy(s[base:], tmp)
		if err := c.enter(n.pos); err != nil {
			return err
		}
		err := body(c, s, k)
		c.leave()
		return err
	}
}

// enumExists enumerates \E with the pruning of ctx.enumExists (prune.go).
func (cc *ccomp) enumExists(n *quantNode, l *clevel) cenum {
	cb := cc.binder(n.b, l)
	body := cc.enum(n.body, cb.lvl)
	width := n.b.width
	init := cc.init
	return func(c *ctx, s []slot, k *kont) error {
		if init || c.watches+width > maxWatches {
			return cb.eachAt(c, s, n, l, func([]int) (bool, error) {
				return true, body(c, s, k)
			})
		}
		base := c.watches
		below := uint64(1)<<base - 1
		own := (uint64(1)<<width - 1) << base
		c.watches += width
		outer := c.touched
		c.touched = 0
		var seen uint64
		var dead [][]bool
		succeeded := false
		kk := &kont{top: func() error {
			succeeded = true
			return k.call(c)
		}}
		err := cb.eachAt(c, s, n, l, func(at []int) (bool, error) {
			seen |= c.touched // the sets, on the first binding
			c.touched = 0
			for slot, d := range dead {
				if d != nil && at[slot] < len(d) && d[at[slot]] {
					return true, nil
				}
			}
			for i := 0; i < width; i++ {
				s[cb.base+i].t = uint64(1) << (base + i)
			}
			succeeded = false
			err := body(c, s, kk)
			read := c.touched
			seen |= read
			if err != nil || succeeded {
				return err == nil, err
			}
			read &= own
			if read == 0 {
				return false, nil
			}
			if read&(read-1) == 0 && width > 1 {
				slot := bits.TrailingZeros64(read) - base
				if dead == nil {
					dead = make([][]bool, width)
				}
				if len(dead[slot]) <= at[slot] {
					dead[slot] = append(dead[slot], make([]bool, at[slot]+1-len(dead[slot]))...)
				}
				dead[slot][at[slot]] = true
			}
			return true, nil
		})
		seen |= c.touched
		c.watches = base
		c.touched = outer | seen&below
		return err
	}
}
