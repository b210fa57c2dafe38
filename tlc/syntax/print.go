package syntax

import (
	"strconv"
	"strings"
)

// The printer renders expressions in TLA+ syntax with every operator
// application parenthesized, so that the rendering shows how the parser
// grouped the expression: a + b * c prints as (a + (b * c)).

// ExprString renders e (nil renders as "<nil>").
func ExprString(e Expr) string {
	var b strings.Builder
	writeExpr(&b, e)
	return b.String()
}

func writeList(b *strings.Builder, es []Expr, sep string) {
	for i, e := range es {
		if i > 0 {
			b.WriteString(sep)
		}
		writeExpr(b, e)
	}
}

func writeBound(b *strings.Builder, bd Bound) {
	if bd.Tuple {
		b.WriteString("<<")
		b.WriteString(strings.Join(bd.Names, ", "))
		b.WriteString(">>")
	} else {
		b.WriteString(strings.Join(bd.Names, ", "))
	}
	if bd.Set != nil {
		b.WriteString(` \in `)
		writeExpr(b, bd.Set)
	}
}

func writeBounds(b *strings.Builder, bs []Bound) {
	for i, bd := range bs {
		if i > 0 {
			b.WriteString(", ")
		}
		writeBound(b, bd)
	}
}

func writeOpApp(b *strings.Builder, x *OpApp) {
	if len(x.Path) == 0 {
		switch {
		case len(x.Args) == 2 && IsInfixOp(x.Name):
			b.WriteByte('(')
			writeExpr(b, x.Args[0])
			b.WriteByte(' ')
			b.WriteString(x.Name)
			b.WriteByte(' ')
			writeExpr(b, x.Args[1])
			b.WriteByte(')')
			return
		case len(x.Args) == 1 && x.Name == "-.":
			b.WriteString("(-")
			writeExpr(b, x.Args[0])
			b.WriteByte(')')
			return
		case len(x.Args) == 1 && IsPrefixOp(x.Name):
			b.WriteByte('(')
			b.WriteString(x.Name)
			if x.Name != "~" {
				b.WriteByte(' ')
			}
			writeExpr(b, x.Args[0])
			b.WriteByte(')')
			return
		case len(x.Args) == 1 && IsPostfixOp(x.Name):
			b.WriteByte('(')
			writeExpr(b, x.Args[0])
			b.WriteString(x.Name)
			b.WriteByte(')')
			return
		}
	}
	for _, s := range x.Path {
		b.WriteString(s.Name)
		if len(s.Args) > 0 {
			b.WriteByte('(')
			writeList(b, s.Args, ", ")
			b.WriteByte(')')
		}
		b.WriteByte('!')
	}
	b.WriteString(x.Name)
	if len(x.Args) > 0 {
		b.WriteByte('(')
		writeList(b, x.Args, ", ")
		b.WriteByte(')')
	}
}

