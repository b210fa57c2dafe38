// Package semantic checks a parsed module tree against the rules SANY, TLC's
// front end, enforces before anything is evaluated: the root module is named
// as its file, a name is defined once in a module (and in the user modules it
// extends), a definition refers only to names defined above it unless
// declared RECURSIVE, and the levels of expressions (constant, state, action,
// temporal) fit where they stand. A spec TLC rejects is rejected here with
// the class of error TLC gives, so that no one publishes a spec that TLC
// cannot run.
//
// The checks are sound rather than complete: where a level cannot be known
// from the syntax alone (an instance's operators, an operator argument), no
// error is reported. The package reads syntax trees only; it evaluates
// nothing.
package semantic

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/modelfuzz/modelfuzz/tlc/syntax"
)

// Levels of TLA+ expressions, as SANY numbers them.
const (
	Constant = 0
	State    = 1
	Action   = 2
	Temporal = 3
)

// LevelName is SANY's name of a level.
var LevelName = [...]string{"Constant", "State", "Action", "Temporal"}

// Error is a violation of SANY's rules, at a position.
type Error struct {
	Pos syntax.Pos
	Msg string
}

func (e *Error) Error() string {
	if e.Pos.Line == 0 {
		return e.Msg
	}
	return e.Pos.String() + ": " + e.Msg
}

// Check checks the module root (parsed by ld) and the user modules it
// extends or instantiates. It returns the first violation found, an *Error.
func Check(ld *syntax.Loader, root *syntax.Module) (*Info, error) {
	if err := checkFileName(root); err != nil {
		return nil, err
	}
	c := newChecker(ld)
	if err := c.module(root); err != nil {
		return nil, err
	}
	return &Info{c: c, root: c.mods[root.Name]}, nil
}

// Info is what the check learned of a module tree.
type Info struct {
	c    *checker
	root *modInfo
}

// Level is the level of the root module's definition called name, and
// whether it is known exactly (ok false: no such definition, or its level
// depends on what the syntax does not tell).
func (in *Info) Level(name string) (level int, ok bool) {
	if in == nil {
		return 0, false
	}
	s, found := in.root.symbols[name]
	if !found {
		return 0, false
	}
	l := in.c.symLevel(in.root, s)
	return l.level, l.err == nil && l.exact
}

// checkFileName: SANY requires the top-level module of a file to have the
// file's name.
func checkFileName(m *syntax.Module) error {
	if m.Pos.File == "" || strings.HasPrefix(m.Pos.File, "[library]") {
		return nil
	}
	base := strings.TrimSuffix(filepath.Base(m.Pos.File), ".tla")
	if base != m.Name {
		return &Error{Msg: fmt.Sprintf("File name '%s' does not match the name '%s' of the top level module it contains.", base, m.Name)}
	}
	return nil
}

// A symbol is a name defined or declared at the top level of a module.
type symbol struct {
	name   string
	pos    syntax.Pos
	module string
	kind   symKind
	op     *syntax.OpDef
	fn     *syntax.FuncDef
	// level, once computed: levelSet tells it is.
	level           int
	exact, levelSet bool
	computing       bool
}

type symKind int

const (
	symConst symKind = iota
	symVar
	symOp
	symFunc
	symInstance
	symImported // from an unnamed INSTANCE: its level is not known here
)

type modInfo struct {
	m       *syntax.Module
	symbols map[string]*symbol
}

type checker struct {
	ld   *syntax.Loader
	mods map[string]*modInfo
	busy map[string]bool
}

func newChecker(ld *syntax.Loader) *checker {
	return &checker{ld: ld, mods: map[string]*modInfo{}, busy: map[string]bool{}}
}

// load returns the checked symbols of the user module called name, or nil
// for a standard module or one that cannot be loaded (the compiler reports
// that).
func (c *checker) load(name string) (*modInfo, error) {
	if mi, ok := c.mods[name]; ok {
		return mi, nil
	}
	if c.busy[name] || c.ld == nil {
		return nil, nil
	}
	m, err := c.ld.Load(name)
	if err != nil || m == nil {
		return nil, nil
	}
	if err := c.module(m); err != nil {
		return nil, err
	}
	return c.mods[name], nil
}

