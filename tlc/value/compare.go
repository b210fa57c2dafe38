package value

import (
	"cmp"
	"fmt"
	"strings"
)

// Compare is the canonical total order of values. It sorts the elements of
// sets and the domains of functions, and it is the order in which CHOOSE
// and Enumerate visit a set. It never fails: values TLC refuses to compare
// (an integer and a string, say) are ordered by kind, and Equal is where
// such comparisons are reported as errors.
//
// The order, following TLC's compareTo where TLC defines one:
//
//   - by kind first: model values < booleans < integers < strings <
//     functions < sets. TLC puts model values before any other value; it
//     does not order the other kinds against each other (it fails).
//   - model values: by rank, the order in which their names were interned
//     (see NewModelValue).
//   - FALSE < TRUE.
//   - integers: numerically.
//   - strings: by bytes (lexicographically). TLC orders strings by the
//     order in which its parser first saw them, which we do not reproduce;
//     the two agree whenever a spec writes its strings in sorted order.
//   - functions (and so records, tuples, sequences): by domain size, then
//     by their domains element by element, then by their values in domain
//     order. Tuples of one length compare lexicographically.
//   - sets: by cardinality, then element by element in canonical order.
//     Infinite sets come after all finite ones, ordered among themselves by
//     their representation (consistent, but not meaningful).
func Compare(a, b Value) int {
	switch x := a.(type) {
	case Int:
		if y, ok := b.(Int); ok {
			return cmp.Compare(x, y)
		}
	case Str:
		if y, ok := b.(Str); ok {
			return strings.Compare(string(x), string(y))
		}
	case ModelValue:
		if y, ok := b.(ModelValue); ok {
			return cmp.Compare(x.info.rank, y.info.rank)
		}
	case Bool:
		if y, ok := b.(Bool); ok {
			return cmpBool(bool(x), bool(y))
		}
	case *Func:
		if y, ok := b.(*Func); ok {
			return compareFuncs(x, y)
		}
	}
	ka, kb := a.Kind(), b.Kind()
	if ka != kb {
		return cmp.Compare(ka, kb)
	}
	return compareSets(a, b)
}

func cmpBool(x, y bool) int {
	switch {
	case x == y:
		return 0
	case !x:
		return -1
	}
	return 1
}

func compareStrings(a, b string) int { return strings.Compare(a, b) }

// compareInt64Value compares the integer x with v without boxing x.
func compareInt64Value(x int64, v Value) int {
	if y, ok := v.(Int); ok {
		return cmp.Compare(x, int64(y))
	}
	return cmp.Compare(KindInt, v.Kind())
}

// compareKeys compares the i-th domain element of f with the j-th of g.
func compareKeys(f *Func, i int, g *Func, j int) int {
	fi, gi := f.kind == fkInterval, g.kind == fkInterval
	switch {
	case fi && gi:
		return cmp.Compare(f.lo+int64(i), g.lo+int64(j))
	case fi:
		return compareInt64Value(f.lo+int64(i), g.dom[j])
	case gi:
		return -compareInt64Value(g.lo+int64(j), f.dom[i])
	}
	return Compare(f.dom[i], g.dom[j])
}

func compareFuncs(f, g *Func) int {
	if f == g {
		return 0
	}
	if c := cmp.Compare(len(f.vals), len(g.vals)); c != 0 {
		return c
	}
	if f.kind == fkInterval && g.kind == fkInterval {
		if c := cmp.Compare(f.lo, g.lo); c != 0 && len(f.vals) > 0 {
			return c
		}
		if len(f.vals) > 0 && &f.vals[0] == &g.vals[0] {
			return 0
		}
		for i := range f.vals {
			if c := Compare(f.vals[i], g.vals[i]); c != 0 {
				return c
			}
		}
		return 0
	}
	// As TLC's FcnRcdValue and RecordValue: the whole domains first, then
	// the values.
	sameDom := f.kind != fkInterval && g.kind != fkInterval && &f.dom[0] == &g.dom[0]
	if !sameDom {
		for i := range f.vals {
			if c := compareKeys(f, i, g, i); c != 0 {
				return c
			}
		}
	}
	for i := range f.vals {
		if c := Compare(f.vals[i], g.vals[i]); c != 0 {
			return c
		}
	}
	return 0
}

