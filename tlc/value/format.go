package value

import (
	"strings"
)

// Format prints v as TLC prints values in Print and PrintT output and in
// error traces. By default TLC enumerates a lazy set before printing it
// (TLCGlobals.expand): \cup, \cap, \ and {x \in S : P} always, a set of
// functions, records or tuples when it has fewer than 2000 elements
// (TLCGlobals.enumBound), SUBSET S when S has fewer than 7 elements; a
// set it cannot enumerate, and Seq(S), Nat, Int, STRING and a..b, print
// as written. With terse (TLC's -terse) no lazy set is enumerated, and
// each prints as TLC writes it unexpanded ("[S -> T]", "[a: S]",
// "(S \X T)", "SUBSET (1..3)", "S \cup T"; see tlc2.value.impl's
// toString methods).
//
// TLC fails a Print of a set it must expand but cannot (Int \ {0}); Format
// prints such a set as written.
func Format(v Value, terse bool) string {
	var sb strings.Builder
	f := formatter{sb: &sb, terse: terse}
	f.write(v)
	return sb.String()
}

// tlcEnumBound is TLCGlobals.enumBound: the size below which TLC prints a
// set of functions, records or tuples enumerated.
const tlcEnumBound = 2000

type formatter struct {
	sb    *strings.Builder
	terse bool
}

func (f formatter) list(open, sep, close string, vals []Value) {
	f.sb.WriteString(open)
	for i, v := range vals {
		if i > 0 {
			f.sb.WriteString(sep)
		}
		f.write(v)
	}
	f.sb.WriteString(close)
}

func (f formatter) write(v Value) {
	if flagsOf(v)&flagLazy == 0 {
		write(f.sb, v)
		return
	}
	if !f.terse && f.expands(v) {
		if s, err := Normalize(v); err == nil {
			f.write(s)
			return
		}
	}
	switch x := v.(type) {
	case *Set:
		f.list("{", ", ", "}", x.elems)
	case *Func:
		f.fn(x)
	case *PowerSet:
		f.sb.WriteString("SUBSET ")
		if _, ok := x.Base.(*Interval); ok {
			f.list("(", "", ")", []Value{x.Base})
		} else {
			f.write(x.Base)
		}
	case *FuncSet:
		f.sb.WriteByte('[')
		f.write(x.Dom)
		f.sb.WriteString(" -> ")
		f.write(x.Rng)
		f.sb.WriteByte(']')
	case *RecordSet:
		f.sb.WriteByte('[')
		for i, n := range x.Names {
			if i > 0 {
				f.sb.WriteString(", ")
			}
			f.sb.WriteString(n)
			f.sb.WriteString(": ")
			f.write(x.Sets[i])
		}
		f.sb.WriteByte(']')
	case *ProductSet:
		f.list("(", ` \X `, ")", x.Sets)
	case *SeqSet:
		f.list("Seq(", "", ")", []Value{x.Base})
	case *UnionSet:
		f.list("", ` \cup `, "", []Value{x.A, x.B})
	case *IntersectSet:
		f.list("", ` \cap `, "", []Value{x.A, x.B})
	case *DiffSet:
		f.list("", ` \ `, "", []Value{x.A, x.B})
	default:
		write(f.sb, v)
	}
}

// expands tells whether TLC, not terse, prints the lazy set v enumerated.
func (f formatter) expands(v Value) bool {
	switch x := v.(type) {
	case *UnionSet, *IntersectSet, *DiffSet, *FilterSet:
		return true
	case *PowerSet:
		n, err := Cardinality(x.Base)
		return err == nil && n < 7
	case *FuncSet, *RecordSet, *ProductSet:
		n, err := Cardinality(v)
		return err == nil && n < tlcEnumBound
	}
	return false
}

// fn is writeFunc with the values formatted.
func (f formatter) fn(x *Func) {
	switch {
	case x.IsSeq():
		f.list("<<", ", ", ">>", x.vals)
		return
	case x.kind == fkRecord:
		names := true
		for _, k := range x.dom {
			if !isFieldName(string(k.(Str))) {
				names = false
				break
			}
		}
		if names {
			order := printOrder(x.dom)
			f.sb.WriteByte('[')
			for n := range x.dom {
				i := n
				if order != nil {
					i = order[n]
				}
				if n > 0 {
					f.sb.WriteString(", ")
				}
				f.sb.WriteString(string(x.dom[i].(Str)))
				f.sb.WriteString(" |-> ")
				f.write(x.vals[i])
			}
			f.sb.WriteByte(']')
			return
		}
	}
	f.sb.WriteByte('(')
	for i, v := range x.vals {
		if i > 0 {
			f.sb.WriteString(" @@ ")
		}
		f.write(x.Key(i))
		f.sb.WriteString(" :> ")
		f.write(v)
	}
	f.sb.WriteByte(')')
}
