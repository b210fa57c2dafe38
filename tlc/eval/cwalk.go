package eval

// nodeKids lists the compiled subexpressions of n that evaluate in the
// same definition (the bodies of called definitions are not included; see
// defsCalled).
func nodeKids(n node) []node {
	var out []node
	add := func(xs ...node) {
		for _, x := range xs {
			if x != nil {
				out = append(out, x)
			}
		}
	}
	binder := func(b *binder) {
		if b != nil {
			add(b.sets...)
		}
	}
	switch n := n.(type) {
	case *primeNode:
		add(n.x)
	case *callNode:
		add(n.args...)
		add(n.instArgs...)
	case *funcDefNode:
		add(n.lit)
	case *funcDefApp:
		add(n.arg)
	case *paramCallNode:
		add(n.args...)
	case *closureNode:
		add(n.body)
	case *letNode:
		for _, d := range n.defs {
			add(d.body)
			if d.fn != nil {
				add(d.fn)
			}
		}
		add(n.body)
	case *letCallNode:
		add(n.args...)
	case *letFuncApp:
		add(n.arg)
	case *builtinNode:
		add(n.args...)
	case *andNode:
		add(n.items...)
	case *orNode:
		add(n.items...)
	case *notNode:
		add(n.x)
	case *impliesNode:
		add(n.l, n.r)
	case *equivNode:
		add(n.l, n.r)
	case *eqNode:
		add(n.l, n.r)
	case *inNode:
		add(n.x, n.s)
	case *arithNode:
		add(n.l, n.r)
	case *cmpNode:
		add(n.l, n.r)
	case *unaryNode:
		add(n.x)
	case *setEnumNode:
		add(n.elems...)
	case *tupleNode:
		add(n.elems...)
	case *recordNode:
		add(n.vals...)
	case *funcAppNode:
		add(n.f, n.arg)
	case *varAppNode:
		add(n.f, n.arg)
	case *componentNode:
		add(n.f, n.arg)
	case *fieldNode:
		add(n.rec)
	case *ifNode:
		add(n.cond, n.then, n.els)
	case *caseNode:
		add(n.conds...)
		add(n.bodies...)
		add(n.other)
	case *exceptNode:
		add(n.f)
		for _, u := range n.updates {
			add(u.path...)
			add(u.val)
		}
	case *quantNode:
		binder(n.b)
		add(n.body)
	case *chooseNode:
		binder(n.b)
		add(n.body)
	case *setFilterNode:
		binder(n.b)
		add(n.pred)
	case *setMapNode:
		binder(n.b)
		add(n.elem)
	case *funcLitNode:
		binder(n.b)
		add(n.body)
	case *unchangedNode:
		add(n.x)
	case *enabledNode:
		add(n.x)
	case *labelNode:
		add(n.x)
	case *productNode:
		add(n.sets...)
	case *composeNode:
		add(n.l, n.r)
	case *actionArgNode:
		add(n.x)
	}
	return out
}

// defsCalled lists the definitions n refers to directly.
func defsCalled(n node) []*def {
	switch n := n.(type) {
	case *callNode:
		return []*def{n.d}
	case *funcDefApp:
		return []*def{n.d}
	case *closureNode:
		if n.d != nil {
			return []*def{n.d}
		}
	case *substNode:
		return []*def{n.d}
	}
	return nil
}

// effectful reports whether evaluating d may do more than compute a
// value: print, use TLC's registers or statistics, write a file, read the
// clock or draw at random. Such a definition is left to the interpreter,
// which does each of these exactly when TLC would (the compiled code may
// evaluate a subexpression again in the interpreter, see cframe.go).
func (m *Model) effectful(d *def) bool {
	switch d.effects.Load() {
	case 1:
		return false
	case 2:
		return true
	}
	eff := m.walkEffects(d, map[*def]bool{})
	if eff {
		d.effects.Store(2)
	} else {
		d.effects.Store(1)
	}
	return eff
}

func (m *Model) walkEffects(d *def, seen map[*def]bool) bool {
	switch d.effects.Load() {
	case 1:
		return false
	case 2:
		return true
	}
	if seen[d] {
		return false // on a cycle: the others decide
	}
	seen[d] = true
	var root node
	switch d.kind {
	case dkBuiltin:
		return d.builtin.SideEffect || volatile[d.builtin.Name]
	case dkOp, dkFunc:
		root = d.compiled
	case dkSubst:
		root = d.substNode
	}
	return m.walkNodeEffects(root, seen)
}

// nodeEffectful is effectful for an expression.
func (m *Model) nodeEffectful(n node) bool { return m.walkNodeEffects(n, map[*def]bool{}) }

func (m *Model) walkNodeEffects(root node, seen map[*def]bool) bool {
	if root == nil {
		return false
	}
	var walk func(n node) bool
	walk = func(n node) bool {
		if b, ok := n.(*builtinNode); ok && (b.b.SideEffect || volatile[b.b.Name]) {
			return true
		}
		for _, c := range defsCalled(n) {
			if m.walkEffects(c, seen) {
				return true
			}
		}
		for _, k := range nodeKids(n) {
			if walk(k) {
				return true
			}
		}
		return false
	}
	return walk(root)
}