// module checks m and records its symbols.
func (c *checker) module(m *syntax.Module) error {
	if _, done := c.mods[m.Name]; done {
		return nil
	}
	c.busy[m.Name] = true
	defer delete(c.busy, m.Name)
	mi := &modInfo{m: m, symbols: map[string]*symbol{}}
	// What EXTENDS brings: the user modules' public symbols.
	for _, e := range m.Extends {
		ext, err := c.load(e)
		if err != nil {
			return err
		}
		if ext == nil {
			continue
		}
		for name, s := range ext.symbols {
			if s.op != nil && s.op.Local || s.fn != nil && s.fn.Local {
				continue
			}
			if prev, ok := mi.symbols[name]; ok && prev != s {
				return duplicate(m, name, m.Pos, prev)
			}
			mi.symbols[name] = s
		}
	}
	declared := map[string]bool{} // RECURSIVE
	add := func(s *symbol) error {
		if prev, ok := mi.symbols[s.name]; ok {
			if !(s.kind == symOp && declared[s.name] && prev.kind == symOp && prev.op == nil) {
				return duplicate(m, s.name, s.pos, prev)
			}
		}
		mi.symbols[s.name] = s
		return nil
	}
	// Names defined later in this module, for the order rule.
	later := map[string]syntax.Pos{}
	for _, u := range m.Units {
		switch u := u.(type) {
		case *syntax.OpDef:
			later[u.Name] = u.Pos
		case *syntax.FuncDef:
			later[u.Name] = u.Pos
		case *syntax.Instance:
			if u.Name != "" {
				later[u.Name] = u.Pos
			}
		}
	}
	c.mods[m.Name] = mi
	for _, u := range m.Units {
		switch u := u.(type) {
		case *syntax.ConstantDecl:
			for _, d := range u.Decls {
				if err := add(&symbol{name: d.Name, pos: d.Pos, module: m.Name, kind: symConst}); err != nil {
					return err
				}
			}
		case *syntax.VariableDecl:
			for i, n := range u.Names {
				p := u.Pos
				if i < len(u.NamePos) {
					p = u.NamePos[i]
				}
				if err := add(&symbol{name: n, pos: p, module: m.Name, kind: symVar}); err != nil {
					return err
				}
			}
		case *syntax.RecursiveDecl:
			for _, d := range u.Decls {
				declared[d.Name] = true
				if err := add(&symbol{name: d.Name, pos: d.Pos, module: m.Name, kind: symOp}); err != nil {
					return err
				}
			}
		case *syntax.OpDef:
			if err := c.order(mi, u, later); err != nil {
				return err
			}
			if err := add(&symbol{name: u.Name, pos: u.Pos, module: m.Name, kind: symOp, op: u}); err != nil {
				return err
			}
		case *syntax.FuncDef:
			if err := add(&symbol{name: u.Name, pos: u.Pos, module: m.Name, kind: symFunc, fn: u}); err != nil {
				return err
			}
			if err := c.order(mi, u, later); err != nil {
				return err
			}
		case *syntax.Instance:
			if err := c.order(mi, u, later); err != nil {
				return err
			}
			if u.Name != "" {
				if err := add(&symbol{name: u.Name, pos: u.Pos, module: m.Name, kind: symInstance}); err != nil {
					return err
				}
				continue
			}
			// An unnamed INSTANCE brings the module's public definitions.
			inst, err := c.load(u.Module)
			if err != nil {
				return err
			}
			if inst == nil {
				continue
			}
			for name, s := range inst.symbols {
				if s.kind == symConst || s.kind == symVar || s.op != nil && s.op.Local || s.fn != nil && s.fn.Local {
					continue
				}
				if _, ok := mi.symbols[name]; !ok {
					mi.symbols[name] = &symbol{name: name, pos: s.pos, module: s.module, kind: symImported}
				}
			}
		case *syntax.Assume:
			if err := c.order(mi, u, later); err != nil {
				return err
			}
			l := c.level(mi, u.Expr, nil)
			if l.err != nil {
				return l.err
			}
			if l.level > Constant {
				return &Error{Pos: u.Pos, Msg: fmt.Sprintf("Level error: assumptions must be level 0 (Constant), but this one has level %d.", l.level)}
			}
		}
	}
	// The levels of the definitions: a conjunction of an action and a
	// temporal formula, and the like, is an error wherever it stands.
	for _, u := range m.Units {
		var s *symbol
		switch u := u.(type) {
		case *syntax.OpDef:
			s = mi.symbols[u.Name]
		case *syntax.FuncDef:
			s = mi.symbols[u.Name]
		}
		if s != nil && s.module == m.Name {
			if l := c.symLevel(mi, s); l.err != nil {
				return l.err
			}
		}
	}
	return nil
}

