package value

import (
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

	// Two symmetric states have one representative and one fingerprint.
	s1 := []Value{mvA, fn(t, mvA, Str("leader"), mvB, Str("follower"))}
	s2 := []Value{mvB, fn(t, mvA, Str("follower"), mvB, Str("leader"))}
	c1, c2 := Canonical(s1, perms), Canonical(s2, perms)
	for i := range c1 {
		assert.True(t, mustEqual(t, c1[i], c2[i]))
	}
	assert.Equal(t, SymmetricFingerprint(s1, perms), SymmetricFingerprint(s2, perms))
	assert.NotEqual(t, FingerprintState(s1), FingerprintState(s2))
	// The representative is the least state: a sorts before b.
	assert.Equal(t, mvA, c1[0])
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
