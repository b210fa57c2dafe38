package eval

import (
	"sync"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// predC is a predicate of a temporal formula compiled (see cexpr.go): its
// frame holds, first, the values of the frames the predicate was resolved
// in (the names of the quantifiers and the arguments of the definitions
// around it), outermost first.
type predC struct {
	once sync.Once
	cf   *cfunc
	// frames are the predicate's frames, outermost first.
	frames []*Env
}

// compiledPred returns p compiled, or nil when it is left to the
// interpreter (its frames are not plain values, or it has effects).
func (c *ctx) compiledPred(p *Pred) *predC {
	if c.interp || c.maxSteps > 0 {
		return nil
	}
	p.c.once.Do(func() {
		m := c.m
		var frames []*Env
		for e := p.env; e != nil; e = e.parent {
			if e.lazy != nil || e.ops != nil || e.lets != nil || e.inst != nil {
				return
			}
			frames = append([]*Env{e}, frames...)
		}
		if m.interpret || m.nodeEffectful(p.n) {
			return
		}
		m.ccMu.Lock()
		defer m.ccMu.Unlock()
		cc := &ccomp{m: m}
		var l *clevel
		for _, e := range frames {
			l = &clevel{parent: l, base: cc.alloc(len(e.vals)), n: len(e.vals)}
		}
		f, ok := cc.exprOK(p.n, l)
		if !ok {
			return
		}
		p.c.frames = frames
		p.c.cf = &cfunc{nslots: cc.n, body: f}
	})
	if p.c.cf == nil {
		return nil
	}
	return &p.c
}

// holdsC evaluates p compiled.
func (c *ctx) holdsC(pc *predC) (value.Value, error) {
	s, mk := c.stk.push(pc.cf.nslots)
	k := 0
	for _, e := range pc.frames {
		for i, v := range e.vals {
			s[k].v = v
			if e.taint != nil {
				s[k].t = e.taint[i]
			}
			k++
		}
	}
	v, err := pc.cf.body(c, s)
	c.stk.pop(mk, s)
	return v, err
}