func writeExpr(b *strings.Builder, e Expr) {
	switch x := e.(type) {
	case nil:
		b.WriteString("<nil>")
	case *Ident:
		b.WriteString(x.Name)
	case *OpApp:
		writeOpApp(b, x)
	case *Number:
		b.WriteString(strconv.FormatInt(x.Value, 10))
	case *Decimal:
		b.WriteString(x.Text)
	case *StringLit:
		b.WriteString(quoteTLA(x.Value))
	case *Bool:
		if x.Value {
			b.WriteString("TRUE")
		} else {
			b.WriteString("FALSE")
		}
	case *Prime:
		b.WriteByte('(')
		writeExpr(b, x.X)
		b.WriteString("')")
	case *Quant:
		b.WriteByte('(')
		if x.Forall {
			b.WriteString(`\A `)
		} else {
			b.WriteString(`\E `)
		}
		writeBounds(b, x.Bounds)
		b.WriteString(" : ")
		writeExpr(b, x.Body)
		b.WriteByte(')')
	case *TemporalQuant:
		b.WriteByte('(')
		if x.Forall {
			b.WriteString(`\AA `)
		} else {
			b.WriteString(`\EE `)
		}
		b.WriteString(strings.Join(x.Names, ", "))
		b.WriteString(" : ")
		writeExpr(b, x.Body)
		b.WriteByte(')')
	case *Choose:
		b.WriteString("(CHOOSE ")
		writeBound(b, x.Bound)
		b.WriteString(" : ")
		writeExpr(b, x.Body)
		b.WriteByte(')')
	case *SetEnum:
		b.WriteByte('{')
		writeList(b, x.Elems, ", ")
		b.WriteByte('}')
	case *SetFilter:
		b.WriteByte('{')
		writeBound(b, x.Bound)
		b.WriteString(" : ")
		writeExpr(b, x.Pred)
		b.WriteByte('}')
	case *SetMap:
		b.WriteByte('{')
		writeExpr(b, x.Elem)
		b.WriteString(" : ")
		writeBounds(b, x.Bounds)
		b.WriteByte('}')
	case *FuncLit:
		b.WriteByte('[')
		writeBounds(b, x.Bounds)
		b.WriteString(" |-> ")
		writeExpr(b, x.Body)
		b.WriteByte(']')
	case *FuncSet:
		b.WriteByte('[')
		writeExpr(b, x.Domain)
		b.WriteString(" -> ")
		writeExpr(b, x.Range)
		b.WriteByte(']')
	case *RecordLit:
		writeFields(b, x.Fields, " |-> ")
	case *RecordSet:
		writeFields(b, x.Fields, " : ")
	case *Except:
		b.WriteByte('[')
		writeExpr(b, x.Func)
		b.WriteString(" EXCEPT ")
		for i, u := range x.Updates {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('!')
			for _, s := range u.Path {
				if s.Index == nil {
					b.WriteByte('.')
					b.WriteString(s.Field)
				} else {
					b.WriteByte('[')
					writeList(b, s.Index, ", ")
					b.WriteByte(']')
				}
			}
			b.WriteString(" = ")
			writeExpr(b, u.Value)
		}
		b.WriteByte(']')
	case *At:
		b.WriteByte('@')
	case *FuncApp:
		writeExpr(b, x.Func)
		b.WriteByte('[')
		writeList(b, x.Args, ", ")
		b.WriteByte(']')
	case *Field:
		writeExpr(b, x.Rec)
		b.WriteByte('.')
		b.WriteString(x.Name)
	case *Tuple:
		b.WriteString("<<")
		writeList(b, x.Elems, ", ")
		b.WriteString(">>")
	case *CrossProduct:
		b.WriteByte('(')
		writeList(b, x.Sets, ` \X `)
		b.WriteByte(')')
	case *If:
		b.WriteString("(IF ")
		writeExpr(b, x.Cond)
		b.WriteString(" THEN ")
		writeExpr(b, x.Then)
		b.WriteString(" ELSE ")
		writeExpr(b, x.Else)
		b.WriteByte(')')
	case *Case:
		b.WriteString("(CASE ")
		for i, a := range x.Arms {
			if i > 0 {
				b.WriteString(" [] ")
			}
			writeExpr(b, a.Cond)
			b.WriteString(" -> ")
			writeExpr(b, a.Body)
		}
		if x.Other != nil {
			b.WriteString(" [] OTHER -> ")
			writeExpr(b, x.Other)
		}
		b.WriteByte(')')
	case *Let:
		b.WriteString("(LET ")
		for i, d := range x.Defs {
			if i > 0 {
				b.WriteString(" ")
			}
			b.WriteString(UnitString(d))
		}
		b.WriteString(" IN ")
		writeExpr(b, x.Body)
		b.WriteByte(')')
	case *Lambda:
		b.WriteString("(LAMBDA ")
		for i, p := range x.Params {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(p.Name)
		}
		b.WriteString(" : ")
		writeExpr(b, x.Body)
		b.WriteByte(')')
	case *Unchanged:
		b.WriteString("(UNCHANGED ")
		writeExpr(b, x.X)
		b.WriteByte(')')
	case *Enabled:
		b.WriteString("(ENABLED ")
		writeExpr(b, x.X)
		b.WriteByte(')')
	case *ActionBox:
		b.WriteByte('[')
		writeExpr(b, x.Action)
		b.WriteString("]_")
		writeExpr(b, x.Sub)
	case *ActionAngle:
		b.WriteString("<<")
		writeExpr(b, x.Action)
		b.WriteString(">>_")
		writeExpr(b, x.Sub)
	case *Always:
		b.WriteString("([]")
		writeExpr(b, x.X)
		b.WriteByte(')')
	case *Eventually:
		b.WriteString("(<>")
		writeExpr(b, x.X)
		b.WriteByte(')')
	case *LeadsTo:
		b.WriteByte('(')
		writeExpr(b, x.L)
		b.WriteString(" ~> ")
		writeExpr(b, x.R)
		b.WriteByte(')')
	case *Fairness:
		if x.Strong {
			b.WriteString("SF_")
		} else {
			b.WriteString("WF_")
		}
		writeExpr(b, x.Sub)
		b.WriteByte('(')
		writeExpr(b, x.Action)
		b.WriteByte(')')
	case *Label:
		b.WriteByte('(')
		b.WriteString(x.Name)
		if len(x.Params) > 0 {
			b.WriteByte('(')
			b.WriteString(strings.Join(x.Params, ", "))
			b.WriteByte(')')
		}
		b.WriteString(":: ")
		writeExpr(b, x.Body)
		b.WriteByte(')')
	case *BulletList:
		b.WriteByte('(')
		for i, it := range x.Items {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(x.Kind)
			b.WriteByte(' ')
			writeExpr(b, it)
		}
		b.WriteByte(')')
	case *SubExpr:
		writeExpr(b, x.Base)
		for _, s := range x.Sels {
			b.WriteByte('!')
			b.WriteString(s)
		}
	default:
		b.WriteString("<?>")
	}
}

