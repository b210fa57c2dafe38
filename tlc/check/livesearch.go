package check

import (
	"errors"
	"fmt"
	"strings"

	"github.com/modelfuzz/modelfuzz/tlc/eval"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// fairCond is a WF_v(A) or SF_v(A): en is ENABLED <<A>>_v, step <<A>>_v.
type fairCond struct {
	strong   bool
	en, step *eval.Pred
}

func fairConds(ts []*eval.Temporal) []fairCond {
	out := make([]fairCond, len(ts))
	for i, t := range ts {
		out[i] = fairCond{strong: t.Op == eval.TSF, en: t.Pred, step: t.Step}
	}
	return out
}

// witness is a place a cycle must pass: node n, and edge e from it (-1:
// the node is enough).
type witness struct{ n, e int32 }

// search is the search of one form in the graph.
type search struct {
	g    *graph
	f    *form
	fair []fairCond
	// restrict are the conditions on the states and steps of the end
	// component (and of the path there after the trigger).
	restrict []cond
	// cand marks the nodes a component may contain: stamp[n] == cur.
	stamp []int32
	cur   int32
	// member marks the nodes of the component being examined:
	// member[n] == comp.
	member []int32
	comp   int32
	// Tarjan's numbering, by node (-1: not visited).
	index, low []int32
	onStack    []bool
	// parents of the breadth-first searches: of the path from an initial
	// state, then from each trigger's state: the edge into the node, -1
	// at a source, -2 where not reached.
	parents [][]int32
	from    []int32 // the source node of each edge
}

// lasso is a violating behaviour: nodes and the edges into them (-1 for
// the first), and where its cycle starts; its last edge returns there.
type lasso struct {
	nodes, edges []int32
	loop         int   // index in nodes of the state the cycle returns to
	back         int32 // the edge that closes the cycle
}

// find looks for a fair behaviour in f.
func (g *graph) find(f *form, specFair []fairCond) *lasso {
	n := len(g.fps)
	s := &search{g: g, f: f, fair: append(append([]fairCond(nil), specFair...), fairConds(f.fair)...)}
	s.from = make([]int32, len(g.to))
	for v := 0; v < n; v++ {
		for e := g.off[v]; e < g.off[v+1]; e++ {
			s.from[e] = int32(v)
		}
	}
	var srcA []int32
	for _, v := range g.inits {
		if g.nodeOK(v, f.init) && g.nodeOK(v, f.glob) {
			srcA = append(srcA, v)
		}
	}
	region := s.bfs(srcA, f.glob)
	s.parents = append(s.parents, region)
	s.restrict = f.glob
	for _, tr := range f.trig {
		s.restrict = append(append([]cond(nil), s.restrict...), tr.then...)
		var src []int32
		for v := int32(0); v < int32(n); v++ {
			if region[v] != -2 && g.nodeOK(v, tr.at) && g.nodeOK(v, s.restrict) {
				src = append(src, v)
			}
		}
		if len(src) == 0 {
			return nil
		}
		region = s.bfs(src, s.restrict)
		s.parents = append(s.parents, region)
	}
	// The end component: states and steps satisfying the restrictions and
	// the <>[] conditions.
	s.restrict = append(append([]cond(nil), s.restrict...), f.ea...)
	s.stamp = make([]int32, n)
	s.member = make([]int32, n)
	s.cur = 1
	var cand []int32
	for v := int32(0); v < int32(n); v++ {
		if region[v] != -2 && g.nodeOK(v, s.restrict) {
			s.stamp[v] = s.cur
			cand = append(cand, v)
		}
	}
	comp, wit := s.components(cand)
	if comp == nil {
		return nil
	}
	return s.lasso(comp, wit, region)
}

// bfs explores from src along the edges and into the states that satisfy
// cs; it returns the parent edge of each node (-1 at a source, -2 where
// not reached).
func (s *search) bfs(src []int32, cs []cond) []int32 {
	g := s.g
	parent := make([]int32, len(g.fps))
	for i := range parent {
		parent[i] = -2
	}
	queue := make([]int32, 0, len(src))
	for _, v := range src {
		if parent[v] == -2 {
			parent[v] = -1
			queue = append(queue, v)
		}
	}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for e := g.off[v]; e < g.off[v+1]; e++ {
			w := g.to[e]
			if parent[w] != -2 || !g.edgeOK(e, cs) || !g.nodeOK(w, cs) {
				continue
			}
			parent[w] = e
			queue = append(queue, w)
		}
	}
	return parent
}

