package eval

import (
	"github.com/modelfuzz/modelfuzz/tlc/syntax"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// Results of operators that do not depend on the state.
//
// Quorum(c) == {i \in SUBSET(c) : Cardinality(i) * 2 > Cardinality(c)}
// is a function of its argument alone, yet QuorumLogInv computes it for
// every server in every state it checks: a thousand subsets each time for
// ten servers. An operator whose body reads no variable (and is not
// recursive, and takes no operator or by-name argument) gives the same
// result for equal arguments, so an evaluator keeps the results of the
// ones that proved expensive, by argument values. A result whose
// evaluation had an effect (output, registers) is never kept.

// memoMinSteps is the cost (calls and binder iterations) from which an
// operator's results are kept: cheaper ones cost less than a lookup.
const memoMinSteps = 16

// memoMaxEntries bounds the results kept per operator.
const memoMaxEntries = 4096

// callMemo holds the results of one operator; it exists once an
// evaluation of the operator cost memoMinSteps or more.
type callMemo struct {
	entries map[uint64][]memoEntry
	size    int
}

type memoEntry struct {
	args []value.Value
	v    value.Value
}

// pureCall evaluates operator d, which does not depend on the state, on
// the arguments in frame fr.
func (c *ctx) pureCall(d *def, fr *Env, pos syntax.Pos) (value.Value, error) {
	m := c.memos[d]
	var key uint64
	if m != nil {
		var h value.Hasher
		for _, a := range fr.vals {
			h.Add(a)
		}
		key = h.Sum()
		for _, e := range m.entries[key] {
			if sameArgs(e.args, fr.vals) {
				// The result depends on every argument.
				for _, t := range fr.taint {
					c.touched |= t
				}
				return e.v, nil
			}
		}
	}
	if err := c.enter(pos); err != nil {
		return nil, err
	}
	steps, effects := c.steps, c.effects
	v, err := c.evalBody(d, fr)
	c.leave()
	if err != nil || c.effects != effects {
		return v, err
	}
	if m == nil {
		if c.steps-steps < memoMinSteps {
			return v, nil
		}
		if c.memos == nil {
			c.memos = map[*def]*callMemo{}
		}
		m = &callMemo{}
		c.memos[d] = m
		var h value.Hasher
		for _, a := range fr.vals {
			h.Add(a)
		}
		key = h.Sum()
	}
	if m.entries == nil || m.size >= memoMaxEntries {
		m.entries, m.size = map[uint64][]memoEntry{}, 0
	}
	m.entries[key] = append(m.entries[key], memoEntry{fr.vals, v})
	m.size++
	return v, nil
}

// sameArgs reports whether two argument lists are equal. An error (values
// TLC cannot compare) counts as a difference: the call is evaluated.
func sameArgs(a, b []value.Value) bool {
	for i := range a {
		if a[i] == b[i] {
			continue
		}
		if eq, err := value.Equal(a[i], b[i]); err != nil || !eq {
			return false
		}
	}
	return true
}
