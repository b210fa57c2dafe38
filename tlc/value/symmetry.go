package value

import (
	"fmt"
	"slices"
	"unsafe"
)

// Symmetry reduction, as TLC does it: the cfg's SYMMETRY names a set of
// permutations of model values (usually Permutations(S)). Of all the states
// obtained by applying each permutation to a state, TLC keeps the least one,
// comparing the variables' values in declaration order with the canonical
// order, and fingerprints that representative. Symmetry (symmetric.go)
// identifies the same states, exactly those that a permutation maps to one
// another, mostly without trying every permutation.

// Perm is a permutation of model values; model values it does not mention
// are left alone.
type Perm struct {
	to []*mvInfo // indexed by rank; nil means unchanged
	// code, when not 0, identifies the permutation among those of one
	// Symmetry, for remembering images (permMemo).
	code uint64
}

// NewPerm returns the permutation mapping from[i] to to[i]. It must be a
// bijection of the model values it mentions.
func NewPerm(from, to []ModelValue) (*Perm, error) {
	if len(from) != len(to) {
		return nil, fmt.Errorf("permutation with %d sources and %d targets", len(from), len(to))
	}
	p := &Perm{}
	seen := map[*mvInfo]bool{}
	for i, f := range from {
		r := int(f.info.rank)
		if r >= len(p.to) {
			p.to = append(p.to, make([]*mvInfo, r+1-len(p.to))...)
		}
		if p.to[r] != nil {
			return nil, fmt.Errorf("permutation maps %s twice", f.info.name)
		}
		if seen[to[i].info] {
			return nil, fmt.Errorf("permutation maps two model values to %s", to[i].info.name)
		}
		seen[to[i].info] = true
		p.to[r] = to[i].info
	}
	for _, f := range from {
		if !seen[f.info] {
			return nil, fmt.Errorf("permutation is not a bijection: nothing maps to %s", f.info.name)
		}
	}
	p.normalize()
	return p, nil
}

// normalize forgets the fixed points, so that one permutation has one
// representation (and one key in Group) however it was built.
func (p *Perm) normalize() {
	for i, t := range p.to {
		if t != nil && int(t.rank) == i {
			p.to[i] = nil
		}
	}
	for len(p.to) > 0 && p.to[len(p.to)-1] == nil {
		p.to = p.to[:len(p.to)-1]
	}
}

// PermFromFunc turns a TLA+ function from model values to model values
// (an element of Permutations(S)) into a Perm.
func PermFromFunc(f Value) (*Perm, error) {
	fn, ok := f.(*Func)
	if !ok {
		return nil, fmt.Errorf("a symmetry permutation should be a function, but instead it is %s", short(f))
	}
	from := make([]ModelValue, len(fn.vals))
	to := make([]ModelValue, len(fn.vals))
	for i, v := range fn.vals {
		k, ok1 := fn.Key(i).(ModelValue)
		m, ok2 := v.(ModelValue)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("a symmetry permutation should map model values to model values, but it maps %s to %s", short(fn.Key(i)), short(v))
		}
		from[i], to[i] = k, m
	}
	return NewPerm(from, to)
}

// PermsFromSet turns the value of a SYMMETRY definition (a set of
// permutations) into Perms, dropping the identity.
func PermsFromSet(s Value) ([]*Perm, error) {
	elems, err := Enumerate(s)
	if err != nil {
		return nil, fmt.Errorf("SYMMETRY: %w", err)
	}
	var perms []*Perm
	for _, e := range elems {
		p, err := PermFromFunc(e)
		if err != nil {
			return nil, err
		}
		if !p.isIdentity() {
			perms = append(perms, p)
		}
	}
	return perms, nil
}

func (p *Perm) isIdentity() bool {
	for r, t := range p.to {
		if t != nil && int(t.rank) != r {
			return false
		}
	}
	return true
}