// inner reports whether edge e is inside the component being examined.
func (s *search) inner(e int32) bool {
	return s.member[s.g.to[e]] == s.comp && s.g.edgeOK(e, s.restrict)
}

// components finds a fair accepting strongly connected component among
// the candidate nodes (stamp == cur), with the witnesses a cycle through
// it must visit.
func (s *search) components(cand []int32) ([]int32, []witness) {
	for _, c := range s.sccs(cand) {
		if comp, wit := s.accept(c); comp != nil {
			return comp, wit
		}
	}
	return nil, nil
}

// accept examines component c (its nodes are stamped cur).
func (s *search) accept(c []int32) ([]int32, []witness) {
	g := s.g
	f := s.f
	s.comp++
	for _, v := range c {
		s.member[v] = s.comp
	}
	hasEdge := false
	aeWit := make([]witness, len(f.ae))
	for i := range aeWit {
		aeWit[i] = witness{-1, -1}
	}
	fairWit := make([]witness, len(s.fair))
	enabled := make([]bool, len(s.fair))
	for i := range fairWit {
		fairWit[i] = witness{-1, -1}
	}
	for _, v := range c {
		for i, fc := range s.fair {
			if g.nodeBit(v, fc.en) {
				enabled[i] = true
			} else if !fc.strong && fairWit[i].n < 0 {
				fairWit[i] = witness{v, -1}
			}
		}
		for e := g.off[v]; e < g.off[v+1]; e++ {
			if !s.inner(e) {
				continue
			}
			hasEdge = true
			for i, d := range f.ae {
				if aeWit[i].n >= 0 {
					continue
				}
				for _, cd := range d {
					if g.condAt(v, e, cd) {
						if cd.p.Action {
							aeWit[i] = witness{v, e}
						} else {
							aeWit[i] = witness{v, -1}
						}
						break
					}
				}
			}
			for i, fc := range s.fair {
				if fairWit[i].n < 0 && g.edgeBit(e, fc.step) {
					fairWit[i] = witness{v, e}
				}
			}
		}
	}
	if !hasEdge {
		return nil, nil
	}
	for _, w := range aeWit {
		if w.n < 0 {
			return nil, nil
		}
	}
	var bad []int
	for i, fc := range s.fair {
		if fairWit[i].n >= 0 {
			continue
		}
		if !fc.strong || enabled[i] {
			if !fc.strong {
				return nil, nil // weak fairness: no state of c can help
			}
			bad = append(bad, i)
		}
	}
	if len(bad) > 0 {
		// Strong fairness fails in c: a fair behaviour can only stay in
		// the states of c where those actions are not enabled.
		saved := s.cur
		s.cur++
		var rest []int32
		for _, v := range c {
			ok := true
			for _, i := range bad {
				if g.nodeBit(v, s.fair[i].en) {
					ok = false
					break
				}
			}
			if ok {
				s.stamp[v] = s.cur
				rest = append(rest, v)
			}
		}
		if len(rest) == 0 {
			s.cur = saved
			return nil, nil
		}
		comp, wit := s.components(rest)
		if comp == nil {
			s.cur = saved // the caller goes on with its other components
			return nil, nil
		}
		return comp, wit
	}
	var wit []witness
	wit = append(wit, aeWit...)
	for _, w := range fairWit {
		if w.n >= 0 {
			wit = append(wit, w)
		}
	}
	return c, wit
}

