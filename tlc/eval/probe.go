package eval

import (
	"sort"

	"github.com/modelfuzz/modelfuzz/tlc/syntax"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// ActionProbe says how far the calls of one action operator got while the
// successors of a state were enumerated: what a trace validation reports
// when no action can take the next event.
type ActionProbe struct {
	// Name is the operator; Args the arguments of its call that got
	// furthest (nil for operator arguments and unevaluated ones).
	Name   string
	Params []string
	Args   []value.Value
	// Calls is how many times it was called, Enabled how many of those
	// produced a successor.
	Calls, Enabled int
	// Progress is the number of conjuncts the furthest call passed, and
	// Stuck the conjunct it was evaluating when it gave up (the one that
	// was false, or the last one reached).
	Progress int
	Stuck    syntax.Pos
}

// probe collects ActionProbes; it is attached to a ctx only for
// diagnostics, so that the checker's hot path pays one nil test.
type probe struct {
	passed int // conjuncts passed on the current path
	stack  []*probeFrame
	by     map[*def]*ActionProbe
	order  []*def
}

type probeFrame struct {
	d        *def
	args     []value.Value
	base     int
	best     int
	bestPos  syntax.Pos
	bestArgs []value.Value
	enabled  bool
}

// reached records that conjunct n is being evaluated, all the conjuncts
// before it on the current path having held.
func (p *probe) reached(n node) {
	for _, f := range p.stack {
		if d := p.passed - f.base; d > f.best || f.bestPos.Line == 0 {
			f.best, f.bestPos = d, n.position()
		}
	}
}

func (p *probe) push(d *def, fr *Env) *probeFrame {
	f := &probeFrame{d: d, base: p.passed}
	if fr != nil {
		f.args = append([]value.Value(nil), fr.vals...)
	}
	p.stack = append(p.stack, f)
	return f
}

func (p *probe) pop(f *probeFrame) {
	p.stack = p.stack[:len(p.stack)-1]
	ap := p.by[f.d]
	if ap == nil {
		ap = &ActionProbe{Name: f.d.name, Progress: -1}
		for _, q := range f.d.params {
			ap.Params = append(ap.Params, q.Name)
		}
		p.by[f.d] = ap
		p.order = append(p.order, f.d)
	}
	ap.Calls++
	if f.enabled {
		ap.Enabled++
	}
	if f.best > ap.Progress {
		ap.Progress, ap.Stuck, ap.Args = f.best, f.bestPos, f.args
	}
}

// ProbeNext enumerates the successors of s as Next does and reports, for
// every action operator called on the way, how far its calls got, the
// actions that got furthest first.
func (ev *Evaluator) ProbeNext(s []value.Value) ([]ActionProbe, int, error) {
	c := ev.c
	p := &probe{by: map[*def]*ActionProbe{}}
	c.probe = p
	defer func() { c.probe = nil }()
	n := 0
	err := ev.Next(s, func([]value.Value) error {
		n++
		for _, f := range p.stack {
			f.enabled = true
		}
		return nil
	})
	out := make([]ActionProbe, 0, len(p.order))
	for _, d := range p.order {
		out = append(out, *p.by[d])
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Progress > out[j].Progress })
	return out, n, err
}
