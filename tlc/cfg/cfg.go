// Package cfg parses TLC model configuration files (.cfg): which
// specification to check, the values of its constants, the invariants and
// properties, constraints, symmetry, view and the other options TLC reads.
//
// It follows TLC's grammar (tlc2.tool.impl.ModelConfig) and extends it in
// two small ways: integers may be negative, and keywords may not be
// misspelled silently (see Parse). It must not resolve names against a
// spec: whether INVARIANT Foo names a definition is the checker's business.
//
// Constant values are value.Value: integers, strings, booleans, model
// values (any other bare identifier) and sets of these, nested. Model values
// are created with value.NewModelValue while parsing, in file order, which
// gives them TLC's canonical order (first appearance). TLC does not accept
// tuples in a cfg, and neither do we.
package cfg

import (
	"fmt"
	"os"
	"strings"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// Pos is a position in a cfg file; Line and Col count from 1.
type Pos struct{ Line, Col int }

func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// Ident is a name with its position, such as an invariant's.
type Ident struct {
	Name string
	Pos  Pos
}

// ConstantKind distinguishes assignments from substitutions.
type ConstantKind uint8

const (
	// Assign is C = v: the constant (or constant operator) C is the value v.
	Assign ConstantKind = iota
	// Substitute is C <- D: C is replaced by the definition D of the spec.
	Substitute
)

// Constant is one entry of a CONSTANT section, in one of the forms
//
//	C = v           Kind Assign, Value v
//	F(v1, v2) = v   Kind Assign, Args [v1 v2]
//	C = [M] v       Kind Assign, Module M: only in module M
//	C <- D          Kind Substitute, Subst D
//	C <- [M] D      Kind Substitute, Module M: only in module M
//
// Name may be qualified with "!" (Inst!C), as TLC allows.
type Constant struct {
	Kind   ConstantKind
	Name   string
	Args   []value.Value
	Module string
	Value  value.Value
	Subst  string
	Pos    Pos
}

// Config is a parsed cfg file. A singular option that is absent has an
// empty Name; list options keep the order of the file and accumulate over
// repeated keywords (INVARIANT A INVARIANT B is the list A, B).
type Config struct {
	File string

	Init           Ident
	Next           Ident
	Specification  Ident
	View           Ident
	Symmetry       Ident
	Alias          Ident
	Postcondition  Ident
	TypeConstraint Ident

	Constants         []Constant
	Invariants        []Ident
	Properties        []Ident
	Constraints       []Ident
	ActionConstraints []Ident

	// CheckDeadlock is nil when the file does not say; see DeadlockCheck.
	CheckDeadlock *bool
}

// DeadlockCheck tells whether deadlock must be checked: TRUE unless the
// file says CHECK_DEADLOCK FALSE.
func (c *Config) DeadlockCheck() bool { return c.CheckDeadlock == nil || *c.CheckDeadlock }

// Error is a parse error at a position of a file.
type Error struct {
	File string
	Pos  Pos
	Msg  string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Pos.Line, e.Pos.Col, e.Msg)
}

// ParseFile reads and parses the cfg file at path.
func ParseFile(path string) (*Config, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, src)
}

// String prints the config as a cfg file that parses back to it.
func (c *Config) String() string {
	var b strings.Builder
	single := func(kw string, id Ident) {
		if id.Name != "" {
			fmt.Fprintf(&b, "%s %s\n", kw, id.Name)
		}
	}
	list := func(kw string, ids []Ident) {
		if len(ids) == 0 {
			return
		}
		b.WriteString(kw)
		for _, id := range ids {
			b.WriteString(" ")
			b.WriteString(id.Name)
		}
		b.WriteString("\n")
	}
	if len(c.Constants) > 0 {
		b.WriteString("CONSTANTS\n")
		for _, k := range c.Constants {
			b.WriteString("  ")
			b.WriteString(k.String())
			b.WriteString("\n")
		}
	}
	single("INIT", c.Init)
	single("NEXT", c.Next)
	single("SPECIFICATION", c.Specification)
	list("INVARIANTS", c.Invariants)
	list("PROPERTIES", c.Properties)
	list("CONSTRAINTS", c.Constraints)
	list("ACTION_CONSTRAINTS", c.ActionConstraints)
	single("SYMMETRY", c.Symmetry)
	single("VIEW", c.View)
	single("ALIAS", c.Alias)
	single("POSTCONDITION", c.Postcondition)
	single("TYPE_CONSTRAINT", c.TypeConstraint)
	if c.CheckDeadlock != nil {
		if *c.CheckDeadlock {
			b.WriteString("CHECK_DEADLOCK TRUE\n")
		} else {
			b.WriteString("CHECK_DEADLOCK FALSE\n")
		}
	}
	return b.String()
}

// String prints the entry in cfg syntax.
func (k Constant) String() string {
	var b strings.Builder
	b.WriteString(k.Name)
	if len(k.Args) > 0 {
		b.WriteString("(")
		for i, a := range k.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(a.String())
		}
		b.WriteString(")")
	}
	if k.Kind == Substitute {
		b.WriteString(" <- ")
	} else {
		b.WriteString(" = ")
	}
	if k.Module != "" {
		fmt.Fprintf(&b, "[%s] ", k.Module)
	}
	if k.Kind == Substitute {
		b.WriteString(k.Subst)
	} else {
		b.WriteString(k.Value.String())
	}
	return b.String()
}