// sccs returns the strongly connected components of the candidate nodes
// (Tarjan's algorithm, iterative), along inner edges.
func (s *search) sccs(cand []int32) [][]int32 {
	g := s.g
	cur := s.cur
	if s.index == nil {
		s.index = make([]int32, len(g.fps))
		s.low = make([]int32, len(g.fps))
		s.onStack = make([]bool, len(g.fps))
		for i := range s.index {
			s.index[i] = -1
		}
	}
	index, low, onStack := s.index, s.low, s.onStack
	defer func() {
		for _, v := range cand {
			index[v] = -1
		}
	}()
	var stack []int32
	var out [][]int32
	next := int32(0)
	type frame struct {
		v int32
		e int32
	}
	for _, root := range cand {
		if index[root] >= 0 {
			continue
		}
		call := []frame{{root, g.off[root]}}
		index[root], low[root] = next, next
		next++
		stack = append(stack, root)
		onStack[root] = true
		for len(call) > 0 {
			fr := &call[len(call)-1]
			v := fr.v
			if fr.e < g.off[v+1] {
				e := fr.e
				fr.e++
				w := g.to[e]
				if s.stamp[w] != cur || !g.edgeOK(e, s.restrict) {
					continue
				}
				if index[w] < 0 {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					call = append(call, frame{w, g.off[w]})
				} else if onStack[w] && index[w] < low[v] {
					low[v] = index[w]
				}
				continue
			}
			call = call[:len(call)-1]
			if len(call) > 0 {
				p := call[len(call)-1].v
				if low[v] < low[p] {
					low[p] = low[v]
				}
			}
			if low[v] == index[v] {
				var c []int32
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					c = append(c, w)
					if w == v {
						break
					}
				}
				out = append(out, c)
			}
		}
	}
	return out
}

// lasso builds the behaviour that ends in component comp (stamped cur),
// through its witnesses.
func (s *search) lasso(comp []int32, wit []witness, region []int32) *lasso {
	g := s.g
	// The entry: the component's state nearest the sources.
	dist := func(parent []int32, v int32) int {
		d := 0
		for parent[v] >= 0 {
			v = s.from[parent[v]]
			d++
		}
		return d
	}
	entry, best := comp[0], -1
	for _, v := range comp {
		if d := dist(region, v); best < 0 || d < best {
			entry, best = v, d
		}
	}
	// The prefix, backwards: to the last trigger's state, to the one
	// before, and so on to an initial state.
	var nodes, edges []int32
	v := entry
	for i := len(s.parents) - 1; i >= 0; i-- {
		parent := s.parents[i]
		for parent[v] >= 0 {
			nodes, edges = append(nodes, v), append(edges, parent[v])
			v = s.from[parent[v]]
		}
	}
	nodes, edges = append(nodes, v), append(edges, -1)
	for i, j := 0, len(nodes)-1; i < j; i, j = i+1, j-1 {
		nodes[i], nodes[j] = nodes[j], nodes[i]
		edges[i], edges[j] = edges[j], edges[i]
	}
	l := &lasso{loop: len(nodes) - 1}
	// The cycle, as edges from the entry through every witness and back.
	var cycle []int32
	at := entry
	for _, w := range wit {
		cycle = append(cycle, s.path(at, w.n)...)
		at = w.n
		if w.e >= 0 {
			cycle = append(cycle, w.e)
			at = g.to[w.e]
		}
	}
	cycle = append(cycle, s.path(at, entry)...)
	if len(cycle) == 0 {
		// A component of one state: prefer stuttering, its first edge.
		for e := g.off[entry]; e < g.off[entry+1]; e++ {
			if s.inner(e) {
				cycle = append(cycle, e)
				break
			}
		}
		if len(cycle) > 0 && g.to[cycle[0]] != entry {
			cycle = append(cycle, s.path(g.to[cycle[0]], entry)...)
		}
	}
	for _, e := range cycle[:len(cycle)-1] {
		nodes, edges = append(nodes, g.to[e]), append(edges, e)
	}
	l.nodes, l.edges, l.back = nodes, edges, cycle[len(cycle)-1]
	return l
}

// path is a shortest path of inner edges from a to b.
func (s *search) path(a, b int32) []int32 {
	if a == b {
		return nil
	}
	g := s.g
	parent := map[int32]int32{a: -1}
	queue := []int32{a}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for e := g.off[v]; e < g.off[v+1]; e++ {
			w := g.to[e]
			if _, seen := parent[w]; seen || !s.inner(e) {
				continue
			}
			parent[w] = e
			if w == b {
				var p []int32
				for x := b; parent[x] >= 0; x = s.from[parent[x]] {
					p = append(p, parent[x])
				}
				for i, j := 0, len(p)-1; i < j; i, j = i+1, j-1 {
					p[i], p[j] = p[j], p[i]
				}
				return p
			}
			queue = append(queue, w)
		}
	}
	return nil // not reached: a and b are in one component
}

