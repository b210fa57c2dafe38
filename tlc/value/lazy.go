package value

import (
	"fmt"
	"slices"
	"sync/atomic"
)

// Interval is the set lo..hi, with lo <= hi (an empty range is EmptySet).
// It enumerates in ascending order without being materialized.
type Interval struct{ lo, hi int64 }

// NewInterval returns lo..hi: an *Interval, or EmptySet when hi < lo.
func NewInterval(lo, hi int64) Value {
	if hi < lo {
		return EmptySet
	}
	return &Interval{lo: lo, hi: hi}
}

// Range is a..b for two integer values.
func Range(a, b Value) (Value, error) {
	x, err := intArg("first", "..", a)
	if err != nil {
		return nil, err
	}
	y, err := intArg("second", "..", b)
	if err != nil {
		return nil, err
	}
	return NewInterval(x, y), nil
}

// Lo and Hi are the bounds.
func (s *Interval) Lo() int64 { return s.lo }

// Hi is the upper bound.
func (s *Interval) Hi() int64 { return s.hi }

// Len is the number of elements; ranges too large for an int are an error
// of Cardinality.
func (s *Interval) Len() int { return int(s.hi - s.lo + 1) }

func (s *Interval) card() (int64, bool) {
	n := uint64(s.hi-s.lo) + 1
	if n == 0 || n > 1<<62 {
		return 0, false
	}
	return int64(n), true
}

// InfiniteSet is one of the infinite standard sets Nat, Int and STRING.
type InfiniteSet uint8

// The infinite standard sets.
const (
	Nat InfiniteSet = iota + 1
	Integers
	Strings
)

// PowerSet is SUBSET Base.
type PowerSet struct{ Base Value }

// FuncSet is [Dom -> Rng].
type FuncSet struct{ Dom, Rng Value }

// RecordSet is [Names[0] : Sets[0], ...], with Names sorted.
type RecordSet struct {
	Names []string
	Sets  []Value
}

// ProductSet is Sets[0] \X Sets[1] \X ...
type ProductSet struct{ Sets []Value }

// SeqSet is Seq(Base).
type SeqSet struct{ Base Value }

// UnionSet is A \cup B where one side is not explicit.
type UnionSet struct{ A, B Value }

// IntersectSet is A \cap B where neither side is explicit.
type IntersectSet struct{ A, B Value }

// DiffSet is A \ B where A is not explicit.
type DiffSet struct{ A, B Value }

// Kind implements Value.
// FilterSet is {x \in Base : P(x)} over a set that cannot be enumerated
// ({n \in Nat : n > 0}): TLC keeps such a set unbuilt (SetPredValue) and
// tests x \in Base /\ P(x). Pred must be safe to call from any goroutine
// at any time (the evaluator gives it its own context); Text is the set as
// written, for printing.
type FilterSet struct {
	Base Value
	Pred func(x Value) (bool, error)
	Text string
}

func (*FilterSet) Kind() Kind       { return KindSet }
func (*FilterSet) isValue()         {}
func (s *FilterSet) String() string { return s.Text }

func (*Interval) Kind() Kind     { return KindSet }
func (InfiniteSet) Kind() Kind   { return KindSet }
func (*PowerSet) Kind() Kind     { return KindSet }
func (*FuncSet) Kind() Kind      { return KindSet }
func (*RecordSet) Kind() Kind    { return KindSet }
func (*ProductSet) Kind() Kind   { return KindSet }
func (*SeqSet) Kind() Kind       { return KindSet }
func (*UnionSet) Kind() Kind     { return KindSet }
func (*IntersectSet) Kind() Kind { return KindSet }
func (*DiffSet) Kind() Kind      { return KindSet }

func (*Interval) isValue()     {}
func (InfiniteSet) isValue()   {}
func (*PowerSet) isValue()     {}
func (*FuncSet) isValue()      {}
func (*RecordSet) isValue()    {}
func (*ProductSet) isValue()   {}
func (*SeqSet) isValue()       {}
func (*UnionSet) isValue()     {}
func (*IntersectSet) isValue() {}
func (*DiffSet) isValue()      {}

