package value

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPermute(t *testing.T) {
	swap, err := NewPerm([]ModelValue{mvA, mvB}, []ModelValue{mvB, mvA})
	require.NoError(t, err)
	v := tup(mvA, set(mvA, mvC), fn(t, mvA, IntOf(1), mvB, IntOf(2)), rec(t, "x", mvB))
	p := Permute(v, swap)
	assert.Equal(t, "<<b, {b, c}, (a :> 2 @@ b :> 1), [x |-> a]>>", p.String())
	// Applying it twice is the identity.
	assert.True(t, mustEqual(t, v, Permute(p, swap)))
	assert.Equal(t, Fingerprint(v), Fingerprint(Permute(p, swap)))
	// Values without model values are not copied.
	plain := tup(iset(1), Str("a"))
	assert.Same(t, plain, Permute(plain, swap))

	_, err = NewPerm([]ModelValue{mvA, mvB}, []ModelValue{mvB, mvB})
	assert.Error(t, err)
	_, err = NewPerm([]ModelValue{mvA}, []ModelValue{mvB})
	assert.EqualError(t, err, "permutation is not a bijection: nothing maps to a")
}

func TestPermsFromSetAndCanonical(t *testing.T) {
	// Permutations({a, b}) as TLC's TLC module builds it.
	perms, err := PermsFromSet(set(
		fn(t, mvA, mvA, mvB, mvB),
		fn(t, mvA, mvB, mvB, mvA),
	))
	require.NoError(t, err)
	require.Len(t, perms, 1, "the identity is dropped")

	sym, err := NewSymmetry(perms, 100)
	require.NoError(t, err)

	// Two symmetric states have one representative and one fingerprint.
	s1 := []Value{mvA, fn(t, mvA, Str("leader"), mvB, Str("follower"))}
	s2 := []Value{mvB, fn(t, mvA, Str("follower"), mvB, Str("leader"))}
	c1, c2 := sym.Canonical(s1), sym.Canonical(s2)
	for i := range c1 {
		assert.True(t, mustEqual(t, c1[i], c2[i]))
	}
	assert.Equal(t, sym.Fingerprint(s1), sym.Fingerprint(s2))
	assert.NotEqual(t, FingerprintState(s1), FingerprintState(s2))
	assert.Equal(t, mvB, s2[0], "the input state is not modified")

	_, err = PermsFromSet(set(tup(IntOf(1))))
	assert.Error(t, err)
}

func TestGroupCountsEachPermutationOnce(t *testing.T) {
	// Permutations({a, b, c}): the transpositions come from the set with a
	// fixed point written out and are generated again by compositions
	// without it; the group has 6 elements, 5 without the identity.
	var fs []Value
	vs := []Value{mvA, mvB, mvC}
	for _, p := range [][3]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}} {
		fs = append(fs, fn(t, mvA, vs[p[0]], mvB, vs[p[1]], mvC, vs[p[2]]))
	}
	perms, err := PermsFromSet(set(fs...))
	require.NoError(t, err)
	require.Len(t, perms, 5)
	g, err := Group(perms, 100)
	require.NoError(t, err)
	assert.Len(t, g, 5)
}

// permsOf returns the permutations of xs (as TLC's Permutations), the
// identity included.
func permsOf(t *testing.T, xs ...ModelValue) []*Perm {
	t.Helper()
	var out []*Perm
	var rec func(k int)
	to := slices.Clone(xs)
	rec = func(k int) {
		if k == len(to) {
			p, err := NewPerm(xs, slices.Clone(to))
			require.NoError(t, err)
			out = append(out, p)
			return
		}
		for i := k; i < len(to); i++ {
			to[k], to[i] = to[i], to[k]
			rec(k + 1)
			to[k], to[i] = to[i], to[k]
		}
	}
	rec(0)
	return out
}

func permuteState(s []Value, p *Perm) []Value {
	out := make([]Value, len(s))
	for i, v := range s {
		out[i] = Permute(v, p)
	}
	return out
}

func equalStates(a, b []Value) bool {
	return slices.EqualFunc(a, b, func(x, y Value) bool { return Compare(x, y) == 0 })
}

// TestPropertySymmetryIdentifiesOrbits checks that the representative of a
// state is one of its images under the group and is the same for all of
// them: two states are identified exactly when a permutation of the group
// maps one to the other, as with TLC's least image. Small random states
// over a, b, c make label ties and automorphisms frequent.
func TestPropertySymmetryIdentifiesOrbits(t *testing.T) {
	cycle, err := NewPerm([]ModelValue{mvA, mvB, mvC}, []ModelValue{mvB, mvC, mvA})
	require.NoError(t, err)
	groups := map[string][]*Perm{
		"Permutations({a, b, c})":  permsOf(t, mvA, mvB, mvC),
		"Permutations({a, b})":     permsOf(t, mvA, mvB),
		"the rotations of a, b, c": {cycle}, // not every permutation: tries them all
	}
	for name, gens := range groups {
		sym, err := NewSymmetry(gens, 100)
		require.NoError(t, err)
		group := append([]*Perm{{}}, sym.perms...)
		g := gen{rand.New(rand.NewPCG(7, uint64(len(name))))}
		for range 3000 {
			state := make([]Value, 1+g.r.IntN(3))
			for i := range state {
				state[i] = g.value(1 + g.r.IntN(3))
			}
			canon := sym.Canonical(state)
			require.True(t, slices.ContainsFunc(group, func(p *Perm) bool {
				return equalStates(permuteState(state, p), canon)
			}), "%s: %v is not an image of %v", name, canon, state)
			fp := sym.Fingerprint(state)
			for _, p := range group {
				img := permuteState(state, p)
				require.True(t, equalStates(canon, sym.Canonical(img)), "%s: %v and its image %v have representatives %v and %v", name, state, img, canon, sym.Canonical(img))
				require.Equal(t, fp, sym.Fingerprint(img))
			}
		}
	}
}

func TestSymmetryOverLazySets(t *testing.T) {
	// SUBSET {a, b} is not walked into: a and b may not be taken as absent.
	sym, err := NewSymmetry(permsOf(t, mvA, mvB, mvC), 100)
	require.NoError(t, err)
	s1 := []Value{&PowerSet{Base: set(mvA, mvB)}, mvC}
	s2 := []Value{&PowerSet{Base: set(mvB, mvC)}, mvA}
	s3 := []Value{&PowerSet{Base: set(mvA, mvB)}, mvA}
	assert.Equal(t, sym.Fingerprint(s1), sym.Fingerprint(s2))
	assert.NotEqual(t, sym.Fingerprint(s1), sym.Fingerprint(s3))
	// No model value is seen at all.
	s4 := []Value{&PowerSet{Base: set(mvA)}}
	s5 := []Value{&PowerSet{Base: set(mvB)}}
	assert.Equal(t, sym.Fingerprint(s4), sym.Fingerprint(s5))
}
