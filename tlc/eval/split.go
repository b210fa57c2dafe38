package eval

import (
	"fmt"
	"strings"

	"github.com/modelfuzz/modelfuzz/tlc/syntax"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// TLC splits the next-state relation into actions before it explores
// (tlc2.tool.impl.Tool.getActions): through disjunctions, bounded \E whose
// set is a constant (one action per binding), calls of definitions whose
// arguments are constants, LET and labels; anything else is one action. An
// action is named by the definition it comes from, with the values of that
// definition's parameters, and located by its expression: a trace step is
// "<Prepare(r1) line 31, col 5 to line 35, col 20 of module TCommit>". The
// split names trace steps, counts coverage per action and drives
// simulation; the exhaustive search enumerates Next whole, which gives the
// same successors.

// Location is the extent of an expression in a module, as TLC prints it.
type Location struct {
	Module                               string
	BeginLine, BeginCol, EndLine, EndCol int
}

// String is TLC's rendering: "line 31, col 5 to line 35, col 20 of module
// TCommit".
func (l Location) String() string {
	return fmt.Sprintf("line %d, col %d to line %d, col %d of module %s", l.BeginLine, l.BeginCol, l.EndLine, l.EndCol, l.Module)
}

// SubAction is one action of the next-state relation's split.
type SubAction struct {
	// Name is the definition the action comes from ("" when the
	// next-state relation is not a definition); Args are the values of its
	// parameters.
	Name string
	Args []value.Value
	// Loc is the action's expression; Decl the left-hand side of the
	// definition Name (TLC's coverage report locates an action by it),
	// zero when there is no definition.
	Loc, Decl Location
	// Whole is true when the action is the definition's entire body (TLC
	// then prints only the declaration in coverage).
	Whole bool

	node node
	env  *Env       // the action's frame, when it can be shared
	base *Env       // otherwise: the frame below specs
	lets []frameSpc // frames built anew at each evaluation (a LET's)
}

// frameSpc is a frame of an action under a LET: a LET's own frame (its
// values are computed per state) or a binder's, built on the frame below.
type frameSpc struct {
	let  *letNode
	vals []value.Value
}

// Label is the action as TLC names a trace step it leads to: "<Name(a,b)
// LOCATION>", "<Action LOCATION>" for an unnamed one.
func (a *SubAction) Label() string {
	name := a.Name
	if name == "" {
		name = "Action"
	}
	return fmt.Sprintf("<%s%s %s>", name, a.argList(), a.Loc)
}

// Signature is the name with the parameters' values: "Prepare(r1)"
// ("UnnamedAction", as TLC, for an action of no definition).
func (a *SubAction) Signature() string {
	if a.Name == "" {
		return "UnnamedAction"
	}
	return a.Name + a.argList()
}

func (a *SubAction) argList() string {
	if len(a.Args) == 0 {
		return ""
	}
	parts := make([]string, len(a.Args))
	for i, v := range a.Args {
		parts[i] = v.String()
	}
	return "(" + strings.Join(parts, ",") + ")"
}

// frame returns the action's frame for one evaluation.
func (a *SubAction) frame() *Env {
	if a.lets == nil {
		return a.env
	}
	env := a.base
	for _, f := range a.lets {
		if f.let != nil {
			env = f.let.frame(env)
		} else {
			env = &Env{vals: f.vals, parent: env, inst: env.instFrame()}
		}
	}
	return env
}

// NextActions returns the split of the next-state relation, in TLC's
// order; the split is computed once, on first use.
func (m *Model) NextActions() []*SubAction {
	m.splitOnce.Do(func() {
		if m.next == nil {
			return
		}
		sp := &splitter{m: m, c: m.newCtx()}
		sp.split(m.next, splitFrame{}, nil, nil, 0)
		m.actions = sp.out
	})
	return m.actions
}

// InitLocation locates the initial predicate's definition, as TLC's
// coverage report does (zero when it is not a definition).
func (m *Model) InitLocation() (name string, decl Location) {
	if m.initDef == nil {
		return "", Location{}
	}
	return m.initDef.name, m.declOf(m.initDef)
}

// NextAction calls fn for every successor of s under action i of
// NextActions.
func (ev *Evaluator) NextAction(i int, s []value.Value, fn func(t []value.Value) error) error {
	a := ev.m.NextActions()[i]
	if x := ev.m.exprCov; x != nil {
		defer ev.c.enterRoot(x.actions[i])()
	}
	return ev.successors(a.node, a.frame(), s, fn)
}

// StepAction returns the index of the first action of NextActions that
// leads from s to t (-1 when none does), as TLC finds the action of a
// trace step.
func (ev *Evaluator) StepAction(s, t []value.Value) (int, error) {
	errFound := fmt.Errorf("found")
	for i := range ev.m.NextActions() {
		err := ev.NextAction(i, s, func(u []value.Value) error {
			for j := range u {
				if eq, err := value.Equal(u[j], t[j]); err != nil || !eq {
					return err
				}
			}
			return errFound
		})
		if err == errFound {
			return i, nil
		}
		if err != nil {
			return -1, err
		}
	}
	return -1, nil
}

// splitFrame is the frame the split is in: env to evaluate constants in,
// and how to rebuild it per evaluation (base and lets, see SubAction).
type splitFrame struct {
	env, base *Env
	lets      []frameSpc
}

type splitter struct {
	m   *Model
	c   *ctx
	out []*SubAction
}

// maxSplitDepth bounds the definitions the split expands (a recursive
// next-state relation is one action past it).
const maxSplitDepth = 64

// maxActions bounds the split: a \E over a large constant set stays one
// action past it (where TLC would make one per element).
const maxActions = 100000

func (sp *splitter) split(n node, f splitFrame, d *def, args []value.Value, depth int) {
	if depth > maxSplitDepth {
		sp.leaf(n, f, d, args)
		return
	}
	switch x := n.(type) {
	case *labelNode:
		sp.split(x.x, f, d, args, depth+1)
		return
	case *letNode:
		fr := x.frame(f.env)
		base := f.base
		if f.lets == nil {
			// The frames so far (a \E's bindings) are built once: they
			// are what the LET's frame is rebuilt on.
			base = f.env
		}
		sp.split(x.body, splitFrame{env: fr, base: base, lets: appendSpc(f.lets, frameSpc{let: x})}, d, args, depth+1)
		return
	case *orNode:
		for _, it := range x.items {
			sp.split(it, f, d, args, depth+1)
		}
		return
	case *quantNode:
		if x.forall {
			break
		}
		var bindings [][]value.Value
		ok := sp.constant(func() error {
			return x.b.each(sp.c, f.env, func(e *Env) (bool, error) {
				bindings = append(bindings, append([]value.Value(nil), e.vals...))
				return true, nil
			})
		})
		if !ok || len(bindings) == 0 || len(sp.out)+len(bindings) > maxActions {
			break
		}
		for _, vals := range bindings {
			fe := &Env{vals: vals, parent: f.env, inst: f.env.instFrame()}
			nf := splitFrame{env: fe, base: f.base}
			if f.lets != nil {
				nf.lets = appendSpc(f.lets, frameSpc{vals: vals})
			}
			sp.split(x.body, nf, d, args, depth+1)
		}
		return
	case *callNode:
		cd := x.d
		if cd.kind == dkOp && cd.sc.substituted && cd.sc.instPos.Line > 0 {
			// TLC keeps an instance with substitutions whole, located at
			// the INSTANCE statement: unnamed when it is the whole
			// next-state relation, else named I!Op.
			a := sp.leaf(n, f, nil, nil)
			a.Loc = sp.m.location(cd.sc.instPos)
			if d != nil {
				a.Name, a.Decl = cd.name, sp.m.declOf(cd)
				if cd.sc.instName != "" {
					a.Name = cd.sc.instName + "!" + cd.name
				}
			}
			return
		}
		if cd.kind != dkOp || cd.compiled == nil || x.hasInst || cd.sc.paramInst || cd.sc.substituted {
			if cd.kind == dkOp {
				sp.leaf(n, f, cd, nil)
				return
			}
			break
		}
		vals := make([]value.Value, len(x.args))
		ok := true
		for i, a := range x.args {
			if _, isOp := a.(*closureNode); isOp {
				ok = false
				break
			}
			ok = sp.constant(func() error {
				v, err := a.eval(sp.c, f.env)
				vals[i] = v
				return err
			})
			if !ok {
				break
			}
		}
		if !ok {
			sp.leaf(n, f, cd, nil)
			return
		}
		var fr *Env
		if len(vals) > 0 {
			fr = &Env{vals: vals}
		}
		sp.split(cd.compiled, splitFrame{env: fr, base: fr}, cd, vals, depth+1)
		return
	}
	sp.leaf(n, f, d, args)
}

func appendSpc(s []frameSpc, f frameSpc) []frameSpc {
	return append(append([]frameSpc(nil), s...), f)
}

// constant runs a constant-level evaluation (no state), reporting whether
// it succeeded; TLC's split gives up the same way where an expression
// needs the state.
func (sp *splitter) constant(f func() error) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	c := sp.c
	defer c.save()()
	c.initMode, c.cur, c.next, c.primed = false, nil, nil, 0
	return f() == nil
}

