package eval

import (
	"sort"
	"sync"
	"sync/atomic"
)

// Expression coverage (TLC's -coverage "cost model").
//
// Each root (the initial predicate, each action of NextActions, each
// invariant) has a tree of the expressions evaluated under it. A node of
// the tree is a compiled expression reached along one path of calls: the
// body of an operator called from two actions is counted twice, once
// under each, as TLC counts it. The tree grows as the evaluation meets
// expressions, so only what was reached is in it.
//
// Counting runs in the interpreter alone (EnableCoverage turns the
// compiled evaluator off) and touches nothing when coverage is off:
// every hook is behind ctx.cov, nil unless a root was entered.

// CovNode is an expression of a coverage tree and its counts.
type CovNode struct {
	key    node
	parent *CovNode
	// count is the number of times the expression was evaluated; cost the
	// number of elements enumerated from the set it denotes (x' \in S, a
	// function's domain).
	count, cost atomic.Int64

	mu    sync.Mutex
	kids  map[node]*CovNode
	order []*CovNode
}

// child is n's node under t. An expression met again below itself (a
// recursive definition's body) is counted on its first node, as TLC
// counts a recursion: the tree does not grow with the depth of the
// recursion.
func (t *CovNode) child(n node) *CovNode {
	t.mu.Lock()
	k := t.kids[n]
	if k == nil {
		if t.kids == nil {
			t.kids = map[node]*CovNode{}
		}
		for a := t; a != nil; a = a.parent {
			if a.key == n {
				k = a
				break
			}
		}
		if k == nil {
			k = &CovNode{key: n, parent: t}
			t.order = append(t.order, k)
		}
		t.kids[n] = k
	}
	t.mu.Unlock()
	return k
}

// ExprCoverage holds the coverage trees of a model.
type ExprCoverage struct {
	m          *Model
	init       *CovNode
	actions    []*CovNode
	invariants []*CovNode
}

// EnableCoverage starts counting the evaluations of every expression
// under the initial predicate, each action and each invariant. It must
// be called before the evaluators of the search are made: from then on
// the model is interpreted (the compiled evaluator counts nothing).
func (m *Model) EnableCoverage() *ExprCoverage {
	m.interpret = true
	x := &ExprCoverage{m: m, init: &CovNode{}}
	for range m.NextActions() {
		x.actions = append(x.actions, &CovNode{})
	}
	for range m.Invariants {
		x.invariants = append(x.invariants, &CovNode{})
	}
	m.exprCov = x
	return x
}

// enterRoot makes t the current coverage tree of c (nothing when coverage
// is off) and returns what restores the previous one.
func (c *ctx) enterRoot(t *CovNode) func() {
	prev := c.cov
	c.cov = t
	return func() { c.cov = prev }
}

// covIn counts an evaluation of n under the current tree node and makes
// n's node current; it returns the node to go back to (covOut). An
// expression evaluated where the enumeration already stands (an action
// conjunct that is evaluated, not enumerated) is counted on its own node.
func (c *ctx) covIn(n node) *CovNode {
	t := c.cov
	if t.key == n {
		// An action's conjunct evaluated where the enumeration stands.
		// TLC expands an operator's call there, and applies a variable
		// or an operator of the standard modules (Len, <, +) without
		// counting it: only what the conjunct yields counts (covEnum).
		switch n.(type) {
		case *callNode, *varNode, *arithNode, *cmpNode, *builtinNode, *letRefNode, *letCallNode, *paramCallNode:
		default:
			t.count.Add(1)
		}
		return t
	}
	k := t.child(n)
	k.count.Add(1)
	c.cov = k
	return t
}

func (c *ctx) covOut(t *CovNode) { c.cov = t }

// covEnum enters n's node for its enumeration (which TLC does not count
// as an evaluation) and returns the continuation to call in its place,
// which goes on in the enclosing node: the conjuncts after n are n's
// siblings, not its children. As TLC, a conjunct of an action that is
// not itself a conjunction, disjunction, quantifier or call counts one
// more each time what follows it yields a state; in the initial
// predicate, only the last such conjunct does (covMadeState).
func (c *ctx) covEnum(n node, k func() error) (func() error, *CovNode) {
	t := c.cov
	if t.key == n {
		return k, t
	}
	in := t.child(n)
	c.cov = in
	counts := true
	switch n.(type) {
	case *andNode, *orNode, *quantNode, *callNode, *letNode, *labelNode, *ifNode, *caseNode, *letRefNode, *letCallNode, *impliesNode:
		counts = false
	}
	init := c.initMode
	return func() error {
		made := c.covMade
		cur := c.cov
		c.cov = t
		if counts {
			c.covLast = in
		}
		err := k()
		c.cov = cur
		if counts && !init && c.covMade > made {
			in.count.Add(1)
		}
		return err
	}, t
}

// covMadeState counts a state yielded by the enumeration and returns what
// restores the coverage tree after the state is handed on: what the
// checker evaluates in it (invariants, properties, constraints) is not
// part of the action (an invariant has a tree of its own).
func (c *ctx) covMadeState() func() {
	if c.cov == nil {
		return func() {}
	}
	c.covMade++
	if c.initMode && c.covLast != nil {
		c.covLast.count.Add(1)
	}
	return c.enterRoot(nil)
}

