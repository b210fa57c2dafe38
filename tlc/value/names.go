package value

import (
	"cmp"
	"slices"
	"sync"
)

// TLC keeps a record's fields in the order its parser first saw their
// names (UniqueString's intern order: the root module's text first, then
// the modules it loads), and prints them in that order: [zeta |-> 1,
// alpha |-> 2] prints so, not sorted. Records here keep their fields
// sorted by name (the canonical order, which comparisons and fingerprints
// use); SeeNames records the order names were seen in, for printing.

var names struct {
	sync.RWMutex
	rank map[string]int
}

// SeeNames records names, in order, as seen by a parser: a name seen
// before keeps its place.
func SeeNames(ns []string) {
	names.Lock()
	defer names.Unlock()
	if names.rank == nil {
		names.rank = map[string]int{}
	}
	for _, n := range ns {
		if _, ok := names.rank[n]; !ok {
			names.rank[n] = len(names.rank)
		}
	}
}

// ResetNames forgets the names seen: a model being built starts its own
// order, as TLC's parser does in the process of one run.
func ResetNames() {
	names.Lock()
	defer names.Unlock()
	names.rank = nil
}

// printOrder returns the order in which a record's fields, given in
// canonical order, print: seen names in the order they were seen, then the
// others by name. It returns nil when that is the canonical order.
func printOrder(dom []Value) []int {
	names.RLock()
	defer names.RUnlock()
	if len(names.rank) == 0 {
		return nil
	}
	rank := func(i int) (int, bool) {
		r, ok := names.rank[string(dom[i].(Str))]
		return r, ok
	}
	order := make([]int, len(dom))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ra, oka := rank(a)
		rb, okb := rank(b)
		switch {
		case oka && okb:
			return cmp.Compare(ra, rb)
		case oka:
			return -1
		case okb:
			return 1
		}
		return cmp.Compare(a, b)
	})
	for i, j := range order {
		if i != j {
			return order
		}
	}
	return nil
}

// PrintOrder returns the order in which record f's fields print (TLC's
// order, see SeeNames), as indexes into its fields in canonical order;
// nil when that is the canonical order or f is not a record.
func PrintOrder(f *Func) []int {
	if f.kind != fkRecord {
		return nil
	}
	return printOrder(f.dom)
}
