package value

import (
	"fmt"
	"slices"
	"sync/atomic"
)

// Func is a TLA+ function with a finite domain. Records, tuples and
// sequences are functions too, and every mathematical function has exactly
// one representation, chosen from its domain when it is built:
//
//   - interval: the domain is lo..lo+n-1. Tuples and sequences are the case
//     lo = 1; the empty function (<<>>, [x \in {} |-> e], an empty record)
//     is the interval function with n = 0 and lo = 1.
//   - record: the domain is a set of strings, kept sorted.
//   - general: any other domain, kept sorted by Compare.
//
// Because the representation is canonical, [a |-> 1] and
// [x \in {"a"} |-> 1] are the same Func, as are <<1, 2>> and
// [i \in 1..2 |-> i], so equality, order and fingerprint never depend on
// how a function was built.
type Func struct {
	kind  funcKind
	flags uint8
	lo    int64   // interval kind: the least element of the domain
	dom   []Value // record and general kinds: sorted, distinct; shared between functions of one shape
	vals  []Value // vals[i] is the value at the i-th domain element
	fp    atomic.Uint64
}

type funcKind uint8

const (
	fkInterval funcKind = iota
	fkRecord
	fkGeneral
)

// EmptyFunc is <<>>, the function with the empty domain.
var EmptyFunc = &Func{lo: 1}

// Kind implements Value.
func (*Func) Kind() Kind { return KindFunc }
func (*Func) isValue()   {}

// funcShape is the domain part of a function; functions built from one
// shape share its domain slice.
type funcShape struct {
	kind funcKind
	lo   int64
	dom  []Value
	n    int
}

// shapeOf classifies a sorted, distinct domain.
func shapeOf(keys []Value) funcShape {
	n := len(keys)
	if n == 0 {
		return funcShape{kind: fkInterval, lo: 1}
	}
	if lo, ok := keys[0].(Int); ok {
		interval := true
		for i, k := range keys {
			if x, ok := k.(Int); !ok || int64(x) != int64(lo)+int64(i) {
				interval = false
				break
			}
		}
		if interval {
			return funcShape{kind: fkInterval, lo: int64(lo), n: n}
		}
	}
	allStr := true
	for _, k := range keys {
		if _, ok := k.(Str); !ok {
			allStr = false
			break
		}
	}
	if allStr {
		return funcShape{kind: fkRecord, dom: keys, n: n}
	}
	return funcShape{kind: fkGeneral, dom: keys, n: n}
}

func (s funcShape) make(vals []Value) *Func {
	f := &Func{kind: s.kind, lo: s.lo, dom: s.dom, vals: vals}
	if len(vals) == 0 {
		f.kind, f.lo, f.dom = fkInterval, 1, nil
	}
	for _, k := range s.dom {
		f.flags |= flagsOf(k)
	}
	for _, v := range vals {
		f.flags |= flagsOf(v)
	}
	return f
}

// Tuple returns <<vals...>>. It takes ownership of vals.
func Tuple(vals ...Value) *Func {
	if len(vals) == 0 {
		return EmptyFunc
	}
	return funcShape{kind: fkInterval, lo: 1, n: len(vals)}.make(vals)
}

// IntervalFunc returns the function with domain lo..lo+len(vals)-1 mapping
// lo+i to vals[i]. It takes ownership of vals.
func IntervalFunc(lo int64, vals []Value) (*Func, error) {
	if len(vals) == 0 {
		return EmptyFunc, nil
	}
	if _, ok := addInt64(lo, int64(len(vals)-1)); !ok {
		return nil, fmt.Errorf("integer overflow in the domain %d..%d+%d", lo, lo, len(vals)-1)
	}
	return funcShape{kind: fkInterval, lo: lo, n: len(vals)}.make(vals), nil
}

// NewFunc returns the function mapping dom[i] to vals[i]. It copies both
// slices. A value that occurs twice in dom is an error, as in TLC.
func NewFunc(dom, vals []Value) (*Func, error) {
	if len(dom) != len(vals) {
		return nil, fmt.Errorf("function with %d domain elements and %d values", len(dom), len(vals))
	}
	idx := make([]int, len(dom))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return Compare(dom[a], dom[b]) })
	keys := make([]Value, len(dom))
	vs := make([]Value, len(dom))
	for i, j := range idx {
		keys[i], vs[i] = dom[j], vals[j]
		if i > 0 && Compare(keys[i-1], keys[i]) == 0 {
			return nil, fmt.Errorf("the value %s occurs multiple times in the function domain", short(keys[i]))
		}
	}
	return shapeOf(keys).make(vs), nil
}

