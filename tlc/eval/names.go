package eval

import (
	"github.com/modelfuzz/modelfuzz/tlc/syntax"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// ident compiles a bare name.
func (c *compiler) ident(pos syntax.Pos, name string, lx *lex) (node, error) {
	if depth, idx, fr := lx.resolve(name); fr != nil {
		if fr.lets != nil {
			ld := fr.lets[idx]
			if ld.arity > 0 {
				return nil, errorf(pos, "operator %s needs %d argument(s)", name, ld.arity)
			}
			if ld.prime {
				c.state, c.prime = true, true
			}
			return &letRefNode{at{pos}, depth, idx, ld}, nil
		}
		if fr.arities[idx] > 0 {
			return nil, errorf(pos, "operator parameter %s needs %d argument(s)", name, fr.arities[idx])
		}
		return &boundNode{at{pos}, depth, idx, name}, nil
	}
	d := c.sc.lookup(name)
	if d == nil {
		switch name {
		case "BOOLEAN":
			return &litNode{at: at{pos}, v: value.NewSet(value.False, value.True)}, nil
		case "STRING":
			return &litNode{at: at{pos}, v: value.Strings}, nil
		}
		return nil, errorf(pos, "unknown operator %q", name)
	}
	return c.ref(pos, d, name, nil, nil)
}

// ref compiles a use of definition d with args (nil for none).
func (c *compiler) ref(pos syntax.Pos, d *def, name string, args []syntax.Expr, lx *lex) (node, error) {
	return c.refInst(pos, d, name, args, lx, nil, false)
}

func (c *compiler) refInst(pos syntax.Pos, d *def, name string, args []syntax.Expr, lx *lex, instArgs []node, hasInst bool) (node, error) {
	if err := c.m.ensure(d); err != nil {
		return nil, err
	}
	switch d.kind {
	case dkVar:
		if len(args) > 0 {
			return nil, errorf(pos, "variable %s takes no arguments", name)
		}
		c.state = true
		return &varNode{at{pos}, d.varIdx, name}, nil
	case dkValue:
		if len(args) > 0 {
			return nil, errorf(pos, "constant %s takes no arguments", name)
		}
		return &litNode{at: at{pos}, v: d.val, counted: true}, nil
	case dkSubst:
		c.state = c.state || d.state
		c.prime = c.prime || d.prime
		if len(args) > 0 {
			return nil, errorf(pos, "%s: operator-valued instance parameters are not supported", name)
		}
		return &substNode{at{pos}, d}, nil
	case dkInstance:
		return nil, errorf(pos, "%s is an instance; use %s!Name", name, name)
	case dkBuiltin:
		if len(args) != d.builtin.Arity {
			if len(args) == 0 && d.builtin.Arity > 0 {
				return nil, errorf(pos, "operator %s needs %d argument(s)", name, d.builtin.Arity)
			}
			return nil, errorf(pos, "operator %s takes %d argument(s), got %d", name, d.builtin.Arity, len(args))
		}
		if volatile[name] {
			c.state = true
		}
		nodes, err := c.args(args, lx, func(i int) int { return opParamArity(d, i) })
		if err != nil {
			return nil, err
		}
		if fast := fastBuiltin(pos, d, nodes); fast != nil {
			return fast, nil
		}
		return &builtinNode{at{pos}, d.builtin, nodes}, nil
	case dkConst:
		if d.arity != len(args) {
			return nil, errorf(pos, "constant operator %s takes %d argument(s), got %d", name, d.arity, len(args))
		}
	case dkOp:
		if len(args) != len(d.params) {
			return nil, errorf(pos, "operator %s takes %d argument(s), got %d", name, len(d.params), len(args))
		}
	case dkFunc:
		if len(args) > 0 {
			return nil, errorf(pos, "%s is a function: apply it with %s[...]", name, name)
		}
	}
	c.state = c.state || d.state
	c.prime = c.prime || d.prime
	nodes, err := c.args(args, lx, func(i int) int {
		if d.kind == dkOp {
			return d.params[i].Arity
		}
		return 0
	})
	if err != nil {
		return nil, err
	}
	if d.kind == dkOp {
		if err := checkOpArgs(name, nodes, d.params); err != nil {
			return nil, err
		}
	}
	return &callNode{at: at{pos}, d: d, args: nodes, instArgs: instArgs, hasInst: hasInst}, nil
}

// volatile builtins must not be cached as constants.
var volatile = map[string]bool{"TLCGet": true, "TLCSet": true, "Print": true, "PrintT": true, "JavaTime": true, "RandomElement": true}

func opParamArity(d *def, i int) int {
	for _, j := range d.builtin.OpParams {
		if j == i {
			return 1 // an operator; its exact arity is checked when called
		}
	}
	return 0
}

// args compiles arguments; opArity(i) > 0 marks an operator parameter.
func (c *compiler) args(args []syntax.Expr, lx *lex, opArity func(i int) int) ([]node, error) {
	out := make([]node, len(args))
	for i, a := range args {
		if opArity(i) > 0 {
			n, err := c.opArgument(a, lx)
			if err != nil {
				return nil, err
			}
			out[i] = n
			continue
		}
		prime := c.prime
		c.prime = false
		n, err := c.expr(a, lx)
		if err != nil {
			return nil, err
		}
		if c.prime || branching(n) {
			n = &actionArgNode{at{a.Position()}, n}
		}
		c.prime = c.prime || prime
		out[i] = n
	}
	return out, nil
}

// branching reports whether the formula n, enumerated, may continue more
// than once: a disjunction or \E, possibly under a conjunction, IF, CASE,
// => or \A.
func branching(n node) bool {
	switch n := n.(type) {
	case *orNode:
		return true
	case *quantNode:
		return !n.forall || branching(n.body)
	case *andNode:
		for _, it := range n.items {
			if branching(it) {
				return true
			}
		}
	case *ifNode:
		return branching(n.then) || branching(n.els)
	case *caseNode:
		for _, b := range n.bodies {
			if branching(b) {
				return true
			}
		}
		return n.other != nil && branching(n.other)
	case *impliesNode:
		return branching(n.r)
	case *labelNode:
		return branching(n.x)
	}
	return false
}

// actionArgNode is an argument that mentions primed variables, an action
// passed to an operator (W(A) == A, Next == W(Inc)), or a formula that
// branches (a disjunction, \E). It is passed by name, as TLC passes every
// argument lazily, so that where the operator's body uses it as an action,
// it is enumerated: it can give primed variables their values, and each
// way it holds continues (which TLC counts in its generated states).
type actionArgNode struct {
	at
	x node
}

func (n *actionArgNode) eval(c *ctx, env *Env) (value.Value, error) { return n.x.eval(c, env) }

// firstOrder rejects passing an operator that itself takes operator
// arguments: only first-order operators can be arguments, as in SANY.
func firstOrder(pos syntax.Pos, name string, params []syntax.Param) error {
	for _, p := range params {
		if p.Arity > 0 {
			return errorf(pos, "%s takes an operator argument (%s) and cannot itself be passed as an argument", name, p.Name)
		}
	}
	return nil
}

// checkOpArgs checks that the operators passed for operator parameters
// take as many arguments as the parameters say, as SANY does.
func checkOpArgs(name string, args []node, params []syntax.Param) error {
	for i, a := range args {
		cn, ok := a.(*closureNode)
		if !ok || i >= len(params) || params[i].Arity == 0 {
			continue
		}
		if cn.arity != params[i].Arity {
			return errorf(cn.pos, "argument %d of %s must be an operator of %d argument(s), but %s takes %d", i+1, name, params[i].Arity, cn.name, cn.arity)
		}
	}
	return nil
}

// opArgument compiles an argument passed for an operator parameter: the
// name of an operator, or a LAMBDA.
func (c *compiler) opArgument(a syntax.Expr, lx *lex) (node, error) {
	switch a := a.(type) {
	case *syntax.Lambda:
		inner := &lex{parent: lx}
		for _, p := range a.Params {
			inner.names = append(inner.names, p.Name)
			inner.arities = append(inner.arities, p.Arity)
		}
		body, err := c.expr(a.Body, inner)
		if err != nil {
			return nil, err
		}
		return &closureNode{at: at{a.Pos}, name: "LAMBDA", arity: len(a.Params), body: body, depth: 0, param: -1}, nil
	case *syntax.Ident:
		if depth, idx, fr := lx.resolve(a.Name); fr != nil {
			if fr.lets != nil {
				ld := fr.lets[idx]
				if ld.isFunc {
					return nil, errorf(a.Pos, "%s is a function, not an operator", a.Name)
				}
				if err := firstOrder(a.Pos, a.Name, ld.params); err != nil {
					return nil, err
				}
				return &closureNode{at: at{a.Pos}, name: a.Name, arity: ld.arity, body: ld.body, depth: depth, param: -1}, nil
			}
			if fr.arities[idx] > 0 {
				return &closureNode{at: at{a.Pos}, name: a.Name, arity: fr.arities[idx], depth: depth, param: idx}, nil
			}
			return nil, errorf(a.Pos, "%s is not an operator", a.Name)
		}
		d := c.sc.lookup(a.Name)
		if d == nil {
			if n := coreArity[a.Name]; n > 0 {
				return c.coreClosure(a.Pos, a.Name, n, lx)
			}
			return nil, errorf(a.Pos, "unknown operator %q", a.Name)
		}
		return c.defClosure(a.Pos, d, a.Name)
	case *syntax.OpApp:
		if len(a.Args) == 0 && len(a.Path) == 0 && c.sc.lookup(a.Name) == nil && coreArity[a.Name] > 0 {
			return c.coreClosure(a.Pos, a.Name, coreArity[a.Name], lx)
		}
		if len(a.Args) == 0 {
			if len(a.Path) > 0 {
				d, _, _, err := c.resolvePath(a, lx)
				if err != nil {
					return nil, err
				}
				return c.defClosure(a.Pos, d, a.Name)
			}
			if d := c.sc.lookup(a.Name); d != nil {
				return c.defClosure(a.Pos, d, a.Name)
			}
		}
	}
	return nil, errorf(a.Position(), "expected an operator name or LAMBDA as argument, found %s", a.String())
}

// coreArity lists the operators of the language itself that can be passed
// as operator arguments (IsReflexiveUnder(=, S)), with their arity.
var coreArity = map[string]int{
	`/\`: 2, `\/`: 2, "=>": 2, "<=>": 2, "=": 2, "#": 2, `\in`: 2, `\notin`: 2,
	`\cup`: 2, `\cap`: 2, `\`: 2, `\subseteq`: 2, `\subset`: 2, `\supseteq`: 2, `\supset`: 2,
	"~": 1, "DOMAIN": 1, "SUBSET": 1, "UNION": 1,
}

// coreClosure passes a core operator as an argument: LAMBDA a, b : a op b.
func (c *compiler) coreClosure(pos syntax.Pos, name string, arity int, lx *lex) (node, error) {
	params := []syntax.Param{{Name: "a$"}, {Name: "b$"}}[:arity]
	args := make([]syntax.Expr, arity)
	for i, p := range params {
		args[i] = &syntax.Ident{Pos: pos, Name: p.Name}
	}
	n, err := c.opArgument(&syntax.Lambda{Pos: pos, Params: params, Body: &syntax.OpApp{Pos: pos, Name: name, Args: args}}, lx)
	if cn, ok := n.(*closureNode); ok {
		cn.name = name
	}
	return n, err
}

func (c *compiler) defClosure(pos syntax.Pos, d *def, name string) (node, error) {
	if err := c.m.ensure(d); err != nil {
		return nil, err
	}
	c.state = c.state || d.state
	c.prime = c.prime || d.prime
	switch d.kind {
	case dkBuiltin:
		return &closureNode{at: at{pos}, name: name, arity: d.builtin.Arity, d: d, param: -1}, nil
	case dkOp:
		if err := firstOrder(pos, name, d.params); err != nil {
			return nil, err
		}
		return &closureNode{at: at{pos}, name: name, arity: len(d.params), d: d, inst: d.sc.paramInst, param: -1}, nil
	case dkConst:
		return nil, errorf(pos, "constant operator %s has no definition: give it one in the cfg file (%s <- Def)", name, name)
	}
	return nil, errorf(pos, "%s is not an operator", name)
}

// resolvePath finds the definition named by M!Op or M(args)!N!Op.
func (c *compiler) resolvePath(e *syntax.OpApp, lx *lex) (*def, []node, bool, error) {
	sc := c.sc
	var instArgs []node
	hasInst := false
	for i, st := range e.Path {
		d := sc.lookup(st.Name)
		if d == nil || d.kind != dkInstance {
			return nil, nil, false, errorf(st.Pos, "%s is not an instance (in %s!...)", st.Name, st.Name)
		}
		if len(st.Args) != len(d.inst.params) {
			return nil, nil, false, errorf(st.Pos, "instance %s takes %d argument(s), got %d", st.Name, len(d.inst.params), len(st.Args))
		}
		if len(st.Args) > 0 {
			if i > 0 {
				return nil, nil, false, errorf(st.Pos, "arguments to a nested instance are not supported")
			}
			args, err := c.exprs(st.Args, lx)
			if err != nil {
				return nil, nil, false, err
			}
			instArgs, hasInst = args, true
		}
		sc = d.inst.sc
	}
	d := sc.lookupQualified(e.Name)
	if d == nil {
		return nil, nil, false, errorf(e.Pos, "instance has no definition %q", e.Name)
	}
	return d, instArgs, hasInst, nil
}

// opApp compiles an operator application.
func (c *compiler) opApp(e *syntax.OpApp, lx *lex) (node, error) {
	if len(e.Path) > 0 {
		d, instArgs, hasInst, err := c.resolvePath(e, lx)
		if err != nil {
			return nil, err
		}
		// Compile the arguments here, in the caller's scope.
		n, err := c.refInst(e.Pos, d, e.Name, e.Args, lx, instArgs, hasInst)
		if err != nil {
			return nil, err
		}
		if site := c.sc.lookup(e.Path[0].Name).inst.site; site != nil {
			cn, ok := n.(*callNode)
			if !ok {
				return nil, errorf(e.Pos, "%s: only the definitions of an instance defined in a LET can be used", e.Name)
			}
			depth := 0
			f := lx
			for ; f != nil && f != site; f = f.parent {
				depth++
			}
			if f == nil {
				return nil, errorf(e.Pos, "%s!%s is used outside the LET that defines %s", e.Path[0].Name, e.Name, e.Path[0].Name)
			}
			cn.site = depth + 1
		}
		return n, nil
	}
	if n, ok, err := c.core(e, lx); ok || err != nil {
		return n, err
	}
	if depth, idx, fr := lx.resolve(e.Name); fr != nil {
		if fr.lets != nil {
			ld := fr.lets[idx]
			if ld.arity != len(e.Args) {
				return nil, errorf(e.Pos, "operator %s takes %d argument(s), got %d", e.Name, ld.arity, len(e.Args))
			}
			if len(e.Args) == 0 {
				return c.ident(e.Pos, e.Name, lx)
			}
			args, err := c.args(e.Args, lx, func(i int) int { return ld.params[i].Arity })
			if err != nil {
				return nil, err
			}
			if err := checkOpArgs(e.Name, args, ld.params); err != nil {
				return nil, err
			}
			if ld.prime {
				c.state, c.prime = true, true
			}
			return &letCallNode{at{e.Pos}, depth, ld, args}, nil
		}
		if fr.arities[idx] != len(e.Args) {
			return nil, errorf(e.Pos, "%s takes %d argument(s), got %d", e.Name, fr.arities[idx], len(e.Args))
		}
		if len(e.Args) == 0 {
			return &boundNode{at{e.Pos}, depth, idx, e.Name}, nil
		}
		args, err := c.exprs(e.Args, lx)
		if err != nil {
			return nil, err
		}
		c.state = true // the argument operator may depend on anything
		return &paramCallNode{at{e.Pos}, depth, idx, e.Name, args}, nil
	}
	d := c.sc.lookup(e.Name)
	if d == nil {
		if len(e.Args) == 0 {
			return c.ident(e.Pos, e.Name, lx)
		}
		return nil, errorf(e.Pos, "unknown operator %q", e.Name)
	}
	return c.ref(e.Pos, d, e.Name, e.Args, lx)
}

// core compiles the operators of the language itself (not of a module):
// logic, equality, set membership and set algebra.
func (c *compiler) core(e *syntax.OpApp, lx *lex) (node, bool, error) {
	pos := at{e.Pos}
	switch len(e.Args) {
	case 1:
		switch e.Name {
		case "~", "DOMAIN", "SUBSET", "UNION":
		default:
			return nil, false, nil
		}
		if d := c.sc.lookup(e.Name); d != nil && d.kind != dkBuiltin {
			return nil, false, nil
		}
		x, err := c.expr(e.Args[0], lx)
		if err != nil {
			return nil, true, err
		}
		switch e.Name {
		case "~":
			return &notNode{pos, x}, true, nil
		case "DOMAIN":
			return &unaryNode{pos, x, value.Domain}, true, nil
		case "SUBSET":
			return &unaryNode{pos, x, value.Powerset}, true, nil
		default:
			if se, ok := x.(*setEnumNode); ok && len(se.elems) > 1 {
				// UNION {A, B, ...} is A \cup B \cup ...: the set of
				// sets is never built, which would put lazy sets such
				// as [S -> T] in canonical order, building them.
				u := se.elems[0]
				for _, e := range se.elems[1:] {
					u = &arithNode{pos, "UNION", u, e, unionOfTwo}
				}
				return u, true, nil
			}
			return &unaryNode{pos, x, value.UnionAll}, true, nil
		}
	case 2:
		switch e.Name {
		case `/\`, `\/`, "=>", "<=>", "=", "#", `\in`, `\notin`, `\cup`, `\cap`, `\`, `\subseteq`, `\subset`, `\supseteq`, `\supset`, `\cdot`:
		default:
			return nil, false, nil
		}
		if d := c.sc.lookup(e.Name); d != nil && d.kind != dkBuiltin {
			return nil, false, nil
		}
		l, err := c.expr(e.Args[0], lx)
		if err != nil {
			return nil, true, err
		}
		r, err := c.expr(e.Args[1], lx)
		if err != nil {
			return nil, true, err
		}
		switch e.Name {
		case `/\`:
			return &andNode{pos, flatten([]node{l, r}, true)}, true, nil
		case `\/`:
			return &orNode{pos, flatten([]node{l, r}, false)}, true, nil
		case "=>":
			return &impliesNode{pos, l, r}, true, nil
		case "<=>":
			return &equivNode{pos, l, r}, true, nil
		case "=", "#":
			return &eqNode{pos, l, r, e.Name == "#"}, true, nil
		case `\in`, `\notin`:
			return &inNode{at: pos, x: l, s: r, notIn: e.Name == `\notin`}, true, nil
		case `\cdot`:
			c.state, c.prime = true, true
			return &composeNode{pos, l, r}, true, nil
		case `\cup`:
			return &arithNode{pos, e.Name, l, r, value.Union}, true, nil
		case `\cap`:
			return &arithNode{pos, e.Name, l, r, value.Intersect}, true, nil
		case `\`:
			return &arithNode{pos, e.Name, l, r, value.Diff}, true, nil
		case `\subseteq`:
			return &cmpNode{pos, l, r, value.Subseteq}, true, nil
		case `\supseteq`:
			return &cmpNode{pos, r, l, value.Subseteq}, true, nil
		case `\subset`:
			return &cmpNode{pos, l, r, properSubset}, true, nil
		case `\supset`:
			return &cmpNode{pos, r, l, properSubset}, true, nil
		}
	}
	return nil, false, nil
}

func properSubset(a, b value.Value) (bool, error) {
	sub, err := value.Subseteq(a, b)
	if err != nil || !sub {
		return false, err
	}
	eq, err := value.Equal(a, b)
	return !eq, err
}

// fastBuiltin replaces the arithmetic and comparison operators of
// Naturals/Integers by direct calls.
func fastBuiltin(pos syntax.Pos, d *def, args []node) node {
	m := d.builtin.Module
	if m != "Naturals" && m != "Integers" {
		return nil
	}
	if len(args) == 2 {
		var fn func(a, b value.Value) (value.Value, error)
		var cmp func(a, b value.Value) (bool, error)
		switch d.builtin.Name {
		case "+":
			fn = value.Add
		case "-":
			fn = value.Sub
		case "*":
			fn = value.Mul
		case `\div`:
			fn = value.Div
		case "%":
			fn = value.Mod
		case "^":
			fn = value.Pow
		case "..":
			fn = value.Range
		case "<":
			cmp = value.Less
		case "=<":
			cmp = value.LessEq
		case ">":
			cmp = value.Greater
		case ">=":
			cmp = value.GreaterEq
		}
		if fn != nil {
			return &arithNode{at{pos}, d.builtin.Name, args[0], args[1], fn}
		}
		if cmp != nil {
			return &cmpNode{at{pos}, args[0], args[1], cmp}
		}
	}
	if len(args) == 1 && d.builtin.Name == "-." {
		return &unaryNode{at{pos}, args[0], value.Neg}
	}
	return nil
}

// children lists the direct subexpressions of e (for walks that need no
// resolution).
func children(e syntax.Expr) []syntax.Expr {
	var out []syntax.Expr
	add := func(xs ...syntax.Expr) {
		for _, x := range xs {
			if x != nil {
				out = append(out, x)
			}
		}
	}
	bounds := func(bs []syntax.Bound) {
		for _, b := range bs {
			add(b.Set)
		}
	}
	switch e := e.(type) {
	case *syntax.OpApp:
		for _, p := range e.Path {
			add(p.Args...)
		}
		add(e.Args...)
	case *syntax.Prime:
		add(e.X)
	case *syntax.Quant:
		bounds(e.Bounds)
		add(e.Body)
	case *syntax.TemporalQuant:
		add(e.Body)
	case *syntax.Choose:
		add(e.Bound.Set, e.Body)
	case *syntax.SetEnum:
		add(e.Elems...)
	case *syntax.SetFilter:
		add(e.Bound.Set, e.Pred)
	case *syntax.SetMap:
		bounds(e.Bounds)
		add(e.Elem)
	case *syntax.FuncLit:
		bounds(e.Bounds)
		add(e.Body)
	case *syntax.FuncSet:
		add(e.Domain, e.Range)
	case *syntax.RecordLit:
		for _, f := range e.Fields {
			add(f.Val)
		}
	case *syntax.RecordSet:
		for _, f := range e.Fields {
			add(f.Val)
		}
	case *syntax.Except:
		add(e.Func)
		for _, u := range e.Updates {
			for _, s := range u.Path {
				add(s.Index...)
			}
			add(u.Value)
		}
	case *syntax.FuncApp:
		add(e.Func)
		add(e.Args...)
	case *syntax.Field:
		add(e.Rec)
	case *syntax.Tuple:
		add(e.Elems...)
	case *syntax.CrossProduct:
		add(e.Sets...)
	case *syntax.If:
		add(e.Cond, e.Then, e.Else)
	case *syntax.Case:
		for _, a := range e.Arms {
			add(a.Cond, a.Body)
		}
		add(e.Other)
	case *syntax.Let:
		for _, d := range e.Defs {
			switch d := d.(type) {
			case *syntax.OpDef:
				add(d.Body)
			case *syntax.FuncDef:
				bounds(d.Bounds)
				add(d.Body)
			}
		}
		add(e.Body)
	case *syntax.Lambda:
		add(e.Body)
	case *syntax.Unchanged:
		add(e.X)
	case *syntax.Enabled:
		add(e.X)
	case *syntax.ActionBox:
		add(e.Action, e.Sub)
	case *syntax.ActionAngle:
		add(e.Action, e.Sub)
	case *syntax.Always:
		add(e.X)
	case *syntax.Eventually:
		add(e.X)
	case *syntax.LeadsTo:
		add(e.L, e.R)
	case *syntax.Fairness:
		add(e.Sub, e.Action)
	case *syntax.Label:
		add(e.Body)
	case *syntax.BulletList:
		add(e.Items...)
	}
	return out
}

// seeNames passes the identifiers of mod, in source order, to
// value.SeeNames: TLC prints a record's fields in the order its lexer
// first saw them, the root module first. String literals are left out:
// TLC interns them later (seeStrings), after the identifiers of the
// standard modules it parses, which are not all known here (("k" :> 1)
// @@ ("j" :> 2) prints as [j |-> 2, k |-> 1] in TLC: its TLC module has
// an identifier j).
func seeNames(mod *syntax.Module) {
	var ns []string
	var visit func(n syntax.Node) bool
	visit = func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.ConstantDecl:
			for _, d := range x.Decls {
				ns = append(ns, d.Name)
			}
		case *syntax.VariableDecl:
			ns = append(ns, x.Names...)
		case *syntax.OpDef:
			ns = append(ns, x.Name)
			for _, p := range x.Params {
				ns = append(ns, p.Name)
			}
		case *syntax.Ident:
			ns = append(ns, x.Name)
		case *syntax.OpApp:
			ns = append(ns, x.Name)
		case *syntax.RecordLit:
			for _, f := range x.Fields {
				ns = append(ns, f.Name)
			}
		case *syntax.RecordSet:
			for _, f := range x.Fields {
				ns = append(ns, f.Name)
			}
		case *syntax.Field:
			// r.f: the name comes after r in the text.
			syntax.Inspect(x.Rec, visit)
			ns = append(ns, x.Name)
			return false
		case *syntax.Except:
			// [f EXCEPT !.a[i] = v]: f, then each update's path and
			// value, in the text's order.
			syntax.Inspect(x.Func, visit)
			for _, u := range x.Updates {
				for _, st := range u.Path {
					if st.Field != "" {
						ns = append(ns, st.Field)
					}
					for _, e := range st.Index {
						syntax.Inspect(e, visit)
					}
				}
				syntax.Inspect(u.Value, visit)
			}
			return false
		}
		return true
	}
	syntax.Inspect(mod, visit)
	value.SeeNames(ns)
}

// seeStrings passes the string literals of the modules, in source order,
// the root module first, to value.SeeNames, after every identifier: TLC
// interns them when it turns them into values, once the modules are
// parsed. The fields of ("fill" :> "red") @@ ("stroke" :> "#333") then
// print, and an SVG element's attributes render, in the order the spec
// names them, as TLC's do.
func seeStrings(mods []*syntax.Module) {
	var ns []string
	for _, mod := range mods {
		syntax.Inspect(mod, func(n syntax.Node) bool {
			if s, ok := n.(*syntax.StringLit); ok {
				ns = append(ns, s.Value)
			}
			return true
		})
	}
	value.SeeNames(ns)
}

// unionOfTwo is a \cup b within UNION {a, b, ...}, with UNION's words for
// an element that is not a set.
func unionOfTwo(a, b value.Value) (value.Value, error) { return value.UnionOf(a, b) }
