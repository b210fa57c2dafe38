package value

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSequences(t *testing.T) {
	mv := must[Value](t)
	s := tup(IntOf(1), IntOf(2), IntOf(3))
	assert.Equal(t, IntOf(3), mv(Len(s)))
	assert.Equal(t, IntOf(0), mv(Len(EmptyFunc)))
	assert.Equal(t, IntOf(3), mv(Len(Str("abc"))))
	assert.Equal(t, "<<1, 2, 3, 4>>", mv(Append(s, IntOf(4))).String())
	assert.Equal(t, "<<1, 2, 3>>", s.String())
	assert.Equal(t, IntOf(1), mv(Head(s)))
	assert.Equal(t, "<<2, 3>>", mv(Tail(s)).String())
	assert.Equal(t, "<<>>", mv(Tail(tup(IntOf(1)))).String())
	assert.Equal(t, "<<1, 2, 3, 1, 2, 3>>", mv(Concat(s, s)).String())
	assert.Equal(t, Str("abcd"), mv(Concat(Str("ab"), Str("cd"))))
	assert.Equal(t, "<<2, 3>>", mv(SubSeq(s, IntOf(2), IntOf(3))).String())
	assert.Equal(t, "<<>>", mv(SubSeq(s, IntOf(3), IntOf(2))).String())
	// A sequence built by Append equals the tuple literal.
	assert.True(t, mustEqual(t, mv(Append(tup(IntOf(1)), IntOf(2))), tup(IntOf(1), IntOf(2))))

	_, err := Head(EmptyFunc)
	assert.EqualError(t, err, "attempted to apply Head to the empty sequence")
	_, err = Tail(EmptyFunc)
	assert.EqualError(t, err, "attempted to apply Tail to the empty sequence")
	_, err = SubSeq(s, IntOf(0), IntOf(2))
	assert.EqualError(t, err, "SubSeq(s, 0, 2) out of the bounds of a sequence of length 3")
	_, err = Append(iset(1), IntOf(1))
	assert.EqualError(t, err, "the argument of Append should be a sequence, but instead it is {1}")
	_, err = Len(rec(t, "a", IntOf(1)))
	assert.EqualError(t, err, "the argument of Len should be a sequence, but instead it is [a |-> 1]")
}

func TestBags(t *testing.T) {
	mv := must[Value](t)
	b := mv(SetToBag(set(Str("m1"), Str("m2"))))
	assert.Equal(t, `[m1 |-> 1, m2 |-> 1]`, b.String())
	assert.True(t, IsABag(b))
	assert.False(t, IsABag(tup(IntOf(0))))
	b2 := mv(BagAdd(b, SingletonFunc(Str("m1"), IntOf(2))))
	assert.Equal(t, `[m1 |-> 3, m2 |-> 1]`, b2.String())
	assert.Equal(t, IntOf(3), mv(CopiesIn(Str("m1"), b2)))
	assert.Equal(t, IntOf(0), mv(CopiesIn(Str("zz"), b2)))
	assert.Equal(t, IntOf(4), mv(BagCardinality(b2)))
	b3 := mv(BagSub(b2, SingletonFunc(Str("m2"), IntOf(1))))
	assert.Equal(t, `[m1 |-> 3]`, b3.String())
	in, err := BagIn(Str("m2"), b3)
	assert.NoError(t, err)
	assert.False(t, in)
	assert.Equal(t, `{"m1"}`, mv(BagToSet(b3)).String())
	assert.Equal(t, "<<>>", mv(BagSub(b3, b3)).String())
	assert.True(t, mustEqual(t, mv(BagSub(b3, b3)), EmptyBag))
	_, err = BagAdd(tup(IntOf(-1)), EmptyBag)
	assert.EqualError(t, err, "the argument of (+) should be a bag, but instead it is <<-1>>")
}

// Slices share the elements of their sequence and are values like any
// other: equal to, ordered and fingerprinted as the same sequence built
// element by element, and never changed by what is built from them.
func TestSlice(t *testing.T) {
	mv := must[Value](t)
	model := NewModelValue("sliceMV")
	s := tup(IntOf(1), IntOf(2), IntOf(3), IntOf(4))
	for _, c := range []struct {
		lo, hi int
		want   *Func
	}{
		{0, 4, s},
		{0, 2, tup(IntOf(1), IntOf(2))},
		{1, 3, tup(IntOf(2), IntOf(3))},
		{3, 4, tup(IntOf(4))},
		{2, 2, EmptyFunc},
	} {
		v := Slice(s, c.lo, c.hi)
		assert.True(t, mustEqual(t, v, c.want), "%v", v)
		assert.Equal(t, 0, Compare(v, c.want))
		assert.Equal(t, Fingerprint(c.want), Fingerprint(v))
		assert.Equal(t, c.want.String(), v.String())
	}
	// Two slices of one sequence: equal when they are the same prefix.
	assert.True(t, mustEqual(t, Slice(s, 0, 3), Slice(s, 0, 3)))
	assert.False(t, mustEqual(t, Slice(s, 0, 3), Slice(s, 0, 2)))
	assert.False(t, mustEqual(t, Slice(s, 0, 2), Slice(s, 1, 3)))
	assert.Equal(t, -1, Compare(Slice(s, 0, 2), Slice(s, 1, 3)))
	// Appending to a slice copies: the sequence keeps its elements.
	head := Slice(s, 0, 2)
	assert.Equal(t, "<<1, 2, 9>>", mv(Append(head, IntOf(9))).String())
	assert.Equal(t, "<<1, 2, 3, 4>>", s.String())
	// A slice of a sequence holding a model value may be walked for
	// model values it does not hold: still the same value.
	m := tup(IntOf(1), model)
	assert.Equal(t, Fingerprint(tup(IntOf(1))), Fingerprint(Slice(m, 0, 1)))
}

// Comparisons of long slices of two arrays remember what they learned
// about the arrays: the answers stay those of an element-by-element walk
// whatever the order of the questions.
func TestEqualPrefix(t *testing.T) {
	const n = 3 * prefixMin
	mk := func(diffAt int) *Func {
		vs := make([]Value, n)
		for i := range vs {
			vs[i] = tup(IntOf(int64(i))) // built apart: not the same pointers
			if i == diffAt {
				vs[i] = tup(IntOf(-1))
			}
		}
		return Tuple(vs...)
	}
	a, b, c := mk(-1), mk(-1), mk(2*prefixMin)
	walk := func(x, y *Func, m int) bool {
		for i := 0; i < m; i++ {
			if !mustEqual(t, x.vals[i], y.vals[i]) {
				return false
			}
		}
		return true
	}
	for _, m := range []int{prefixMin, 2 * prefixMin, 2*prefixMin + 1, n, prefixMin + 1, n} {
		for _, p := range [][2]*Func{{a, b}, {b, a}, {a, c}, {c, a}, {b, c}} {
			x, y := Slice(p[0], 0, m), Slice(p[1], 0, m)
			assert.Equal(t, walk(x, y, m), mustEqual(t, x, y), "length %d", m)
		}
	}
	// An error is reported, not remembered as a difference.
	d := mk(-1)
	d.vals[prefixMin] = Str("x")
	_, err := Equal(Slice(a, 0, n), Slice(d, 0, n))
	assert.Error(t, err)
	_, err = Equal(Slice(a, 0, n), Slice(d, 0, n))
	assert.Error(t, err)
}
