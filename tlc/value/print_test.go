package value

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPrintTLCFormat(t *testing.T) {
	mv := must[Value](t)
	tests := []struct {
		v    Value
		want string
	}{
		{True, "TRUE"},
		{False, "FALSE"},
		{IntOf(42), "42"},
		{IntOf(-7), "-7"},
		{Str("a"), `"a"`},
		{Str("say \"hi\"\\\n"), `"say \"hi\"\\\n"`},
		{mvA, "a"},
		{EmptySet, "{}"},
		{iset(3, 1, 2, 1), "{1, 2, 3}"},
		{set(Str("b"), Str("a")), `{"a", "b"}`},
		{set(IntOf(1), mvNone), "{None, 1}"},
		{Boolean, "{FALSE, TRUE}"},
		{EmptyFunc, "<<>>"},
		{tup(IntOf(1), Str("a")), `<<1, "a">>`},
		{rec(t, "b", IntOf(2), "a", IntOf(1)), "[a |-> 1, b |-> 2]"},
		{rec(t, "a b", IntOf(1)), `("a b" :> 1)`},
		{fn(t, IntOf(2), Str("b"), IntOf(1), Str("a"), IntOf(5), Str("c")), `(1 :> "a" @@ 2 :> "b" @@ 5 :> "c")`},
		{fn(t, IntOf(0), Str("x"), IntOf(1), Str("y")), `(0 :> "x" @@ 1 :> "y")`},
		{fn(t, mvA, IntOf(1)), "(a :> 1)"},
		{NewInterval(1, 3), "1..3"},
		{NewInterval(3, 1), "{}"},
		{Nat, "Nat"},
		{Integers, "Int"},
		{Strings, "STRING"},
		{mv(Powerset(iset(1))), "SUBSET {1}"},
		{mv(SetOfFuncs(iset(1), Boolean)), "[{1} -> {FALSE, TRUE}]"},
		{mv(SetOfRecords([]string{"b", "a"}, []Value{Nat, Boolean})), "[a : {FALSE, TRUE}, b : Nat]"},
		{mv(Product(iset(1), iset(2))), `({1} \X {2})`},
		{mv(SeqOf(iset(1))), "Seq({1})"},
		{mv(Union(Nat, iset(-1))), `(Nat \cup {-1})`},
		{set(tup(), rec(t, "x", set())), "{<<>>, [x |-> {}]}"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.v.String())
	}
}
