package stdlib

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// Every builtin, called with arguments of every kind, returns a value or an
// error, never panics (a panic would surface as an "internal error" from the
// guard) and never returns both or neither.
func TestNoPanics(t *testing.T) {
	sub, _ := value.Powerset(S(1, 2))
	seqs, _ := value.SeqOf(S(1))
	fs, _ := value.SetOfFuncs(S(1, 2), S("a", "b"))
	vals := []vv{
		conv(-1), conv(0), conv(1), conv(2), conv(3), conv(""), conv("ab"), value.True, value.False,
		T(), T(1, 2), T("a", "b"), T(T(1), T(2)), S(), S(1, 2), S(S(1), S(2, 3)), S(T(1), T(1, 2)),
		R("a", 1), F(0, 1, 5, 2), F("a", 2, "b", 1), mvA, value.Nat, value.Integers, sub, seqs, fs, rng(1, 4),
	}
	safeChoose := op1f(func(s vv) (vv, error) {
		if x, ok := s.(*value.Set); ok && x.Len() > 0 {
			return x.Elems()[0], nil
		}
		return nil, fmt.Errorf("choose: not a non-empty set")
	})
	ops := map[int][]Op{
		1: {idOp, evenOp, errOp, notBool, safeChoose, pred(func(vv) bool { return true })},
		2: {plusOp, lessOp, pairOp, catOp, op2f(func(vv, vv) (vv, error) { return value.True, nil })},
	}
	r := rand.New(rand.NewSource(1))
	for _, m := range Modules() {
		for _, b := range Operators(m) {
			if strings.Contains(b.Name, "Serialize") || strings.Contains(b.Name, "Deserialize") {
				continue // file I/O, tested in TestJSON
			}
			for range 300 {
				args := make([]Arg, b.Arity)
				for i := range args {
					if b.IsOpParam(i) {
						// Mostly the arities the operator expects, sometimes not.
						n := 1 + r.Intn(2)
						pool := ops[n]
						args[i] = Arg{Op: pool[r.Intn(len(pool))]}
					} else {
						args[i] = Arg{V: vals[r.Intn(len(vals))]}
					}
				}
				v, err := b.Fn(&testCtx{}, args)
				if err != nil && strings.Contains(err.Error(), "internal error") {
					t.Fatalf("%s!%s%s: %v", m, b.Name, showArgs(args), err)
				}
				if (v == nil) == (err == nil) {
					t.Fatalf("%s!%s%s: value %v and error %v", m, b.Name, showArgs(args), v, err)
				}
			}
		}
	}
}

func showArgs(args []Arg) string {
	parts := make([]string, len(args))
	for i, a := range args {
		if a.Op != nil {
			parts[i] = fmt.Sprintf("<op/%d>", a.Op.Arity())
		} else {
			parts[i] = a.V.String()
		}
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
