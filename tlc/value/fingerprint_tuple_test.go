package value

import "testing"

func TestFingerprintTupleIsTheTuples(t *testing.T) {
	cases := [][]Value{
		nil,
		{IntOf(1)},
		{Str("a"), True, NewSet(IntOf(1), IntOf(2)), Tuple(IntOf(3))},
	}
	for _, vals := range cases {
		if got, want := FingerprintTuple(vals), Fingerprint(Tuple(append([]Value(nil), vals...)...)); got != want {
			t.Errorf("FingerprintTuple(%v) = %x, Fingerprint(Tuple) = %x", vals, got, want)
		}
	}
}
