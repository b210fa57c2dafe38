package check

import (
	"fmt"
	"sync"

	"github.com/modelfuzz/modelfuzz/tlc/eval"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// graph is the state graph the search found, kept for liveness: a node per
// distinct state (fingerprint), an edge per generated step within the
// constraints, plus a stuttering self-loop per node, with the values of
// the liveness predicates: state predicates on each node (evaluated in
// the state the search expanded), action predicates on each edge
// (evaluated on the actual step, as TLC does).
type graph struct {
	statePreds, stepPreds []*eval.Pred
	stateBit, stepBit     map[*eval.Pred]int
	sw, ew                int // words of bits per node, per edge

	mu    sync.Mutex
	ids   map[uint64]int32
	fps   []uint64
	inits []int32
	nbits []uint64 // node bits, sw per node
	sbits []uint64 // the stuttering step's bits, ew per node

	shards [64]struct {
		mu    sync.Mutex
		steps []rawStep
		bits  []uint64
	}

	// After finish: the edges in CSR form. The first edge of each node is
	// its stuttering self-loop.
	off   []int32
	to    []int32
	ebits []uint64
}

type rawStep struct{ from, to uint64 }

func newGraph(ps *Properties) *graph {
	g := &graph{stateBit: map[*eval.Pred]int{}, stepBit: map[*eval.Pred]int{}, ids: map[uint64]int32{}}
	add := func(c cond) {
		if c.p.Action {
			if _, ok := g.stepBit[c.p]; !ok {
				g.stepBit[c.p] = len(g.stepPreds)
				g.stepPreds = append(g.stepPreds, c.p)
			}
		} else if _, ok := g.stateBit[c.p]; !ok {
			g.stateBit[c.p] = len(g.statePreds)
			g.statePreds = append(g.statePreds, c.p)
		}
	}
	addFair := func(t *eval.Temporal) {
		add(cond{p: t.Pred})
		add(cond{p: t.Step})
	}
	for _, f := range ps.fair {
		addFair(f)
	}
	forms := append([]*form(nil), ps.assume...)
	for _, lp := range ps.live {
		forms = append(forms, lp.neg...)
		if lp.tab != nil {
			for _, c := range lp.tab.conds() {
				add(c)
			}
		}
	}
	{
		for _, f := range forms {
			for _, cs := range [][]cond{f.init, f.glob, f.ea} {
				for _, c := range cs {
					add(c)
				}
			}
			for _, tr := range f.trig {
				for _, c := range append(append([]cond(nil), tr.at...), tr.then...) {
					add(c)
				}
			}
			for _, d := range f.ae {
				for _, c := range d {
					add(c)
				}
			}
			for _, t := range f.fair {
				addFair(t)
			}
		}
	}
	g.sw = (len(g.statePreds) + 63) / 64
	g.ew = (len(g.stepPreds) + 63) / 64
	return g
}

// evalBits sets in out the bits of preds that hold in state s or on step
// s -> t; same says that t is s (no <<A>>_v holds on it).
func evalBits(ev *eval.Evaluator, preds []*eval.Pred, s, t []value.Value, same bool, out []uint64) error {
	for i, p := range preds {
		if same && p.Angle {
			continue
		}
		ok, err := ev.Holds(p, s, t)
		if err != nil {
			return fmt.Errorf("evaluating %s: %w", p.Text, err)
		}
		if ok {
			out[i/64] |= 1 << uint(i%64)
		}
	}
	return nil
}

func (g *graph) addState(ev *eval.Evaluator, fp uint64, s []value.Value, initial bool) error {
	nb := make([]uint64, g.sw)
	if err := evalBits(ev, g.statePreds, s, nil, false, nb); err != nil {
		return err
	}
	sb := make([]uint64, g.ew)
	if err := evalBits(ev, g.stepPreds, s, s, true, sb); err != nil {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.ids[fp]; ok {
		return nil
	}
	id := int32(len(g.fps))
	g.ids[fp] = id
	g.fps = append(g.fps, fp)
	g.nbits = append(g.nbits, nb...)
	g.sbits = append(g.sbits, sb...)
	if initial {
		g.inits = append(g.inits, id)
	}
	return nil
}

func (g *graph) addStep(ev *eval.Evaluator, sfp uint64, s []value.Value, tfp uint64, t []value.Value) error {
	var b []uint64
	if g.ew > 0 {
		b = make([]uint64, g.ew)
		if err := evalBits(ev, g.stepPreds, s, t, sameState(s, t), b); err != nil {
			return err
		}
	}
	sh := &g.shards[sfp%uint64(len(g.shards))]
	sh.mu.Lock()
	sh.steps = append(sh.steps, rawStep{sfp, tfp})
	sh.bits = append(sh.bits, b...)
	sh.mu.Unlock()
	return nil
}

// finish turns the recorded steps into the CSR edge arrays.
func (g *graph) finish() {
	n := len(g.fps)
	count := make([]int32, n+1)
	for i := range count[:n] {
		count[i] = 1 // the stuttering self-loop
	}
	for si := range g.shards {
		for _, st := range g.shards[si].steps {
			if from, ok := g.ids[st.from]; ok {
				if _, ok := g.ids[st.to]; ok {
					count[from]++
				}
			}
		}
	}
	g.off = make([]int32, n+1)
	for i := 0; i < n; i++ {
		g.off[i+1] = g.off[i] + count[i]
	}
	m := g.off[n]
	g.to = make([]int32, m)
	g.ebits = make([]uint64, int(m)*g.ew)
	next := make([]int32, n)
	copy(next, g.off[:n])
	for i := 0; i < n; i++ {
		e := next[i]
		next[i]++
		g.to[e] = int32(i)
		copy(g.ebits[int(e)*g.ew:], g.sbits[i*g.ew:(i+1)*g.ew])
	}
	for si := range g.shards {
		sh := &g.shards[si]
		for k, st := range sh.steps {
			from, ok := g.ids[st.from]
			to, ok2 := g.ids[st.to]
			if !ok || !ok2 {
				continue
			}
			e := next[from]
			next[from]++
			g.to[e] = to
			copy(g.ebits[int(e)*g.ew:], sh.bits[k*g.ew:(k+1)*g.ew])
		}
		sh.steps, sh.bits = nil, nil
	}
	g.sbits = nil
}

func (g *graph) nodeBit(n int32, p *eval.Pred) bool {
	i := g.stateBit[p]
	return g.nbits[int(n)*g.sw+i/64]&(1<<uint(i%64)) != 0
}

func (g *graph) edgeBit(e int32, p *eval.Pred) bool {
	i := g.stepBit[p]
	return g.ebits[int(e)*g.ew+i/64]&(1<<uint(i%64)) != 0
}

// nodeOK: every state condition of cs holds in node n.
func (g *graph) nodeOK(n int32, cs []cond) bool {
	for _, c := range cs {
		if !c.p.Action && g.nodeBit(n, c.p) == c.neg {
			return false
		}
	}
	return true
}

// edgeOK: every action condition of cs holds on edge e.
func (g *graph) edgeOK(e int32, cs []cond) bool {
	for _, c := range cs {
		if c.p.Action && g.edgeBit(e, c.p) == c.neg {
			return false
		}
	}
	return true
}

// condAt: condition c holds at edge e from node n (a state condition in n).
func (g *graph) condAt(n, e int32, c cond) bool {
	if c.p.Action {
		return g.edgeBit(e, c.p) != c.neg
	}
	return g.nodeBit(n, c.p) != c.neg
}

// sameState reports whether s and t give every variable the same value.
func sameState(s, t []value.Value) bool {
	for i := range s {
		if eq, err := value.Equal(s[i], t[i]); err != nil || !eq {
			return false
		}
	}
	return true
}
