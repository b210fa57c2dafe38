package eval

import (
	"github.com/modelfuzz/modelfuzz/tlc/stdlib"
	"github.com/modelfuzz/modelfuzz/tlc/syntax"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// Env is a run-time frame: the values of the names one binder (a
// quantifier, an operator's parameters, a LET) introduces.
type Env struct {
	vals   []value.Value
	ops    []*Closure // operator parameters, by the same index as vals
	lets   []letSlot  // LET frames: the local definitions
	parent *Env
	inst   *Env // the frame of a parameterized instance's parameters
	// lazy holds arguments passed by name: an action operator called with
	// x' as an argument (Send(p, d, mem, mem')) may assign x' through its
	// parameter, as in TLC.
	lazy []*lazyArg
	// taint, when not nil, holds the watch bits of each slot's value (see
	// prune.go), by the same index as vals.
	taint []uint64
	// parts, when not nil, holds for a slot bound to a tuple literal
	// argument the watch bits of each component: Op(<<b, e>>) reading
	// r[1] depends on b alone.
	parts [][]uint64
}

type lazyArg struct {
	n   node
	env *Env
	// cov, under coverage, is the call's node: the argument is counted
	// there, once, wherever the parameter is read (TLC evaluates it once
	// and keeps its value); counted says it was.
	cov     *CovNode
	counted bool
}

type letSlot struct {
	done  bool
	val   value.Value
	err   error
	taint uint64 // the watch bits the value's evaluation read (see prune.go)
}

func (e *Env) up(depth int) *Env {
	for ; depth > 0; depth-- {
		e = e.parent
	}
	return e
}

func (e *Env) instFrame() *Env {
	if e == nil {
		return nil
	}
	return e.inst
}

// Closure is an operator used as a value: an argument of a higher-order
// operator.
type Closure struct {
	arity   int
	name    string
	def     *def // a module-level definition
	inst    *Env // its instance frame
	body    node // a LAMBDA or a LET definition with parameters
	env     *Env // the frame the body's free names live in
	builtin *stdlib.Builtin
	pos     syntax.Pos
}

// call applies the closure.
func (cl *Closure) call(c *ctx, args []value.Value) (value.Value, error) {
	if len(args) != cl.arity {
		return nil, errorf(cl.pos, "operator %s takes %d arguments, got %d", cl.name, cl.arity, len(args))
	}
	switch {
	case cl.builtin != nil:
		bargs := make([]stdlib.Arg, len(args))
		for i, a := range args {
			bargs[i] = stdlib.Arg{V: a}
		}
		if cl.builtin.SideEffect {
			c.effect()
		}
		v, err := cl.builtin.Fn(c, bargs)
		return v, located(cl.pos, err)
	case cl.def != nil:
		return c.callDef(cl.def, args, nil, cl.inst, cl.pos)
	default:
		if err := c.enter(cl.pos); err != nil {
			return nil, err
		}
		v, err := cl.body.eval(c, &Env{vals: args, parent: cl.env, inst: cl.env.instFrame()})
		c.leave()
		return v, err
	}
}

// opArg adapts a closure to the stdlib.Op interface for one evaluation.
type opArg struct {
	cl *Closure
	c  *ctx
}

func (o opArg) Arity() int { return o.cl.arity }

func (o opArg) Call(args []value.Value) (value.Value, error) { return o.cl.call(o.c, args) }

// Frames with room for their values, so that a frame is one allocation:
// operator calls and quantifiers make one per evaluation.
type (
	frame1 struct {
		e Env
		b [1]value.Value
	}
	frame2 struct {
		e Env
		b [2]value.Value
	}
	frame4 struct {
		e Env
		b [4]value.Value
	}
	letFrame1 struct {
		e Env
		s [1]letSlot
	}
	letFrame2 struct {
		e Env
		s [2]letSlot
	}
)

// newFrame returns a frame of n empty value slots under parent.
func newFrame(n int, parent *Env) *Env {
	var e *Env
	switch {
	case n == 0:
		e = &Env{}
	case n == 1:
		f := &frame1{}
		f.e.vals = f.b[:]
		e = &f.e
	case n == 2:
		f := &frame2{}
		f.e.vals = f.b[:]
		e = &f.e
	case n <= 4:
		f := &frame4{}
		f.e.vals = f.b[:n]
		e = &f.e
	default:
		e = &Env{vals: make([]value.Value, n)}
	}
	e.parent, e.inst = parent, parent.instFrame()
	return e
}

// newLetFrame returns the frame of a LET with n definitions under parent.
func newLetFrame(n int, parent *Env) *Env {
	var e *Env
	switch n {
	case 1:
		f := &letFrame1{}
		f.e.lets = f.s[:]
		e = &f.e
	case 2:
		f := &letFrame2{}
		f.e.lets = f.s[:]
		e = &f.e
	default:
		e = &Env{lets: make([]letSlot, n)}
	}
	e.parent, e.inst = parent, parent.instFrame()
	return e
}