func duplicate(m *syntax.Module, name string, at syntax.Pos, prev *symbol) error {
	return &Error{Pos: at, Msg: fmt.Sprintf("Operator %s already defined or declared. This duplicates the one at line %d, col %d of module %s.",
		name, prev.pos.Line, prev.pos.Col, prev.module)}
}

// order applies the rule that a definition refers only to what is defined
// above it (or declared RECURSIVE): a name defined later in the module, or
// the definition's own name, is unknown where it is used. Names bound
// anywhere inside the unit are left alone, whatever they shadow.
func (c *checker) order(mi *modInfo, u syntax.Unit, later map[string]syntax.Pos) error {
	bound := map[string]bool{}
	bindParams := func(ps []syntax.Param) {
		for _, p := range ps {
			bound[p.Name] = true
		}
	}
	bindBounds := func(bs []syntax.Bound) {
		for _, b := range bs {
			for _, n := range b.Names {
				bound[n] = true
			}
		}
	}
	switch u := u.(type) {
	case *syntax.OpDef:
		bindParams(u.Params)
	case *syntax.FuncDef:
		bindBounds(u.Bounds)
		bound[u.Name] = true // a function may be defined recursively
	case *syntax.Instance:
		bindParams(u.Params)
	}
	syntax.Inspect(u, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Quant:
			bindBounds(x.Bounds)
		case *syntax.TemporalQuant:
			for _, v := range x.Names {
				bound[v] = true
			}
		case *syntax.Choose:
			bindBounds([]syntax.Bound{x.Bound})
		case *syntax.SetFilter:
			bindBounds([]syntax.Bound{x.Bound})
		case *syntax.SetMap:
			bindBounds(x.Bounds)
		case *syntax.FuncLit:
			bindBounds(x.Bounds)
		case *syntax.Lambda:
			bindParams(x.Params)
		case *syntax.Let:
			for _, d := range x.Defs {
				switch d := d.(type) {
				case *syntax.OpDef:
					bound[d.Name] = true
					bindParams(d.Params)
				case *syntax.FuncDef:
					bound[d.Name] = true
					bindBounds(d.Bounds)
				case *syntax.Instance:
					bound[d.Name] = true
					bindParams(d.Params)
				case *syntax.RecursiveDecl:
					for _, rd := range d.Decls {
						bound[rd.Name] = true
					}
				}
			}
		case *syntax.Module:
			return false
		}
		return true
	})
	var err error
	syntax.Inspect(u, func(n syntax.Node) bool {
		if err != nil {
			return false
		}
		var name string
		var pos syntax.Pos
		switch x := n.(type) {
		case *syntax.Ident:
			name, pos = x.Name, x.Pos
		case *syntax.OpApp:
			if len(x.Path) > 0 {
				name, pos = x.Path[0].Name, x.Path[0].Pos
			} else {
				name, pos = x.Name, x.Pos
			}
		case *syntax.Module:
			return false
		default:
			return true
		}
		if bound[name] {
			return true
		}
		if _, known := mi.symbols[name]; known {
			return true
		}
		if _, defLater := later[name]; defLater {
			err = &Error{Pos: pos, Msg: fmt.Sprintf("Unknown operator: `%s'.", name)}
		}
		return true
	})
	return err
}

