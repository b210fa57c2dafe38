package value

import "math/bits"

// Fingerprints
//
// A fingerprint is a 64-bit hash that depends only on the mathematical
// value: equal values have equal fingerprints whatever their construction
// (record or function, tuple or [i \in 1..n |-> ...], interval or explicit
// set, element order of a set literal). TLC uses 64-bit fingerprints too; at
// 10^7 distinct states the chance that any two collide is about 3*10^-6, so
// 128 bits would cost memory for no practical gain.
//
// The hash is structural (a Merkle hash): a set hashes its kind, its size
// and the fingerprints of its elements in canonical order; a function its
// kind, its size and, in domain order, the fingerprint of each domain
// element followed by that of its value. Sets and functions cache their
// fingerprint on first use, so states that share structure (as successors
// do) hash in time proportional to what changed.
//
// The mixing step is a 64x64->128-bit multiply folded to 64 bits (as in
// wyhash), and every fingerprint ends with the murmur3 finalizer.

const (
	fpSeed  = 0x2d358dccaa6c78a5
	fpP0    = 0xa0761d6478bd642f
	fpP1    = 0xe7037ed1a0b428db
	fpP2    = 0x8ebc6af09c88c6e3
	tagBool = 0x1000 + iota
	tagInt
	tagStr
	tagModel
	tagFunc
	tagSet
	tagInfinite
	tagLazy
)

func mix(h, w uint64) uint64 {
	hi, lo := bits.Mul64(h^fpP0, w^fpP1)
	return hi ^ lo
}

func finish(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

func hashString(h uint64, s string) uint64 {
	h = mix(h, uint64(len(s)))
	for len(s) >= 8 {
		h = mix(h, le64(s))
		s = s[8:]
	}
	if len(s) > 0 {
		var tail uint64
		for i := len(s) - 1; i >= 0; i-- {
			tail = tail<<8 | uint64(s[i])
		}
		h = mix(h, tail^fpP2)
	}
	return h
}

func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func fpInt(i int64) uint64        { return finish(mix(fpSeed^tagInt, uint64(i))) }
func fpStr(s string) uint64       { return finish(hashString(fpSeed^tagStr, s)) }
func fpModelName(s string) uint64 { return finish(hashString(fpSeed^tagModel, s)) }

func fpBool(b bool) uint64 {
	if b {
		return finish(mix(fpSeed^tagBool, 1))
	}
	return finish(mix(fpSeed^tagBool, 0))
}

// Fingerprint is the canonical 64-bit hash of v: Equal values have equal
// fingerprints. It does not allocate for explicit values (it may enumerate
// a lazy set other than an interval).
func Fingerprint(v Value) uint64 {
	switch x := v.(type) {
	case Int:
		return fpInt(int64(x))
	case Str:
		return fpStr(string(x))
	case Bool:
		return fpBool(bool(x))
	case ModelValue:
		return x.info.fp
	case *Func:
		return x.fingerprint()
	case *Set:
		return x.fingerprint()
	case *Interval:
		h := mix(fpSeed^tagSet, uint64(x.hi-x.lo)+1)
		for i := x.lo; ; i++ {
			h = mix(h, fpInt(i))
			if i == x.hi {
				break
			}
		}
		return nonzero(finish(h))
	}
	if s, err := Normalize(v); err == nil {
		return s.fingerprint()
	}
	return fpInfinite(v)
}

func nonzero(h uint64) uint64 {
	if h == 0 {
		return 1
	}
	return h
}

func (s *Set) fingerprint() uint64 {
	if h := s.fp.Load(); h != 0 {
		return h
	}
	h := mix(fpSeed^tagSet, uint64(len(s.elems)))
	for _, e := range s.elems {
		h = mix(h, Fingerprint(e))
	}
	h = nonzero(finish(h))
	s.fp.Store(h)
	return h
}

func (f *Func) fingerprint() uint64 {
	if h := f.fp.Load(); h != 0 {
		return h
	}
	h := mix(fpSeed^tagFunc, uint64(len(f.vals)))
	for i, v := range f.vals {
		if f.kind == fkInterval {
			h = mix(h, fpInt(f.lo+int64(i)))
		} else {
			h = mix(h, Fingerprint(f.dom[i]))
		}
		h = mix(h, Fingerprint(v))
	}
	h = nonzero(finish(h))
	f.fp.Store(h)
	return h
}

// fpInfinite hashes a set that cannot be enumerated by its representation.
func fpInfinite(v Value) uint64 {
	h := mix(fpSeed^tagInfinite, uint64(lazyRank(v)))
	switch t := v.(type) {
	case *PowerSet:
		h = mix(h, Fingerprint(t.Base))
	case *FuncSet:
		h = mix(mix(h, Fingerprint(t.Dom)), Fingerprint(t.Rng))
	case *RecordSet:
		for i, n := range t.Names {
			h = mix(mix(h, fpStr(n)), Fingerprint(t.Sets[i]))
		}
	case *ProductSet:
		for _, s := range t.Sets {
			h = mix(h, Fingerprint(s))
		}
	case *SeqSet:
		h = mix(h, Fingerprint(t.Base))
	case *UnionSet:
		h = mix(mix(h, Fingerprint(t.A)), Fingerprint(t.B))
	case *IntersectSet:
		h = mix(mix(h, Fingerprint(t.A)), Fingerprint(t.B))
	case *DiffSet:
		h = mix(mix(h, Fingerprint(t.A)), Fingerprint(t.B))
	case *FilterSet:
		// Two filters of one base are told apart by how they are written.
		h = mix(mix(h, Fingerprint(t.Base)), fpStr(t.Text))
	}
	return nonzero(finish(h))
}

// FingerprintTuple is Fingerprint(Tuple(vals...)), without building the
// tuple.
func FingerprintTuple(vals []Value) uint64 {
	h := mix(fpSeed^tagFunc, uint64(len(vals)))
	for i, v := range vals {
		h = mix(h, fpInt(1+int64(i)))
		h = mix(h, Fingerprint(v))
	}
	return nonzero(finish(h))
}

// Hasher fingerprints a sequence of values, such as the variables of a
// state in declaration order, without allocating. The zero Hasher is ready
// to use.
type Hasher struct {
	h uint64
	n uint64
}

// Add appends v.
func (h *Hasher) Add(v Value) { h.AddUint64(Fingerprint(v)) }

// AddUint64 appends a fingerprint (or any number).
func (h *Hasher) AddUint64(x uint64) {
	if h.n == 0 {
		h.h = fpSeed ^ tagLazy
	}
	h.h = mix(h.h, x)
	h.n++
}

// Sum is the fingerprint of what was added.
func (h *Hasher) Sum() uint64 { return nonzero(finish(mix(h.h, h.n))) }

// Reset empties the hasher.
func (h *Hasher) Reset() { *h = Hasher{} }

// FingerprintState fingerprints the values of a state's variables, in
// order.
func FingerprintState(vals []Value) uint64 {
	var h Hasher
	for _, v := range vals {
		h.Add(v)
	}
	return h.Sum()
}