// compareSets compares two values of kind set.
func compareSets(a, b Value) int {
	if a == b {
		return 0
	}
	switch x := a.(type) {
	case *Set:
		switch y := b.(type) {
		case *Set:
			if c := cmp.Compare(len(x.elems), len(y.elems)); c != 0 {
				return c
			}
			for i := range x.elems {
				if c := Compare(x.elems[i], y.elems[i]); c != 0 {
					return c
				}
			}
			return 0
		case *Interval:
			return -compareIntervalSet(y, x)
		}
	case *Interval:
		switch y := b.(type) {
		case *Interval:
			if c := cmp.Compare(uint64(x.hi-x.lo), uint64(y.hi-y.lo)); c != 0 {
				return c
			}
			return cmp.Compare(x.lo, y.lo)
		case *Set:
			return compareIntervalSet(x, y)
		}
	}
	xs, xerr := Normalize(a)
	ys, yerr := Normalize(b)
	switch {
	case xerr == nil && yerr == nil:
		return compareSets(xs, ys)
	case xerr == nil:
		return -1
	case yerr == nil:
		return 1
	}
	// Two sets that cannot be enumerated: order by representation.
	if c := cmp.Compare(lazyRank(a), lazyRank(b)); c != 0 {
		return c
	}
	return cmp.Compare(Fingerprint(a), Fingerprint(b))
}

func compareIntervalSet(x *Interval, y *Set) int {
	n, ok := x.card()
	if !ok {
		return 1
	}
	if c := cmp.Compare(n, int64(len(y.elems))); c != 0 {
		return c
	}
	for i, e := range y.elems {
		if c := compareInt64Value(x.lo+int64(i), e); c != 0 {
			return c
		}
	}
	return 0
}

func lazyRank(s Value) int {
	switch t := s.(type) {
	case InfiniteSet:
		return int(t)
	case *PowerSet:
		return 10
	case *FuncSet:
		return 11
	case *RecordSet:
		return 12
	case *ProductSet:
		return 13
	case *SeqSet:
		return 14
	case *UnionSet:
		return 15
	case *IntersectSet:
		return 16
	case *DiffSet:
		return 17
	case *FilterSet:
		return 18
	}
	return 0
}

// Identical reports whether a and b are the same value without comparing
// their contents: the same scalar, or the same composite value (false
// when that cannot be told cheaply; the values may still be equal).
func Identical(a, b Value) bool {
	switch x := a.(type) {
	case Int:
		y, ok := b.(Int)
		return ok && x == y
	case Str:
		y, ok := b.(Str)
		return ok && x == y
	case Bool:
		y, ok := b.(Bool)
		return ok && x == y
	case ModelValue:
		y, ok := b.(ModelValue)
		return ok && x.info == y.info
	case *Func:
		y, ok := b.(*Func)
		return ok && x == y
	case *Set:
		y, ok := b.(*Set)
		return ok && x == y
	}
	return false
}

// Equal is a = b with TLC's semantics: values of different kinds cannot be
// compared (an error), except that an untyped model value is different
// from every value but itself. Sets are equal when they have the same
// elements, whatever their representation (1..3 = {1, 2, 3}). Functions are
// equal when they have the same domain and values, whatever way they were
// built. Note that <<>> = {} is an error in TLC, as here: the empty
// function is not the empty set.
func Equal(a, b Value) (bool, error) {
	switch x := a.(type) {
	case Int:
		if y, ok := b.(Int); ok {
			return x == y, nil
		}
	case Str:
		if y, ok := b.(Str); ok {
			return x == y, nil
		}
	case Bool:
		if y, ok := b.(Bool); ok {
			return x == y, nil
		}
	case ModelValue:
		return equalModel(x, b)
	case *Func:
		if y, ok := b.(*Func); ok {
			return equalFuncs(x, y)
		}
	}
	if m, ok := b.(ModelValue); ok {
		return equalModel(m, a)
	}
	if a.Kind() != b.Kind() {
		return false, mismatchError("check equality of", a, b)
	}
	return equalSets(a, b)
}

func equalModel(m ModelValue, b Value) (bool, error) {
	if y, ok := b.(ModelValue); ok {
		if m.info.typ != 0 && y.info.typ != 0 && m.info.typ != y.info.typ {
			return false, fmt.Errorf("attempted to check equality of the differently-typed model values %s and %s", m.info.name, y.info.name)
		}
		return m.info == y.info, nil
	}
	if m.info.typ != 0 {
		return false, fmt.Errorf("attempted to check equality of the typed model value %s and the non-model value %s", m.info.name, short(b))
	}
	return false, nil
}

// mismatchError is TLC's error for comparing values of different kinds,
// e.g. "attempted to check equality of integer 1 with non-integer "a"".
func mismatchError(what string, a, b Value) error {
	return fmt.Errorf("attempted to %s %s %s with non-%s %s", what, a.Kind(), short(a), a.Kind(), short(b))
}

// equalInt64Value is Equal(Int(x), v) without boxing x.
func equalInt64Value(x int64, v Value) (bool, error) {
	if y, ok := v.(Int); ok {
		return x == int64(y), nil
	}
	return Equal(IntOf(x), v)
}