// stuttering reports whether the lasso's cycle is its last state's
// stuttering step alone.
func (g *graph) stuttering(l *lasso) bool {
	last := l.nodes[len(l.nodes)-1]
	return l.loop == len(l.nodes)-1 && l.back == g.off[last]
}

// checkLiveness checks the liveness properties on the graph the search
// recorded; a violation replaces res's verdict.
func (ps *Properties) checkLiveness(res *Result, opt Options) {
	g := ps.graph
	g.finish()
	fair := fairConds(ps.fair)
	assume := ps.assume
	if assume == nil {
		assume = []*form{{}}
	}
	for _, lp := range ps.live {
		if lp.tab != nil {
			l, err := g.findTableau(lp.tab, fair)
			if err != nil {
				res.Result, res.ExitCode = "error", ExitLivenessEval
				res.Error = fmt.Sprintf("checking temporal property %s: %v", lp.name, err)
				return
			}
			if l != nil {
				ps.violation(res, lp, l, assume)
				return
			}
			continue
		}
		for _, nf := range lp.neg {
			var l *lasso
			var found *form
			for _, a := range assume {
				fs, err := nf.and(a)
				if err != nil {
					res.Result, res.ExitCode = "error", ExitLivenessEval
					res.Error = fmt.Sprintf("checking temporal property %s: %v", lp.name, err)
					return
				}
				for _, f := range fs {
					if l = g.find(f, fair); l != nil {
						found = f
						break
					}
				}
				if l != nil {
					break
				}
			}
			if l == nil {
				continue
			}
			ps.violation(res, lp, l, assume)
			res.NoFairness = res.Stuttering && len(ps.fair) == 0 && len(ps.assumeT) == 0 && found.fairnessCould()
			return
		}
	}
}

// violation reports the violation of lp by lasso l in res.
func (ps *Properties) violation(res *Result, lp liveProp, l *lasso, assume []*form) {
	g := ps.graph
	l.dropRepeats()
	res.Result, res.ExitCode, res.Property = "liveness", ExitLiveness, lp.name
	res.Error = violatedMessage([]string{lp.name})
	tr, err := ps.states(l)
	if err != nil {
		res.Error += " (the counterexample could not be rebuilt: " + err.Error() + ")"
		return
	}
	res.Trace = tr
	if g.stuttering(l) {
		res.Stuttering = true
	} else {
		res.LoopBack = l.loop + 1
	}
	if names, err := ps.violatedBy(tr, l.loop, assume, lp.name); err == nil {
		res.Error = violatedMessage(names)
	}
}

// states rebuilds the states of a lasso from its fingerprints, by
// enumerating the initial states and then the successors of each state.
func (ps *Properties) states(l *lasso) ([]State, error) {
	g := ps.graph
	m := ps.m
	ev := m.NewEvaluator()
	var cur []value.Value
	errFound := errors.New("found")
	// TLCGet("level") is each state's place in the lasso, which the search
	// found it at when the lasso's prefix is a path of the search (a
	// VIEW may read it: a trace-explorer spec's does).
	ev.SetLevel(1)
	err := ev.Init(func(s []value.Value) error {
		fp, err := Fingerprint(m, ev, s)
		if err != nil {
			return err
		}
		if fp == g.fps[l.nodes[0]] {
			cur = s
			return errFound
		}
		return nil
	})
	if err != nil && err != errFound {
		return nil, err
	}
	if cur == nil {
		return nil, errors.New("its initial state was not found again")
	}
	out := []State{{Vars: m.Vars, Values: cur}}
	for i := 1; i < len(l.nodes); i++ {
		e := l.edges[i]
		if e == g.off[l.nodes[i-1]] {
			out = append(out, State{Vars: m.Vars, Values: cur}) // stuttering
			continue
		}
		want := g.fps[l.nodes[i]]
		var next, loose []value.Value
		ev.SetLevel(i)
		err := ev.Next(cur, func(t []value.Value) error {
			ev.SetLevel(i + 1)
			fp, err := Fingerprint(m, ev, t)
			ev.SetLevel(i)
			if err != nil || fp != want {
				return err
			}
			if loose == nil {
				loose = t
			}
			if g.ew > 0 {
				b := make([]uint64, g.ew)
				if err := evalBits(ev, g.stepPreds, cur, t, false, b); err != nil {
					return err
				}
				for k := range b {
					if b[k] != g.ebits[int(e)*g.ew+k] {
						return nil
					}
				}
			}
			next = t
			return errFound
		})
		if err != nil && err != errFound {
			return nil, err
		}
		if next == nil {
			next = loose
		}
		if next == nil {
			return nil, fmt.Errorf("state %d was not found again", i+1)
		}
		cur = next
		out = append(out, State{Vars: m.Vars, Values: cur})
	}
	return out, nil
}