func (sp *splitter) leaf(n node, f splitFrame, d *def, args []value.Value) *SubAction {
	a := &SubAction{node: n, env: f.env, base: f.base, lets: f.lets, Loc: sp.m.location(n.position())}
	if d != nil {
		a.Name, a.Args, a.Decl = d.name, args, sp.m.declOf(d)
		if d.compiled == n || d.compiled != nil && d.compiled.position() == n.position() {
			a.Whole = true
		}
	}
	sp.out = append(sp.out, a)
	return a
}

// location returns the extent of the expression at pos.
func (m *Model) location(pos syntax.Pos) Location {
	l := Location{BeginLine: pos.Line, BeginCol: pos.Col, EndLine: pos.Line, EndCol: pos.Col}
	mod := m.moduleOf(pos.File)
	if mod == nil {
		return l
	}
	l.Module = mod.Name
	if s, ok := mod.SpanOf(pos); ok {
		l.BeginLine, l.BeginCol, l.EndLine, l.EndCol = int(s.Begin.Line), int(s.Begin.Col), int(s.End.Line), int(s.End.Col)
	}
	return l
}

// declOf locates the left-hand side of definition d.
func (m *Model) declOf(d *def) Location {
	l := m.location(d.pos)
	if mod := m.moduleOf(d.pos.File); mod == nil || mod.Spans[syntax.LineCol{Line: int32(d.pos.Line), Col: int32(d.pos.Col)}] == (syntax.Span{}) {
		l.EndCol = l.BeginCol + len(d.name) - 1
	}
	return l
}

