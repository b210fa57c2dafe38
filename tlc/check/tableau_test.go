package check

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/tlc/eval"
)

// The tableau's verdicts are compared with the forms' (conformance-tested
// against TLC) on random graphs and random formulas under random fairness,
// and every counterexample it gives is checked on its own: the lasso is a
// path of the graph from an initial state, it is fair, and it satisfies the
// negated property, evaluated on the lasso directly.

type randLive struct {
	r           *rand.Rand
	state, step []*eval.Pred
}

func newRandLive(seed int64) *randLive {
	rl := &randLive{r: rand.New(rand.NewSource(seed))}
	for i := 0; i < 3; i++ {
		rl.state = append(rl.state, &eval.Pred{Text: fmt.Sprintf("P%d", i)})
	}
	for i := 0; i < 2; i++ {
		rl.step = append(rl.step, &eval.Pred{Text: fmt.Sprintf("A%d", i), Action: true})
	}
	return rl
}

// graph makes a random state graph of n nodes: each node's first edge is
// its stuttering step; the bits of the predicates are random (a stuttering
// step's too: the search does not assume anything of them).
func (rl *randLive) graph(n int) *graph {
	r := rl.r
	g := &graph{stateBit: map[*eval.Pred]int{}, stepBit: map[*eval.Pred]int{}, inits: []int32{0}}
	for i, p := range rl.state {
		g.stateBit[p] = i
	}
	for i, p := range rl.step {
		g.stepBit[p] = i
	}
	g.statePreds, g.stepPreds = rl.state, rl.step
	g.sw, g.ew = 1, 1
	g.off = []int32{0}
	for v := 0; v < n; v++ {
		g.fps = append(g.fps, uint64(v))
		g.nbits = append(g.nbits, uint64(r.Intn(8)))
		g.to = append(g.to, int32(v))
		g.ebits = append(g.ebits, uint64(r.Intn(4)))
		for k := r.Intn(3); k > 0; k-- {
			g.to = append(g.to, int32(r.Intn(n)))
			g.ebits = append(g.ebits, uint64(r.Intn(4)))
		}
		g.off = append(g.off, int32(len(g.to)))
	}
	return g
}

func (rl *randLive) leaf() *eval.Temporal {
	if rl.r.Intn(3) == 0 {
		return &eval.Temporal{Op: eval.TAction, Pred: rl.step[rl.r.Intn(len(rl.step))]}
	}
	return &eval.Temporal{Op: eval.TPred, Pred: rl.state[rl.r.Intn(len(rl.state))]}
}

func (rl *randLive) formula(depth int) *eval.Temporal {
	r := rl.r
	if depth == 0 || r.Intn(4) == 0 {
		return rl.leaf()
	}
	node := func(op eval.TOp, args ...*eval.Temporal) *eval.Temporal { return &eval.Temporal{Op: op, Args: args} }
	switch r.Intn(7) {
	case 0:
		return node(eval.TAnd, rl.formula(depth-1), rl.formula(depth-1))
	case 1:
		return node(eval.TOr, rl.formula(depth-1), rl.formula(depth-1))
	case 2:
		return node(eval.TNot, rl.formula(depth-1))
	case 3, 4:
		return node(eval.TAlways, rl.formula(depth-1))
	case 5:
		return node(eval.TEventually, rl.formula(depth-1))
	}
	return node(eval.TLeadsTo, rl.formula(depth-1), rl.formula(depth-1))
}

func (rl *randLive) fairness() []*eval.Temporal {
	var out []*eval.Temporal
	for k := rl.r.Intn(3); k > 0; k-- {
		op := eval.TWF
		if rl.r.Intn(2) == 0 {
			op = eval.TSF
		}
		out = append(out, &eval.Temporal{Op: op, Pred: rl.state[rl.r.Intn(len(rl.state))], Step: rl.step[rl.r.Intn(len(rl.step))]})
	}
	return out
}

