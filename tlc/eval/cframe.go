package eval

import (
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// The compiled evaluator's frames.
//
// A compiled definition body runs in one flat frame of slots: its
// parameters, the names its binders introduce, its LET values and the @ of
// its EXCEPTs, each at an offset fixed when it is compiled. Frames are
// carved from a stack the context owns, so that a call allocates nothing.
// A slot also carries the watch bits of its value (see prune.go), as the
// interpreter's frames do.
//
// Where the compiled code cannot go on (a construct it does not compile,
// an error), it rebuilds the interpreter's frames from the slots
// (materialize) and lets the interpreter evaluate the same node: the two
// evaluators then agree by construction on everything the compiled code
// does not do itself.

// slot is a frame slot: a value and the watch bits its evaluation read.
type slot struct {
	v value.Value
	t uint64
}

// cstack is a stack of frames in chunks, so that a frame, once carved,
// never moves.
type cstack struct {
	chunks [][]slot
	ci     int // the chunk in use
	top    int // the first free slot of chunks[ci]
}

type cmark struct{ ci, top int }

const cstackChunk = 2048

// push carves a frame of n slots, all empty (the stack is cleared as
// frames are popped), and returns it with the mark to pop it with.
func (st *cstack) push(n int) ([]slot, cmark) {
	m := cmark{st.ci, st.top}
	if st.chunks == nil {
		st.chunks = [][]slot{make([]slot, max(cstackChunk, n))}
	}
	if st.top+n > len(st.chunks[st.ci]) {
		st.ci++
		switch {
		case st.ci == len(st.chunks):
			st.chunks = append(st.chunks, make([]slot, max(cstackChunk, n)))
		case len(st.chunks[st.ci]) < n:
			st.chunks[st.ci] = make([]slot, n)
		}
		st.top = 0
	}
	s := st.chunks[st.ci][st.top : st.top+n : st.top+n]
	st.top += n
	return s, m
}

// pop releases frame s, carved at mark m, and everything carved since.
func (st *cstack) pop(m cmark, s []slot) {
	clear(s)
	st.ci, st.top = m.ci, m.top
}

// clevel describes, at compile time, one of the interpreter's frames that
// a point of a compiled body sees: its slots in the flat frame. Levels
// chain innermost first, as the interpreter's Envs do.
type clevel struct {
	parent *clevel
	base   int // the first slot
	n      int // the number of slots
	// lets, for a LET frame, holds its definitions (slot base+i is the
	// value of lets[i]).
	lets []*letDef
}

// up is the level depth frames out.
func (l *clevel) up(depth int) *clevel {
	for ; depth > 0 && l != nil; depth-- {
		l = l.parent
	}
	return l
}

// materialize builds the interpreter's frames for level l from the slots:
// what the interpreter needs to evaluate a node compiled at l. LET values
// not computed yet are left to the interpreter, which computes them in
// its copy.
func materialize(l *clevel, s []slot) *Env {
	if l == nil {
		return nil
	}
	parent := materialize(l.parent, s)
	e := &Env{parent: parent, inst: parent.instFrame()}
	if l.lets != nil {
		e.lets = make([]letSlot, l.n)
		for i := range e.lets {
			if sl := s[l.base+i]; sl.v != nil && !l.lets[i].prime {
				e.lets[i] = letSlot{done: true, val: sl.v, taint: sl.t}
			}
		}
		return e
	}
	e.vals = make([]value.Value, l.n)
	var taint []uint64
	for i := range e.vals {
		sl := s[l.base+i]
		e.vals[i] = sl.v
		if sl.t != 0 {
			if taint == nil {
				taint = make([]uint64, l.n)
			}
			taint[i] = sl.t
		}
	}
	e.taint = taint
	return e
}
