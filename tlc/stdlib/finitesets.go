package stdlib

import (
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// The FiniteSets module.

func registerFiniteSets() {
	def("FiniteSets",
		&Builtin{Name: "IsFiniteSet", Arity: 1, Fn: op1(func(s value.Value) (value.Value, error) {
			if err := setArg("IsFiniteSet", 0, 1, s); err != nil {
				return nil, err
			}
			fin, err := value.IsFinite(s)
			if err != nil {
				return nil, wrap("IsFiniteSet", err)
			}
			return value.Bool(fin), nil
		})},
		&Builtin{Name: "Cardinality", Arity: 1, Fn: op1(cardinality)},
	)
}

func cardinality(s value.Value) (value.Value, error) {
	if err := setArg("Cardinality", 0, 1, s); err != nil {
		return nil, err
	}
	n, err := value.Cardinality(s)
	if err != nil {
		return nil, wrap("Cardinality", err)
	}
	return value.IntOf(n), nil
}