// holdsOnLasso evaluates formula f of lb at the first position of lasso l
// of g, by fixpoints over its positions.
func holdsOnLasso(lb *ltlBuilder, f int, g *graph, l *lasso) bool {
	m := len(l.nodes)
	succ := func(i int) int {
		if i == m-1 {
			return l.loop
		}
		return i + 1
	}
	edge := func(i int) int32 {
		if i == m-1 {
			return l.back
		}
		return l.edges[i+1]
	}
	memo := map[int][]bool{}
	var val func(f int) []bool
	val = func(f int) []bool {
		if v, ok := memo[f]; ok {
			return v
		}
		x := lb.fs[f]
		out := make([]bool, m)
		switch x.op {
		case ltlTrue:
			for i := range out {
				out[i] = true
			}
		case ltlFalse:
		case ltlLit:
			for i := range out {
				out[i] = g.condAt(l.nodes[i], edge(i), x.c)
			}
		case ltlAnd, ltlOr:
			a, b := val(x.a), val(x.b)
			for i := range out {
				if x.op == ltlAnd {
					out[i] = a[i] && b[i]
				} else {
					out[i] = a[i] || b[i]
				}
			}
		case ltlUntil, ltlRelease:
			a, b := val(x.a), val(x.b)
			if x.op == ltlRelease {
				for i := range out {
					out[i] = true
				}
			}
			for round := 0; round <= m; round++ {
				for i := m - 1; i >= 0; i-- {
					if x.op == ltlUntil {
						out[i] = b[i] || (a[i] && out[succ(i)])
					} else {
						out[i] = b[i] && (a[i] || out[succ(i)])
					}
				}
			}
		}
		memo[f] = out
		return out
	}
	return val(f)[0]
}

// checkLasso fails unless l is a behaviour of g (from an initial state,
// along its edges) that satisfies fair and assume and violates prop.
func checkLasso(t *testing.T, g *graph, l *lasso, prop *eval.Temporal, fair, assume []*eval.Temporal) {
	t.Helper()
	require.Contains(t, g.inits, l.nodes[0])
	step := func(from, to, e int32) {
		require.True(t, e >= g.off[from] && e < g.off[from+1] && g.to[e] == to, "edge %d is not %d -> %d", e, from, to)
	}
	for i := 1; i < len(l.nodes); i++ {
		step(l.nodes[i-1], l.nodes[i], l.edges[i])
	}
	step(l.nodes[len(l.nodes)-1], l.nodes[l.loop], l.back)
	lb := &ltlBuilder{}
	f, err := lb.nnf(prop, true)
	require.NoError(t, err)
	for _, fc := range append(append([]*eval.Temporal(nil), fair...), assume...) {
		x, err := lb.nnf(fc, false)
		require.NoError(t, err)
		f = lb.and(f, x)
	}
	require.True(t, holdsOnLasso(lb, f, g, l), "the lasso %+v does not violate the property or is not fair", l)
}

func TestTableauAgreesWithForms(t *testing.T) {
	compared, general, violated := 0, 0, 0
	for seed := int64(0); seed < 1200; seed++ {
		rl := newRandLive(seed)
		g := rl.graph(2 + rl.r.Intn(5))
		prop := rl.formula(3)
		fairT := rl.fairness()
		fair := fairConds(fairT)
		var assumeT []*eval.Temporal
		if rl.r.Intn(4) == 0 {
			assumeT = append(assumeT, rl.formula(2))
		}
		tb, err := newTableau(prop, assumeT)
		require.NoError(t, err, "seed %d", seed)
		lt, err := g.findTableau(tb, fair)
		require.NoError(t, err)
		if lt != nil {
			violated++
			checkLasso(t, g, lt, prop, fairT, assumeT)
		}
		neg, err := negate(prop)
		assume := []*form{{}}
		if err == nil && len(assumeT) > 0 {
			assume, err = affirm(assumeT[0])
		}
		if err != nil {
			general++
			continue
		}
		compared++
		var lf *lasso
		for _, nf := range neg {
			for _, a := range assume {
				fs, err := nf.and(a)
				require.NoError(t, err)
				for _, f := range fs {
					if lf = g.find(f, fair); lf != nil {
						checkLasso(t, g, lf, prop, fairT, assumeT)
						break
					}
				}
				if lf != nil {
					break
				}
			}
			if lf != nil {
				break
			}
		}
		require.Equal(t, lf != nil, lt != nil, "seed %d: forms and tableau disagree", seed)
	}
	t.Logf("%d formulas compared with the forms, %d only by the tableau, %d violated", compared, general, violated)
	require.Greater(t, compared, 200)
	require.Greater(t, general, 200)
	require.Greater(t, violated, 200)
	require.Less(t, violated, 1000)
}

