package stdlib

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNaturals(t *testing.T) {
	assert.Equal(t, "Nat", ok(t, "Naturals", "Nat"))
	assert.Equal(t, "5", ok(t, "Naturals", "+", 2, 3))
	assert.Equal(t, "-1", ok(t, "Naturals", "-", 2, 3))
	assert.Equal(t, "6", ok(t, "Naturals", "*", 2, 3))
	assert.Equal(t, "8", ok(t, "Naturals", "^", 2, 3))
	assert.Equal(t, "TRUE", ok(t, "Naturals", "<", 2, 3))
	assert.Equal(t, "FALSE", ok(t, "Naturals", ">", 2, 3))
	assert.Equal(t, "TRUE", ok(t, "Naturals", "=<", 3, 3))
	assert.Equal(t, "FALSE", ok(t, "Naturals", ">=", 2, 3))
	assert.Equal(t, "-4", ok(t, "Naturals", `\div`, -7, 2))
	assert.Equal(t, "1", ok(t, "Naturals", "%", -7, 2))
	assert.Equal(t, "1..3", ok(t, "Naturals", "..", 1, 3))
	assert.Equal(t, "{}", ok(t, "Naturals", "..", 3, 1))

	failsWith(t, []string{"+", `"a"`}, "Naturals", "+", 1, "a")
	failsWith(t, []string{"overflow"}, "Naturals", "+", int64(math.MaxInt64), 1)
	failsWith(t, []string{"division by zero"}, "Naturals", `\div`, 1, 0)
	failsWith(t, []string{"%", "positive"}, "Naturals", "%", 1, 0)
	failsWith(t, []string{"0 ^ 0"}, "Naturals", "^", 0, 0)
	failsWith(t, []string{"<"}, "Naturals", "<", T(), 1)
	failsWith(t, []string{".."}, "Naturals", "..", "a", 1)
}

func TestIntegersReals(t *testing.T) {
	assert.Equal(t, "Int", ok(t, "Integers", "Int"))
	assert.Equal(t, "-3", ok(t, "Integers", "-.", 3))
	assert.Equal(t, "3", ok(t, "Integers", "-.", -3))
	failsWith(t, []string{"-."}, "Integers", "-.", "x")
	failsWith(t, []string{"overflow"}, "Integers", "-.", int64(math.MinInt64))

	real := ok(t, "Reals", "Real")
	assert.Equal(t, "Int", real)
	assert.Equal(t, "3", ok(t, "Reals", "/", 6, 2))
	assert.Equal(t, "-3", ok(t, "Reals", "/", 6, -2))
	failsWith(t, []string{"real division is not supported"}, "Reals", "/", 1, 2)
	failsWith(t, []string{"division by zero"}, "Reals", "/", 1, 0)
	failsWith(t, []string{"/: first argument is not an integer"}, "Reals", "/", "a", 2)
	failsWith(t, []string{"not supported"}, "Reals", "Infinity")
}