// FuncOver returns [x \in dom |-> fn(x)]. fn is called once per element of
// dom, in canonical order.
func FuncOver(dom Value, fn func(Value) (Value, error)) (*Func, error) {
	switch d := dom.(type) {
	case *Interval:
		if n, ok := d.card(); !ok || n > maxEnumerate() {
			return nil, fmt.Errorf("cannot build a function over %s: too many elements", short(d))
		}
		vals := make([]Value, d.Len())
		for i := range vals {
			v, err := fn(IntOf(d.lo + int64(i)))
			if err != nil {
				return nil, err
			}
			vals[i] = v
		}
		return funcShape{kind: fkInterval, lo: d.lo, n: len(vals)}.make(vals), nil
	}
	keys, err := Enumerate(dom)
	if err != nil {
		return nil, err
	}
	vals := make([]Value, len(keys))
	for i, k := range keys {
		v, err := fn(k)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	return shapeOf(keys).make(vals), nil
}

// SingletonFunc is k :> v.
func SingletonFunc(k, v Value) *Func {
	return shapeOf([]Value{k}).make([]Value{v})
}

// RecordShape is the set of field names of a record constructor, prepared
// once so that building records of that shape only copies values.
type RecordShape struct {
	shape funcShape
	order []int // order[i] = position in declaration order of the i-th sorted field
	names []string
}

// NewRecordShape prepares the shape [names[0] |-> ..., names[1] |-> ...].
// A field named twice is an error.
func NewRecordShape(names ...string) (*RecordShape, error) {
	order := make([]int, len(names))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return compareStrings(names[a], names[b]) })
	keys := make([]Value, len(names))
	for i, j := range order {
		keys[i] = Str(names[j])
		if i > 0 && names[order[i-1]] == names[j] {
			return nil, fmt.Errorf("field %s occurs twice in a record", names[j])
		}
	}
	return &RecordShape{shape: shapeOf(keys), order: order, names: slices.Clone(names)}, nil
}

// Names returns the field names in declaration order.
func (r *RecordShape) Names() []string { return r.names }

// Make returns the record whose fields, in declaration order, have the
// values vals. It does not keep vals.
func (r *RecordShape) Make(vals []Value) (*Func, error) {
	if len(vals) != len(r.order) {
		return nil, fmt.Errorf("record with %d fields given %d values", len(r.order), len(vals))
	}
	vs := make([]Value, len(vals))
	for i, j := range r.order {
		vs[i] = vals[j]
	}
	return r.shape.make(vs), nil
}

// Record returns [names[0] |-> vals[0], ...].
func Record(names []string, vals []Value) (*Func, error) {
	shape, err := NewRecordShape(names...)
	if err != nil {
		return nil, err
	}
	return shape.Make(vals)
}

// Len is the number of elements of the domain.
func (f *Func) Len() int { return len(f.vals) }

// IsSeq tells whether f is a sequence (a tuple): its domain is 1..n.
func (f *Func) IsSeq() bool { return f.kind == fkInterval && f.lo == 1 }

// IsRecord tells whether f's domain is a non-empty set of strings.
func (f *Func) IsRecord() bool { return f.kind == fkRecord }

// Values returns the values in the canonical order of the domain. For a
// sequence these are its elements. The slice must not be modified.
func (f *Func) Values() []Value { return f.vals }

// Key returns the i-th element of the domain in canonical order.
func (f *Func) Key(i int) Value {
	if f.kind == fkInterval {
		return IntOf(f.lo + int64(i))
	}
	return f.dom[i]
}

// Domain returns DOMAIN f.
func (f *Func) Domain() Value {
	if f.kind == fkInterval {
		if len(f.vals) == 0 {
			return EmptySet
		}
		return &Interval{lo: f.lo, hi: f.lo + int64(len(f.vals)) - 1}
	}
	return setFromSorted(f.dom)
}

// index finds arg in the domain.
func (f *Func) index(arg Value) (int, bool) {
	switch f.kind {
	case fkInterval:
		x, ok := arg.(Int)
		if !ok {
			return 0, false
		}
		i := int64(x) - f.lo
		if int64(x) < f.lo || i >= int64(len(f.vals)) {
			return 0, false
		}
		return int(i), true
	case fkRecord:
		s, ok := arg.(Str)
		if !ok {
			return 0, false
		}
		return f.field(string(s))
	}
	lo, hi := 0, len(f.dom)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		c := Compare(f.dom[mid], arg)
		if c == 0 {
			return mid, true
		}
		if c < 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return 0, false
}

func (f *Func) field(name string) (int, bool) {
	lo, hi := 0, len(f.dom)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		c := compareStrings(string(f.dom[mid].(Str)), name)
		if c == 0 {
			return mid, true
		}
		if c < 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return 0, false
}

// Lookup returns f[arg], and false when arg is not in the domain.
func (f *Func) Lookup(arg Value) (Value, bool) {
	i, ok := f.index(arg)
	if !ok {
		return nil, false
	}
	return f.vals[i], true
}

// Field returns r.name for a record r.
func (f *Func) Field(name string) (Value, bool) {
	if f.kind != fkRecord {
		return nil, false
	}
	i, ok := f.field(name)
	if !ok {
		return nil, false
	}
	return f.vals[i], true
}

// FieldSite speeds up r.name where records of few shapes are met: it
// remembers where name is in the domain of the last shape seen (records
// built from one constructor share their domain). It is safe for
// concurrent use.
type FieldSite struct {
	last atomic.Pointer[fieldSeen]
}

type fieldSeen struct {
	dom *Value // the first element of the shape's domain
	i   int
}

