package stdlib

import (
	"fmt"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// Naturals, Integers and Reals. The arithmetic itself is value's (64-bit,
// overflow is an error, \div rounds toward negative infinity, a % b needs
// b > 0); its messages already name the operator.
//
// Reals: only integers exist. Real is the set Int (so x \in Real holds for
// integers, and enumerating it is an error, but Real = Int is TRUE and it
// prints as Int), and a / b is the integer quotient when b divides a, an
// error ("real division is not supported") otherwise.

func registerNaturals() {
	cmp := func(f func(a, b value.Value) (bool, error)) func(Context, []Arg) (value.Value, error) {
		return op2(func(a, b value.Value) (value.Value, error) {
			r, err := f(a, b)
			if err != nil {
				return nil, err
			}
			return value.Bool(r), nil
		})
	}
	def("Naturals",
		&Builtin{Name: "Nat", Fn: constant(value.Nat)},
		&Builtin{Name: "+", Arity: 2, Fn: op2(value.Add)},
		&Builtin{Name: "-", Arity: 2, Fn: op2(value.Sub)},
		&Builtin{Name: "*", Arity: 2, Fn: op2(value.Mul)},
		&Builtin{Name: "^", Arity: 2, Fn: op2(value.Pow)},
		&Builtin{Name: "<", Arity: 2, Fn: cmp(value.Less)},
		&Builtin{Name: ">", Arity: 2, Fn: cmp(value.Greater)},
		&Builtin{Name: "=<", Arity: 2, Fn: cmp(value.LessEq)},
		&Builtin{Name: ">=", Arity: 2, Fn: cmp(value.GreaterEq)},
		&Builtin{Name: `\div`, Arity: 2, Fn: op2(value.Div)},
		&Builtin{Name: "%", Arity: 2, Fn: op2(value.Mod)},
		&Builtin{Name: "..", Arity: 2, Fn: op2(value.Range)},
	)
	def("Integers",
		&Builtin{Name: "Int", Fn: constant(value.Integers)},
		&Builtin{Name: "-.", Arity: 1, Fn: op1(value.Neg)},
	)
	def("Reals",
		&Builtin{Name: "Real", Fn: constant(value.Integers)},
		&Builtin{Name: "/", Arity: 2, Fn: op2(realDiv)},
		// Infinity is not a value here.
		&Builtin{Name: "Infinity", Fn: op0(func() (value.Value, error) {
			return nil, fmt.Errorf("Infinity: reals are not supported")
		})},
	)
}

// realDiv is a / b on integers: exact quotients only.
func realDiv(a, b value.Value) (value.Value, error) {
	x, err := intArg("/", 0, 2, a)
	if err != nil {
		return nil, err
	}
	y, err := intArg("/", 1, 2, b)
	if err != nil {
		return nil, err
	}
	if y == 0 {
		return nil, fmt.Errorf("/: division by zero in %d / 0", x)
	}
	if x%y != 0 {
		return nil, fmt.Errorf("/: real division is not supported: %d / %d is not an integer", x, y)
	}
	return value.Div(a, b)
}
