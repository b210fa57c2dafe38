package syntax

// This file defines the abstract syntax tree produced by the parser. It is
// shaped for evaluation, not for reproducing the source: parentheses, comments,
// proofs and ASCII/Unicode spelling variants are gone, and every operator
// application (built-in or user-defined) is an *OpApp carrying the operator's
// canonical name, so that an evaluator needs a single lookup.
//
// Canonical operator names (see CanonicalOp):
//   - infix operators use their standard ASCII spelling, with synonyms folded:
//     \union -> \cup, \intersect -> \cap, <= and \leq -> =<, \geq -> >=,
//     /= -> #, \land -> /\, \lor -> \/, \equiv -> <=>, \times -> \X,
//     \circ -> \o, \oplus -> (+), \ominus -> (-), \odot -> (.),
//     \oslash -> (/), \otimes -> (\X);
//   - prefix operators: "~" (also for \lnot, \neg), "-." (unary minus),
//     "DOMAIN", "SUBSET", "UNION";
//   - postfix operators: "^+", "^*", "^#".
//
// Some operators have dedicated nodes because they bind variables or are
// temporal/action operators an evaluator treats specially: Prime, Unchanged,
// Enabled, Always, Eventually, LeadsTo, ActionBox, ActionAngle, Fairness,
// CrossProduct (n-ary), BulletList (junction lists).

import "fmt"

// Pos is a source position. Line and Col are 1-based; Col counts runes.
type Pos struct {
	File string
	Line int
	Col  int
}

