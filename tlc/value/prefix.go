package value

import (
	"sync/atomic"
	"unsafe"
)

// Equality of long sequences that are slices of the same two arrays.
//
// LogMatchingInv compares SubSeq(log[i], 1, n) with SubSeq(log[j], 1, n)
// for every n: each comparison walks n elements, so a pair of logs costs
// the square of their length. Slices share their arrays (see Slice), and
// arrays never change, so what one walk learned about two arrays holds
// for every later pair of slices starting at the same elements: the
// length of the prefix known equal, and the position of the first
// difference once found. A small table remembers that for recent pairs of
// arrays. An entry holds the slices it describes, so neither array can be
// freed and its address reused while the entry is in the table.

// prefixMin is the length from which sequence comparisons use the table:
// shorter ones walk faster than they look up.
const prefixMin = 16

type prefixEntry struct {
	a, b  []Value // the slices compared, starting at the arrays' keyed elements
	equal int     // a[:equal] and b[:equal] are equal
	diff  int     // a[diff] != b[diff] and the elements before are equal; -1: unknown
}

var prefixTable [256]atomic.Pointer[prefixEntry]

func prefixSlot(a, b []Value) *atomic.Pointer[prefixEntry] {
	pa, pb := uintptr(unsafe.Pointer(&a[0])), uintptr(unsafe.Pointer(&b[0]))
	if pa > pb {
		pa, pb = pb, pa
	}
	h := (uint64(pa)*0x9E3779B97F4A7C15 ^ uint64(pb)) * 0xBF58476D1CE4E5B9
	return &prefixTable[h>>56]
}

// equalPrefix is Equal for two sequences of the same length n >= 1.
func equalPrefix(a, b []Value) (bool, error) {
	slot := prefixSlot(a, b)
	e := slot.Load()
	known, diff := 0, -1
	// Equality is symmetric: an entry for the pair the other way round
	// serves as well.
	if e != nil && (&e.a[0] == &a[0] && &e.b[0] == &b[0] || &e.a[0] == &b[0] && &e.b[0] == &a[0]) {
		known, diff = e.equal, e.diff
		if diff >= 0 {
			return len(a) <= diff, nil
		}
		if len(a) <= known {
			return true, nil
		}
	}
	for i := known; i < len(a); i++ {
		eq, err := Equal(a[i], b[i])
		if err != nil {
			return false, err
		}
		if !eq {
			slot.Store(&prefixEntry{a: a, b: b, equal: i, diff: i})
			return false, nil
		}
	}
	slot.Store(&prefixEntry{a: a, b: b, equal: len(a), diff: -1})
	return true, nil
}
