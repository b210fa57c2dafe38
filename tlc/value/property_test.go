package value

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// gen builds random values of bounded depth. Small domains make equal
// values likely, so that the properties are exercised on both sides.
type gen struct{ r *rand.Rand }

func (g gen) scalar() Value {
	switch g.r.IntN(5) {
	case 0:
		return Bool(g.r.IntN(2) == 0)
	case 1, 2:
		return IntOf(int64(g.r.IntN(5) - 1))
	case 3:
		return Str([]string{"a", "b", "ab", ""}[g.r.IntN(4)])
	}
	return []ModelValue{mvA, mvB, mvC}[g.r.IntN(3)]
}

func (g gen) value(depth int) Value {
	if depth == 0 {
		return g.scalar()
	}
	switch g.r.IntN(6) {
	case 0:
		return g.scalar()
	case 1: // set of one kind
		n := g.r.IntN(4)
		elems := make([]Value, n)
		proto := g.value(depth - 1)
		for i := range elems {
			elems[i] = g.like(proto, depth-1)
		}
		return NewSet(elems...)
	case 2: // tuple
		n := g.r.IntN(4)
		elems := make([]Value, n)
		for i := range elems {
			elems[i] = g.value(depth - 1)
		}
		return Tuple(elems...)
	case 3: // record
		names := []string{"a", "b", "c"}[:1+g.r.IntN(3)]
		vals := make([]Value, len(names))
		for i := range vals {
			vals[i] = g.value(depth - 1)
		}
		r, _ := Record(names, vals)
		return r
	case 4: // function over model values or small ints
		var dom []Value
		if g.r.IntN(2) == 0 {
			dom = []Value{mvA, mvB, mvC}[:1+g.r.IntN(3)]
		} else {
			dom = ints(0, 2, 3)[:1+g.r.IntN(3)]
		}
		vals := make([]Value, len(dom))
		for i := range vals {
			vals[i] = g.value(depth - 1)
		}
		f, _ := NewFunc(dom, vals)
		return f
	}
	lo := int64(g.r.IntN(3))
	return NewInterval(lo, lo+int64(g.r.IntN(3)))
}

// like returns a random value of the same kind as proto, so that sets stay
// homogeneous (TLC cannot build mixed sets).
func (g gen) like(proto Value, depth int) Value {
	for range 20 {
		v := g.value(depth)
		if v.Kind() == proto.Kind() {
			return v
		}
	}
	return proto
}

// rebuild constructs v again by another route: shuffled literals, functions
// through NewFunc or FuncOver, sets as intervals when they are ones.
func (g gen) rebuild(t *testing.T, v Value) Value {
	switch x := v.(type) {
	case *Set:
		elems := make([]Value, len(x.elems))
		for i, e := range x.elems {
			elems[i] = g.rebuild(t, e)
		}
		if len(elems) > 0 {
			elems = append(elems, elems[g.r.IntN(len(elems))]) // a duplicate
		}
		g.r.Shuffle(len(elems), func(i, j int) { elems[i], elems[j] = elems[j], elems[i] })
		if lo, ok := x.elems[0:min(1, len(x.elems))], true; ok && len(lo) == 1 {
			if a, ok := lo[0].(Int); ok {
				if b, ok := x.elems[len(x.elems)-1].(Int); ok && int(b-a)+1 == len(x.elems) && g.r.IntN(2) == 0 {
					return NewInterval(int64(a), int64(b))
				}
			}
		}
		return NewSet(elems...)
	case *Interval:
		return must[*Set](t)(Normalize(x))
	case *Func:
		keys := make([]Value, x.Len())
		vals := make([]Value, x.Len())
		for i := range keys {
			keys[i] = g.rebuild(t, x.Key(i))
			vals[i] = g.rebuild(t, x.vals[i])
		}
		if g.r.IntN(2) == 0 {
			dom := NewSet(slices.Clone(keys)...)
			return must[*Func](t)(FuncOver(dom, func(k Value) (Value, error) {
				for i := range keys {
					if Compare(keys[i], k) == 0 {
						return vals[i], nil
					}
				}
				t.Fatalf("key %s not found", k)
				return nil, nil
			}))
		}
		perm := g.r.Perm(len(keys))
		pk := make([]Value, len(keys))
		pv := make([]Value, len(keys))
		for i, j := range perm {
			pk[i], pv[i] = keys[j], vals[j]
		}
		return must[*Func](t)(NewFunc(pk, pv))
	}
	return v
}

func TestPropertyRebuiltValuesAreEqual(t *testing.T) {
	g := gen{rand.New(rand.NewPCG(1, 2))}
	for range 3000 {
		v := g.value(3)
		w := g.rebuild(t, v)
		eq, err := Equal(v, w)
		require.NoError(t, err, "%s = %s", v, w)
		require.True(t, eq, "%s = %s", v, w)
		require.Zero(t, Compare(v, w), "Compare(%s, %s)", v, w)
		require.Equal(t, Fingerprint(v), Fingerprint(w), "fingerprint of %s and %s", v, w)
		require.Equal(t, Fingerprint(v), Fingerprint(must[Value](t)(DeepNormalize(w))))
	}
}

func TestPropertyEqualCompareFingerprintAgree(t *testing.T) {
	g := gen{rand.New(rand.NewPCG(3, 4))}
	equalPairs := 0
	for range 20000 {
		a, b := g.value(2), g.value(2)
		eq, err := Equal(a, b)
		c := Compare(a, b)
		require.Equal(t, -c, Compare(b, a), "antisymmetry on %s, %s", a, b)
		if err != nil {
			require.NotZero(t, c, "values that cannot be compared are never the same: %s, %s", a, b)
			continue
		}
		require.Equal(t, eq, c == 0, "Equal and Compare disagree on %s, %s", a, b)
		if eq {
			equalPairs++
			require.Equal(t, Fingerprint(a), Fingerprint(b), "%s = %s", a, b)
		} else {
			require.NotEqual(t, Fingerprint(a), Fingerprint(b), "fingerprint collision %s, %s", a, b)
		}
	}
	require.Greater(t, equalPairs, 100, "the generator should produce equal pairs")
}

func TestPropertyCompareIsATotalOrder(t *testing.T) {
	g := gen{rand.New(rand.NewPCG(5, 6))}
	vals := make([]Value, 400)
	for i := range vals {
		vals[i] = g.value(2)
	}
	slices.SortFunc(vals, Compare)
	// Sorted means every pair is ordered: transitivity holds on the sample.
	for i := range vals {
		for j := i + 1; j < len(vals); j++ {
			require.LessOrEqual(t, Compare(vals[i], vals[j]), 0, "%s before %s", vals[i], vals[j])
		}
	}
}

func TestPropertySetMembership(t *testing.T) {
	g := gen{rand.New(rand.NewPCG(7, 8))}
	for range 2000 {
		s, ok := g.value(3).(*Set)
		if !ok {
			continue
		}
		for _, e := range s.elems {
			in, err := Member(g.rebuild(t, e), s)
			require.NoError(t, err)
			require.True(t, in, "%s \\in %s", e, s)
		}
		// Members found by Member are Equal to some element.
		x := g.value(2)
		in, err := Member(x, s)
		if err != nil {
			continue
		}
		found := false
		for _, e := range s.elems {
			if eq, err := Equal(x, e); err == nil && eq {
				found = true
			}
		}
		require.Equal(t, found, in, "%s \\in %s", x, s)
	}
}