func writeFields(b *strings.Builder, fs []FieldVal, sep string) {
	b.WriteByte('[')
	for i, f := range fs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f.Name)
		b.WriteString(sep)
		writeExpr(b, f.Val)
	}
	b.WriteByte(']')
}

// quoteTLA renders a string literal with TLA+ escapes.
func quoteTLA(s string) string {
	var b strings.Builder
	WriteQuoted(&b, s)
	return b.String()
}

// WriteQuoted writes s as a TLA+ string literal, with TLA+'s escapes
// (TLC prints string values the same way). Bytes that are not special
// are written as they are.
func WriteQuoted(sb *strings.Builder, s string) {
	sb.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			sb.WriteString(`\"`)
		case '\\':
			sb.WriteString(`\\`)
		case '\t':
			sb.WriteString(`\t`)
		case '\n':
			sb.WriteString(`\n`)
		case '\f':
			sb.WriteString(`\f`)
		case '\r':
			sb.WriteString(`\r`)
		default:
			sb.WriteByte(c)
		}
	}
	sb.WriteByte('"')
}

// UnitString renders a unit on one line (definitions with their bodies).
func UnitString(u Unit) string {
	var b strings.Builder
	switch x := u.(type) {
	case *OpDef:
		if x.Local {
			b.WriteString("LOCAL ")
		}
		switch x.Fix {
		case Infix:
			b.WriteString(paramName(x.Params, 0) + " " + x.Name + " " + paramName(x.Params, 1))
		case Prefix:
			b.WriteString(x.Name + " " + paramName(x.Params, 0))
		case Postfix:
			b.WriteString(paramName(x.Params, 0) + x.Name)
		default:
			b.WriteString(x.Name)
			writeParams(&b, x.Params)
		}
		b.WriteString(" == ")
		writeExpr(&b, x.Body)
	case *FuncDef:
		if x.Local {
			b.WriteString("LOCAL ")
		}
		b.WriteString(x.Name)
		b.WriteByte('[')
		writeBounds(&b, x.Bounds)
		b.WriteString("] == ")
		writeExpr(&b, x.Body)
	case *Instance:
		if x.Local {
			b.WriteString("LOCAL ")
		}
		if x.Name != "" {
			b.WriteString(x.Name)
			writeParams(&b, x.Params)
			b.WriteString(" == ")
		}
		b.WriteString("INSTANCE " + x.Module)
		for i, s := range x.Subst {
			if i == 0 {
				b.WriteString(" WITH ")
			} else {
				b.WriteString(", ")
			}
			b.WriteString(s.Name + " <- ")
			writeExpr(&b, s.Expr)
		}
	case *RecursiveDecl:
		b.WriteString("RECURSIVE ")
		writeDecls(&b, x.Decls)
	case *ConstantDecl:
		b.WriteString("CONSTANTS ")
		writeDecls(&b, x.Decls)
	case *VariableDecl:
		b.WriteString("VARIABLES " + strings.Join(x.Names, ", "))
	case *Assume:
		b.WriteString("ASSUME ")
		if x.Name != "" {
			b.WriteString(x.Name + " == ")
		}
		writeExpr(&b, x.Expr)
	case *Theorem:
		b.WriteString(x.Kind + " ")
		if x.Name != "" {
			b.WriteString(x.Name + " == ")
		}
		if x.AssumeProve {
			b.WriteString("ASSUME ... PROVE ")
		}
		writeExpr(&b, x.Expr)
	case *Module:
		b.WriteString("MODULE " + x.Name)
	}
	return b.String()
}

