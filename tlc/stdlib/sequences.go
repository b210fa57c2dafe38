package stdlib

import (
	"fmt"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// The Sequences module. As in TLC, Len, \o, Tail and SubSeq also accept
// strings (sequences of characters); Head, Append and SelectSeq do not.

func registerSequences() {
	def("Sequences",
		&Builtin{Name: "Seq", Arity: 1, Fn: op1(func(s value.Value) (value.Value, error) {
			if err := setArg("Seq", 0, 1, s); err != nil {
				return nil, err
			}
			return value.SeqOf(s)
		})},
		&Builtin{Name: "Len", Arity: 1, Fn: op1(seqLen)},
		&Builtin{Name: `\o`, Arity: 2, Fn: op2(concat)},
		&Builtin{Name: "Append", Arity: 2, Fn: op2(appendSeq)},
		&Builtin{Name: "Head", Arity: 1, Fn: op1(head)},
		&Builtin{Name: "Tail", Arity: 1, Fn: op1(tail)},
		&Builtin{Name: "SubSeq", Arity: 3, Fn: op3(func(s, m, n value.Value) (value.Value, error) {
			return subSeq("SubSeq", s, m, n)
		})},
		&Builtin{Name: "SelectSeq", Arity: 2, OpParams: []int{1}, Fn: selectSeq},
	)
}

func seqLen(s value.Value) (value.Value, error) {
	if str, ok := s.(value.Str); ok {
		return value.IntOf(int64(len(str))), nil
	}
	elems, err := seqArg("Len", 0, 1, s)
	if err != nil {
		return nil, err
	}
	return value.IntOf(int64(len(elems))), nil
}

// concat is s \o t for two sequences or two strings.
func concat(s, t value.Value) (value.Value, error) {
	return concatOp(`\o`, s, t)
}

func concatOp(op string, s, t value.Value) (value.Value, error) {
	if a, ok := s.(value.Str); ok {
		b, ok := t.(value.Str)
		if !ok {
			return nil, argError(op, 1, 2, "a string", t)
		}
		return a + b, nil
	}
	if _, err := seqArg(op, 0, 2, s); err != nil {
		return nil, err
	}
	if _, err := seqArg(op, 1, 2, t); err != nil {
		return nil, err
	}
	return value.Concat(s, t)
}

func appendSeq(s, e value.Value) (value.Value, error) {
	if _, err := seqArg("Append", 0, 2, s); err != nil {
		return nil, err
	}
	return value.Append(s, e)
}

func head(s value.Value) (value.Value, error) {
	elems, err := seqArg("Head", 0, 1, s)
	if err != nil {
		return nil, err
	}
	if len(elems) == 0 {
		return nil, fmt.Errorf("Head: argument is the empty sequence")
	}
	return elems[0], nil
}

func tail(s value.Value) (value.Value, error) {
	if str, ok := s.(value.Str); ok {
		if str == "" {
			return nil, fmt.Errorf("Tail: argument is the empty string")
		}
		return str[1:], nil
	}
	elems, err := seqArg("Tail", 0, 1, s)
	if err != nil {
		return nil, err
	}
	if len(elems) == 0 {
		return nil, fmt.Errorf("Tail: argument is the empty sequence")
	}
	return value.Slice(s.(*value.Func), 1, len(elems)), nil
}

// subSeq is SubSeq(s, m, n) with TLC's rules: empty when m > n; otherwise
// both m and n must lie in 1..Len(s). op names the operator for errors
// (operators of SequencesExt are defined with SubSeq).
func subSeq(op string, s, m, n value.Value) (value.Value, error) {
	str, isStr := s.(value.Str)
	var elems []value.Value
	if !isStr {
		var err error
		if elems, err = seqArg(op, 0, 3, s); err != nil {
			return nil, err
		}
	}
	lo, err := intArg(op, 1, 3, m)
	if err != nil {
		return nil, err
	}
	hi, err := intArg(op, 2, 3, n)
	if err != nil {
		return nil, err
	}
	return subSeqInts(op, s, str, isStr, elems, lo, hi)
}

func subSeqInts(op string, s value.Value, str value.Str, isStr bool, elems []value.Value, lo, hi int64) (value.Value, error) {
	if lo > hi {
		if isStr {
			return value.Str(""), nil
		}
		return value.EmptyFunc, nil
	}
	n := int64(len(elems))
	if isStr {
		n = int64(len(str))
	}
	if lo < 1 || lo > n {
		return nil, fmt.Errorf("%s: start index %d is outside the domain 1..%d of %s", op, lo, n, show(s))
	}
	if hi < 1 || hi > n {
		return nil, fmt.Errorf("%s: end index %d is outside the domain 1..%d of %s", op, hi, n, show(s))
	}
	if isStr {
		return str[lo-1 : hi], nil
	}
	return value.Slice(s.(*value.Func), int(lo-1), int(hi)), nil
}

// subSeqOf is SubSeq(s, lo, hi) for a value known to be a sequence or a
// string.
func subSeqOf(op string, s value.Value, lo, hi int64) (value.Value, error) {
	if str, ok := s.(value.Str); ok {
		return subSeqInts(op, s, str, true, nil, lo, hi)
	}
	elems, err := seqArg(op, 0, 1, s)
	if err != nil {
		return nil, err
	}
	return subSeqInts(op, s, "", false, elems, lo, hi)
}

func selectSeq(_ Context, args []Arg) (value.Value, error) {
	elems, err := seqArg("SelectSeq", 0, 2, args[0].V)
	if err != nil {
		return nil, err
	}
	test, err := opArg("SelectSeq", 1, 2, args, 1)
	if err != nil {
		return nil, err
	}
	return filterSeq("SelectSeq", args[0].V, elems, test, true)
}

// filterSeq keeps the elements for which test returns keep.
func filterSeq(op string, s value.Value, elems []value.Value, test Op, keep bool) (value.Value, error) {
	var out []value.Value
	dropped := false
	for _, e := range elems {
		ok, err := callBool(op, 1, 2, test, e)
		if err != nil {
			return nil, err
		}
		if ok == keep {
			out = append(out, e)
		} else {
			dropped = true
		}
	}
	if !dropped {
		return s, nil
	}
	return tuple(out), nil
}
