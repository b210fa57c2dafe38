package eval

import (
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// Results of a quantifier's body, by binding and by the parts of the
// state the body read.
//
// LogMatchingInv == \A i, j \in Server : P(i, j) reads log[i] and log[j]
// and nothing else of the state. A trace spec's step changes one server's
// log, so the invariant (re-evaluated because log changed) has the same
// inputs in most of its pairs as in the state before. The evaluation of a
// body is a function of the binding and of the values it read, so a body
// that was true or false for a binding in an earlier state, where every
// part of the state it read (a variable, or a variable applied to an
// argument: log[i]) had the values it has now, is true or false again
// without being evaluated. Read parts are compared by identity, then
// fingerprint, then Equal, so that a collision cannot change a result.
//
// Only bodies evaluated in a state alone (an invariant, a constraint, a
// state-level definition) are kept, of quantifiers outside any operator
// parameter or LET (their bound names are all the body can see besides
// the state and constants), and only when the evaluation had no effect
// (output, registers) and no error: an error is evaluated again and
// reported as it would have been.

// quantMemoMax bounds the bindings remembered per quantifier.
const quantMemoMax = 4096

// quantMemoPerBinding is how many states are remembered per binding.
const quantMemoPerBinding = 2

// readAtom is a part of the state an evaluation read: variable idx, or
// variable idx applied to arg when arg is not nil, and the value read.
type readAtom struct {
	idx int
	arg value.Value
	val value.Value
}

// holds reports whether the atom reads the same value in state s.
func (a *readAtom) holds(s []value.Value) bool {
	v := s[a.idx]
	if a.arg != nil {
		f, ok := v.(*value.Func)
		if !ok {
			return false
		}
		if v, ok = f.Lookup(a.arg); !ok {
			return false
		}
	}
	return sameValue(v, a.val)
}

// sameValue reports whether a and b are equal values: by identity, then
// fingerprint, then Equal; an error (values TLC cannot compare) counts as
// a difference.
func sameValue(a, b value.Value) bool {
	if identical(a, b) {
		return true
	}
	if value.Fingerprint(a) != value.Fingerprint(b) {
		return false
	}
	eq, err := value.Equal(a, b)
	return err == nil && eq
}

// identical reports whether a and b are the same value without comparing
// their contents (false when that cannot be told cheaply).
func identical(a, b value.Value) bool {
	switch x := a.(type) {
	case value.Int:
		y, ok := b.(value.Int)
		return ok && x == y
	case value.Str:
		y, ok := b.(value.Str)
		return ok && x == y
	case value.Bool:
		y, ok := b.(value.Bool)
		return ok && x == y
	case *value.Func:
		y, ok := b.(*value.Func)
		return ok && x == y
	case *value.Set:
		y, ok := b.(*value.Set)
		return ok && x == y
	}
	return false
}

// quantMemo holds the body results of one quantifier, by the fingerprint
// of the binding.
type quantMemo struct {
	entries map[uint64][]quantEntry
	size    int
}

type quantEntry struct {
	binding []value.Value
	atoms   []readAtom
	result  bool
}

// recordRead notes, while a body is recorded, that variable idx (applied
// to arg when not nil) was read as v.
func (c *ctx) recordRead(idx int, arg, v value.Value) {
	// A body reads the same parts again and again (log[i][n] for every
	// n): look back a little for the same read.
	lo := max(c.atomBase, len(c.atoms)-8)
	for k := len(c.atoms) - 1; k >= lo; k-- {
		a := &c.atoms[k]
		if a.idx == idx && a.arg == arg {
			return
		}
	}
	c.atoms = append(c.atoms, readAtom{idx, arg, v})
}

// recordVars notes that the variables of bits were read whole.
func (c *ctx) recordVars(bits uint64) {
	for i, v := range c.cur {
		if i < 64 && bits&(1<<uint(i)) != 0 {
			c.recordRead(i, nil, v)
		}
	}
}

// memoBodies reports whether quantifier bodies evaluated with env may be
// kept: a state-level evaluation (no next state, no pruning watches, no
// probe) of a quantifier outside any parameter or LET frame.
func (c *ctx) memoBodies(env *Env) bool {
	return env == nil && c.next == nil && !c.initMode && c.primed == 0 && c.watches == 0 &&
		c.probe == nil && len(c.cur) > 0 && len(c.cur) <= 64 && len(c.cur) == len(c.m.Vars)
}

// memoBody evaluates the body of quantifier n in frame f (its binding),
// or finds its result among those kept.
func (c *ctx) memoBody(n *quantNode, f *Env) (bool, error) {
	key, ok, found := c.memoLookup(n, f.vals)
	if found {
		return ok, nil
	}
	base, outerBase, effects := c.memoStart()
	ok, err := evalBool(c, f, n.body)
	c.memoEnd(n, f.vals, key, base, outerBase, effects, ok, err)
	return ok, err
}

// memoLookup finds the result of n's body for the binding vals among
// those kept, and returns the binding's key.
func (c *ctx) memoLookup(n *quantNode, vals []value.Value) (key uint64, ok, found bool) {
	m := c.quantMemos[n]
	var h value.Hasher
	for _, v := range vals {
		h.Add(v)
	}
	key = h.Sum()
	if m == nil {
		return key, false, false
	}
	for _, e := range m.entries[key] {
		if !sameArgs(e.binding, vals) || !atomsHold(e.atoms, c.cur) {
			continue
		}
		for i := range e.atoms {
			c.readVars |= 1 << uint(e.atoms[i].idx)
		}
		if c.recording > 0 {
			for _, a := range e.atoms {
				c.recordRead(a.idx, a.arg, a.val)
			}
		}
		return key, e.result, true
	}
	return key, false, false
}

// memoStart starts recording what a body evaluation reads.
func (c *ctx) memoStart() (base, outerBase, effects int) {
	base, outerBase = len(c.atoms), c.atomBase
	c.atomBase = base
	c.recording++
	return base, outerBase, c.effects
}

// memoEnd ends the recording memoStart started and keeps the result ok
// (or err) of n's body for the binding vals.
func (c *ctx) memoEnd(n *quantNode, vals []value.Value, key uint64, base, outerBase, effects int, ok bool, err error) {
	c.recording--
	c.atomBase = outerBase
	if err == nil && c.effects == effects {
		m := c.quantMemos[n]
		if m == nil {
			if c.quantMemos == nil {
				c.quantMemos = map[*quantNode]*quantMemo{}
			}
			m = &quantMemo{}
			c.quantMemos[n] = m
		}
		if m.entries == nil || m.size >= quantMemoMax {
			m.entries, m.size = map[uint64][]quantEntry{}, 0
		}
		e := quantEntry{append([]value.Value(nil), vals...), append([]readAtom(nil), c.atoms[base:]...), ok}
		es := m.entries[key]
		if len(es) < quantMemoPerBinding {
			m.size++
			es = append(es, e)
		} else {
			copy(es, es[1:])
			es[len(es)-1] = e
		}
		m.entries[key] = es
	}
	if c.recording == 0 {
		clear(c.atoms[base:])
		c.atoms = c.atoms[:base]
	}
}

func atomsHold(atoms []readAtom, s []value.Value) bool {
	for i := range atoms {
		if !atoms[i].holds(s) {
			return false
		}
	}
	return true
}