func paramName(ps []Param, i int) string {
	if i < len(ps) {
		return ps[i].Name
	}
	return "?"
}

func writeParams(b *strings.Builder, ps []Param) {
	if len(ps) == 0 {
		return
	}
	b.WriteByte('(')
	for i, p := range ps {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.Name)
		writeArity(b, p.Arity)
	}
	b.WriteByte(')')
}

func writeArity(b *strings.Builder, n int) {
	if n == 0 {
		return
	}
	b.WriteByte('(')
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('_')
	}
	b.WriteByte(')')
}

func writeDecls(b *strings.Builder, ds []Decl) {
	for i, d := range ds {
		if i > 0 {
			b.WriteString(", ")
		}
		switch d.Fix {
		case Infix:
			b.WriteString("_ " + d.Name + " _")
		case Prefix:
			b.WriteString(d.Name + " _")
		case Postfix:
			b.WriteString("_" + d.Name)
		default:
			b.WriteString(d.Name)
			writeArity(b, d.Arity)
		}
	}
}

func (x *Ident) String() string         { return ExprString(x) }
func (x *OpApp) String() string         { return ExprString(x) }
func (x *Number) String() string        { return ExprString(x) }
func (x *Decimal) String() string       { return ExprString(x) }
func (x *StringLit) String() string     { return ExprString(x) }
func (x *Bool) String() string          { return ExprString(x) }
func (x *Prime) String() string         { return ExprString(x) }
func (x *Quant) String() string         { return ExprString(x) }
func (x *TemporalQuant) String() string { return ExprString(x) }
func (x *Choose) String() string        { return ExprString(x) }
func (x *SetEnum) String() string       { return ExprString(x) }
func (x *SetFilter) String() string     { return ExprString(x) }
func (x *SetMap) String() string        { return ExprString(x) }
func (x *FuncLit) String() string       { return ExprString(x) }
func (x *FuncSet) String() string       { return ExprString(x) }
func (x *RecordLit) String() string     { return ExprString(x) }
func (x *RecordSet) String() string     { return ExprString(x) }
func (x *Except) String() string        { return ExprString(x) }
func (x *At) String() string            { return ExprString(x) }
func (x *FuncApp) String() string       { return ExprString(x) }
func (x *Field) String() string         { return ExprString(x) }
func (x *Tuple) String() string         { return ExprString(x) }
func (x *CrossProduct) String() string  { return ExprString(x) }
func (x *If) String() string            { return ExprString(x) }
func (x *Case) String() string          { return ExprString(x) }
func (x *Let) String() string           { return ExprString(x) }
func (x *Lambda) String() string        { return ExprString(x) }
func (x *Unchanged) String() string     { return ExprString(x) }
func (x *Enabled) String() string       { return ExprString(x) }
func (x *ActionBox) String() string     { return ExprString(x) }
func (x *ActionAngle) String() string   { return ExprString(x) }
func (x *Always) String() string        { return ExprString(x) }
func (x *Eventually) String() string    { return ExprString(x) }
func (x *LeadsTo) String() string       { return ExprString(x) }
func (x *Fairness) String() string      { return ExprString(x) }
func (x *Label) String() string         { return ExprString(x) }
func (x *BulletList) String() string    { return ExprString(x) }
func (x *SubExpr) String() string       { return ExprString(x) }