// moduleOf returns the module parsed from file (nil when unknown).
func (m *Model) moduleOf(file string) *syntax.Module {
	for _, mod := range m.modules {
		if mod.Pos.File == file {
			return mod
		}
	}
	return nil
}

// HasAlias reports whether the cfg has an ALIAS.
func (m *Model) HasAlias() bool { return m.alias != nil }

// AliasFields are the ALIAS's fields in the order its record constructor
// writes them (nil when the ALIAS is not a record constructor): TLC prints
// them in that order.
func (m *Model) AliasFields() []string { return m.aliasFields }

// AliasOf evaluates the cfg's ALIAS for a trace state s whose successor in
// the trace is t (TLC passes the last state as its own successor): the
// record whose fields TLC prints in place of the variables.
func (ev *Evaluator) AliasOf(s, t []value.Value) (value.Value, error) {
	if ev.m.alias == nil {
		return nil, fmt.Errorf("the cfg has no ALIAS")
	}
	c := ev.c
	defer c.save()()
	c.initMode, c.cur, c.next, c.primed = false, s, t, 0
	return ev.m.alias.eval(c, nil)
}

// InitLabel is how TLC's simulation labels an initial state: the initial
// predicate's definition and the extent of its body, "<Init line 11, col 3
// to line 13, col 14 of module M>" ("<Initial predicate>", as the
// exhaustive search labels it, when the predicate is not one definition).
func (m *Model) InitLabel() string {
	if m.initDef == nil || m.initDef.body == nil {
		return "<Initial predicate>"
	}
	return fmt.Sprintf("<%s %s>", m.initDef.name, m.location(m.initDef.body.Position()))
}

// DefinitionExtent locates the whole definition of the root module's
// operator name, from its left-hand side to the end of its body, as TLC
// locates a definition in its messages; false when name is not such a
// definition.
func (m *Model) DefinitionExtent(name string) (Location, bool) {
	d := m.root.lookup(name)
	if d == nil || d.kind != dkOp || d.body == nil {
		return Location{}, false
	}
	l := m.declOf(d)
	b := m.location(d.body.Position())
	if b.Module != l.Module {
		return Location{}, false
	}
	l.EndLine, l.EndCol = b.EndLine, b.EndCol
	return l, true
}

// VarDecls locates the declaration of each variable of Vars (its name in
// the VARIABLES list), in the order of Vars.
func (m *Model) VarDecls() []Location {
	out := make([]Location, len(m.varDefs))
	for i, d := range m.varDefs {
		out[i] = m.declOf(d)
	}
	return out
}

// InvariantDecls locates the definitions of the cfg's invariants (their
// left-hand sides), in the cfg's order, as TLC's coverage report lists
// them; zero for an invariant that is not a definition of the root module.
func (m *Model) InvariantDecls() []Location {
	out := make([]Location, len(m.Invariants))
	for i, inv := range m.Invariants {
		if d := m.root.lookup(inv.Name); d != nil && d.kind == dkOp {
			out[i] = m.declOf(d)
		}
	}
	return out
}

// ViewVars are the variables of the cfg's VIEW when it is a tuple of
// variables, in the tuple's order (nil otherwise): TLC's -view prints a
// state of such a VIEW as those variables.
func (m *Model) ViewVars() []string { return m.viewVars }