// violatedBy names the liveness properties the behaviour tr violates, tr
// a lasso whose last state goes back to state loop (0-based; the last
// one: stuttering), in the cfg's order, first included: TLC attributes a
// counterexample to every property its states violate, evaluated on the
// states as rebuilt (with a VIEW, the step back to the cycle's start may
// not be one the search took).
func (ps *Properties) violatedBy(tr []State, loop int, assume []*form, first string) ([]string, error) {
	gl, err := ps.graph.lassoGraph(ps.m.NewEvaluator(), tr, loop)
	if err != nil {
		return nil, err
	}
	var out []string
	seen := map[string]bool{}
	for _, lp := range ps.live {
		if seen[lp.name] {
			continue
		}
		hit := lp.name == first
		if !hit && lp.tab != nil {
			l, err := gl.findTableau(lp.tab, nil)
			hit = err == nil && l != nil
		}
		for _, nf := range lp.neg {
			for _, a := range assume {
				if hit {
					break
				}
				fs, _ := nf.and(a)
				for _, f := range fs {
					if !hit && gl.find(f, nil) != nil {
						hit = true
					}
				}
			}
		}
		if hit {
			seen[lp.name] = true
			out = append(out, lp.name)
		}
	}
	return out, nil
}

// violatedMessage is TLC's message for violated temporal properties.
func violatedMessage(names []string) string {
	switch len(names) {
	case 0: // no property found violated by the counterexample as rebuilt
		return "Temporal properties were violated."
	case 1:
		return fmt.Sprintf("Temporal property %s was violated.", names[0])
	case 2:
		return fmt.Sprintf("Temporal properties %s and %s were violated.", names[0], names[1])
	}
	return fmt.Sprintf("Temporal properties %s, and %s were violated.", strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
}

// lassoGraph is the graph of the one behaviour tr: a node per state (the
// first one initial), an edge to the next and from the last back to state
// loop, with the predicates evaluated on those states and steps.
func (g *graph) lassoGraph(ev *eval.Evaluator, tr []State, loop int) (*graph, error) {
	n := len(tr)
	gl := &graph{statePreds: g.statePreds, stepPreds: g.stepPreds, stateBit: g.stateBit, stepBit: g.stepBit,
		sw: g.sw, ew: g.ew, inits: []int32{0}}
	gl.fps = make([]uint64, n)
	gl.off = make([]int32, n+1)
	gl.to = make([]int32, n)
	gl.nbits = make([]uint64, n*g.sw)
	gl.ebits = make([]uint64, n*g.ew)
	for i, st := range tr {
		gl.fps[i] = uint64(i)
		gl.off[i+1] = int32(i + 1)
		to := loop
		if i+1 < n {
			to = i + 1
		}
		gl.to[i] = int32(to)
		if err := evalBits(ev, g.statePreds, st.Values, nil, false, gl.nbits[i*g.sw:(i+1)*g.sw]); err != nil {
			return nil, err
		}
		if err := evalBits(ev, g.stepPreds, st.Values, tr[to].Values, false, gl.ebits[i*g.ew:(i+1)*g.ew]); err != nil {
			return nil, err
		}
	}
	return gl, nil
}

// fairnessCould tells whether f has conditions on where a behaviour ends
// (<>[], []<>, fairness) or a [] inside a <>: TLC's "possible error
// model" is then not empty, or its promises hold a [], and TLC warns that
// a stuttering counterexample may come from a missing fairness condition
// (LiveWorker: hasEmptyPEMAndBoxFreePromises).
func (f *form) fairnessCould() bool {
	if len(f.ea) > 0 || len(f.ae) > 0 || len(f.fair) > 0 {
		return true
	}
	for _, t := range f.trig {
		if len(t.then) > 0 {
			return true
		}
	}
	return false
}