// covCost adds n elements enumerated to the current node.
func (c *ctx) covCost(n int) {
	if c.cov != nil {
		c.cov.cost.Add(int64(n))
	}
}

// CovLine is a node of a coverage report: an expression's location, its
// counts and the expressions evaluated inside it, in source order.
type CovLine struct {
	Loc         Location
	Count, Cost int64
	Kids        []*CovLine
	// Unchanged: an UNCHANGED, whose report is one line (TLC's).
	Unchanged bool
}

// Init, Action and Invariant are the report trees of the initial
// predicate, action i of NextActions and invariant i. A tree's root has
// no location: its kids are the expression of the root.
func (x *ExprCoverage) Init() *CovLine           { return x.report(x.init) }
func (x *ExprCoverage) Action(i int) *CovLine    { return x.report(x.actions[i]) }
func (x *ExprCoverage) Invariant(i int) *CovLine { return x.report(x.invariants[i]) }

// report snapshots tree t. Expressions of modules that are not the
// spec's (the standard modules) are left out, their insides shown in
// their place; so is an expression at the same location as the one
// around it (a parenthesized or relabelled one).
func (x *ExprCoverage) report(t *CovNode) *CovLine {
	root := &CovLine{}
	x.addTop(root, t)
	return root
}

// addTop adds the top of a root's tree: a root that calls a definition
// (Init in Spec == Init /\ [][Next]_v, an invariant) stands for the
// definition's body, as in TLC's report, and the conjunction of a
// SPECIFICATION's initial parts is none of the spec's expressions.
func (x *ExprCoverage) addTop(root *CovLine, t *CovNode) {
	t.mu.Lock()
	kids := append([]*CovNode(nil), t.order...)
	t.mu.Unlock()
	for _, k := range kids {
		if _, ok := k.key.(*callNode); ok || k.key == x.m.init {
			x.addTop(root, k)
			continue
		}
		x.addKids(root, &CovNode{order: []*CovNode{k}})
	}
}

func (x *ExprCoverage) addKids(into *CovLine, t *CovNode) {
	t.mu.Lock()
	kids := append([]*CovNode(nil), t.order...)
	t.mu.Unlock()
	type ranked struct {
		l    *CovLine
		rank int
	}
	var lines []ranked
	for _, k := range kids {
		loc := x.m.location(k.key.position())
		if loc.Module == "" || standardModule(loc.Module) || loc == into.Loc {
			// Left out: its expressions take its place.
			sub := &CovLine{Loc: into.Loc}
			x.addKids(sub, k)
			for _, l := range sub.Kids {
				lines = append(lines, ranked{l, kidRank(t.key, k.key)})
			}
			continue
		}
		l := &CovLine{Loc: loc, Count: k.count.Load(), Cost: k.cost.Load()}
		_, l.Unchanged = k.key.(*unchangedNode)
		x.addKids(l, k)
		lines = append(lines, ranked{l, kidRank(t.key, k.key)})
	}
	// In TLC's order (the walk of the semantic tree): an operator's body
	// before its arguments, a quantifier's body before its bound sets,
	// and otherwise as the source reads.
	sort.SliceStable(lines, func(i, j int) bool {
		if lines[i].rank != lines[j].rank {
			return lines[i].rank < lines[j].rank
		}
		return locBefore(lines[i].l.Loc, lines[j].l.Loc)
	})
	// Two nodes at one location (the same expression reached through two
	// compiled forms) are one line.
	for _, r := range lines {
		l := r.l
		if n := len(into.Kids); n > 0 && into.Kids[n-1].Loc == l.Loc {
			p := into.Kids[n-1]
			p.Count += l.Count
			p.Cost += l.Cost
			p.Kids = append(p.Kids, l.Kids...)
			continue
		}
		into.Kids = append(into.Kids, l)
	}
}

// kidRank is 1 for the expressions TLC's report lists after the others
// under parent: an operator's arguments, a binder's sets.
func kidRank(parent, kid node) int {
	var b *binder
	switch p := parent.(type) {
	case *callNode:
		for _, a := range p.args {
			if a == kid {
				return 1
			}
		}
		return 0
	case *quantNode:
		b = p.b
	case *chooseNode:
		b = p.b
	case *setFilterNode:
		b = p.b
	case *setMapNode:
		b = p.b
	case *funcLitNode:
		b = p.b
	default:
		return 0
	}
	for _, s := range b.sets {
		if s == kid {
			return 1
		}
	}
	return 0
}

// locBefore orders locations as TLC's report lists the expressions of one
// definition: by module, then by where they begin.
func locBefore(a, b Location) bool {
	if a.Module != b.Module {
		return a.Module < b.Module
	}
	if a.BeginLine != b.BeginLine {
		return a.BeginLine < b.BeginLine
	}
	if a.BeginCol != b.BeginCol {
		return a.BeginCol < b.BeginCol
	}
	if a.EndLine != b.EndLine {
		return a.EndLine > b.EndLine
	}
	return a.EndCol > b.EndCol
}

// standardModule reports whether module is one of the standard modules
// TLC leaves out of its coverage report.
func standardModule(module string) bool {
	switch module {
	case "Naturals", "Integers", "Reals", "Sequences", "FiniteSets", "Bags", "TLC", "RealTime", "Randomization", "Json", "Toolbox", "TLCExt":
		return true
	}
	return false
}
