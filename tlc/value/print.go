package value

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/modelfuzz/modelfuzz/tlc/syntax"
)

// Printing follows TLC's format for error traces:
//
//	TRUE FALSE 42 -1 "a\"b" p1
//	{1, 2}  {}  1..3  <<1, "a">>  <<>>
//	[a |-> 1, b |-> 2]
//	(1 :> "a" @@ 2 :> "b")
//
// Sets print in canonical order (TLC prints them in its own order, which
// for strings is the order its parser first saw them; see Compare) and
// records in the order their field names were first seen, as TLC (see
// SeeNames). The empty function prints as <<>> (TLC prints
// "<< >>" for an empty function that was not built as a tuple). Lazy sets
// print symbolically: Nat, Int, STRING, SUBSET S, [S -> T], [a : S],
// (S \X T), Seq(S), (S \cup T), (S \cap T), (S \ T).

func (b Bool) String() string {
	if b {
		return "TRUE"
	}
	return "FALSE"
}

func (i Int) String() string { return strconv.FormatInt(int64(i), 10) }

func (s Str) String() string {
	var sb strings.Builder
	syntax.WriteQuoted(&sb, string(s))
	return sb.String()
}

func (m ModelValue) String() string { return m.info.name }

func (s *Set) String() string          { return toString(s) }
func (f *Func) String() string         { return toString(f) }
func (s *Interval) String() string     { return toString(s) }
func (s InfiniteSet) String() string   { return toString(s) }
func (s *PowerSet) String() string     { return toString(s) }
func (s *FuncSet) String() string      { return toString(s) }
func (s *RecordSet) String() string    { return toString(s) }
func (s *ProductSet) String() string   { return toString(s) }
func (s *SeqSet) String() string       { return toString(s) }
func (s *UnionSet) String() string     { return toString(s) }
func (s *IntersectSet) String() string { return toString(s) }
func (s *DiffSet) String() string      { return toString(s) }

func toString(v Value) string {
	var sb strings.Builder
	write(&sb, v)
	return sb.String()
}

// short prints v for an error message, cut at a readable length.
func short(v Value) string {
	s := v.String()
	const limit = 200
	if len(s) > limit {
		return s[:limit] + "..."
	}
	return s
}

// isFieldName tells whether a record field prints as a name (TLC prints a
// record whose fields are not all identifiers as a function).
func isFieldName(s string) bool {
	hasLetter := false
	for _, r := range s {
		switch {
		case r == '_' || unicode.IsDigit(r):
		case unicode.IsLetter(r):
			hasLetter = true
		default:
			return false
		}
	}
	return hasLetter && !strings.HasPrefix(s, "WF_") && !strings.HasPrefix(s, "SF_")
}

func writeList(sb *strings.Builder, open, sep, close string, vals []Value) {
	sb.WriteString(open)
	for i, v := range vals {
		if i > 0 {
			sb.WriteString(sep)
		}
		write(sb, v)
	}
	sb.WriteString(close)
}

func write(sb *strings.Builder, v Value) {
	switch x := v.(type) {
	case Bool, Int, ModelValue:
		sb.WriteString(x.String())
	case Str:
		syntax.WriteQuoted(sb, string(x))
	case *Set:
		writeList(sb, "{", ", ", "}", x.elems)
	case *Func:
		writeFunc(sb, x)
	case *Interval:
		sb.WriteString(strconv.FormatInt(x.lo, 10))
		sb.WriteString("..")
		sb.WriteString(strconv.FormatInt(x.hi, 10))
	case InfiniteSet:
		switch x {
		case Nat:
			sb.WriteString("Nat")
		case Integers:
			sb.WriteString("Int")
		default:
			sb.WriteString("STRING")
		}
	case *PowerSet:
		sb.WriteString("SUBSET ")
		write(sb, x.Base)
	case *FuncSet:
		sb.WriteByte('[')
		write(sb, x.Dom)
		sb.WriteString(" -> ")
		write(sb, x.Rng)
		sb.WriteByte(']')
	case *RecordSet:
		sb.WriteByte('[')
		for i, n := range x.Names {
			if i > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(n)
			sb.WriteString(" : ")
			write(sb, x.Sets[i])
		}
		sb.WriteByte(']')
	case *ProductSet:
		writeList(sb, "(", ` \X `, ")", x.Sets)
	case *SeqSet:
		sb.WriteString("Seq(")
		write(sb, x.Base)
		sb.WriteByte(')')
	case *UnionSet:
		writeList(sb, "(", ` \cup `, ")", []Value{x.A, x.B})
	case *IntersectSet:
		writeList(sb, "(", ` \cap `, ")", []Value{x.A, x.B})
	case *DiffSet:
		writeList(sb, "(", ` \ `, ")", []Value{x.A, x.B})
	case *FilterSet:
		sb.WriteString(x.Text)
	}
}

func writeFunc(sb *strings.Builder, f *Func) {
	switch {
	case f.IsSeq():
		writeList(sb, "<<", ", ", ">>", f.vals)
		return
	case f.kind == fkRecord:
		names := true
		for _, k := range f.dom {
			if !isFieldName(string(k.(Str))) {
				names = false
				break
			}
		}
		if names {
			order := printOrder(f.dom)
			sb.WriteByte('[')
			for n := range f.dom {
				i := n
				if order != nil {
					i = order[n]
				}
				if n > 0 {
					sb.WriteString(", ")
				}
				sb.WriteString(string(f.dom[i].(Str)))
				sb.WriteString(" |-> ")
				write(sb, f.vals[i])
			}
			sb.WriteByte(']')
			return
		}
	}
	sb.WriteByte('(')
	for i, v := range f.vals {
		if i > 0 {
			sb.WriteString(" @@ ")
		}
		write(sb, f.Key(i))
		sb.WriteString(" :> ")
		write(sb, v)
	}
	sb.WriteByte(')')
}