// lv is a level: a lower bound of the expression's level, exact when no
// part of it was unknown.
type lv struct {
	level int
	exact bool
	err   error
}

func maxLv(a, b lv) lv {
	if a.err != nil {
		return a
	}
	if b.err != nil {
		return b
	}
	if b.level > a.level {
		a.level = b.level
	}
	a.exact = a.exact && b.exact
	return a
}

var unknown = lv{level: Constant, exact: false}

// symLevel is the level of a top-level symbol of mi (of its body, for a
// definition, parameters taken as constants).
func (c *checker) symLevel(mi *modInfo, s *symbol) lv {
	switch s.kind {
	case symConst:
		return lv{level: Constant, exact: true}
	case symVar:
		return lv{level: State, exact: true}
	case symInstance, symImported:
		return unknown
	}
	if s.levelSet {
		return lv{level: s.level, exact: s.exact}
	}
	if s.computing || (s.op == nil && s.fn == nil) {
		return unknown // recursion: what the rest of the body says
	}
	home := mi
	if s.module != mi.m.Name {
		if h, ok := c.mods[s.module]; ok {
			home = h
		}
	}
	s.computing = true
	var l lv
	if s.op != nil {
		l = c.level(home, s.op.Body, paramScope(nil, s.op.Params))
	} else {
		sc := boundScope(nil, s.fn.Bounds)
		l = lv{level: Constant, exact: true}
		for _, b := range s.fn.Bounds {
			l = maxLv(l, c.level(home, b.Set, nil))
		}
		l = maxLv(l, c.level(home, s.fn.Body, sc))
	}
	s.computing = false
	if l.err != nil {
		return l
	}
	s.level, s.exact, s.levelSet = l.level, l.exact, true
	return l
}

// scope maps bound names to their levels.
type scope struct {
	names  map[string]lv
	parent *scope
}

func (s *scope) lookup(n string) (lv, bool) {
	for ; s != nil; s = s.parent {
		if l, ok := s.names[n]; ok {
			return l, true
		}
	}
	return lv{}, false
}

func paramScope(parent *scope, ps []syntax.Param) *scope {
	s := &scope{names: map[string]lv{}, parent: parent}
	for _, p := range ps {
		if p.Arity > 0 {
			s.names[p.Name] = unknown
		} else {
			s.names[p.Name] = lv{level: Constant, exact: true}
		}
	}
	return s
}

func boundScope(parent *scope, bs []syntax.Bound) *scope {
	s := &scope{names: map[string]lv{}, parent: parent}
	for _, b := range bs {
		for _, n := range b.Names {
			s.names[n] = lv{level: Constant, exact: true}
		}
	}
	return s
}

