package value

import (
	"fmt"
	"slices"
)

// Sequence operators of the Sequences module. A sequence is a function
// with domain 1..n (see Func.IsSeq). As in TLC, Len and \o also accept
// strings, which TLA+ defines as sequences of characters.

// SeqElems returns the elements of the sequence s. The slice must not be
// modified.
func SeqElems(op string, s Value) ([]Value, error) {
	if f, ok := s.(*Func); ok && f.IsSeq() {
		return f.vals, nil
	}
	return nil, fmt.Errorf("the argument of %s should be a sequence, but instead it is %s", op, short(s))
}

// Slice returns <<s[lo+1], ..., s[hi]>>, the elements lo..hi-1 (from 0) of
// the sequence s, sharing s's elements: SubSeq and Tail take no copy.
// 0 <= lo <= hi <= Len(s) must hold.
func Slice(s *Func, lo, hi int) *Func {
	if lo == hi {
		return EmptyFunc
	}
	if lo == 0 && hi == len(s.vals) {
		return s
	}
	// The flags of s are those of a superset of the elements: a walk they
	// let through may find nothing to do, but never misses anything.
	return &Func{kind: fkInterval, lo: 1, vals: s.vals[lo:hi:hi], flags: s.flags}
}

// Len is Len(s).
func Len(s Value) (Value, error) {
	if str, ok := s.(Str); ok {
		return IntOf(int64(len(str))), nil
	}
	elems, err := SeqElems("Len", s)
	if err != nil {
		return nil, err
	}
	return IntOf(int64(len(elems))), nil
}

// Append is Append(s, e).
func Append(s, e Value) (Value, error) {
	elems, err := SeqElems("Append", s)
	if err != nil {
		return nil, err
	}
	out := make([]Value, len(elems)+1)
	copy(out, elems)
	out[len(elems)] = e
	return Tuple(out...), nil
}

// Head is Head(s) for a non-empty sequence.
func Head(s Value) (Value, error) {
	elems, err := SeqElems("Head", s)
	if err != nil {
		return nil, err
	}
	if len(elems) == 0 {
		return nil, fmt.Errorf("attempted to apply Head to the empty sequence")
	}
	return elems[0], nil
}

// Tail is Tail(s) for a non-empty sequence.
func Tail(s Value) (Value, error) {
	elems, err := SeqElems("Tail", s)
	if err != nil {
		return nil, err
	}
	if len(elems) == 0 {
		return nil, fmt.Errorf("attempted to apply Tail to the empty sequence")
	}
	return Slice(s.(*Func), 1, len(elems)), nil
}

// Concat is s \o t.
func Concat(s, t Value) (Value, error) {
	if a, ok := s.(Str); ok {
		if b, ok := t.(Str); ok {
			return a + b, nil
		}
	}
	a, err := SeqElems(`\o`, s)
	if err != nil {
		return nil, err
	}
	b, err := SeqElems(`\o`, t)
	if err != nil {
		return nil, err
	}
	if len(b) == 0 {
		return s, nil
	}
	if len(a) == 0 {
		return t, nil
	}
	return Tuple(slices.Concat(a, b)...), nil
}

// SubSeq is SubSeq(s, m, n): <<s[m], ..., s[n]>>, empty when n < m. When
// m <= n, 1 <= m and n <= Len(s) are required, as in TLC.
func SubSeq(s, m, n Value) (Value, error) {
	elems, err := SeqElems("SubSeq", s)
	if err != nil {
		return nil, err
	}
	lo, err := intArg("second", "SubSeq", m)
	if err != nil {
		return nil, err
	}
	hi, err := intArg("third", "SubSeq", n)
	if err != nil {
		return nil, err
	}
	if hi < lo {
		return EmptyFunc, nil
	}
	if lo < 1 || hi > int64(len(elems)) {
		return nil, fmt.Errorf("SubSeq(s, %d, %d) out of the bounds of a sequence of length %d", lo, hi, len(elems))
	}
	return Slice(s.(*Func), int(lo-1), int(hi)), nil
}