func (p *Perm) apply(m ModelValue) ModelValue {
	if r := int(m.info.rank); r < len(p.to) && p.to[r] != nil {
		return ModelValue{p.to[r]}
	}
	return m
}

// Permute applies p to every model value inside v. Values without model
// values are returned unchanged (the same pointer), cheaply.
func Permute(v Value, p *Perm) Value { return permute(v, p, nil) }

// permMemo remembers images of sets and functions under permutations,
// for states that share parts (the successors of one state): an image
// found once is not built (and fingerprinted) again. code names the
// permutation the memo is being used with. It is a direct-mapped cache
// keyed by the value's address: a lookup costs less than a map's, and a
// collision only forgets an image.
type permMemo struct {
	code  uint64
	slots []memoSlot
}

type memoSlot struct {
	v, img Value
	code   uint64
}

// permMemoSize is the number of slots, a power of two.
const permMemoSize = 1 << 14

func (m *permMemo) slot(v Value) *memoSlot {
	var addr uintptr
	switch x := v.(type) {
	case *Set:
		addr = uintptr(unsafe.Pointer(x))
	case *Func:
		addr = uintptr(unsafe.Pointer(x))
	}
	h := (uint64(addr) >> 4) * 0x9e3779b97f4a7c15
	h ^= m.code * 0xc2b2ae3d27d4eb4f
	return &m.slots[(h>>40)&(permMemoSize-1)]
}

// permute is Permute, remembering images in memo when it is not nil.
func permute(v Value, p *Perm, memo *permMemo) Value {
	if len(p.to) == 0 || flagsOf(v)&flagModel == 0 {
		return v
	}
	switch v.(type) {
	case *Set, *Func:
		if memo != nil {
			sl := memo.slot(v)
			if sl.v == v && sl.code == memo.code {
				return sl.img
			}
			img := permuteComposite(v, p, memo)
			*sl = memoSlot{v: v, img: img, code: memo.code}
			return img
		}
		return permuteComposite(v, p, memo)
	}
	return permuteOther(v, p, memo)
}

func permuteComposite(v Value, p *Perm, memo *permMemo) Value {
	switch x := v.(type) {
	case *Set:
		var out []Value
		for i, e := range x.elems {
			n := permute(e, p, memo)
			if out == nil && n != e {
				out = slices.Clone(x.elems)
			}
			if out != nil {
				out[i] = n
			}
		}
		if out == nil {
			return x
		}
		// A permutation is injective, so the elements stay distinct.
		slices.SortFunc(out, Compare)
		return setFromSorted(out)
	case *Func:
		return permuteFunc(x, p, memo)
	}
	return v
}

func permuteOther(v Value, p *Perm, memo *permMemo) Value {
	switch x := v.(type) {
	case ModelValue:
		return p.apply(x)
	case *PowerSet:
		return &PowerSet{Base: permute(x.Base, p, memo)}
	case *FuncSet:
		return &FuncSet{Dom: permute(x.Dom, p, memo), Rng: permute(x.Rng, p, memo)}
	case *RecordSet:
		sets := make([]Value, len(x.Sets))
		for i, s := range x.Sets {
			sets[i] = permute(s, p, memo)
		}
		return &RecordSet{Names: x.Names, Sets: sets}
	case *ProductSet:
		sets := make([]Value, len(x.Sets))
		for i, s := range x.Sets {
			sets[i] = permute(s, p, memo)
		}
		return &ProductSet{Sets: sets}
	case *SeqSet:
		return &SeqSet{Base: permute(x.Base, p, memo)}
	case *UnionSet:
		return &UnionSet{A: permute(x.A, p, memo), B: permute(x.B, p, memo)}
	case *IntersectSet:
		return &IntersectSet{A: permute(x.A, p, memo), B: permute(x.B, p, memo)}
	case *DiffSet:
		return &DiffSet{A: permute(x.A, p, memo), B: permute(x.B, p, memo)}
	}
	return v
}