func setArg(op string, v Value) error {
	if v.Kind() != KindSet {
		return fmt.Errorf("the argument of %s should be a set, but instead it is %s", op, short(v))
	}
	return nil
}

// Powerset is SUBSET s.
func Powerset(s Value) (Value, error) {
	if err := setArg("SUBSET", s); err != nil {
		return nil, err
	}
	return &PowerSet{Base: s}, nil
}

// SetOfFuncs is [dom -> rng].
func SetOfFuncs(dom, rng Value) (Value, error) {
	if err := setArg("[S -> T]", dom); err != nil {
		return nil, err
	}
	if err := setArg("[S -> T]", rng); err != nil {
		return nil, err
	}
	return &FuncSet{Dom: dom, Rng: rng}, nil
}

// SetOfRecords is [names[0] : sets[0], ...]. It copies its arguments.
func SetOfRecords(names []string, sets []Value) (Value, error) {
	if len(names) != len(sets) {
		return nil, fmt.Errorf("record set with %d fields and %d sets", len(names), len(sets))
	}
	order := make([]int, len(names))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return compareStrings(names[a], names[b]) })
	rs := &RecordSet{Names: make([]string, len(names)), Sets: make([]Value, len(names))}
	for i, j := range order {
		if err := setArg("[a : S]", sets[j]); err != nil {
			return nil, err
		}
		rs.Names[i], rs.Sets[i] = names[j], sets[j]
		if i > 0 && rs.Names[i-1] == rs.Names[i] {
			return nil, fmt.Errorf("field %s occurs twice in a set of records", names[j])
		}
	}
	return rs, nil
}

// Product is sets[0] \X sets[1] \X ... It takes ownership of sets.
func Product(sets ...Value) (Value, error) {
	for _, s := range sets {
		if err := setArg(`\X`, s); err != nil {
			return nil, err
		}
	}
	return &ProductSet{Sets: sets}, nil
}

// SeqOf is Seq(s).
func SeqOf(s Value) (Value, error) {
	if err := setArg("Seq", s); err != nil {
		return nil, err
	}
	return &SeqSet{Base: s}, nil
}

// Union is a \cup b: explicit when both sides are, lazy otherwise.
func Union(a, b Value) (Value, error) {
	if err := setArg(`\cup`, a); err != nil {
		return nil, err
	}
	if err := setArg(`\cup`, b); err != nil {
		return nil, err
	}
	x, xok := explicit(a)
	y, yok := explicit(b)
	if xok && yok {
		return unionExplicit(x, y), nil
	}
	return &UnionSet{A: a, B: b}, nil
}

// Intersect is a \cap b: explicit when one side is, lazy otherwise.
func Intersect(a, b Value) (Value, error) {
	if err := setArg(`\cap`, a); err != nil {
		return nil, err
	}
	if err := setArg(`\cap`, b); err != nil {
		return nil, err
	}
	if x, ok := explicit(a); ok {
		return asValue(filter(x.elems, b, true))
	}
	if y, ok := explicit(b); ok {
		return asValue(filter(y.elems, a, true))
	}
	return &IntersectSet{A: a, B: b}, nil
}