// level computes the level of e in module mi under the bound names sc, and
// reports the level errors SANY reports on the way.
func (c *checker) level(mi *modInfo, e syntax.Expr, sc *scope) lv {
	if e == nil {
		return lv{level: Constant, exact: true}
	}
	all := func(es ...syntax.Expr) lv {
		l := lv{level: Constant, exact: true}
		for _, x := range es {
			l = maxLv(l, c.level(mi, x, sc))
		}
		return l
	}
	bounds := func(bs []syntax.Bound) lv {
		l := lv{level: Constant, exact: true}
		for _, b := range bs {
			l = maxLv(l, c.level(mi, b.Set, sc))
		}
		return l
	}
	switch x := e.(type) {
	case *syntax.Number, *syntax.Decimal, *syntax.StringLit, *syntax.Bool, *syntax.At:
		return lv{level: Constant, exact: true}
	case *syntax.Ident:
		return c.nameLevel(mi, x.Name, nil, sc)
	case *syntax.OpApp:
		if len(x.Path) > 0 {
			// An instance's operator: its level depends on the
			// substitutions; only its arguments are known.
			l := all(x.Args...)
			for _, p := range x.Path {
				l = maxLv(l, all(p.Args...))
			}
			l.exact = false
			return l
		}
		if x.Name == "/\\" || x.Name == "\\/" {
			return c.junction(x.Name, x.Pos, x.Args, mi, sc)
		}
		return c.nameLevel(mi, x.Name, x.Args, sc)
	case *syntax.BulletList:
		return c.junction(x.Kind, x.Pos, x.Items, mi, sc)
	case *syntax.Prime:
		l := c.level(mi, x.X, sc)
		if l.err == nil && l.exact && l.level >= Action {
			return lv{err: &Error{Pos: x.Pos, Msg: "Level error: the argument of ' (prime) must be at most level 1 (State)."}}
		}
		if l.err == nil && l.level < Action {
			l.level = Action
		}
		return l
	case *syntax.Quant:
		return maxLv(bounds(x.Bounds), c.level(mi, x.Body, boundScope(sc, x.Bounds)))
	case *syntax.TemporalQuant:
		inner := &scope{names: map[string]lv{}, parent: sc}
		for _, n := range x.Names {
			inner.names[n] = lv{level: State, exact: true}
		}
		l := c.level(mi, x.Body, inner)
		return maxLv(l, lv{level: Temporal, exact: true})
	case *syntax.Choose:
		bs := []syntax.Bound{x.Bound}
		return maxLv(bounds(bs), c.level(mi, x.Body, boundScope(sc, bs)))
	case *syntax.SetEnum:
		return all(x.Elems...)
	case *syntax.SetFilter:
		bs := []syntax.Bound{x.Bound}
		return maxLv(bounds(bs), c.level(mi, x.Pred, boundScope(sc, bs)))
	case *syntax.SetMap:
		return maxLv(bounds(x.Bounds), c.level(mi, x.Elem, boundScope(sc, x.Bounds)))
	case *syntax.FuncLit:
		return maxLv(bounds(x.Bounds), c.level(mi, x.Body, boundScope(sc, x.Bounds)))
	case *syntax.FuncSet:
		return all(x.Domain, x.Range)
	case *syntax.RecordLit:
		l := lv{level: Constant, exact: true}
		for _, f := range x.Fields {
			l = maxLv(l, c.level(mi, f.Val, sc))
		}
		return l
	case *syntax.RecordSet:
		l := lv{level: Constant, exact: true}
		for _, f := range x.Fields {
			l = maxLv(l, c.level(mi, f.Val, sc))
		}
		return l
	case *syntax.Except:
		l := c.level(mi, x.Func, sc)
		for _, u := range x.Updates {
			for _, p := range u.Path {
				l = maxLv(l, all(p.Index...))
			}
			l = maxLv(l, c.level(mi, u.Value, sc))
		}
		return l
	case *syntax.FuncApp:
		return maxLv(c.level(mi, x.Func, sc), all(x.Args...))
	case *syntax.Field:
		return c.level(mi, x.Rec, sc)
	case *syntax.Tuple:
		return all(x.Elems...)
	case *syntax.CrossProduct:
		return all(x.Sets...)
	case *syntax.If:
		return all(x.Cond, x.Then, x.Else)
	case *syntax.Case:
		l := c.level(mi, x.Other, sc)
		for _, a := range x.Arms {
			l = maxLv(l, all(a.Cond, a.Body))
		}
		return l
	case *syntax.Let:
		inner := &scope{names: map[string]lv{}, parent: sc}
		for _, d := range x.Defs {
			switch d := d.(type) {
			case *syntax.OpDef:
				inner.names[d.Name] = unknown // recursive LET operators
				inner.names[d.Name] = c.level(mi, d.Body, paramScope(inner, d.Params))
			case *syntax.FuncDef:
				inner.names[d.Name] = unknown
				fs := boundScope(inner, d.Bounds)
				l := lv{level: Constant, exact: true}
				for _, b := range d.Bounds {
					l = maxLv(l, c.level(mi, b.Set, inner))
				}
				inner.names[d.Name] = maxLv(l, c.level(mi, d.Body, fs))
			case *syntax.Instance:
				inner.names[d.Name] = unknown
			case *syntax.RecursiveDecl:
				for _, rd := range d.Decls {
					inner.names[rd.Name] = unknown
				}
			}
			if l := inner.names[unitName(d)]; l.err != nil {
				return l
			}
		}
		return c.level(mi, x.Body, inner)
	case *syntax.Lambda:
		return c.level(mi, x.Body, paramScope(sc, x.Params))
	case *syntax.Unchanged:
		l := c.level(mi, x.X, sc)
		if l.err == nil && l.exact && l.level >= Action {
			return lv{err: &Error{Pos: x.Pos, Msg: "Level error: the argument of UNCHANGED must be at most level 1 (State)."}}
		}
		return maxLv(l, lv{level: Action, exact: true})
	case *syntax.Enabled:
		l := c.level(mi, x.X, sc)
		if l.err != nil {
			return l
		}
		if l.exact && l.level >= Temporal {
			return lv{err: &Error{Pos: x.Pos, Msg: "Level error: the argument of ENABLED must be at most level 2 (Action)."}}
		}
		return lv{level: State, exact: l.exact}
	case *syntax.ActionBox, *syntax.ActionAngle:
		var a, s syntax.Expr
		if b, ok := x.(*syntax.ActionBox); ok {
			a, s = b.Action, b.Sub
		} else {
			y := x.(*syntax.ActionAngle)
			a, s = y.Action, y.Sub
		}
		l := all(a, s)
		if l.err == nil && l.exact && l.level >= Temporal {
			return lv{err: &Error{Pos: e.Position(), Msg: "Level error: the action of [A]_v or <<A>>_v must be at most level 2 (Action)."}}
		}
		return maxLv(l, lv{level: Action, exact: true})
	case *syntax.Always:
		l := c.level(mi, x.X, sc)
		return maxLv(l, lv{level: Temporal, exact: true})
	case *syntax.Eventually:
		l := c.level(mi, x.X, sc)
		return maxLv(l, lv{level: Temporal, exact: true})
	case *syntax.LeadsTo:
		return maxLv(all(x.L, x.R), lv{level: Temporal, exact: true})
	case *syntax.Fairness:
		return maxLv(all(x.Sub, x.Action), lv{level: Temporal, exact: true})
	case *syntax.Label:
		return c.level(mi, x.Body, sc)
	}
	// Subexpression references and anything else: not known here.
	return unknown
}

