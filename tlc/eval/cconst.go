package eval

// constant reports whether n, evaluated inside inner frames of its own
// (binders, LETs, EXCEPT's @ within n), depends on nothing but constants:
// no variable, no name bound outside it, no definition that reads the
// state, no effect, no input read from outside the spec (see input.go).
// Its value is then the same wherever and whenever it is evaluated
// (TypeOK's [Servers -> Nat], Seq(Entries)).
func (m *Model) constant(n node, inner int) bool {
	if m.constMemo == nil {
		m.constMemo = map[constKey]bool{}
	}
	k := constKey{n, inner}
	if v, ok := m.constMemo[k]; ok {
		return v
	}
	v := m.constantOf(n, inner)
	m.constMemo[k] = v
	return v
}

// constantLocked is constant(n, 0) for the interpreter, which asks while
// other workers may be compiling (the memo is guarded by ccMu).
func (m *Model) constantLocked(n node) bool {
	if _, lit := n.(*litNode); lit {
		return false
	}
	m.ccMu.Lock()
	defer m.ccMu.Unlock()
	return m.constant(n, 0)
}

type constKey struct {
	n     node
	inner int
}

func (m *Model) constantOf(n node, inner int) bool {
	all := func(ns []node, in int) bool {
		for _, x := range ns {
			if x != nil && !m.constant(x, in) {
				return false
			}
		}
		return true
	}
	binder := func(b *binder, body node) bool {
		return all(b.sets, inner) && m.constant(body, inner+1)
	}
	switch n := n.(type) {
	case *litNode:
		return true
	case *boundNode:
		return n.depth < inner
	case *callNode:
		d := n.d
		if n.hasInst || n.site > 0 || d.sc.paramInst || d.input {
			return false
		}
		switch d.kind {
		case dkValue:
			return len(n.args) == 0
		case dkOp:
			for _, a := range n.args {
				if _, ok := a.(*closureNode); ok {
					return false
				}
			}
			return !d.state && !d.prime && !d.recursive && d.compiled != nil && !m.effectful(d) && all(n.args, inner)
		case dkFunc:
			return len(n.args) == 0 && !d.state && !d.recursive && !m.effectful(d)
		}
		return false
	case *funcDefApp:
		d := n.d
		return !d.state && !d.recursive && !d.sc.paramInst && !d.input && !m.effectful(d) && m.constant(n.arg, inner)
	case *builtinNode:
		if n.b.SideEffect || n.b.Input || volatile[n.b.Name] {
			return false
		}
		for _, a := range n.args {
			if cn, ok := a.(*closureNode); ok {
				if cn.d == nil || cn.inst || cn.param >= 0 || cn.d.state || m.effectful(cn.d) {
					return false
				}
				continue
			}
			if !m.constant(a, inner) {
				return false
			}
		}
		return true
	case *andNode:
		return all(n.items, inner)
	case *orNode:
		return all(n.items, inner)
	case *notNode:
		return m.constant(n.x, inner)
	case *impliesNode:
		return all([]node{n.l, n.r}, inner)
	case *equivNode:
		return all([]node{n.l, n.r}, inner)
	case *eqNode:
		return all([]node{n.l, n.r}, inner)
	case *inNode:
		return all([]node{n.x, n.s}, inner)
	case *arithNode:
		return all([]node{n.l, n.r}, inner)
	case *cmpNode:
		return all([]node{n.l, n.r}, inner)
	case *unaryNode:
		return m.constant(n.x, inner)
	case *setEnumNode:
		return all(n.elems, inner)
	case *tupleNode:
		return all(n.elems, inner)
	case *recordNode:
		return all(n.vals, inner)
	case *funcAppNode:
		return all([]node{n.f, n.arg}, inner)
	case *componentNode:
		return all([]node{n.f, n.arg}, inner)
	case *fieldNode:
		return m.constant(n.rec, inner)
	case *ifNode:
		return all([]node{n.cond, n.then, n.els}, inner)
	case *caseNode:
		return all(n.conds, inner) && all(n.bodies, inner) && all([]node{n.other}, inner)
	case *productNode:
		return all(n.sets, inner)
	case *labelNode:
		return m.constant(n.x, inner)
	case *quantNode:
		return binder(n.b, n.body)
	case *chooseNode:
		return binder(n.b, n.body)
	case *setFilterNode:
		return binder(n.b, n.pred)
	case *setMapNode:
		return binder(n.b, n.elem)
	case *funcLitNode:
		return binder(n.b, n.body)
	case *exceptNode:
		if !m.constant(n.f, inner) {
			return false
		}
		for _, u := range n.updates {
			if !all(u.path, inner) || !m.constant(u.val, inner+1) {
				return false
			}
		}
		return true
	}
	return false
}