// String formats the position as "file:line:col" (or "line:col" without a file).
func (p Pos) String() string {
	if p.File == "" {
		return fmt.Sprintf("%d:%d", p.Line, p.Col)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Node is any syntax tree node.
type Node interface {
	Position() Pos
}

// Expr is an expression node. String returns a fully parenthesized rendering
// of the expression, for error messages and debugging.
type Expr interface {
	Node
	String() string
	exprNode()
}

// Unit is a module-level item (or a LET definition).
type Unit interface {
	Node
	unitNode()
}

// ---------------------------------------------------------------------------
// Modules and units

// Module is one TLA+ module.
type Module struct {
	Pos     Pos
	Name    string
	Extends []string
	// Units in source order: *ConstantDecl, *VariableDecl, *Assume, *OpDef,
	// *FuncDef, *Instance, *RecursiveDecl, *Theorem, and *Module for a
	// submodule nested inside this one.
	Units []Unit
	// Spans holds the extent of the expressions of the module's file, by
	// the line and column of their Position: TLC names an action in a
	// trace by the extent of its expression ("line 31, col 5 to line 35,
	// col 20 of module M"). It is shared by the modules of one file.
	Spans map[LineCol]Span
}

// LineCol is a compact line and column in a module's file.
type LineCol struct{ Line, Col int32 }

// Span is the extent of an expression: from the first character of its
// first token to the last character of its last token.
type Span struct{ Begin, End LineCol }

// SpanOf returns the extent of the expression whose Position is p.
func (m *Module) SpanOf(p Pos) (Span, bool) {
	s, ok := m.Spans[LineCol{int32(p.Line), int32(p.Col)}]
	return s, ok
}

// Fixity tells how a user-defined operator is written.
type Fixity int

const (
	// Ordinary is a named operator: Op or Op(a, b).
	Ordinary Fixity = iota
	// Prefix is a prefix operator definition such as "-. a == ...".
	Prefix
	// Infix is an infix operator definition such as "a ++ b == ...".
	Infix
	// Postfix is a postfix operator definition such as "a ^+ == ...".
	Postfix
)

func (f Fixity) String() string {
	switch f {
	case Prefix:
		return "prefix"
	case Infix:
		return "infix"
	case Postfix:
		return "postfix"
	}
	return "ordinary"
}

// Decl declares one constant (or recursive operator) name. Arity is the
// number of arguments for an operator constant such as F(_, _), else 0.
// For symbolic declarations ("_ + _", "-. _", "_ ^+") Name is the canonical
// operator name and Fix tells its form.
type Decl struct {
	Pos   Pos
	Name  string
	Arity int
	Fix   Fixity
}

// Param is a formal parameter of an operator definition. Arity > 0 marks a
// higher-order parameter such as F(_) or F(_, _).
type Param struct {
	Pos   Pos
	Name  string
	Arity int
}

// ConstantDecl is CONSTANT(S) c1, F(_, _), ...
type ConstantDecl struct {
	Pos   Pos
	Decls []Decl
}

// VariableDecl is VARIABLE(S) x, y, ...
type VariableDecl struct {
	Pos   Pos
	Names []string
	// NamePos holds the position of each name, parallel to Names.
	NamePos []Pos
}

// Assume is ASSUME e, ASSUMPTION e, or ASSUME Name == e (Name may be "").
type Assume struct {
	Pos  Pos
	Name string
	Expr Expr
}

// OpDef is an operator definition: Name(params) == Body. For infix, prefix
// and postfix definitions Name is the canonical operator name and Params are
// the operands. Recursive is true when the name was declared by a RECURSIVE
// declaration in the same scope (module or LET).
type OpDef struct {
	Pos       Pos
	Name      string
	Params    []Param
	Body      Expr
	Fix       Fixity
	Local     bool
	Recursive bool
}

// FuncDef is a function definition: Name[x \in S, y \in T] == Body.
type FuncDef struct {
	Pos    Pos
	Name   string
	Bounds []Bound
	Body   Expr
	Local  bool
}

// Subst is one substitution "param <- expr" of an INSTANCE ... WITH.
type Subst struct {
	Pos  Pos
	Name string
	Expr Expr
}

// Instance is one of
//
//	INSTANCE M WITH a <- e          (Name == "")
//	I == INSTANCE M WITH a <- e
//	I(p, q) == INSTANCE M WITH ...
//
// optionally preceded by LOCAL.
type Instance struct {
	Pos    Pos
	Name   string
	Params []Param
	Module string
	Subst  []Subst
	Local  bool
}

// RecursiveDecl is RECURSIVE F(_), G.
type RecursiveDecl struct {
	Pos   Pos
	Decls []Decl
}

// Theorem is THEOREM/LEMMA/COROLLARY/PROPOSITION/AXIOM with an optional name.
// Kind is the keyword as written ("THEOREM", "AXIOM", ...). Expr is the
// statement; for "ASSUME ... PROVE e" statements AssumeProve is true and Expr
// is the goal e (the assumptions are dropped). Proofs are dropped.
type Theorem struct {
	Pos         Pos
	Kind        string
	Name        string
	Expr        Expr
	AssumeProve bool
}

// ---------------------------------------------------------------------------
// Expressions

// Bound is a binder. Shapes:
//
//	x \in S            Names = [x],    Set = S
//	x, y \in S         Names = [x, y], Set = S (each name ranges over S)
//	<<a, b>> \in S     Names = [a, b], Tuple, Set = S
//	x                  Names = [x],    Set = nil (unbounded)
type Bound struct {
	Pos   Pos
	Names []string
	Tuple bool
	Set   Expr
}

// PathStep is one instance prefix of a qualified name: M! or M(a, b)!.
type PathStep struct {
	Pos  Pos
	Name string
	Args []Expr
}

// Ident is a bare name: a variable, constant, bound variable or zero-arity
// operator; also the built-in sets BOOLEAN and STRING. In an argument position
// an operator symbol passed to a higher-order operator is an Ident too, with
// the canonical operator name (e.g. "+").
type Ident struct {
	Pos  Pos
	Name string
}

// OpApp applies the operator Name to Args. Path is non-empty for instance-
// qualified names (M!Op(args), M(x)!N!Op). Built-in operators use canonical
// names (see the file comment); unary minus is "-.". An OpApp with a Path and
// no Args refers to a zero-arity operator of an instance. Pos is the
// operator symbol's position for infix and postfix applications, else the
// position of the name (or prefix symbol).
type OpApp struct {
	Pos  Pos
	Path []PathStep
	Name string
	Args []Expr
}

// Number is an integer literal (decimal, \b, \o or \h). Text is the literal
// as written; Value its value.
type Number struct {
	Pos   Pos
	Text  string
	Value int64
}

// Decimal is a decimal literal such as 1.5, kept as written.
type Decimal struct {
	Pos  Pos
	Text string
}

// StringLit is a string literal; Value has its escapes resolved.
type StringLit struct {
	Pos   Pos
	Value string
}

// Bool is TRUE or FALSE.
type Bool struct {
	Pos   Pos
	Value bool
}

// Prime is X'.
type Prime struct {
	Pos Pos
	X   Expr
}

// Quant is \A or \E over Bounds (all bounded or all unbounded).
type Quant struct {
	Pos    Pos
	Forall bool
	Bounds []Bound
	Body   Expr
}

// TemporalQuant is \AA or \EE x, y : Body.
type TemporalQuant struct {
	Pos    Pos
	Forall bool
	Names  []string
	Body   Expr
}

// Choose is CHOOSE x \in S : Body, CHOOSE <<a, b>> \in S : Body, or CHOOSE x : Body.
type Choose struct {
	Pos   Pos
	Bound Bound
	Body  Expr
}

// SetEnum is {a, b, c}; {} has no Elems.
type SetEnum struct {
	Pos   Pos
	Elems []Expr
}

// SetFilter is {x \in S : Pred} (Bound may be a tuple binder).
type SetFilter struct {
	Pos   Pos
	Bound Bound
	Pred  Expr
}

// SetMap is {Elem : x \in S, y \in T}.
type SetMap struct {
	Pos    Pos
	Elem   Expr
	Bounds []Bound
}

// FuncLit is [x \in S, y \in T |-> Body].
type FuncLit struct {
	Pos    Pos
	Bounds []Bound
	Body   Expr
}

// FuncSet is [Domain -> Range].
type FuncSet struct {
	Pos    Pos
	Domain Expr
	Range  Expr
}

// FieldVal is one "name |-> value" of a record or "name : set" of a record set.
type FieldVal struct {
	Pos  Pos
	Name string
	Val  Expr
}

// RecordLit is [a |-> e, b |-> f].
type RecordLit struct {
	Pos    Pos
	Fields []FieldVal
}

// RecordSet is [a : S, b : T].
type RecordSet struct {
	Pos    Pos
	Fields []FieldVal
}

// ExceptStep is one component of an EXCEPT path: ![a] / ![a, b] (Index) or
// !.f (Field, Index nil). A multi-element Index denotes a tuple index.
type ExceptStep struct {
	Pos   Pos
	Field string
	Index []Expr
}

// ExceptUpdate is one "!path = Value"; Value may contain At.
type ExceptUpdate struct {
	Pos   Pos
	Path  []ExceptStep
	Value Expr
}

// Except is [Func EXCEPT !p1 = e1, !p2 = e2].
type Except struct {
	Pos     Pos
	Func    Expr
	Updates []ExceptUpdate
}

// At is @ inside an EXCEPT value: the old value at the updated path.
type At struct {
	Pos Pos
}

// FuncApp is Func[Args...]; more than one argument means a tuple argument.
type FuncApp struct {
	Pos  Pos
	Func Expr
	Args []Expr
}

// Field is Rec.Name.
type Field struct {
	Pos  Pos
	Rec  Expr
	Name string
}

// Tuple is <<a, b, c>>.
type Tuple struct {
	Pos   Pos
	Elems []Expr
}

// CrossProduct is A \X B \X C (n-ary: never nested binary for one chain).
type CrossProduct struct {
	Pos  Pos
	Sets []Expr
}

// If is IF Cond THEN Then ELSE Else.
type If struct {
	Pos  Pos
	Cond Expr
	Then Expr
	Else Expr
}

// CaseArm is one "Cond -> Body" of a CASE.
type CaseArm struct {
	Pos  Pos
	Cond Expr
	Body Expr
}

// Case is CASE c1 -> e1 [] c2 -> e2 [] OTHER -> e; Other is nil when absent.
type Case struct {
	Pos   Pos
	Arms  []CaseArm
	Other Expr
}

// Let is LET defs IN Body; Defs are *OpDef, *FuncDef, *RecursiveDecl or
// *Instance.
type Let struct {
	Pos  Pos
	Defs []Unit
	Body Expr
}

// Lambda is LAMBDA x, y : Body.
type Lambda struct {
	Pos    Pos
	Params []Param
	Body   Expr
}

// Unchanged is UNCHANGED X.
type Unchanged struct {
	Pos Pos
	X   Expr
}

// Enabled is ENABLED X.
type Enabled struct {
	Pos Pos
	X   Expr
}

// ActionBox is [Action]_Sub.
type ActionBox struct {
	Pos    Pos
	Action Expr
	Sub    Expr
}

// ActionAngle is <<Action>>_Sub.
type ActionAngle struct {
	Pos    Pos
	Action Expr
	Sub    Expr
}

// Always is []X.
type Always struct {
	Pos Pos
	X   Expr
}

// Eventually is <>X.
type Eventually struct {
	Pos Pos
	X   Expr
}

// LeadsTo is L ~> R.
type LeadsTo struct {
	Pos Pos
	L   Expr
	R   Expr
}

// Fairness is WF_Sub(Action) or, when Strong, SF_Sub(Action).
type Fairness struct {
	Pos    Pos
	Strong bool
	Sub    Expr
	Action Expr
}

// Label is Name(Params):: Body; the label is informational.
type Label struct {
	Pos    Pos
	Name   string
	Params []string
	Body   Expr
}

// SubExpr is a subexpression reference such as Inv!2 (the second conjunct
// of Inv's definition) or Thm!: (the body of a definition). Base names the
// definition (an *Ident or *OpApp, possibly with arguments); Sels are the
// selectors in order: "1", "2", ... (n-th operand or junction item), ":",
// "<<", ">>", "@".
type SubExpr struct {
	Pos  Pos
	Base Expr
	Sels []string
}

// BulletList is an aligned junction list. Kind is "/\" or "\/".
type BulletList struct {
	Pos   Pos
	Kind  string
	Items []Expr
}

// ---------------------------------------------------------------------------
// Node plumbing

func (n *Module) Position() Pos        { return n.Pos }
func (n *ConstantDecl) Position() Pos  { return n.Pos }
func (n *VariableDecl) Position() Pos  { return n.Pos }
func (n *Assume) Position() Pos        { return n.Pos }
func (n *OpDef) Position() Pos         { return n.Pos }
func (n *FuncDef) Position() Pos       { return n.Pos }
func (n *Instance) Position() Pos      { return n.Pos }
func (n *RecursiveDecl) Position() Pos { return n.Pos }
func (n *Theorem) Position() Pos       { return n.Pos }

func (*Module) unitNode()        {}
func (*ConstantDecl) unitNode()  {}
func (*VariableDecl) unitNode()  {}
func (*Assume) unitNode()        {}
func (*OpDef) unitNode()         {}
func (*FuncDef) unitNode()       {}
func (*Instance) unitNode()      {}
func (*RecursiveDecl) unitNode() {}
func (*Theorem) unitNode()       {}

func (n *Ident) Position() Pos         { return n.Pos }
func (n *OpApp) Position() Pos         { return n.Pos }
func (n *Number) Position() Pos        { return n.Pos }
func (n *Decimal) Position() Pos       { return n.Pos }
func (n *StringLit) Position() Pos     { return n.Pos }
func (n *Bool) Position() Pos          { return n.Pos }
func (n *Prime) Position() Pos         { return n.Pos }
func (n *Quant) Position() Pos         { return n.Pos }
func (n *TemporalQuant) Position() Pos { return n.Pos }
func (n *Choose) Position() Pos        { return n.Pos }
func (n *SetEnum) Position() Pos       { return n.Pos }
func (n *SetFilter) Position() Pos     { return n.Pos }
func (n *SetMap) Position() Pos        { return n.Pos }
func (n *FuncLit) Position() Pos       { return n.Pos }
func (n *FuncSet) Position() Pos       { return n.Pos }
func (n *RecordLit) Position() Pos     { return n.Pos }
func (n *RecordSet) Position() Pos     { return n.Pos }
func (n *Except) Position() Pos        { return n.Pos }
func (n *At) Position() Pos            { return n.Pos }
func (n *FuncApp) Position() Pos       { return n.Pos }
func (n *Field) Position() Pos         { return n.Pos }
func (n *Tuple) Position() Pos         { return n.Pos }
func (n *CrossProduct) Position() Pos  { return n.Pos }
func (n *If) Position() Pos            { return n.Pos }
func (n *Case) Position() Pos          { return n.Pos }
func (n *Let) Position() Pos           { return n.Pos }
func (n *Lambda) Position() Pos        { return n.Pos }
func (n *Unchanged) Position() Pos     { return n.Pos }
func (n *Enabled) Position() Pos       { return n.Pos }
func (n *ActionBox) Position() Pos     { return n.Pos }
func (n *ActionAngle) Position() Pos   { return n.Pos }
func (n *Always) Position() Pos        { return n.Pos }
func (n *Eventually) Position() Pos    { return n.Pos }
func (n *LeadsTo) Position() Pos       { return n.Pos }
func (n *Fairness) Position() Pos      { return n.Pos }
func (n *Label) Position() Pos         { return n.Pos }
func (n *BulletList) Position() Pos    { return n.Pos }
func (n *SubExpr) Position() Pos       { return n.Pos }

func (*Ident) exprNode()         {}
func (*OpApp) exprNode()         {}
func (*Number) exprNode()        {}
func (*Decimal) exprNode()       {}
func (*StringLit) exprNode()     {}
func (*Bool) exprNode()          {}
func (*Prime) exprNode()         {}
func (*Quant) exprNode()         {}
func (*TemporalQuant) exprNode() {}
func (*Choose) exprNode()        {}
func (*SetEnum) exprNode()       {}
func (*SetFilter) exprNode()     {}
func (*SetMap) exprNode()        {}
func (*FuncLit) exprNode()       {}
func (*FuncSet) exprNode()       {}
func (*RecordLit) exprNode()     {}
func (*RecordSet) exprNode()     {}
func (*Except) exprNode()        {}
func (*At) exprNode()            {}
func (*FuncApp) exprNode()       {}
func (*Field) exprNode()         {}
func (*Tuple) exprNode()         {}
func (*CrossProduct) exprNode()  {}
func (*If) exprNode()            {}
func (*Case) exprNode()          {}
func (*Let) exprNode()           {}
func (*Lambda) exprNode()        {}
func (*Unchanged) exprNode()     {}
func (*Enabled) exprNode()       {}
func (*ActionBox) exprNode()     {}
func (*ActionAngle) exprNode()   {}
func (*Always) exprNode()        {}
func (*Eventually) exprNode()    {}
func (*LeadsTo) exprNode()       {}
func (*Fairness) exprNode()      {}
func (*Label) exprNode()         {}
func (*BulletList) exprNode()    {}
func (*SubExpr) exprNode()       {}