func unitName(u syntax.Unit) string {
	switch u := u.(type) {
	case *syntax.OpDef:
		return u.Name
	case *syntax.FuncDef:
		return u.Name
	case *syntax.Instance:
		return u.Name
	}
	return ""
}

// junction is the level of a conjunction or disjunction: SANY rejects one
// that mixes an action and a temporal formula.
func (c *checker) junction(op string, pos syntax.Pos, items []syntax.Expr, mi *modInfo, sc *scope) lv {
	l := lv{level: Constant, exact: true}
	action, temporal := false, false
	for _, it := range items {
		x := c.level(mi, it, sc)
		if x.err != nil {
			return x
		}
		if x.exact && x.level == Action {
			action = true
		}
		if x.level == Temporal {
			temporal = true
		}
		l = maxLv(l, x)
	}
	if action && temporal {
		name := "\\land"
		if op == "\\/" {
			name = "\\lor"
		}
		return lv{err: &Error{Pos: pos, Msg: name + " has both temporal formula and action as arguments."}}
	}
	return l
}

// nameLevel is the level of a name applied to args.
func (c *checker) nameLevel(mi *modInfo, name string, args []syntax.Expr, sc *scope) lv {
	l := lv{level: Constant, exact: true}
	for _, a := range args {
		l = maxLv(l, c.level(mi, a, sc))
	}
	if b, ok := sc.lookup(name); ok {
		return maxLv(l, b)
	}
	if s, ok := mi.symbols[name]; ok {
		return maxLv(l, c.symLevel(mi, s))
	}
	// A standard module's operator: constant-level, as the arguments.
	return l
}

// IsError reports whether err is a violation of SANY's rules.
func IsError(err error) bool {
	var e *Error
	return errors.As(err, &e)
}