// TestGeneralProperties checks testdata/LtlGeneral.tla's properties, each
// outside the forms, under each of its specs (no fairness, WF, SF, and a
// temporal assumption that is not a form): the verdict is the reference
// TLC's (tlc2.TLC -workers 1, run on each case), or, where TLC refuses the
// formula ("Temporal formulas containing actions must be of forms <>[]A or
// []<>A"), the one the spec's comment argues; the outcomes with their
// lassos are in testdata/LtlGeneral.expected (-update rewrites it).
func TestGeneralProperties(t *testing.T) {
	cases := []struct{ spec, prop, want, tlc string }{
		// TLC names every property the lasso violates, in the cfg's order:
		// "Temporal properties OrAlways, NestedFalse, Nested, and
		// ImplInside were violated.", with this lasso.
		{"SpecWF", "NegOrTrue OrAlways NestedFalse Nested ImplInside", "violated", "violated"},
		{"SpecAssume", "AngleAlways", "ok", "refuses"},
		{"SpecAssume", "AngleInf", "ok", "refuses"},
		{"SpecAssume", "AngleInside", "ok", "refuses"},
		{"SpecAssume", "BoxActionOr", "ok", "refuses"},
		{"SpecAssume", "BoxActionOrTrue", "ok", "refuses"},
		{"SpecAssume", "BoxInside", "ok", "refuses"},
		{"SpecAssume", "ImplEventually", "ok", "ok"},
		{"SpecAssume", "ImplInside", "ok", "ok"},
		{"SpecAssume", "ImplNested", "ok", "ok"},
		{"SpecAssume", "LeadsAndImpl", "ok", "ok"},
		{"SpecAssume", "LeadsAndImplFalse", "ok", "ok"},
		{"SpecAssume", "NegOr", "violated", "violated"},
		{"SpecAssume", "NegOrTrue", "ok", "ok"},
		{"SpecAssume", "Nested", "ok", "ok"},
		{"SpecAssume", "NestedFalse", "violated", "violated"},
		{"SpecAssume", "OrAlways", "ok", "ok"},
		{"SpecNone", "AngleAlways", "ok", "refuses"},
		{"SpecNone", "AngleInf", "violated", "refuses"},
		{"SpecNone", "AngleInside", "ok", "refuses"},
		{"SpecNone", "BoxActionOr", "violated", "refuses"},
		{"SpecNone", "BoxActionOrTrue", "ok", "refuses"},
		{"SpecNone", "BoxInside", "violated", "refuses"},
		{"SpecNone", "ImplEventually", "violated", "violated"},
		{"SpecNone", "ImplInside", "violated", "violated"},
		{"SpecNone", "ImplNested", "violated", "violated"},
		{"SpecNone", "LeadsAndImpl", "violated", "violated"},
		{"SpecNone", "LeadsAndImplFalse", "violated", "violated"},
		{"SpecNone", "NegOr", "violated", "violated"},
		{"SpecNone", "NegOrTrue", "ok", "ok"},
		{"SpecNone", "Nested", "violated", "violated"},
		{"SpecNone", "NestedFalse", "violated", "violated"},
		{"SpecNone", "OrAlways", "violated", "violated"},
		{"SpecSF", "AngleAlways", "ok", "refuses"},
		{"SpecSF", "AngleInf", "ok", "refuses"},
		{"SpecSF", "AngleInside", "ok", "refuses"},
		{"SpecSF", "BoxActionOr", "ok", "refuses"},
		{"SpecSF", "BoxActionOrTrue", "ok", "refuses"},
		{"SpecSF", "BoxInside", "ok", "refuses"},
		{"SpecSF", "ImplEventually", "ok", "ok"},
		{"SpecSF", "ImplInside", "ok", "ok"},
		{"SpecSF", "ImplNested", "ok", "ok"},
		{"SpecSF", "LeadsAndImpl", "ok", "ok"},
		{"SpecSF", "LeadsAndImplFalse", "ok", "ok"},
		{"SpecSF", "NegOr", "violated", "violated"},
		{"SpecSF", "NegOrTrue", "ok", "ok"},
		{"SpecSF", "Nested", "ok", "ok"},
		{"SpecSF", "NestedFalse", "violated", "violated"},
		{"SpecSF", "OrAlways", "ok", "ok"},
		{"SpecWF", "AngleAlways", "ok", "refuses"},
		{"SpecWF", "AngleInf", "violated", "refuses"},
		{"SpecWF", "AngleInside", "ok", "refuses"},
		{"SpecWF", "BoxActionOr", "violated", "refuses"},
		{"SpecWF", "BoxActionOrTrue", "ok", "refuses"},
		{"SpecWF", "BoxInside", "violated", "refuses"},
		{"SpecWF", "ImplEventually", "violated", "violated"},
		{"SpecWF", "ImplInside", "violated", "violated"},
		{"SpecWF", "ImplNested", "ok", "ok"},
		{"SpecWF", "LeadsAndImpl", "ok", "ok"},
		{"SpecWF", "LeadsAndImplFalse", "violated", "violated"},
		{"SpecWF", "NegOr", "violated", "violated"},
		{"SpecWF", "NegOrTrue", "ok", "ok"},
		{"SpecWF", "Nested", "violated", "violated"},
		{"SpecWF", "NestedFalse", "violated", "violated"},
		{"SpecWF", "OrAlways", "violated", "violated"},
	}
	dir := t.TempDir()
	var all strings.Builder
	for _, c := range cases {
		cfg := filepath.Join(dir, c.spec+"-"+strings.ReplaceAll(c.prop, " ", "-")+".cfg")
		require.NoError(t, os.WriteFile(cfg, []byte(fmt.Sprintf("SPECIFICATION %s\nPROPERTIES %s\nCHECK_DEADLOCK FALSE\n", c.spec, c.prop)), 0o644))
		got := runSpecCfg(t, "LtlGeneral", filepath.Join("testdata", "LtlGeneral.tla"), cfg, Options{Workers: 1})
		verdict := "ok"
		if strings.HasPrefix(got, "result: liveness\n") {
			verdict = "violated"
		} else if !strings.HasPrefix(got, "result: success\n") {
			verdict = "unexpected"
		}
		assert.Equal(t, c.want, verdict, "%s %s:\n%s", c.spec, c.prop, got)
		if c.tlc != "refuses" {
			assert.Equal(t, c.tlc, verdict, "%s %s: TLC's verdict", c.spec, c.prop)
		}
		fmt.Fprintf(&all, "== %s %s (TLC: %s)\n%s", c.spec, c.prop, c.tlc, got)
	}
	path := filepath.Join("testdata", "LtlGeneral.expected")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(all.String()), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(want), all.String())
}

// TestTableauLimit: a negated property whose tableau would pass
// maxAutStates is refused with a message (<>P1 /\ ... /\ <>P13 needs 2^13
// states), not built until memory runs out.
func TestTableauLimit(t *testing.T) {
	lb := &ltlBuilder{}
	f := lb.truth(true)
	for i := 0; i < 13; i++ {
		p := &eval.Pred{Text: fmt.Sprintf("P%d", i)}
		f = lb.and(f, lb.eventually(lb.mk(ltl{op: ltlLit, c: cond{p: p}})))
	}
	_, err := lb.buildAutomaton(f)
	require.ErrorContains(t, err, "tableau has more than 4096 states")
}