func permuteFunc(f *Func, p *Perm, memo *permMemo) Value {
	var vals []Value
	for i, e := range f.vals {
		n := permute(e, p, memo)
		if vals == nil && n != e {
			vals = slices.Clone(f.vals)
		}
		if vals != nil {
			vals[i] = n
		}
	}
	var dom []Value
	if f.kind == fkGeneral {
		for i, k := range f.dom {
			n := permute(k, p, memo)
			if dom == nil && n != k {
				dom = slices.Clone(f.dom)
			}
			if dom != nil {
				dom[i] = n
			}
		}
	}
	if vals == nil && dom == nil {
		return f
	}
	if vals == nil {
		vals = slices.Clone(f.vals)
	}
	if dom == nil {
		return funcShape{kind: f.kind, lo: f.lo, dom: f.dom, n: len(vals)}.make(vals)
	}
	// The domain changed: sort the pairs again.
	idx := make([]int, len(dom))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return Compare(dom[a], dom[b]) })
	keys := make([]Value, len(dom))
	vs := make([]Value, len(dom))
	for i, j := range idx {
		keys[i], vs[i] = dom[j], vals[j]
	}
	return shapeOf(keys).make(vs)
}

// leastPermuted returns the least of start and the states obtained by
// applying each of perms to state, comparing values variable by variable
// with Compare. It returns start itself when no permutation gives a
// smaller state; start is not modified. memo, when not nil, serves the
// permutations that have a code.
func leastPermuted(state, start []Value, perms []*Perm, memo *permMemo) []Value {
	min := start
	var buf []Value
	for _, p := range perms {
		if buf == nil {
			buf = make([]Value, len(state))
		}
		m := memo
		if p.code == 0 {
			m = nil
		} else if m != nil {
			m.code = p.code
		}
		c := 0
		for j, v := range state {
			buf[j] = permute(v, p, m)
			if c == 0 {
				c = Compare(buf[j], min[j])
				if c > 0 {
					break
				}
			}
		}
		if c < 0 {
			if len(min) > 0 && &min[0] == &start[0] {
				min, buf = buf, nil
			} else {
				min, buf = buf, min
			}
		}
	}
	return min
}

// compose returns p after q: m -> p(q(m)).
func compose(p, q *Perm) *Perm {
	n := max(len(p.to), len(q.to))
	r := &Perm{to: make([]*mvInfo, n)}
	for i := 0; i < n; i++ {
		var mid *mvInfo
		if i < len(q.to) && q.to[i] != nil {
			mid = q.to[i]
		}
		src := uint32(i)
		if mid != nil {
			src = mid.rank
		}
		if int(src) < len(p.to) && p.to[src] != nil {
			r.to[i] = p.to[src]
		} else if mid != nil {
			r.to[i] = mid
		}
	}
	r.normalize()
	return r
}

func (p *Perm) key() string {
	b := make([]byte, 0, 4*len(p.to))
	for i, t := range p.to {
		if t != nil {
			b = append(b, byte(i), byte(i>>8), byte(t.rank), byte(t.rank>>8))
		}
	}
	return string(b)
}

// Group returns the group generated by perms, without the identity: every
// composition of them. TLC reduces by the group its SYMMETRY set generates,
// so Permutations(A) \cup Permutations(B) acts as the product of the two.
// limit bounds the group's size; a larger group is an error.
func Group(perms []*Perm, limit int) ([]*Perm, error) {
	seen := map[string]bool{(&Perm{}).key(): true}
	var out []*Perm
	for _, p := range perms {
		if k := p.key(); !seen[k] {
			seen[k] = true
			out = append(out, p)
		}
	}
	for i := 0; i < len(out); i++ {
		for _, g := range perms {
			c := compose(g, out[i])
			k := c.key()
			if seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, c)
			if len(out) > limit {
				return nil, fmt.Errorf("SYMMETRY: the permutations generate more than %d permutations", limit)
			}
		}
	}
	return out, nil
}
