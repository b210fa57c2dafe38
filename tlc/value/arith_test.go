package value

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestArithmetic(t *testing.T) {
	type op func(a, b Value) (Value, error)
	tests := []struct {
		name string
		f    op
		a, b int64
		want int64
	}{
		{"+", Add, 2, 3, 5},
		{"-", Sub, 2, 3, -1},
		{"*", Mul, -4, 3, -12},
		{`\div`, Div, 7, 2, 3},
		{`\div`, Div, -7, 2, -4},
		{`\div`, Div, 7, -2, -4},
		{`\div`, Div, -7, -2, 3},
		{`\div`, Div, -8, 2, -4},
		{"%", Mod, 7, 3, 1},
		{"%", Mod, -7, 3, 2},
		{"%", Mod, -6, 3, 0},
		{"^", Pow, 2, 10, 1024},
		{"^", Pow, -3, 3, -27},
		{"^", Pow, 5, 0, 1},
		{"^", Pow, 0, 3, 0},
		{"+", Add, math.MaxInt64 - 1, 1, math.MaxInt64},
		{"*", Mul, math.MinInt64 / 2, 2, math.MinInt64},
		{"^", Pow, 2, 62, 1 << 62},
		{"^", Pow, -2, 63, math.MinInt64},
	}
	for _, tt := range tests {
		got, err := tt.f(IntOf(tt.a), IntOf(tt.b))
		require.NoError(t, err, "%d %s %d", tt.a, tt.name, tt.b)
		assert.Equal(t, Int(tt.want), got, "%d %s %d", tt.a, tt.name, tt.b)
	}
}

func TestArithmeticErrors(t *testing.T) {
	tests := []struct {
		f    func(a, b Value) (Value, error)
		a, b Value
		msg  string
	}{
		{Add, IntOf(math.MaxInt64), IntOf(1), "integer overflow in 9223372036854775807 + 1"},
		{Sub, IntOf(math.MinInt64), IntOf(1), "integer overflow in -9223372036854775808 - 1"},
		{Mul, IntOf(math.MaxInt64 / 2), IntOf(3), "integer overflow in 4611686018427387903 * 3"},
		{Mul, IntOf(-1), IntOf(math.MinInt64), "integer overflow in -1 * -9223372036854775808"},
		{Pow, IntOf(2), IntOf(63), "integer overflow in 2 ^ 63"},
		{Pow, IntOf(10), IntOf(19), "integer overflow in 10 ^ 19"},
		{Pow, IntOf(0), IntOf(0), "0 ^ 0 is undefined"},
		{Pow, IntOf(2), IntOf(-1), "the second argument of ^ should be a natural number, but instead it is -1"},
		{Div, IntOf(1), IntOf(0), `division by zero in 1 \div 0`},
		{Div, IntOf(math.MinInt64), IntOf(-1), `integer overflow in -9223372036854775808 \div -1`},
		{Mod, IntOf(1), IntOf(0), "the second argument of % should be a positive number, but instead it is 0"},
		{Mod, IntOf(1), IntOf(-2), "the second argument of % should be a positive number, but instead it is -2"},
		{Add, Str("a"), IntOf(1), `the first argument of + should be an integer, but instead it is "a"`},
		{Add, IntOf(1), iset(1), `the second argument of + should be an integer, but instead it is {1}`},
	}
	for _, tt := range tests {
		_, err := tt.f(tt.a, tt.b)
		assert.EqualError(t, err, tt.msg)
	}
	_, err := Neg(IntOf(math.MinInt64))
	assert.EqualError(t, err, "integer overflow in -(-9223372036854775808)")
	v, err := Neg(IntOf(5))
	require.NoError(t, err)
	assert.Equal(t, Int(-5), v)
}

func TestIntegerComparisons(t *testing.T) {
	b := must[bool](t)
	assert.True(t, b(Less(IntOf(1), IntOf(2))))
	assert.False(t, b(Less(IntOf(2), IntOf(2))))
	assert.True(t, b(LessEq(IntOf(2), IntOf(2))))
	assert.True(t, b(Greater(IntOf(3), IntOf(2))))
	assert.True(t, b(GreaterEq(IntOf(2), IntOf(2))))
	_, err := Less(Str("a"), IntOf(1))
	assert.EqualError(t, err, `the first argument of < should be an integer, but instead it is "a"`)
	r, err := Range(IntOf(1), IntOf(3))
	require.NoError(t, err)
	assert.Equal(t, "1..3", r.String())
	_, err = Range(IntOf(1), True)
	assert.EqualError(t, err, "the second argument of .. should be an integer, but instead it is TRUE")
}

func TestSmallIntsDoNotAllocate(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() {
		v, _ := Add(IntOf(1000), IntOf(-2000))
		_ = v
	})
	assert.Zero(t, allocs)
}
