package eval

import (
	"github.com/modelfuzz/modelfuzz/tlc/stdlib"
	"github.com/modelfuzz/modelfuzz/tlc/syntax"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// lex is a compile-time frame, mirroring the run-time Env the expression
// will see: the names one binder introduces.
type lex struct {
	names   []string
	arities []int     // > 0: an operator parameter
	lets    []*letDef // a LET frame: its definitions, by the same index as names
	parent  *lex
	// escaped, while a LET definition of this frame is compiled, records
	// whether its body uses a name of this frame or of one around it (see
	// letDef.constant).
	escaped *bool
}

func (l *lex) resolve(name string) (depth, idx int, fr *lex) {
	var guards []*bool
	for f := l; f != nil; f = f.parent {
		if f.escaped != nil {
			guards = append(guards, f.escaped)
		}
		for i := len(f.names) - 1; i >= 0; i-- {
			if f.names[i] == name {
				for _, g := range guards {
					*g = true
				}
				return depth, i, f
			}
		}
		depth++
	}
	return 0, 0, nil
}

// compiler compiles expressions of one scope. state and prime collect
// what the definition being compiled depends on.
type compiler struct {
	m     *Model
	sc    *scope
	state bool
	prime bool
	// letScoped is true while c.sc is a LET's own scope (see let).
	letScoped bool
}

func (m *Model) compileIn(sc *scope, e syntax.Expr, lx *lex) (node, bool, bool, error) {
	c := &compiler{m: m, sc: sc}
	n, err := c.expr(e, lx)
	return n, c.state, c.prime, err
}

// maxCompileDepth bounds the nesting of definitions being compiled: a
// subexpression reference into its own definition (A == \/ A!1) would
// otherwise create new definitions without end.
const maxCompileDepth = 2000

// ensure compiles definition d if needed.
func (m *Model) ensure(d *def) error {
	if d.compiled != nil || d.kind == dkSubst && d.substNode != nil {
		return nil
	}
	if d.compiling {
		// Every definition on the cycle back to d is recursive: none of
		// them may be cached as a constant (its evaluation would need its
		// own value).
		for i := len(m.compileStack) - 1; i >= 0; i-- {
			m.compileStack[i].recursive = true
			if m.compileStack[i] == d {
				break
			}
		}
		d.recursive = true
		return nil
	}
	if len(m.compileStack) >= maxCompileDepth {
		return errorf(d.pos, "definitions nest more than %d deep while compiling %s (a subexpression reference to itself?)", maxCompileDepth, d.name)
	}
	m.compileStack = append(m.compileStack, d)
	defer func() { m.compileStack = m.compileStack[:len(m.compileStack)-1] }()
	switch d.kind {
	case dkOp:
		d.compiling = true
		lx := &lex{}
		for _, p := range d.params {
			lx.names = append(lx.names, p.Name)
			lx.arities = append(lx.arities, p.Arity)
		}
		n, st, pr, err := m.compileIn(d.sc, d.body, lx)
		d.compiling = false
		if err != nil {
			return err
		}
		d.compiled, d.state, d.prime = n, st || pr, pr
	case dkFunc:
		d.compiling = true
		c := &compiler{m: m, sc: d.sc}
		lit, err := c.funcLit(d.fn.Pos, d.fn.Bounds, d.fn.Body, nil)
		d.compiling = false
		if err != nil {
			return err
		}
		d.compiled, d.state, d.prime = &funcDefNode{at{d.fn.Pos}, lit}, c.state || c.prime, c.prime
	case dkSubst:
		d.compiling = true
		n, st, pr, err := m.compileIn(d.substSc, d.subst, d.substLex)
		d.compiling = false
		if err != nil {
			return err
		}
		// A substituted variable stays state-level whatever replaces it, and
		// an instance parameter may stand for a variable.
		d.substNode, d.state, d.prime = n, d.state || st || pr || d.substLex != nil, pr
	}
	return nil
}

func (c *compiler) expr(e syntax.Expr, lx *lex) (node, error) {
	switch e := e.(type) {
	case *syntax.Number:
		return &litNode{at: at{e.Pos}, v: value.IntOf(e.Value)}, nil
	case *syntax.StringLit:
		return &litNode{at: at{e.Pos}, v: value.Str(e.Value)}, nil
	case *syntax.Bool:
		return &litNode{at: at{e.Pos}, v: value.Bool(e.Value), counted: true}, nil
	case *syntax.Decimal:
		return &unsupportedNode{at{e.Pos}, "the real number " + e.Text}, nil
	case *syntax.Ident:
		return c.ident(e.Pos, e.Name, lx)
	case *syntax.OpApp:
		return c.opApp(e, lx)
	case *syntax.Prime:
		x, err := c.expr(e.X, lx)
		if err != nil {
			return nil, err
		}
		c.state, c.prime = true, true
		return &primeNode{at{e.Pos}, x}, nil
	case *syntax.BulletList:
		items, err := c.exprs(e.Items, lx)
		if err != nil {
			return nil, err
		}
		if e.Kind == `/\` {
			return &andNode{at{e.Pos}, flatten(items, true)}, nil
		}
		return &orNode{at{e.Pos}, flatten(items, false)}, nil
	case *syntax.Quant:
		if len(e.Bounds) == 0 || e.Bounds[0].Set == nil {
			return &unsupportedNode{at{e.Pos}, "an unbounded quantifier"}, nil
		}
		b, inner, err := c.binder(e.Bounds, lx)
		if err != nil {
			return nil, err
		}
		body, err := c.expr(e.Body, inner)
		if err != nil {
			return nil, err
		}
		return &quantNode{at{e.Pos}, e.Forall, b, body}, nil
	case *syntax.Choose:
		if e.Bound.Set == nil {
			return &unsupportedNode{at{e.Pos}, "an unbounded CHOOSE (give the definition a value in the cfg file)"}, nil
		}
		b, inner, err := c.binder([]syntax.Bound{e.Bound}, lx)
		if err != nil {
			return nil, err
		}
		body, err := c.expr(e.Body, inner)
		if err != nil {
			return nil, err
		}
		return &chooseNode{at{e.Pos}, b, body}, nil
	case *syntax.SetEnum:
		elems, err := c.exprs(e.Elems, lx)
		if err != nil {
			return nil, err
		}
		return &setEnumNode{at{e.Pos}, elems}, nil
	case *syntax.SetFilter:
		b, inner, err := c.binder([]syntax.Bound{e.Bound}, lx)
		if err != nil {
			return nil, err
		}
		p, err := c.expr(e.Pred, inner)
		if err != nil {
			return nil, err
		}
		return &setFilterNode{at: at{e.Pos}, b: b, pred: p, text: e.String()}, nil
	case *syntax.SetMap:
		b, inner, err := c.binder(e.Bounds, lx)
		if err != nil {
			return nil, err
		}
		el, err := c.expr(e.Elem, inner)
		if err != nil {
			return nil, err
		}
		return &setMapNode{at{e.Pos}, b, el}, nil
	case *syntax.FuncLit:
		return c.funcLit(e.Pos, e.Bounds, e.Body, lx)
	case *syntax.FuncSet:
		d, err := c.expr(e.Domain, lx)
		if err != nil {
			return nil, err
		}
		r, err := c.expr(e.Range, lx)
		if err != nil {
			return nil, err
		}
		return &arithNode{at{e.Pos}, "->", d, r, value.SetOfFuncs}, nil
	case *syntax.RecordLit, *syntax.RecordSet:
		var fields []syntax.FieldVal
		set := false
		if r, ok := e.(*syntax.RecordLit); ok {
			fields = r.Fields
		} else {
			fields = e.(*syntax.RecordSet).Fields
			set = true
		}
		n := &recordNode{at: at{e.Position()}, set: set}
		for _, f := range fields {
			v, err := c.expr(f.Val, lx)
			if err != nil {
				return nil, err
			}
			n.names = append(n.names, f.Name)
			n.vals = append(n.vals, v)
			n.pairs = append(n.pairs, &pairNode{at{f.Pos}})
		}
		return n, nil
	case *syntax.Except:
		return c.except(e, lx)
	case *syntax.At:
		depth, idx, fr := lx.resolve("@")
		if fr == nil {
			return nil, errorf(e.Pos, "@ outside an EXCEPT value")
		}
		return &boundNode{at{e.Pos}, depth, idx, "@"}, nil
	case *syntax.FuncApp:
		return c.funcApp(e, lx)
	case *syntax.Field:
		r, err := c.expr(e.Rec, lx)
		if err != nil {
			return nil, err
		}
		return &fieldNode{at{e.Pos}, r, value.Str(e.Name)}, nil
	case *syntax.Tuple:
		elems, err := c.exprs(e.Elems, lx)
		if err != nil {
			return nil, err
		}
		return &tupleNode{at{e.Pos}, elems}, nil
	case *syntax.CrossProduct:
		sets, err := c.exprs(e.Sets, lx)
		if err != nil {
			return nil, err
		}
		return &productNode{at{e.Pos}, sets}, nil
	case *syntax.If:
		cond, err := c.expr(e.Cond, lx)
		if err != nil {
			return nil, err
		}
		th, err := c.expr(e.Then, lx)
		if err != nil {
			return nil, err
		}
		el, err := c.expr(e.Else, lx)
		if err != nil {
			return nil, err
		}
		return &ifNode{at{e.Pos}, cond, th, el}, nil
	case *syntax.Case:
		n := &caseNode{at: at{e.Pos}}
		for _, a := range e.Arms {
			cond, err := c.expr(a.Cond, lx)
			if err != nil {
				return nil, err
			}
			body, err := c.expr(a.Body, lx)
			if err != nil {
				return nil, err
			}
			n.conds = append(n.conds, cond)
			n.bodies = append(n.bodies, body)
		}
		if e.Other != nil {
			o, err := c.expr(e.Other, lx)
			if err != nil {
				return nil, err
			}
			n.other = o
		}
		return n, nil
	case *syntax.Let:
		return c.let(e, lx)
	case *syntax.Lambda:
		return nil, errorf(e.Pos, "LAMBDA is only allowed as an argument of an operator")
	case *syntax.Unchanged:
		return c.unchanged(e.Pos, e.X, lx)
	case *syntax.Enabled:
		x, err := c.expr(e.X, lx)
		if err != nil {
			return nil, err
		}
		c.state = true
		return &enabledNode{at: at{e.Pos}, x: x}, nil
	case *syntax.ActionBox:
		a, err := c.expr(e.Action, lx)
		if err != nil {
			return nil, err
		}
		u, err := c.unchanged(e.Pos, e.Sub, lx)
		if err != nil {
			return nil, err
		}
		return &orNode{at{e.Pos}, []node{a, u}}, nil
	case *syntax.ActionAngle:
		a, err := c.expr(e.Action, lx)
		if err != nil {
			return nil, err
		}
		u, err := c.unchanged(e.Pos, e.Sub, lx)
		if err != nil {
			return nil, err
		}
		return &andNode{at{e.Pos}, []node{a, &notNode{at{e.Pos}, u}}}, nil
	case *syntax.Label:
		x, err := c.expr(e.Body, lx)
		if err != nil {
			return nil, err
		}
		return &labelNode{at{e.Pos}, x}, nil
	case *syntax.Always, *syntax.Eventually, *syntax.LeadsTo, *syntax.Fairness, *syntax.TemporalQuant:
		c.state = true
		return &unsupportedNode{at{e.Position()}, "a temporal formula"}, nil
	case *syntax.SubExpr:
		return c.subExpr(e, lx)
	}
	return nil, errorf(e.Position(), "unsupported expression %s", e.String())
}

func (c *compiler) exprs(es []syntax.Expr, lx *lex) ([]node, error) {
	out := make([]node, len(es))
	for i, e := range es {
		n, err := c.expr(e, lx)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

// flatten merges nested conjunctions (or disjunctions) into one list.
func flatten(items []node, and bool) []node {
	var out []node
	for _, it := range items {
		if a, ok := it.(*andNode); ok && and {
			out = append(out, a.items...)
			continue
		}
		if o, ok := it.(*orNode); ok && !and {
			out = append(out, o.items...)
			continue
		}
		out = append(out, it)
	}
	return out
}

// binder compiles bounds; the names go into one new frame.
func (c *compiler) binder(bounds []syntax.Bound, lx *lex) (*binder, *lex, error) {
	b := &binder{}
	inner := &lex{parent: lx}
	for _, bd := range bounds {
		if bd.Set == nil {
			return nil, nil, errorf(bd.Pos, "an unbounded binder (%v) cannot be evaluated", bd.Names)
		}
		s, err := c.expr(bd.Set, lx)
		if err != nil {
			return nil, nil, err
		}
		b.sets = append(b.sets, s)
		b.names = append(b.names, bd.Names)
		b.tuple = append(b.tuple, bd.Tuple)
		b.width += len(bd.Names)
		for _, n := range bd.Names {
			inner.names = append(inner.names, n)
			inner.arities = append(inner.arities, 0)
		}
	}
	return b, inner, nil
}

func (c *compiler) funcLit(pos syntax.Pos, bounds []syntax.Bound, body syntax.Expr, lx *lex) (*funcLitNode, error) {
	b, inner, err := c.binder(bounds, lx)
	if err != nil {
		return nil, err
	}
	n, err := c.expr(body, inner)
	if err != nil {
		return nil, err
	}
	return &funcLitNode{at{pos}, b, n}, nil
}

func (c *compiler) except(e *syntax.Except, lx *lex) (node, error) {
	f, err := c.expr(e.Func, lx)
	if err != nil {
		return nil, err
	}
	n := &exceptNode{at: at{e.Pos}, f: f}
	atLex := &lex{names: []string{"@"}, arities: []int{0}, parent: lx}
	for _, u := range e.Updates {
		up := exceptUpdate{pair: &pairNode{at{u.Pos}}}
		for _, st := range u.Path {
			if st.Index == nil {
				up.path = append(up.path, &litNode{at: at{st.Pos}, v: value.Str(st.Field)})
				continue
			}
			idx, err := c.exprs(st.Index, lx)
			if err != nil {
				return nil, err
			}
			if len(idx) == 1 {
				up.path = append(up.path, idx[0])
			} else {
				up.path = append(up.path, &tupleNode{at{st.Pos}, idx})
			}
		}
		v, err := c.expr(u.Value, atLex)
		if err != nil {
			return nil, err
		}
		up.val = v
		up.usesAt = usesAt(u.Value)
		n.updates = append(n.updates, up)
	}
	return n, nil
}

// usesAt reports whether an EXCEPT value mentions @ (outside nested EXCEPTs).
func usesAt(e syntax.Expr) bool {
	found := false
	var walk func(e syntax.Expr)
	walk = func(e syntax.Expr) {
		if found || e == nil {
			return
		}
		switch e := e.(type) {
		case *syntax.At:
			found = true
		case *syntax.Except:
			walk(e.Func) // @ in the nested updates is the nested one's
		default:
			for _, ch := range children(e) {
				walk(ch)
			}
		}
	}
	walk(e)
	return found
}

func (c *compiler) funcApp(e *syntax.FuncApp, lx *lex) (node, error) {
	var arg node
	if len(e.Args) == 1 {
		a, err := c.expr(e.Args[0], lx)
		if err != nil {
			return nil, err
		}
		arg = a
	} else {
		args, err := c.exprs(e.Args, lx)
		if err != nil {
			return nil, err
		}
		arg = &tupleNode{at{e.Pos}, args}
	}
	// f[x] for a function definition f: apply without building f.
	if id, ok := e.Func.(*syntax.Ident); ok {
		if depth, idx, fr := lx.resolve(id.Name); fr != nil {
			if fr.lets != nil && fr.lets[idx].isFunc {
				return &letFuncApp{at{e.Pos}, depth, fr.lets[idx], arg}, nil
			}
		} else if d := c.sc.lookup(id.Name); d != nil && d.kind == dkFunc {
			if err := c.m.ensure(d); err != nil {
				return nil, err
			}
			c.state = c.state || d.state
			c.prime = c.prime || d.prime
			return &funcDefApp{at{e.Pos}, d, arg}, nil
		}
	}
	f, err := c.expr(e.Func, lx)
	if err != nil {
		return nil, err
	}
	if b, ok := f.(*boundNode); ok {
		if lit, ok := arg.(*litNode); ok {
			if k, ok := lit.v.(value.Int); ok {
				return &componentNode{funcAppNode{at{e.Pos}, f, arg}, b, int64(k)}, nil
			}
		}
	}
	if v, ok := f.(*varNode); ok {
		return &varAppNode{funcAppNode{at{e.Pos}, f, arg}, v}, nil
	}
	return &funcAppNode{at{e.Pos}, f, arg}, nil
}

func (c *compiler) let(e *syntax.Let, lx *lex) (node, error) {
	fr := &lex{parent: lx}
	n := &letNode{at: at{e.Pos}}
	// Declare every name first so definitions can refer to each other
	// (RECURSIVE) and to themselves.
	type pending struct {
		ld *letDef
		u  syntax.Unit
	}
	var ps []pending
	for _, u := range e.Defs {
		switch u := u.(type) {
		case *syntax.Instance:
			// LET CC == INSTANCE M IN ... CC!Op: the instance is a name
			// of a scope that sees the enclosing one, for the LET's
			// definitions and body.
			if u.Name == "" {
				return nil, errorf(u.Pos, "an INSTANCE inside LET must be named (LET M == INSTANCE %s)", u.Module)
			}
			if !c.letScoped {
				saved := c.sc
				c.sc, c.letScoped = c.sc.child(), true
				defer func() { c.sc, c.letScoped = saved, false }()
			}
			if err := c.m.loader.instanceAt(c.sc, u, c.sc.paramInst, lx); err != nil {
				return nil, err
			}
		case *syntax.OpDef:
			ld := &letDef{name: u.Name, arity: len(u.Params), pos: u.Pos, params: u.Params}
			ps = append(ps, pending{ld, u})
		case *syntax.FuncDef:
			ld := &letDef{name: u.Name, pos: u.Pos, isFunc: true}
			ps = append(ps, pending{ld, u})
		case *syntax.RecursiveDecl:
		default:
			return nil, errorf(u.Position(), "this kind of definition is not supported inside LET")
		}
	}
	for _, p := range ps {
		fr.names = append(fr.names, p.ld.name)
		fr.arities = append(fr.arities, p.ld.arity)
		fr.lets = append(fr.lets, p.ld)
		n.defs = append(n.defs, p.ld)
	}
	for _, p := range ps {
		saveState, savePrime := c.state, c.prime
		c.state, c.prime = false, false
		escaped := false
		fr.escaped = &escaped
		switch u := p.u.(type) {
		case *syntax.OpDef:
			inner := fr
			if len(u.Params) > 0 {
				inner = &lex{parent: fr}
				for _, pa := range u.Params {
					inner.names = append(inner.names, pa.Name)
					inner.arities = append(inner.arities, pa.Arity)
				}
			}
			body, err := c.expr(u.Body, inner)
			if err != nil {
				return nil, err
			}
			p.ld.body = body
		case *syntax.FuncDef:
			lit, err := c.funcLit(u.Pos, u.Bounds, u.Body, fr)
			if err != nil {
				return nil, err
			}
			p.ld.fn = lit
		}
		fr.escaped = nil
		p.ld.prime = c.prime
		// A LET definition of no argument that reads neither the state
		// nor a bound name around it (GameOfLife's nbrs) has one value:
		// it is computed once, not at each evaluation of the LET.
		p.ld.constant = p.ld.arity == 0 && !c.state && !c.prime && !escaped &&
			!(c.m.bindInputs && c.m.exprReadsInput(c.sc, p.u))
		c.state = saveState || c.state
		c.prime = savePrime || c.prime
	}
	body, err := c.expr(e.Body, fr)
	if err != nil {
		return nil, err
	}
	n.body = body
	return n, nil
}

// unchanged compiles UNCHANGED e, as a list of variables when e is made of
// variables (through tuples and definitions), else as e' = e.
func (c *compiler) unchanged(pos syntax.Pos, e syntax.Expr, lx *lex) (node, error) {
	c.state, c.prime = true, true
	var vars []int
	if c.collectVars(e, lx, &vars, 0) {
		return &unchangedNode{at: at{pos}, vars: vars}, nil
	}
	x, err := c.expr(e, lx)
	if err != nil {
		return nil, err
	}
	return &unchangedNode{at: at{pos}, x: x}, nil
}

func (c *compiler) collectVars(e syntax.Expr, lx *lex, vars *[]int, depth int) bool {
	if depth > 20 {
		return false
	}
	switch e := e.(type) {
	case *syntax.Tuple:
		for _, el := range e.Elems {
			if !c.collectVars(el, lx, vars, depth+1) {
				return false
			}
		}
		return true
	case *syntax.Ident:
		if _, _, fr := lx.resolve(e.Name); fr != nil {
			return false
		}
		d := c.sc.lookup(e.Name)
		if d == nil {
			return false
		}
		switch d.kind {
		case dkVar:
			*vars = append(*vars, d.varIdx)
			return true
		case dkOp:
			if len(d.params) == 0 {
				sub := &compiler{m: c.m, sc: d.sc}
				return sub.collectVars(d.body, nil, vars, depth+1)
			}
		}
	}
	return false
}

// productNode is S1 \X S2 \X ...
type productNode struct {
	at
	sets []node
}

func (n *productNode) eval(c *ctx, env *Env) (value.Value, error) {
	vs := make([]value.Value, len(n.sets))
	for i, s := range n.sets {
		v, err := s.eval(c, env)
		if err != nil {
			return nil, err
		}
		vs[i] = v
	}
	v, err := value.Product(vs...)
	return v, located(n.pos, err)
}

var _ = stdlib.Lookup

// subExpr compiles a subexpression reference such as Inv!2 (the second
// conjunct of Inv) or Op(a)!1!2: the selected part of the definition's body
// becomes a definition of its own, with the same parameters.
func (c *compiler) subExpr(e *syntax.SubExpr, lx *lex) (node, error) {
	var name string
	var args []syntax.Expr
	switch b := e.Base.(type) {
	case *syntax.Ident:
		name = b.Name
	case *syntax.OpApp:
		if len(b.Path) > 0 {
			return &unsupportedNode{at{e.Pos}, "a subexpression reference through an instance (" + e.String() + ")"}, nil
		}
		name, args = b.Name, b.Args
	default:
		return &unsupportedNode{at{e.Pos}, "the subexpression reference " + e.String()}, nil
	}
	d := c.sc.lookup(name)
	if d == nil || d.kind != dkOp {
		return nil, errorf(e.Pos, "%s: %s is not a definition", e.String(), name)
	}
	body := d.body
	for _, sel := range e.Sels {
		var parts []syntax.Expr
		switch x := body.(type) {
		case *syntax.BulletList:
			parts = x.Items
		case *syntax.OpApp:
			parts = x.Args
		case *syntax.Label:
			parts = []syntax.Expr{x.Body}
		default:
			parts = children(body)
		}
		if sel == ":" {
			continue
		}
		i := 0
		for _, ch := range sel {
			if ch < '0' || ch > '9' {
				return &unsupportedNode{at{e.Pos}, "the selector !" + sel + " in " + e.String()}, nil
			}
			i = i*10 + int(ch-'0')
		}
		if i < 1 || i > len(parts) {
			return nil, errorf(e.Pos, "%s: selector %d is out of range (1..%d)", e.String(), i, len(parts))
		}
		body = parts[i-1]
		if l, ok := body.(*syntax.Label); ok {
			body = l.Body
		}
	}
	sub := &def{kind: dkOp, name: e.String(), pos: e.Pos, params: d.params, body: body, arity: len(d.params), sc: d.sc}
	return c.ref(e.Pos, sub, sub.name, args, lx)
}
