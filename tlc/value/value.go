package value

import (
	"fmt"
	"sync"
)

// Value is a TLA+ value. Implementations are immutable and safe to share
// between goroutines: every constructor takes ownership of the slices it is
// given, and nothing modifies a value after it is built.
//
// The implementations are Bool, Int, Str, ModelValue, *Func (functions,
// records, tuples, sequences) and the sets: *Set (explicit, normalized),
// *Interval, InfiniteSet (Nat, Int, STRING), and the lazy *PowerSet,
// *FuncSet, *RecordSet, *ProductSet, *SeqSet, *UnionSet, *IntersectSet,
// *DiffSet and *FilterSet.
type Value interface {
	// Kind is the kind of the value; every set representation is KindSet.
	Kind() Kind
	// String prints the value the way TLC prints it in error traces.
	String() string
	isValue()
}

// Kind classifies values. The numeric order of the kinds is the first key
// of the canonical order (see Compare): model values sort before everything
// else, as in TLC.
type Kind uint8

// The kinds of values, in canonical order.
const (
	KindModel Kind = iota
	KindBool
	KindInt
	KindString
	KindFunc
	KindSet
)

// String names the kind the way error messages do.
func (k Kind) String() string {
	switch k {
	case KindModel:
		return "model value"
	case KindBool:
		return "boolean"
	case KindInt:
		return "integer"
	case KindString:
		return "string"
	case KindFunc:
		return "function"
	case KindSet:
		return "set"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Bool is TRUE or FALSE.
type Bool bool

// The two booleans.
const (
	True  = Bool(true)
	False = Bool(false)
)

// Kind implements Value.
func (Bool) Kind() Kind { return KindBool }
func (Bool) isValue()   {}

// Int is a TLA+ integer. TLC uses 32-bit integers; we use 64 bits, and every
// arithmetic operation reports overflow as an error instead of wrapping.
type Int int64

// Kind implements Value.
func (Int) Kind() Kind { return KindInt }
func (Int) isValue()   {}

// Str is a TLA+ string.
type Str string

// Kind implements Value.
func (Str) Kind() Kind { return KindString }
func (Str) isValue()   {}

// Boxing an Int into a Value allocates unless the runtime has the box
// cached (it has 0..255). Arithmetic results come from this table when
// they are small, so the common small integers never allocate.
const (
	intCacheMin = -1024
	intCacheMax = 4096
)

var intCache = func() []Value {
	c := make([]Value, intCacheMax-intCacheMin)
	for i := range c {
		c[i] = Int(int64(i) + intCacheMin)
	}
	return c
}()

// IntOf returns Int(i) as a Value, without allocating for small integers.
func IntOf(i int64) Value {
	if i >= intCacheMin && i < intCacheMax {
		return intCache[i-intCacheMin]
	}
	return Int(i)
}

// BoolOf returns b as a Value.
func BoolOf(b bool) Value { return Bool(b) }

// ModelValue is a TLC model value: an uninterpreted constant that is equal
// only to itself. Model values are interned by name: NewModelValue returns
// the same model value for the same name, and the canonical order of model
// values is the order in which their names were first interned in this
// process (TLC orders them by the order in which it first saw their names,
// which for a cfg file is the order in which they appear in it).
//
// A model value whose name has the form "x_rest" (a character, an
// underscore, at least one more character) is typed with type 'x', as in
// TLC: comparing it for equality with a non-model value or with a model value
// of a different type is an error rather than FALSE.
//
// The zero ModelValue is not a valid value; use NewModelValue.
type ModelValue struct{ info *mvInfo }

type mvInfo struct {
	name string
	rank uint32
	typ  byte
	fp   uint64
}

var modelValues struct {
	sync.Mutex
	byName map[string]*mvInfo
	all    []*mvInfo
}

// NewModelValue interns name and returns its model value. It is safe for
// concurrent use, but the rank (and so the canonical order) of a model value
// depends on the order of first calls: create a run's model values up front,
// from one goroutine, for a deterministic order.
func NewModelValue(name string) ModelValue {
	modelValues.Lock()
	defer modelValues.Unlock()
	if info, ok := modelValues.byName[name]; ok {
		return ModelValue{info}
	}
	if modelValues.byName == nil {
		modelValues.byName = make(map[string]*mvInfo)
	}
	info := &mvInfo{name: name, rank: uint32(len(modelValues.all)), fp: fpModelName(name)}
	if len(name) > 2 && name[1] == '_' {
		info.typ = name[0]
	}
	modelValues.byName[name] = info
	modelValues.all = append(modelValues.all, info)
	return ModelValue{info}
}

// LookupModelValue returns the model value named name if it was created.
func LookupModelValue(name string) (ModelValue, bool) {
	modelValues.Lock()
	defer modelValues.Unlock()
	info, ok := modelValues.byName[name]
	return ModelValue{info}, ok
}

// Name is the model value's name.
func (m ModelValue) Name() string { return m.info.name }

// Rank is the model value's position in the canonical order.
func (m ModelValue) Rank() int { return int(m.info.rank) }

// Type is the model value's type character, or 0 when it is untyped.
func (m ModelValue) Type() byte { return m.info.typ }

// Kind implements Value.
func (ModelValue) Kind() Kind { return KindModel }
func (ModelValue) isValue()   {}

// Value flags, cached on composite values so that walks can skip subtrees.
const (
	// flagModel: the value contains a model value somewhere (Permute can
	// return values without it unchanged).
	flagModel uint8 = 1 << iota
	// flagLazy: the value contains a lazy set other than an Interval
	// somewhere (DeepNormalize can return values without it unchanged).
	flagLazy
)

func flagsOf(v Value) uint8 {
	switch x := v.(type) {
	case ModelValue:
		return flagModel
	case *Set:
		return x.flags
	case *Func:
		return x.flags
	case Bool, Int, Str, *Interval, InfiniteSet:
		return 0
	}
	// Lazy sets: be conservative.
	return flagModel | flagLazy
}

// ModelValueNames returns the names of the model values interned so far,
// in rank order. A checkpoint of the search keeps them: the binary
// encoding writes model values by rank, and the canonical order (so the
// fingerprints of sets) depends on it.
func ModelValueNames() []string {
	modelValues.Lock()
	defer modelValues.Unlock()
	out := make([]string, len(modelValues.all))
	for i, m := range modelValues.all {
		out[i] = m.name
	}
	return out
}