func equalKeys(f *Func, i int, g *Func, j int) (bool, error) {
	fi, gi := f.kind == fkInterval, g.kind == fkInterval
	switch {
	case fi && gi:
		return f.lo+int64(i) == g.lo+int64(j), nil
	case fi:
		return equalInt64Value(f.lo+int64(i), g.dom[j])
	case gi:
		return equalInt64Value(g.lo+int64(j), f.dom[i])
	}
	return Equal(f.dom[i], g.dom[j])
}

func equalFuncs(f, g *Func) (bool, error) {
	if f == g {
		return true, nil
	}
	if len(f.vals) != len(g.vals) {
		return false, nil
	}
	if len(f.vals) == 0 {
		return true, nil
	}
	if f.kind == fkInterval && g.kind == fkInterval {
		if f.lo != g.lo {
			return false, nil
		}
		if &f.vals[0] == &g.vals[0] {
			// Slices of one sequence (SubSeq(s, 1, n) twice).
			return true, nil
		}
		if len(f.vals) >= prefixMin {
			return equalPrefix(f.vals, g.vals)
		}
	} else if f.kind == g.kind && &f.dom[0] == &g.dom[0] {
		// Same shape: the domains are one slice.
	} else {
		for i := range f.vals {
			if eq, err := equalKeys(f, i, g, i); err != nil || !eq {
				return false, err
			}
		}
	}
	for i := range f.vals {
		if eq, err := Equal(f.vals[i], g.vals[i]); err != nil || !eq {
			return false, err
		}
	}
	return true, nil
}

func equalSets(a, b Value) (bool, error) {
	if a == b {
		return true, nil
	}
	switch x := a.(type) {
	case *Set:
		switch y := b.(type) {
		case *Set:
			if len(x.elems) != len(y.elems) {
				return false, nil
			}
			for i := range x.elems {
				if eq, err := Equal(x.elems[i], y.elems[i]); err != nil || !eq {
					return false, err
				}
			}
			return true, nil
		case *Interval:
			return equalIntervalSet(y, x)
		}
	case *Interval:
		switch y := b.(type) {
		case *Interval:
			return *x == *y, nil
		case *Set:
			return equalIntervalSet(x, y)
		}
	}
	af, err := IsFinite(a)
	if err != nil {
		return false, err
	}
	bf, err := IsFinite(b)
	if err != nil {
		return false, err
	}
	switch {
	case af && bf:
		x, err := Normalize(a)
		if err != nil {
			return false, err
		}
		y, err := Normalize(b)
		if err != nil {
			return false, err
		}
		return equalSets(x, y)
	case af != bf:
		return false, nil
	}
	return equalInfinite(a, b)
}

func equalIntervalSet(x *Interval, y *Set) (bool, error) {
	if n, ok := x.card(); !ok || n != int64(len(y.elems)) {
		return false, nil
	}
	for i, e := range y.elems {
		if eq, err := equalInt64Value(x.lo+int64(i), e); err != nil || !eq {
			return false, err
		}
	}
	return true, nil
}

// equalInfinite decides equality of two infinite sets when their
// representations make it evident.
func equalInfinite(a, b Value) (bool, error) {
	switch x := a.(type) {
	case InfiniteSet:
		if y, ok := b.(InfiniteSet); ok {
			return x == y, nil
		}
	case *SeqSet:
		if y, ok := b.(*SeqSet); ok {
			return Equal(x.Base, y.Base)
		}
	case *PowerSet:
		if y, ok := b.(*PowerSet); ok {
			return Equal(x.Base, y.Base)
		}
	case *FuncSet:
		if y, ok := b.(*FuncSet); ok {
			return equalAll([]Value{x.Dom, x.Rng}, []Value{y.Dom, y.Rng})
		}
	case *RecordSet:
		if y, ok := b.(*RecordSet); ok && slicesEqualStrings(x.Names, y.Names) {
			return equalAll(x.Sets, y.Sets)
		}
	case *ProductSet:
		if y, ok := b.(*ProductSet); ok && len(x.Sets) == len(y.Sets) {
			return equalAll(x.Sets, y.Sets)
		}
	}
	if Fingerprint(a) == Fingerprint(b) {
		return true, nil
	}
	return false, fmt.Errorf("cannot decide whether the infinite sets %s and %s are equal", short(a), short(b))
}

func equalAll(a, b []Value) (bool, error) {
	for i := range a {
		if eq, err := Equal(a[i], b[i]); err != nil || !eq {
			return false, err
		}
	}
	return true, nil
}

func slicesEqualStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
