package eval

import (
	"math/bits"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// Pruning of \E in actions.
//
// A trace spec enumerates, for each event, quantifiers such as
// \E i, j \in Server : \E b, e \in lo..hi : Act(i, j, <<b, e>>) whose body
// fails, for most bindings, on a conjunct that does not mention the bound
// names (the event is not about server i). TLC enumerates every binding
// all the same. When the body, for one binding x, produced no successor
// and its evaluation read nothing that depends on x, it evaluates the same
// way for every other binding: the same values are read, so the same
// conjuncts fail, the same errors (none) are raised and nothing else
// happens. The rest of the set can then be skipped without changing the
// successors, the generated-state count or the errors.
//
// "Read nothing that depends on x" is tracked at run time. Each \E being
// enumerated is a watch with one bit per bound name (64 bits in all). While
// watches are active, c.touched collects the bits of the bound names an
// evaluation read: reading a frame slot adds the bits recorded for it (the
// watched binder's own slots carry its bit; an operator argument or a LET
// value carries the bits its evaluation read, added only when the slot is
// read, as TLC passes arguments lazily). Anything whose value the body
// itself could change, or whose effect is not a value, marks every watch:
// reading or assigning a primed variable, UNCHANGED, ENABLED, action
// composition, and the side effects of Print, TLCGet, TLCSet and the
// serializing operators. Initial-state enumeration is never watched (its
// variables are assigned as they are read).

// maxWatches is the number of bits of c.touched.
const maxWatches = 64

// touchAll marks the current evaluation as depending on every watched
// binding.
func (c *ctx) touchAll() {
	if c.watches > 0 {
		c.touched = ^uint64(0)
	}
}

// evalDeferred evaluates n for storing in a frame slot: it returns the
// bits n read, which the caller records with the value and which reach
// c.touched only when the value is read.
func (c *ctx) evalDeferred(n node, env *Env) (value.Value, uint64, error) {
	if c.watches == 0 {
		v, err := n.eval(c, env)
		return v, 0, err
	}
	saved := c.touched
	c.touched = 0
	v, err := n.eval(c, env)
	m := c.touched
	c.touched = saved
	if err != nil {
		c.touched |= m
	}
	return v, m, err
}

// evalTupleDeferred is evalDeferred for a tuple literal, also returning
// each component's bits.
func (c *ctx) evalTupleDeferred(n *tupleNode, env *Env) (value.Value, uint64, []uint64, error) {
	vs := make([]value.Value, len(n.elems))
	parts := make([]uint64, len(n.elems))
	var all uint64
	for i, e := range n.elems {
		v, taint, err := c.evalDeferred(e, env)
		if err != nil {
			return nil, 0, nil, err
		}
		vs[i], parts[i] = v, taint
		all |= taint
	}
	return value.Tuple(vs...), all, parts, nil
}

// enumExists enumerates \E over binder b with body body, skipping the
// bindings that would fail the way one already did.
//
// Each bound name has its own bit. A binding whose body fails reading none
// of them ends the enumeration; one whose body fails reading only name v
// marks v's value dead, and the bindings that give v a dead value are
// skipped (in \E b, e \in S : /\ b = 3 /\ e = 4, each b but 3 fails
// without reading e, so the pairs are |S| + |S| bindings, not |S|^2).
func (c *ctx) enumExists(n *quantNode, env *Env, k func() error) error {
	width := n.b.width
	if c.initMode || c.watches+width > maxWatches {
		return n.b.each(c, env, func(f *Env) (bool, error) {
			fr := &Env{vals: append([]value.Value(nil), f.vals...), parent: f.parent, inst: f.inst}
			return true, c.enum(n.body, fr, k)
		})
	}
	base := c.watches
	below := uint64(1)<<base - 1 // the enclosing watches' bits
	own := (uint64(1)<<width - 1) << base
	c.watches += width
	outer := c.touched
	c.touched = 0
	var seen uint64 // bits read by the sets and the bodies
	taint := make([]uint64, width)
	for i := range taint {
		taint[i] = uint64(1) << (base + i)
	}
	var dead [][]bool // dead[slot][position]: a value that fails the body
	err := n.b.eachAt(c, env, func(f *Env, at []int) (bool, error) {
		seen |= c.touched // the sets, on the first binding
		c.touched = 0
		for slot, d := range dead {
			if d != nil && at[slot] < len(d) && d[at[slot]] {
				return true, nil
			}
		}
		// Each branch gets its own frame: a LET inside may keep it.
		fr := &Env{vals: append([]value.Value(nil), f.vals...), taint: taint, parent: f.parent, inst: f.inst}
		succeeded := false
		err := c.enum(n.body, fr, func() error {
			succeeded = true
			return k()
		})
		read := c.touched
		seen |= read
		if err != nil || succeeded {
			return err == nil, err
		}
		read &= own
		if read == 0 {
			return false, nil
		}
		if read&(read-1) == 0 && width > 1 {
			// One name read: its value is dead.
			slot := bits.TrailingZeros64(read) - base
			if dead == nil {
				dead = make([][]bool, width)
			}
			if len(dead[slot]) <= at[slot] {
				dead[slot] = append(dead[slot], make([]bool, at[slot]+1-len(dead[slot]))...)
			}
			dead[slot][at[slot]] = true
		}
		return true, nil
	})
	seen |= c.touched
	c.watches = base
	c.touched = outer | seen&below
	return err
}