// Diff is a \ b: explicit when a is, lazy otherwise.
func Diff(a, b Value) (Value, error) {
	if err := setArg(`\`, a); err != nil {
		return nil, err
	}
	if err := setArg(`\`, b); err != nil {
		return nil, err
	}
	if x, ok := explicit(a); ok {
		return asValue(filter(x.elems, b, false))
	}
	return &DiffSet{A: a, B: b}, nil
}

// asValue keeps a nil *Set out of a Value.
func asValue(s *Set, err error) (Value, error) {
	if err != nil {
		return nil, err
	}
	return s, nil
}

// explicit returns s as a *Set when that is cheap: for a *Set and for a
// small interval.
func explicit(s Value) (*Set, bool) {
	switch x := s.(type) {
	case *Set:
		return x, true
	case *Interval:
		if n, ok := x.card(); ok && n <= 64 {
			return intervalSet(x), true
		}
	}
	return nil, false
}

func intervalSet(x *Interval) *Set {
	elems := make([]Value, x.Len())
	for i := range elems {
		elems[i] = IntOf(x.lo + int64(i))
	}
	return &Set{elems: elems, kinds: 1 << KindInt}
}

// filter keeps the elements of elems that are (keep) or are not (!keep) in s.
func filter(elems []Value, s Value, keep bool) (*Set, error) {
	var out []Value
	for i, e := range elems {
		in, err := Member(e, s)
		if err != nil {
			return nil, err
		}
		if in != keep {
			if out == nil {
				out = make([]Value, i, len(elems))
				copy(out, elems[:i])
			}
			continue
		}
		if out != nil {
			out = append(out, e)
		}
	}
	if out == nil {
		return setFromSorted(elems), nil
	}
	return setFromSorted(out), nil
}

// UnionAll is UNION s.
func UnionAll(s Value) (Value, error) {
	elems, err := Enumerate(s)
	if err != nil {
		return nil, err
	}
	return UnionOf(elems...)
}

// UnionOf is UNION {sets[0], sets[1], ...}, without building the set of
// sets. Explicit sets are merged; a lazy one is kept as it is, so that
// membership in the union tests each element without building it.
func UnionOf(sets ...Value) (Value, error) {
	for _, e := range sets {
		if err := setArg("UNION", e); err != nil {
			return nil, err
		}
	}
	if len(sets) == 0 {
		return EmptySet, nil
	}
	acc := sets[0]
	for _, e := range sets[1:] {
		var err error
		if acc, err = Union(acc, e); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

// Subseteq is a \subseteq b.
func Subseteq(a, b Value) (bool, error) {
	if err := setArg(`\subseteq`, a); err != nil {
		return false, err
	}
	if err := setArg(`\subseteq`, b); err != nil {
		return false, err
	}
	if fin, err := IsFinite(a); err != nil {
		return false, err
	} else if !fin {
		return infiniteSubseteq(a, b)
	}
	elems, err := Enumerate(a)
	if err != nil {
		return false, err
	}
	for _, e := range elems {
		in, err := Member(e, b)
		if err != nil || !in {
			return false, err
		}
	}
	return true, nil
}

func infiniteSubseteq(a, b Value) (bool, error) {
	x, xok := a.(InfiniteSet)
	y, yok := b.(InfiniteSet)
	if xok && yok {
		return x == y || (x == Nat && y == Integers), nil
	}
	if eq, err := Equal(a, b); err == nil && eq {
		return true, nil
	}
	return false, fmt.Errorf("cannot decide whether the infinite set %s is a subset of %s", short(a), short(b))
}

// Member is x \in s.
func Member(x, s Value) (bool, error) {
	switch t := s.(type) {
	case *Set:
		return t.member(x)
	case *Interval:
		return memberInts(x, s, t.lo, t.hi)
	case InfiniteSet:
		switch t {
		case Nat:
			return memberInts(x, s, 0, 1<<63-1)
		case Integers:
			return memberInts(x, s, -1<<63, 1<<63-1)
		}
		if _, ok := x.(Str); ok {
			return true, nil
		}
		return memberForeign(x, s)
	case *PowerSet:
		if x.Kind() != KindSet {
			return memberForeign(x, s)
		}
		return Subseteq(x, t.Base)
	case *FuncSet:
		f, ok := x.(*Func)
		if !ok {
			return memberForeign(x, s)
		}
		eq, err := domainEquals(f, t.Dom)
		if err != nil || !eq {
			return false, err
		}
		return allIn(f.vals, t.Rng)
	case *RecordSet:
		f, ok := x.(*Func)
		if !ok {
			return memberForeign(x, s)
		}
		if len(f.vals) != len(t.Names) {
			return false, nil
		}
		if len(f.vals) == 0 {
			return true, nil
		}
		if f.kind != fkRecord {
			return false, nil
		}
		for i, name := range t.Names {
			if string(f.dom[i].(Str)) != name {
				return false, nil
			}
			in, err := Member(f.vals[i], t.Sets[i])
			if err != nil || !in {
				return false, err
			}
		}
		return true, nil
	case *ProductSet:
		f, ok := x.(*Func)
		if !ok {
			return memberForeign(x, s)
		}
		if !f.IsSeq() || len(f.vals) != len(t.Sets) {
			return false, nil
		}
		for i, v := range f.vals {
			in, err := Member(v, t.Sets[i])
			if err != nil || !in {
				return false, err
			}
		}
		return true, nil
	case *SeqSet:
		f, ok := x.(*Func)
		if !ok {
			return memberForeign(x, s)
		}
		if !f.IsSeq() {
			return false, nil
		}
		return allIn(f.vals, t.Base)
	case *UnionSet:
		in, err := Member(x, t.A)
		if err != nil || in {
			return in, err
		}
		return Member(x, t.B)
	case *IntersectSet:
		in, err := Member(x, t.A)
		if err != nil || !in {
			return false, err
		}
		return Member(x, t.B)
	case *DiffSet:
		in, err := Member(x, t.A)
		if err != nil || !in {
			return false, err
		}
		out, err := Member(x, t.B)
		return !out, err
	case *FilterSet:
		in, err := Member(x, t.Base)
		if err != nil || !in {
			return false, err
		}
		return t.Pred(x)
	}
	return false, fmt.Errorf("attempted to check if %s is an element of %s %s, which is not a set", short(x), s.Kind(), short(s))
}

// domainEquals is DOMAIN f = d, without building DOMAIN f in the common
// cases.
func domainEquals(f *Func, d Value) (bool, error) {
	switch t := d.(type) {
	case *Set:
		if len(t.elems) != len(f.vals) {
			return false, nil
		}
		for i, e := range t.elems {
			var eq bool
			var err error
			if f.kind == fkInterval {
				eq, err = equalInt64Value(f.lo+int64(i), e)
			} else {
				eq, err = Equal(f.dom[i], e)
			}
			if err != nil || !eq {
				return false, err
			}
		}
		return true, nil
	case *Interval:
		if f.kind == fkInterval && len(f.vals) > 0 {
			return f.lo == t.lo && f.lo+int64(len(f.vals))-1 == t.hi, nil
		}
	}
	return Equal(f.Domain(), d)
}

func allIn(vals []Value, s Value) (bool, error) {
	for _, v := range vals {
		in, err := Member(v, s)
		if err != nil || !in {
			return false, err
		}
	}
	return true, nil
}

func memberInts(x, s Value, lo, hi int64) (bool, error) {
	if i, ok := x.(Int); ok {
		return int64(i) >= lo && int64(i) <= hi, nil
	}
	return memberForeign(x, s)
}

// memberForeign handles x \in s when x is of a kind s cannot contain: FALSE
// for an untyped model value, an error otherwise (as in TLC).
func memberForeign(x, s Value) (bool, error) {
	if m, ok := x.(ModelValue); ok && m.info.typ == 0 {
		return false, nil
	}
	return false, fmt.Errorf("attempted to check if the %s %s is an element of %s", x.Kind(), short(x), short(s))
}

// IsFinite tells whether s is a finite set.
func IsFinite(s Value) (bool, error) {
	switch t := s.(type) {
	case *Set, *Interval:
		return true, nil
	case InfiniteSet:
		return false, nil
	case *PowerSet:
		return IsFinite(t.Base)
	case *FuncSet:
		df, err := IsFinite(t.Dom)
		if err != nil {
			return false, err
		}
		rf, err := IsFinite(t.Rng)
		if err != nil {
			return false, err
		}
		if df && rf {
			return true, nil
		}
		// [{} -> T] = {<<>>} and [S -> {}] = {} for non-empty S.
		if df {
			if empty, err := isEmpty(t.Dom); err != nil || empty {
				return empty, err
			}
		}
		if rf {
			return isEmpty(t.Rng)
		}
		return false, nil
	case *RecordSet:
		return allFiniteOrOneEmpty(t.Sets)
	case *ProductSet:
		return allFiniteOrOneEmpty(t.Sets)
	case *SeqSet:
		if fin, err := IsFinite(t.Base); err != nil || !fin {
			return false, err
		}
		return isEmpty(t.Base)
	case *UnionSet:
		af, err := IsFinite(t.A)
		if err != nil || !af {
			return false, err
		}
		return IsFinite(t.B)
	case *IntersectSet:
		af, err := IsFinite(t.A)
		if err != nil || af {
			return af, err
		}
		return IsFinite(t.B)
	case *DiffSet:
		return IsFinite(t.A)
	case *FilterSet:
		return false, fmt.Errorf("cannot decide whether %s is finite: it filters a set that cannot be enumerated", short(s))
	}
	return false, fmt.Errorf("attempted to check if the %s %s is a finite set", s.Kind(), short(s))
}

func allFiniteOrOneEmpty(sets []Value) (bool, error) {
	all := true
	for _, s := range sets {
		fin, err := IsFinite(s)
		if err != nil {
			return false, err
		}
		all = all && fin
	}
	if all {
		return true, nil
	}
	for _, s := range sets {
		if fin, _ := IsFinite(s); fin {
			if empty, err := isEmpty(s); err != nil || empty {
				return empty, err
			}
		}
	}
	return false, nil
}

// isEmpty tells whether the finite set s is empty.
func isEmpty(s Value) (bool, error) {
	switch t := s.(type) {
	case *Set:
		return len(t.elems) == 0, nil
	case *Interval:
		return false, nil
	}
	n, err := Cardinality(s)
	return n == 0, err
}

// Cardinality is Cardinality(s) for a finite set s.
func Cardinality(s Value) (int64, error) {
	switch t := s.(type) {
	case *Set:
		return int64(len(t.elems)), nil
	case *Interval:
		n, ok := t.card()
		if !ok {
			return 0, fmt.Errorf("the cardinality of %s is too large", short(s))
		}
		return n, nil
	case *PowerSet:
		n, err := Cardinality(t.Base)
		if err != nil {
			return 0, err
		}
		if n > 62 {
			return 0, fmt.Errorf("the cardinality of %s is too large", short(s))
		}
		return 1 << n, nil
	case *FuncSet:
		if df, err := IsFinite(t.Dom); err != nil {
			return 0, err
		} else if df {
			if empty, err := isEmpty(t.Dom); err != nil || empty {
				return 1, err
			}
		}
		if rf, err := IsFinite(t.Rng); err != nil {
			return 0, err
		} else if rf {
			if empty, err := isEmpty(t.Rng); err != nil || empty {
				return 0, err
			}
		}
		d, err := Cardinality(t.Dom)
		if err != nil {
			return 0, err
		}
		r, err := Cardinality(t.Rng)
		if err != nil {
			return 0, err
		}
		return powCard(s, r, d)
	case *RecordSet:
		return productCard(s, t.Sets)
	case *ProductSet:
		return productCard(s, t.Sets)
	}
	if fin, err := IsFinite(s); err != nil {
		return 0, err
	} else if !fin {
		return 0, fmt.Errorf("attempted to compute the cardinality of the infinite set %s", short(s))
	}
	n, err := Normalize(s)
	if err != nil {
		return 0, err
	}
	return int64(len(n.elems)), nil
}

func powCard(s Value, base, exp int64) (int64, error) {
	r := int64(1)
	for range exp {
		var ok bool
		if r, ok = mulInt64(r, base); !ok || r > 1<<62 {
			return 0, fmt.Errorf("the cardinality of %s is too large", short(s))
		}
	}
	return r, nil
}

func productCard(s Value, sets []Value) (int64, error) {
	for _, x := range sets {
		if fin, _ := IsFinite(x); fin {
			if empty, err := isEmpty(x); err != nil || empty {
				return 0, err
			}
		}
	}
	r := int64(1)
	for _, x := range sets {
		n, err := Cardinality(x)
		if err != nil {
			return 0, err
		}
		var ok bool
		if r, ok = mulInt64(r, n); !ok || r > 1<<62 {
			return 0, fmt.Errorf("the cardinality of %s is too large", short(s))
		}
	}
	return r, nil
}

// DefaultEnumerateLimit bounds the sets Enumerate materializes, so that a
// typo in a spec fails with an error instead of exhausting memory.
const DefaultEnumerateLimit = 1 << 26

var enumerateLimit atomic.Int64

func init() { enumerateLimit.Store(DefaultEnumerateLimit) }

// SetEnumerateLimit changes the largest set Enumerate (and so every
// operation that lists a set's elements) materializes, and returns the
// previous limit. A program that evaluates untrusted input, such as a fuzz
// test, lowers it.
func SetEnumerateLimit(n int64) int64 { return enumerateLimit.Swap(n) }

func maxEnumerate() int64 { return enumerateLimit.Load() }

// Enumerate returns the elements of the finite set s in canonical order (the
// order of Compare, the order in which TLC's CHOOSE tries them). For a *Set
// the slice is the set's own and must not be modified. An infinite set is
// an error ("cannot enumerate Nat").
func Enumerate(s Value) ([]Value, error) {
	switch t := s.(type) {
	case *Set:
		return t.elems, nil
	case *Interval:
		n, ok := t.card()
		if !ok || n > maxEnumerate() {
			return nil, fmt.Errorf("cannot enumerate %s: too many elements", short(s))
		}
		return intervalSet(t).elems, nil
	}
	fin, err := IsFinite(s)
	if err != nil {
		return nil, err
	}
	if !fin {
		return nil, fmt.Errorf("cannot enumerate %s", short(s))
	}
	switch s.(type) {
	case *PowerSet, *FuncSet, *RecordSet, *ProductSet:
		// Their cardinality is a formula: check it before building them.
		if n, err := Cardinality(s); err != nil {
			return nil, err
		} else if n > maxEnumerate() {
			return nil, fmt.Errorf("cannot enumerate %s: %d elements", short(s), n)
		} else if n == 0 {
			return nil, nil
		}
	}
	switch t := s.(type) {
	case *PowerSet:
		return enumeratePowerSet(t)
	case *FuncSet:
		dom, err := Enumerate(t.Dom)
		if err != nil {
			return nil, err
		}
		shape := shapeOf(dom)
		if len(dom) == 0 {
			return []Value{EmptyFunc}, nil
		}
		rng, err := Enumerate(t.Rng)
		if err != nil {
			return nil, err
		}
		axes := make([][]Value, len(dom))
		for i := range axes {
			axes[i] = rng
		}
		return odometer(axes, shape), nil
	case *RecordSet:
		keys := make([]Value, len(t.Names))
		for i, n := range t.Names {
			keys[i] = Str(n)
		}
		axes, err := enumerateAll(t.Sets)
		if err != nil {
			return nil, err
		}
		return odometer(axes, shapeOf(keys)), nil
	case *ProductSet:
		axes, err := enumerateAll(t.Sets)
		if err != nil {
			return nil, err
		}
		return odometer(axes, funcShape{kind: fkInterval, lo: 1, n: len(axes)}), nil
	case *SeqSet:
		// Finite only when the base is empty: Seq({}) = {<<>>}.
		return []Value{EmptyFunc}, nil
	case *UnionSet:
		a, err := Enumerate(t.A)
		if err != nil {
			return nil, err
		}
		b, err := Enumerate(t.B)
		if err != nil {
			return nil, err
		}
		return unionSorted(a, b), nil
	case *IntersectSet:
		a, b := t.A, t.B
		if fin, _ := IsFinite(a); !fin {
			a, b = b, a
		}
		elems, err := Enumerate(a)
		if err != nil {
			return nil, err
		}
		f, err := filter(elems, b, true)
		if err != nil {
			return nil, err
		}
		return f.elems, nil
	case *DiffSet:
		elems, err := Enumerate(t.A)
		if err != nil {
			return nil, err
		}
		f, err := filter(elems, t.B, false)
		if err != nil {
			return nil, err
		}
		return f.elems, nil
	}
	return nil, fmt.Errorf("cannot enumerate %s", short(s))
}

func enumerateAll(sets []Value) ([][]Value, error) {
	axes := make([][]Value, len(sets))
	for i, s := range sets {
		e, err := Enumerate(s)
		if err != nil {
			return nil, err
		}
		axes[i] = e
	}
	return axes, nil
}

// odometer returns every function of the shape whose i-th value ranges over
// axes[i], in canonical order: the last position varies fastest, each over
// its axis in canonical order (functions of one domain compare by their
// values, lexicographically in domain order).
func odometer(axes [][]Value, shape funcShape) []Value {
	total := 1
	for _, a := range axes {
		total *= len(a)
	}
	if total == 0 {
		return nil
	}
	out := make([]Value, 0, total)
	idx := make([]int, len(axes))
	for {
		vals := make([]Value, len(axes))
		for i, a := range axes {
			vals[i] = a[idx[i]]
		}
		out = append(out, shape.make(vals))
		i := len(axes) - 1
		for ; i >= 0; i-- {
			idx[i]++
			if idx[i] < len(axes[i]) {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			return out
		}
	}
}

// enumeratePowerSet lists the subsets of the base by size, and subsets of
// one size in lexicographic order of their sorted elements, which is the
// canonical order of sets.
func enumeratePowerSet(p *PowerSet) ([]Value, error) {
	base, err := Enumerate(p.Base)
	if err != nil {
		return nil, err
	}
	n := len(base)
	out := make([]Value, 0, 1<<n)
	out = append(out, EmptySet)
	idx := make([]int, 0, n)
	for k := 1; k <= n; k++ {
		idx = idx[:k]
		for i := range idx {
			idx[i] = i
		}
		for {
			elems := make([]Value, k)
			for i, j := range idx {
				elems[i] = base[j]
			}
			out = append(out, setFromSorted(elems))
			// Next combination of k indices out of n.
			i := k - 1
			for i >= 0 && idx[i] == n-k+i {
				i--
			}
			if i < 0 {
				break
			}
			idx[i]++
			for j := i + 1; j < k; j++ {
				idx[j] = idx[j-1] + 1
			}
		}
	}
	return out, nil
}

// Normalize returns the finite set s as an explicit *Set.
func Normalize(s Value) (*Set, error) {
	switch t := s.(type) {
	case *Set:
		return t, nil
	case *Interval:
		if n, ok := t.card(); !ok || n > maxEnumerate() {
			return nil, fmt.Errorf("cannot enumerate %s: too many elements", short(s))
		}
		return intervalSet(t), nil
	}
	elems, err := Enumerate(s)
	if err != nil {
		return nil, err
	}
	return setFromSorted(elems), nil
}

// DeepNormalize replaces every finite lazy set inside v, other than
// intervals, by its explicit *Set, so that comparing and fingerprinting v
// never enumerates again. Infinite sets stay symbolic. Values without lazy
// sets are returned unchanged (the same pointer). The checker calls it on
// the values of a state before storing the state.
func DeepNormalize(v Value) (Value, error) {
	if flagsOf(v)&flagLazy == 0 {
		return v, nil
	}
	switch t := v.(type) {
	case *Set:
		var out []Value
		for i, e := range t.elems {
			n, err := DeepNormalize(e)
			if err != nil {
				return nil, err
			}
			if out == nil && n != e {
				out = slices.Clone(t.elems)
			}
			if out != nil {
				out[i] = n
			}
		}
		if out == nil {
			return t, nil
		}
		return setFromSorted(out), nil
	case *Func:
		var dom, vals []Value
		for i, k := range t.dom {
			n, err := DeepNormalize(k)
			if err != nil {
				return nil, err
			}
			if dom == nil && n != k {
				dom = slices.Clone(t.dom)
			}
			if dom != nil {
				dom[i] = n
			}
		}
		for i, e := range t.vals {
			n, err := DeepNormalize(e)
			if err != nil {
				return nil, err
			}
			if vals == nil && n != e {
				vals = slices.Clone(t.vals)
			}
			if vals != nil {
				vals[i] = n
			}
		}
		if dom == nil && vals == nil {
			return t, nil
		}
		if dom == nil {
			dom = t.dom
		}
		if vals == nil {
			vals = t.vals
		}
		return funcShape{kind: t.kind, lo: t.lo, dom: dom, n: len(vals)}.make(vals), nil
	}
	fin, err := IsFinite(v)
	if err != nil || !fin {
		return v, err
	}
	s, err := Normalize(v)
	if err != nil {
		return nil, err
	}
	return DeepNormalize(s)
}
