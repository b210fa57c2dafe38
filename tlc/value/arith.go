package value

import (
	"fmt"
	"math"
)

// Integer arithmetic with TLC's semantics on 64-bit integers: overflow is
// an error ("integer overflow in a + b"), never a wrap-around. a \div b is
// floor division and a % b requires b > 0 and lies in 0..b-1, as in TLC's
// Integers module (so -7 \div 2 = -4 and -7 % 2 = 1).

func intArg(pos, op string, v Value) (int64, error) {
	if i, ok := v.(Int); ok {
		return int64(i), nil
	}
	return 0, fmt.Errorf("the %s argument of %s should be an integer, but instead it is %s", pos, op, short(v))
}

func intArgs(op string, a, b Value) (int64, int64, error) {
	x, err := intArg("first", op, a)
	if err != nil {
		return 0, 0, err
	}
	y, err := intArg("second", op, b)
	if err != nil {
		return 0, 0, err
	}
	return x, y, nil
}

func addInt64(x, y int64) (int64, bool) {
	s := x + y
	return s, (s > x) == (y > 0)
}

func subInt64(x, y int64) (int64, bool) {
	d := x - y
	return d, (d < x) == (y > 0)
}

func mulInt64(x, y int64) (int64, bool) {
	if x == 0 || y == 0 {
		return 0, true
	}
	if (x == -1 && y == math.MinInt64) || (y == -1 && x == math.MinInt64) {
		return 0, false
	}
	p := x * y
	return p, p/y == x
}

func overflow(x int64, op string, y int64) error {
	return fmt.Errorf("integer overflow in %d %s %d", x, op, y)
}

// Add is a + b.
func Add(a, b Value) (Value, error) {
	x, y, err := intArgs("+", a, b)
	if err != nil {
		return nil, err
	}
	s, ok := addInt64(x, y)
	if !ok {
		return nil, overflow(x, "+", y)
	}
	return IntOf(s), nil
}

// Sub is a - b.
func Sub(a, b Value) (Value, error) {
	x, y, err := intArgs("-", a, b)
	if err != nil {
		return nil, err
	}
	d, ok := subInt64(x, y)
	if !ok {
		return nil, overflow(x, "-", y)
	}
	return IntOf(d), nil
}

// Mul is a * b.
func Mul(a, b Value) (Value, error) {
	x, y, err := intArgs("*", a, b)
	if err != nil {
		return nil, err
	}
	p, ok := mulInt64(x, y)
	if !ok {
		return nil, overflow(x, "*", y)
	}
	return IntOf(p), nil
}

// Div is a \div b, rounding toward negative infinity.
func Div(a, b Value) (Value, error) {
	x, y, err := intArgs(`\div`, a, b)
	if err != nil {
		return nil, err
	}
	if y == 0 {
		return nil, fmt.Errorf(`division by zero in %d \div 0`, x)
	}
	if x == math.MinInt64 && y == -1 {
		return nil, overflow(x, `\div`, y)
	}
	q := x / y
	if (x%y != 0) && ((x < 0) != (y < 0)) {
		q--
	}
	return IntOf(q), nil
}

// Mod is a % b, for b > 0; the result is in 0..b-1.
func Mod(a, b Value) (Value, error) {
	x, y, err := intArgs("%", a, b)
	if err != nil {
		return nil, err
	}
	if y <= 0 {
		return nil, fmt.Errorf("the second argument of %% should be a positive number, but instead it is %d", y)
	}
	r := x % y
	if r < 0 {
		r += y
	}
	return IntOf(r), nil
}

// Pow is a ^ b, for b >= 0; 0 ^ 0 is undefined (an error), as in TLC.
func Pow(a, b Value) (Value, error) {
	x, y, err := intArgs("^", a, b)
	if err != nil {
		return nil, err
	}
	if y < 0 {
		return nil, fmt.Errorf("the second argument of ^ should be a natural number, but instead it is %d", y)
	}
	if y == 0 {
		if x == 0 {
			return nil, fmt.Errorf("0 ^ 0 is undefined")
		}
		return IntOf(1), nil
	}
	r, base, e := int64(1), x, y
	for {
		if e&1 == 1 {
			var ok bool
			if r, ok = mulInt64(r, base); !ok {
				return nil, overflow(x, "^", y)
			}
		}
		e >>= 1
		if e == 0 {
			return IntOf(r), nil
		}
		var ok bool
		if base, ok = mulInt64(base, base); !ok {
			return nil, overflow(x, "^", y)
		}
	}
}

// Neg is -a.
func Neg(a Value) (Value, error) {
	x, err := intArg("first", "-.", a)
	if err != nil {
		return nil, err
	}
	if x == math.MinInt64 {
		return nil, fmt.Errorf("integer overflow in -(%d)", x)
	}
	return IntOf(-x), nil
}

// Less is a < b.
func Less(a, b Value) (bool, error) {
	x, y, err := intArgs("<", a, b)
	return x < y, err
}

// LessEq is a <= b.
func LessEq(a, b Value) (bool, error) {
	x, y, err := intArgs("<=", a, b)
	return x <= y, err
}

// Greater is a > b.
func Greater(a, b Value) (bool, error) {
	x, y, err := intArgs(">", a, b)
	return x > y, err
}

// GreaterEq is a >= b.
func GreaterEq(a, b Value) (bool, error) {
	x, y, err := intArgs(">=", a, b)
	return x >= y, err
}
