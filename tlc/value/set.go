package value

import (
	"slices"
	"sync/atomic"
)

// Set is an explicit finite set: its elements sorted by Compare, without
// duplicates. Membership is a binary search, and two equal sets have the
// same element slice up to representation of the elements, which makes the
// fingerprint canonical.
type Set struct {
	elems []Value
	flags uint8
	kinds uint8 // bit 1<<Kind for every kind among the elements
	fp    atomic.Uint64
}

// EmptySet is {}.
var EmptySet = &Set{}

// Boolean is BOOLEAN, the set {FALSE, TRUE}.
var Boolean = &Set{elems: []Value{False, True}, kinds: 1 << KindBool}

// Kind implements Value.
func (*Set) Kind() Kind { return KindSet }
func (*Set) isValue()   {}

// NewSet returns the set of elems. It takes ownership of elems: the slice
// is sorted in place and must not be used by the caller afterwards. Finite
// lazy sets among the elements (other than intervals) are normalized first,
// so that sorting does not enumerate them again and again.
func NewSet(elems ...Value) *Set {
	if len(elems) == 0 {
		return EmptySet
	}
	if len(elems) == 1 {
		// Nothing to compare: a lazy element stays lazy, so that
		// x \in UNION {[S -> T]} never builds [S -> T].
		return setFromSorted(elems)
	}
	for i, e := range elems {
		if flagsOf(e)&flagLazy != 0 {
			if n, err := DeepNormalize(e); err == nil {
				elems[i] = n
			}
		}
	}
	if !slices.IsSortedFunc(elems, Compare) {
		slices.SortFunc(elems, Compare)
	}
	elems = slices.CompactFunc(elems, func(a, b Value) bool { return Compare(a, b) == 0 })
	return setFromSorted(elems)
}

// setFromSorted wraps elements that are already sorted and distinct.
func setFromSorted(elems []Value) *Set {
	if len(elems) == 0 {
		return EmptySet
	}
	s := &Set{elems: elems}
	for _, e := range elems {
		s.flags |= flagsOf(e)
		s.kinds |= 1 << e.Kind()
	}
	return s
}

// Len is the number of elements.
func (s *Set) Len() int { return len(s.elems) }

// Elems returns the elements in canonical order. The slice belongs to the
// set and must not be modified.
func (s *Set) Elems() []Value { return s.elems }

// search returns the index of x in s, or the insertion point and false.
func (s *Set) search(x Value) (int, bool) {
	lo, hi := 0, len(s.elems)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		c := Compare(s.elems[mid], x)
		if c == 0 {
			return mid, true
		}
		if c < 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, false
}

// member is x \in s with TLC's errors when x cannot be compared with the
// elements.
func (s *Set) member(x Value) (bool, error) {
	if _, ok := s.search(x); ok {
		return true, nil
	}
	if len(s.elems) == 0 {
		return false, nil
	}
	k := x.Kind()
	if k == KindModel {
		m := x.(ModelValue)
		if m.info.typ == 0 {
			return false, nil
		}
		for _, e := range s.elems {
			if _, err := Equal(m, e); err != nil {
				return false, err
			}
		}
		return false, nil
	}
	foreign := s.kinds &^ (1<<KindModel | 1<<k)
	if foreign == 0 {
		return false, nil
	}
	for _, e := range s.elems {
		if ek := e.Kind(); ek != KindModel && ek != k {
			return false, mismatchError("compare", x, e)
		}
	}
	return false, nil
}

// unionSorted merges two sorted distinct slices.
func unionSorted(a, b []Value) []Value {
	out := make([]Value, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch c := Compare(a[i], b[j]); {
		case c < 0:
			out = append(out, a[i])
			i++
		case c > 0:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	out = append(out, b[j:]...)
	return out
}

func unionExplicit(a, b *Set) *Set {
	if len(a.elems) == 0 {
		return b
	}
	if len(b.elems) == 0 || a == b {
		return a
	}
	// Common case: msgs \cup {m}.
	if len(b.elems) == 1 {
		i, found := a.search(b.elems[0])
		if found {
			return a
		}
		elems := make([]Value, len(a.elems)+1)
		copy(elems, a.elems[:i])
		elems[i] = b.elems[0]
		copy(elems[i+1:], a.elems[i:])
		return &Set{elems: elems, flags: a.flags | b.flags, kinds: a.kinds | b.kinds}
	}
	// Adding a few elements to a set that has them already.
	if len(b.elems) <= 4 {
		all := true
		for _, e := range b.elems {
			if _, ok := a.search(e); !ok {
				all = false
				break
			}
		}
		if all {
			return a
		}
	}
	return &Set{elems: unionSorted(a.elems, b.elems), flags: a.flags | b.flags, kinds: a.kinds | b.kinds}
}