// Field is r.name for a record r, as Func.Field.
func (s *FieldSite) Field(f *Func, name string) (Value, bool) {
	if f.kind != fkRecord || len(f.dom) == 0 {
		return nil, false
	}
	if seen := s.last.Load(); seen != nil && seen.dom == &f.dom[0] && seen.i < len(f.dom) && string(f.dom[seen.i].(Str)) == name {
		return f.vals[seen.i], true
	}
	i, ok := f.field(name)
	if !ok {
		return nil, false
	}
	s.last.Store(&fieldSeen{&f.dom[0], i})
	return f.vals[i], true
}

// DomainError reports a function applied outside its domain. The evaluator
// may replace Func by the expression it evaluated for a better message.
type DomainError struct {
	Func Value
	Arg  Value
}

func (e *DomainError) Error() string {
	dom := "?"
	if f, ok := e.Func.(*Func); ok {
		dom = short(f.Domain())
	}
	return fmt.Sprintf("function applied outside its domain: %s[%s], domain %s", short(e.Func), short(e.Arg), dom)
}

// Apply is f[arg].
func Apply(f, arg Value) (Value, error) {
	fn, ok := f.(*Func)
	if !ok {
		return nil, fmt.Errorf("a non-function (%s %s) was applied as a function to %s", f.Kind(), short(f), short(arg))
	}
	if v, ok := fn.Lookup(arg); ok {
		return v, nil
	}
	return nil, &DomainError{Func: f, Arg: arg}
}

// Domain is DOMAIN f.
func Domain(f Value) (Value, error) {
	fn, ok := f.(*Func)
	if !ok {
		return nil, fmt.Errorf("attempted to compute the domain of %s %s, which is not a function", f.Kind(), short(f))
	}
	return fn.Domain(), nil
}

// withValue returns f with the i-th value replaced.
func (f *Func) withValue(i int, v Value) *Func {
	vals := slices.Clone(f.vals)
	vals[i] = v
	return &Func{kind: f.kind, lo: f.lo, dom: f.dom, vals: vals, flags: f.flags | flagsOf(v)}
}

// Update is [f EXCEPT ![path[0]][path[1]]... = v].
func Update(f Value, path []Value, v Value) (Value, error) {
	return UpdateWith(f, path, func(Value) (Value, error) { return v, nil })
}

// UpdateOne is [f EXCEPT ![k] = v], Update with a path of one key,
// without allocating a path.
func UpdateOne(f *Func, k, v Value) *Func {
	i, ok := f.index(k)
	if !ok || f.vals[i] == v {
		return f
	}
	return f.withValue(i, v)
}

// UpdateWith is [f EXCEPT ![path[0]]... = fn(@)], where fn receives the old
// value at path (the @ of the EXCEPT). As in TLA+, when some key of the path
// is not in the domain of the function it indexes, the result is f
// unchanged and fn is not called (TLC prints a warning in that case; the
// evaluator can check Lookup first if it wants to).
func UpdateWith(f Value, path []Value, fn func(old Value) (Value, error)) (Value, error) {
	if len(path) == 0 {
		return fn(f)
	}
	g, ok := f.(*Func)
	if !ok {
		return nil, fmt.Errorf("attempted to apply EXCEPT to %s %s, which is not a function", f.Kind(), short(f))
	}
	i, ok := g.index(path[0])
	if !ok {
		return g, nil
	}
	old := g.vals[i]
	nv, err := UpdateWith(old, path[1:], fn)
	if err != nil {
		return nil, err
	}
	if nv == old {
		return g, nil
	}
	return g.withValue(i, nv), nil
}

// Merge is f @@ g: the function on DOMAIN f \cup DOMAIN g that agrees with
// f on DOMAIN f and with g elsewhere.
func Merge(f, g Value) (Value, error) {
	a, ok := f.(*Func)
	if !ok {
		return nil, fmt.Errorf("the first argument of @@ should be a function, but instead it is %s", short(f))
	}
	b, ok := g.(*Func)
	if !ok {
		return nil, fmt.Errorf("the second argument of @@ should be a function, but instead it is %s", short(g))
	}
	if len(b.vals) == 0 {
		return a, nil
	}
	if len(a.vals) == 0 {
		return b, nil
	}
	keys := make([]Value, 0, len(a.vals)+len(b.vals))
	vals := make([]Value, 0, len(a.vals)+len(b.vals))
	i, j := 0, 0
	for i < len(a.vals) || j < len(b.vals) {
		var c int
		switch {
		case i == len(a.vals):
			c = 1
		case j == len(b.vals):
			c = -1
		default:
			c = compareKeys(a, i, b, j)
		}
		switch {
		case c < 0:
			keys, vals = append(keys, a.Key(i)), append(vals, a.vals[i])
			i++
		case c > 0:
			keys, vals = append(keys, b.Key(j)), append(vals, b.vals[j])
			j++
		default:
			keys, vals = append(keys, a.Key(i)), append(vals, a.vals[i])
			i++
			j++
		}
	}
	return shapeOf(keys).make(vals), nil
}
