package value

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// A value decodes to one equal to it, with the same fingerprint and the
// same printed form (so a lazy set stays lazy), and decoding consumes
// exactly its encoding.
func TestPropertyBinaryRoundTrip(t *testing.T) {
	g := gen{rand.New(rand.NewPCG(5, 6))}
	d := NewDecoder()
	lazy := []Value{
		Nat, &PowerSet{Base: iset(1, 2)}, &FuncSet{Dom: iset(1), Rng: Boolean},
		&RecordSet{Names: []string{"a", "b"}, Sets: []Value{iset(1), Boolean}},
		&ProductSet{Sets: []Value{iset(1), set(mvA)}}, &SeqSet{Base: iset(1)},
		&UnionSet{A: Nat, B: iset(-1)}, &IntersectSet{A: Nat, B: &Interval{lo: -1, hi: 3}},
		&DiffSet{A: Nat, B: iset(0)}, Int(1 << 40), Str(string(make([]byte, 100))),
	}
	var buf []byte
	for i := range 3000 {
		var v Value
		if i < len(lazy) {
			v = lazy[i]
		} else {
			v = g.value(3)
		}
		buf = AppendBinary(buf[:0], v)
		buf = append(buf, 0xff) // what follows
		w, rest, err := d.Decode(buf)
		require.NoError(t, err, "%s", v)
		require.Equal(t, []byte{0xff}, rest, "%s", v)
		require.Equal(t, v.String(), w.String())
		require.Equal(t, Fingerprint(v), Fingerprint(w), "%s", v)
		require.Zero(t, Compare(v, w), "%s", v)
	}
	_, _, err := d.Decode(AppendBinary(nil, tup(iset(1, 2), Str("abc")))[:5])
	require.Error(t, err)
}
