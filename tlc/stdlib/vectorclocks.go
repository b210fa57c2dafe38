package stdlib

import (
	"fmt"
	"slices"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// The community module VectorClocks (it EXTENDS Naturals, Sequences and
// Functions).
//
// IsCausalOrder(log, clock) holds when every entry's clock (clock(e), a
// function from nodes to naturals, missing nodes counting 0) is not
// before the clock of any entry ahead of it: each earlier clock happened
// before the later one or is concurrent with it, as the module defines.
//
// CausalOrder(log, clock, node, domain) sorts a log into a causal order as
// TLC's Java code does: each node's entries are ordered by the node's own
// time (clock(e)[node(e)]); entry e of node n depends on entry t of node o
// when e's clock is the first of n's to reach time t for o (the clocks
// have no gaps: o's t-th entry has time t); then, round after round, each
// node whose next entry depends on nothing left gives it up. TLC visits
// the nodes in the order of a Java hash map, which varies; here they are
// visited in canonical order, so ties between concurrent entries may be
// broken otherwise than by TLC, in another causal order.

func registerVectorClocks() {
	def("VectorClocks",
		&Builtin{Name: "IsCausalOrder", Arity: 2, OpParams: []int{1}, Fn: isCausalOrder},
		&Builtin{Name: "CausalOrder", Arity: 4, OpParams: []int{1, 2, 3}, Fn: causalOrder},
	)
}

// vcTime is clock c at node d, 0 where c is not defined.
func vcTime(op string, c *value.Func, d value.Value) (int64, error) {
	v, ok := c.Lookup(d)
	if !ok {
		return 0, nil
	}
	n, ok := v.(value.Int)
	if !ok {
		return 0, fmt.Errorf("%s: a clock's value is not a number: %s", op, show(v))
	}
	return int64(n), nil
}

func callClock(op string, o Op, e value.Value) (*value.Func, error) {
	v, err := o.Call([]value.Value{e})
	if err != nil {
		return nil, err
	}
	f, ok := v.(*value.Func)
	if !ok {
		return nil, fmt.Errorf("%s: a clock is not a function: %s", op, show(v))
	}
	return f, nil
}

func isCausalOrder(_ Context, args []Arg) (value.Value, error) {
	const op = "IsCausalOrder"
	log, err := seqArg(op, 0, 2, args[0].V)
	if err != nil {
		return nil, err
	}
	clockOp, err := opArg(op, 1, 2, args, 1)
	if err != nil {
		return nil, err
	}
	clocks := make([]*value.Func, len(log))
	for i, e := range log {
		if clocks[i], err = callClock(op, clockOp, e); err != nil {
			return nil, err
		}
	}
	for i := range clocks {
		for j := range i {
			ok, err := notAfter(op, clocks[j], clocks[i])
			if err != nil || !ok {
				return value.Bool(false), err
			}
		}
	}
	return value.Bool(true), nil
}

// notAfter says whether clock a happened before b or is concurrent with
// it, over the union of their domains.
func notAfter(op string, a, b *value.Func) (bool, error) {
	var less, greater, allLE bool = false, false, true
	dom := map[string]value.Value{}
	var keys []value.Value
	for _, f := range []*value.Func{a, b} {
		for i := range f.Len() {
			k := f.Key(i)
			s := k.String()
			if _, ok := dom[s]; !ok {
				dom[s] = k
				keys = append(keys, k)
			}
		}
	}
	for _, k := range keys {
		x, err := vcTime(op, a, k)
		if err != nil {
			return false, err
		}
		y, err := vcTime(op, b, k)
		if err != nil {
			return false, err
		}
		if x < y {
			less = true
		}
		if x > y {
			greater, allLE = true, false
		}
	}
	happenedBefore := allLE && less
	concurrent := less && greater
	return happenedBefore || concurrent, nil
}

type vcEntry struct {
	val     value.Value
	clock   *value.Func
	time    int64
	hosts   []value.Value
	parents map[*vcEntry]bool
	kids    []*vcEntry
}

func causalOrder(_ Context, args []Arg) (value.Value, error) {
	const op = "CausalOrder"
	log, err := seqArg(op, 0, 4, args[0].V)
	if err != nil {
		return nil, err
	}
	var ops [3]Op
	for i := range ops {
		if ops[i], err = opArg(op, i+1, 4, args, 1); err != nil {
			return nil, err
		}
	}
	clockOp, nodeOp, domainOp := ops[0], ops[1], ops[2]

	// Each node's entries, by the node's own time.
	var nodes []value.Value
	byNode := map[string][]*vcEntry{}
	for _, v := range log {
		node, err := nodeOp.Call([]value.Value{v})
		if err != nil {
			return nil, err
		}
		clock, err := callClock(op, clockOp, v)
		if err != nil {
			return nil, err
		}
		t, ok := clock.Lookup(node)
		if !ok {
			return nil, fmt.Errorf("%s: the clock of an entry of node %s has no time for it: %s", op, show(node), show(clock))
		}
		tn, ok := t.(value.Int)
		if !ok {
			return nil, fmt.Errorf("%s: a clock's value is not a number: %s", op, show(t))
		}
		dv, err := domainOp.Call([]value.Value{clock})
		if err != nil {
			return nil, err
		}
		hosts, err := elemsArg(op, 3, 4, dv)
		if err != nil {
			return nil, err
		}
		k := node.String()
		if _, ok := byNode[k]; !ok {
			nodes = append(nodes, node)
		}
		byNode[k] = append(byNode[k], &vcEntry{val: v, clock: clock, time: int64(tn), hosts: hosts, parents: map[*vcEntry]bool{}})
	}
	slices.SortFunc(nodes, value.Compare)
	for _, es := range byNode {
		slices.SortStableFunc(es, func(a, b *vcEntry) int { return int(min(max(a.time-b.time, -1), 1)) })
	}

	// The dependencies.
	for _, n := range nodes {
		seen := map[string]int64{}
		for _, e := range byNode[n.String()] {
			seen[n.String()] = e.time
			for _, o := range e.hosts {
				t, err := vcTime(op, e.clock, o)
				if err != nil {
					return nil, err
				}
				if seen[o.String()] >= t {
					continue
				}
				seen[o.String()] = t
				others, ok := byNode[o.String()]
				if !ok || t < 1 || t > int64(len(others)) {
					return nil, fmt.Errorf("%s: an entry's clock has time %d for node %s, which has %d entries in the log (the clocks must have no gaps)", op, t, show(o), len(others))
				}
				p := others[t-1]
				if p != e && !e.parents[p] {
					e.parents[p] = true
					p.kids = append(p.kids, e)
				}
			}
		}
	}

	// Round after round, each node gives up its next entry when it
	// depends on nothing left.
	out := make([]value.Value, 0, len(log))
	for range log {
		for _, n := range nodes {
			es := byNode[n.String()]
			if len(es) == 0 || len(es[0].parents) > 0 {
				continue
			}
			e := es[0]
			byNode[n.String()] = es[1:]
			for _, k := range e.kids {
				delete(k.parents, e)
			}
			out = append(out, e.val)
		}
	}
	if len(out) != len(log) {
		return nil, fmt.Errorf("%s: the clocks order no entry before %d of the %d entries (they depend on one another)", op, len(log)-len(out), len(log))
	}
	return value.Tuple(out...), nil
}
