package eval

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/modelfuzz/modelfuzz/tlc/stdlib"
	"github.com/modelfuzz/modelfuzz/tlc/syntax"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

type defKind uint8

const (
	dkConst    defKind = iota // a declared constant with no value yet
	dkValue                   // a constant with a value from the cfg
	dkVar                     // a state variable
	dkOp                      // an operator definition, any arity
	dkFunc                    // a function definition f[x \in S] == e
	dkBuiltin                 // an operator of a standard module
	dkInstance                // a named instance M == INSTANCE ... or M(p) == INSTANCE ...
	dkSubst                   // a constant or variable of an instance, replaced by an expression
)

// def is one name of a scope. Defs are shared: EXTENDS makes the extended
// module's defs visible in the extending scope as the same objects, so a
// cfg value given to a constant is seen everywhere.
type def struct {
	kind  defKind
	name  string
	pos   syntax.Pos
	sc    *scope // where the body compiles
	arity int

	// dkOp
	params []syntax.Param
	body   syntax.Expr
	// dkFunc
	fn *syntax.FuncDef
	// dkValue
	val value.Value
	// dkVar
	varIdx int
	// dkBuiltin
	builtin *stdlib.Builtin
	// dkInstance
	inst *instanceDef
	// dkSubst: expr compiled in the instantiating scope, in a frame holding
	// the instance's parameters (if any)
	subst     syntax.Expr
	substSc   *scope
	substLex  *lex
	substNode node

	// compilation
	compiled  node
	compiling bool
	state     bool // depends on the state (variables, primes, ...)
	prime     bool // mentions primed variables
	recursive bool // a recursive definition (self-reference seen while compiling)
	// input: the value depends on what the evaluator is given to read
	// (see input.go); set when the model is built to bind inputs.
	input bool
	// linearity: 0 not known yet, 1 enumerating the body continues at
	// most once, 2 it may branch (see def.linear).
	linearity atomic.Int32
	// effects: 0 not known yet, 1 evaluating the definition only computes
	// a value, 2 it may print, use registers, ... (see Model.effectful).
	effects atomic.Int32
	// cc is the compiled body (see cexpr.go), made on first use.
	ccOnce sync.Once
	cc     *cfunc
	// ce is the compiled enumeration of an action (see cenum.go).
	ceOnce     sync.Once
	ce         *cefunc
	ceInitOnce sync.Once
	ceInit     *cefunc

	// value cache of constant zero-arity definitions
	cacheOnce sync.Once
	cacheDone atomic.Bool
	cacheVal  value.Value
	cacheErr  error
}

// instanceDef is a named instance: M or M(p1, p2) == INSTANCE X WITH ...
type instanceDef struct {
	params []syntax.Param
	sc     *scope // the instantiated module's scope
	// site is the lexical frame of an instance defined in a LET (see
	// loader.instanceAt), nil otherwise.
	site *lex
}

// scope is the names visible in one (instantiated) module.
type scope struct {
	name  string
	names map[string]*def
	// paramInst is true for the scope of a parameterized instance M(p): its
	// definitions need the instance frame at run time.
	paramInst bool
	// paramLex is the lexical frame of the instance parameters, for
	// compiling substitutions.
	module *syntax.Module
	// substituted is true for the scope of an instance whose constants or
	// variables are substituted: TLC does not split an action of such an
	// instance into sub-actions (see split.go).
	substituted bool
	// parent, for a LET's scope, is the scope the LET is in.
	parent *scope
	// local holds the names defined LOCAL (or brought in by a LOCAL
	// INSTANCE): a module that extends this one does not see them.
	local map[string]bool
	// instPos and instName are the INSTANCE statement that made a
	// substituted scope, and its name ("" when unnamed).
	instPos  syntax.Pos
	instName string
	// qualified holds the definitions that I!Name names when they differ
	// from what Name means inside the instance: a definition the cfg
	// overrides is overridden in the bodies of the instance, as TLC
	// does, but I!Name is the instance's own (see instOverride).
	qualified map[string]*def
}

func newScope(name string) *scope {
	return &scope{name: name, names: map[string]*def{}}
}

func (s *scope) lookup(name string) *def {
	for ; s != nil; s = s.parent {
		if d, ok := s.names[name]; ok {
			return d
		}
	}
	return nil
}

// lookupQualified is lookup for I!name, name looked up in the instance's
// scope s.
func (s *scope) lookupQualified(name string) *def {
	if d := s.qualified[name]; d != nil {
		return d
	}
	return s.lookup(name)
}

// setLocal records whether name is LOCAL to s.
func (s *scope) setLocal(name string, local bool) {
	if !local {
		if s.local != nil {
			delete(s.local, name)
		}
		return
	}
	if s.local == nil {
		s.local = map[string]bool{}
	}
	s.local[name] = true
}

// child returns a scope that sees s's names and its own: the scope of a
// LET that defines an instance (LET CC == INSTANCE M IN CC!Op).
func (s *scope) child() *scope {
	return &scope{name: s.name, names: map[string]*def{}, paramInst: s.paramInst, module: s.module, substituted: s.substituted,
		instPos: s.instPos, instName: s.instName, parent: s}
}

// loader builds scopes for a spec.
type loader struct {
	m        *Model
	syn      *syntax.Loader
	building map[string]bool // modules being built (cycle detection)
	// inst is the INSTANCE statement whose scope is being built.
	inst *syntax.Instance
	// extended caches scopes of modules included by EXTENDS, which are
	// shared (one copy of their constants and variables).
	extended map[string]*scope
	// overrides from the cfg: name -> target name; scoped ones by module.
	overrides       map[string]string
	scopedOverrides map[string]map[string]string
	// scopedValues are the cfg's values for definitions of one module
	// (NoBlock = [Nano]NoBlockVal), by module.
	scopedValues     map[string]map[string]value.Value
	pendingOverrides []pendingOverride
	// unscoped are the names the cfg gives a value or a substitute in the
	// root module (C = v, C <- D: D, or "" for a value); instOverrides are the definitions of
	// instantiated modules with those names (see instOverride).
	unscoped      map[string]string
	instOverrides []instOverride
}

// instOverride is a definition of an instantiated module that the cfg may
// override. TLC overrides a definition where it is defined: when the root
// module extends module X and the cfg says D <- E, every use of D inside
// X's definitions means E, also where X is instantiated (etcd raft's
// Traceetcdraft.cfg overrides InitServerVars, which etcd!Init, through
// etcd == INSTANCE etcdraft, then uses). I!D itself stays X's D. The
// instance's scope holds placeholder for D, which becomes the override
// or orig once the cfg is applied (Model.resolveInstOverrides).
type instOverride struct {
	module      string // the module defining D
	name        string
	placeholder *def
	orig        *def
	subst       map[string]substitution
	inst        *syntax.Instance
}

// pendingOverride is a scoped cfg override whose target is defined in the
// root module, which is not built yet when the instance is.
type pendingOverride struct {
	sc           *scope
	name, target string
}

// stdScope returns the scope of a standard module: its built-in operators.
func stdScope(name string) (*scope, error) {
	if !stdlib.IsModule(name) {
		return nil, fmt.Errorf("standard module %s is not provided", name)
	}
	sc := newScope(name)
	seen := map[string]bool{}
	var add func(mod string)
	add = func(mod string) {
		if seen[mod] {
			return
		}
		seen[mod] = true
		// As TLC's parser: a module's text, then the modules it extends.
		value.SeeNames(stdlib.Names(mod))
		for _, e := range stdlib.Extends(mod) {
			add(e)
		}
		for _, b := range stdlib.Operators(mod) {
			sc.names[b.Name] = &def{kind: dkBuiltin, name: b.Name, builtin: b, arity: b.Arity, sc: sc}
		}
	}
	add(name)
	return sc, nil
}

// extendScope returns the scope of module name included by EXTENDS.
func (l *loader) extendScope(name string, pos syntax.Pos) (*scope, error) {
	if sc, ok := l.extended[name]; ok {
		return sc, nil
	}
	if syntax.IsStandardModule(name) {
		sc, err := stdScope(name)
		if err != nil {
			return nil, errorf(pos, "EXTENDS %s: %v", name, err)
		}
		l.extended[name] = sc
		return sc, nil
	}
	mod, err := l.syn.Load(name)
	if err != nil {
		return nil, errorf(pos, "EXTENDS %s: %v", name, err)
	}
	sc, err := l.build(mod, nil, false)
	if err != nil {
		return nil, err
	}
	l.extended[name] = sc
	return sc, nil
}

// substitution gives a constant or variable of an instantiated module its
// meaning in the instantiating scope.
type substitution struct {
	expr syntax.Expr
	sc   *scope
	lex  *lex
}

// alias returns the definition a substitution names when it is just a name
// of the instantiating scope (x <- x, Op <- MyOp): the instance then shares
// that definition, operators with arguments included.
func (s substitution) alias() *def {
	id, ok := s.expr.(*syntax.Ident)
	if !ok || s.lex != nil {
		return nil
	}
	return s.sc.lookup(id.Name)
}

// build makes the scope of module mod. subst, for an instance, maps the
// module's constants and variables to expressions of the instantiating
// scope; nil for the root module and for EXTENDS.
func (l *loader) build(mod *syntax.Module, subst map[string]substitution, paramInst bool) (*scope, error) {
	key := mod.Name
	if l.building[key] {
		return nil, errorf(mod.Pos, "module %s depends on itself (EXTENDS/INSTANCE cycle)", mod.Name)
	}
	l.building[key] = true
	defer delete(l.building, key)
	seeNames(mod)

	sc := newScope(mod.Name)
	sc.module = mod
	sc.paramInst = paramInst
	sc.substituted = len(subst) > 0
	if sc.substituted && l.inst != nil {
		sc.instPos, sc.instName = l.inst.Pos, l.inst.Name
	}
	if !slices.Contains(l.m.modules, mod) {
		l.m.modules = append(l.m.modules, mod)
	}
	for _, e := range mod.Extends {
		esc, err := l.extendScope(e, mod.Pos)
		if err != nil {
			return nil, err
		}
		// For an instance, the constants and variables of an extended
		// module are substituted too: rebuild it as part of the instance.
		if subst != nil && !syntax.IsStandardModule(e) {
			emod, err := l.syn.Load(e)
			if err != nil {
				return nil, errorf(mod.Pos, "EXTENDS %s: %v", e, err)
			}
			if esc, err = l.build(emod, subst, paramInst); err != nil {
				return nil, err
			}
		}
		for n, d := range esc.names {
			if !esc.local[n] { // LOCAL definitions are not extended
				sc.names[n] = d
				if q := esc.qualified[n]; q != nil {
					if sc.qualified == nil {
						sc.qualified = map[string]*def{}
					}
					sc.qualified[n] = q
				}
			}
		}
	}
	for _, u := range mod.Units {
		if err := l.unit(sc, u, subst, paramInst); err != nil {
			return nil, err
		}
	}
	for name, v := range l.scopedValues[mod.Name] {
		d := sc.lookup(name)
		if d == nil {
			return nil, fmt.Errorf("cfg: %s = [%s]%s: module %s has no %s", name, mod.Name, v, mod.Name, name)
		}
		sc.names[name] = &def{kind: dkValue, name: d.name, pos: d.pos, sc: sc, val: v}
	}
	if so := l.scopedOverrides[mod.Name]; so != nil {
		for name, target := range so {
			if err := l.override(sc, name, target); err != nil {
				return nil, err
			}
		}
	}
	return sc, nil
}

// override records a scoped cfg override [Mod]name <- target. The target
// is a definition of the spec's root module (MC files define the overrides
// of the modules they instantiate), which is resolved once the root is built.
func (l *loader) override(sc *scope, name, target string) error {
	if sc.lookup(name) == nil {
		return fmt.Errorf("cfg: %s <- [%s]%s: module %s has no %s", name, sc.name, target, sc.name, name)
	}
	l.pendingOverrides = append(l.pendingOverrides, pendingOverride{sc, name, target})
	return nil
}

func (l *loader) unit(sc *scope, u syntax.Unit, subst map[string]substitution, paramInst bool) error {
	switch u := u.(type) {
	case *syntax.ConstantDecl:
		for _, d := range u.Decls {
			if s, ok := subst[d.Name]; ok {
				if t := s.alias(); t != nil {
					sc.names[d.Name] = t
					continue
				}
				if lam, ok := s.expr.(*syntax.Lambda); ok && s.lex == nil {
					// Constraint <- LAMBDA s, l : TRUE: the operator
					// constant is that operator, defined where the
					// INSTANCE is.
					sc.names[d.Name] = &def{kind: dkOp, name: d.Name, pos: lam.Pos, params: lam.Params, body: lam.Body, arity: len(lam.Params), sc: s.sc}
					continue
				}
				sc.names[d.Name] = &def{kind: dkSubst, name: d.Name, pos: d.Pos, arity: d.Arity, subst: s.expr, substSc: s.sc, substLex: s.lex, sc: sc}
				continue
			}
			sc.names[d.Name] = &def{kind: dkConst, name: d.Name, pos: d.Pos, arity: d.Arity, sc: sc}
		}
	case *syntax.VariableDecl:
		for i, n := range u.Names {
			if s, ok := subst[n]; ok {
				if t := s.alias(); t != nil {
					sc.names[n] = t
					continue
				}
				sc.names[n] = &def{kind: dkSubst, name: n, pos: u.NamePos[i], subst: s.expr, substSc: s.sc, substLex: s.lex, sc: sc, state: true}
				continue
			}
			d := &def{kind: dkVar, name: n, pos: u.NamePos[i], varIdx: len(l.m.Vars), sc: sc, state: true}
			l.m.Vars = append(l.m.Vars, n)
			l.m.varDefs = append(l.m.varDefs, d)
			sc.names[n] = d
		}
	case *syntax.OpDef:
		sc.names[u.Name] = l.instDef(sc, &def{kind: dkOp, name: u.Name, pos: u.Pos, params: u.Params, body: u.Body, arity: len(u.Params), sc: sc}, subst)
		sc.setLocal(u.Name, u.Local)
	case *syntax.FuncDef:
		sc.names[u.Name] = l.instDef(sc, &def{kind: dkFunc, name: u.Name, pos: u.Pos, fn: u, sc: sc}, subst)
		sc.setLocal(u.Name, u.Local)
	case *syntax.RecursiveDecl:
		// Names are defined by the OpDefs that follow.
	case *syntax.Instance:
		return l.instance(sc, u, paramInst)
	case *syntax.Assume:
		// The assumptions TLC checks are collected once the root is built
		// (see rootAssumes).
		if u.Name != "" {
			sc.names[u.Name] = &def{kind: dkOp, name: u.Name, pos: u.Pos, body: u.Expr, sc: sc}
		}
	case *syntax.Theorem:
		if u.Name != "" && u.Expr != nil && !u.AssumeProve {
			sc.names[u.Name] = &def{kind: dkOp, name: u.Name, pos: u.Pos, body: u.Expr, sc: sc}
		}
	case *syntax.Module:
		// A nested module is known by name for INSTANCE.
		l.syn.Add(u)
	}
	return nil
}

// instDef is the name d of module sc.module takes in sc: d itself, or,
// in an instance (subst not nil) when the cfg gives d's name a value or a
// substitute, a placeholder resolved once the cfg is applied (see
// instOverride); d is then what I!Name names.
func (l *loader) instDef(sc *scope, d *def, subst map[string]substitution) *def {
	if _, ok := l.unscoped[d.name]; subst == nil || !ok {
		return d
	}
	ph := &def{kind: d.kind, name: d.name, pos: d.pos, sc: sc}
	if sc.qualified == nil {
		sc.qualified = map[string]*def{}
	}
	sc.qualified[d.name] = d
	l.instOverrides = append(l.instOverrides, instOverride{module: sc.module.Name, name: d.name, placeholder: ph, orig: d, subst: subst, inst: l.inst})
	return ph
}

// instance handles INSTANCE X WITH ..., named or not, parameterized or not.
func (l *loader) instance(sc *scope, u *syntax.Instance, paramInst bool) error {
	return l.instanceAt(sc, u, paramInst, nil)
}

// instanceAt is instance for an INSTANCE inside a LET when site is not
// nil: site is the lexical frame at the LET, whose names (bound variables,
// operator parameters) the substitutions may use, as in
// \E s \in S : LET M == INSTANCE Def WITH Succ <- s IN M!Step. The
// instance's definitions then need that frame at run time, like those of
// a parameterized instance (see callNode.site).
func (l *loader) instanceAt(sc *scope, u *syntax.Instance, paramInst bool, site *lex) error {
	if site != nil && (len(u.Params) > 0 || paramInst) {
		return errorf(u.Pos, "a parameterized INSTANCE inside LET, or an INSTANCE inside LET in a parameterized instance, is not supported")
	}
	if syntax.IsStandardModule(u.Module) {
		std, err := stdScope(u.Module)
		if err != nil {
			return errorf(u.Pos, "INSTANCE %s: %v", u.Module, err)
		}
		if u.Name == "" {
			for n, d := range std.names {
				sc.names[n] = d
				sc.setLocal(n, u.Local)
			}
			return nil
		}
		sc.names[u.Name] = &def{kind: dkInstance, name: u.Name, pos: u.Pos, inst: &instanceDef{params: u.Params, sc: std}, arity: len(u.Params), sc: sc}
		sc.setLocal(u.Name, u.Local)
		return nil
	}
	if len(u.Params) > 0 && paramInst {
		return errorf(u.Pos, "a parameterized INSTANCE inside a parameterized instance is not supported")
	}
	mod, err := l.syn.Load(u.Module)
	if err != nil {
		return errorf(u.Pos, "INSTANCE %s: %v", u.Module, err)
	}
	plex := site
	if len(u.Params) > 0 {
		plex = &lex{}
		for _, p := range u.Params {
			plex.names = append(plex.names, p.Name)
			plex.arities = append(plex.arities, p.Arity)
		}
	}
	subst := map[string]substitution{}
	for _, s := range u.Subst {
		subst[s.Name] = substitution{expr: s.Expr, sc: sc, lex: plex}
	}
	// Implicit substitutions: every constant and variable of X (and of the
	// modules it extends) not substituted explicitly is replaced by the
	// same name of the instantiating scope.
	var implicit func(m *syntax.Module) error
	seen := map[string]bool{}
	implicit = func(m *syntax.Module) error {
		if seen[m.Name] {
			return nil
		}
		seen[m.Name] = true
		for _, e := range m.Extends {
			if syntax.IsStandardModule(e) {
				continue
			}
			em, err := l.syn.Load(e)
			if err != nil {
				return errorf(u.Pos, "INSTANCE %s: EXTENDS %s: %v", u.Module, e, err)
			}
			if err := implicit(em); err != nil {
				return err
			}
		}
		for _, un := range m.Units {
			var names []string
			var poss []syntax.Pos
			switch d := un.(type) {
			case *syntax.ConstantDecl:
				for _, c := range d.Decls {
					names = append(names, c.Name)
					poss = append(poss, c.Pos)
				}
			case *syntax.VariableDecl:
				names = d.Names
				poss = d.NamePos
			}
			for i, n := range names {
				if _, ok := subst[n]; ok {
					continue
				}
				if plex != nil {
					if _, _, fr := plex.resolve(n); fr != nil {
						// P(Succ) == INSTANCE M: M's constant Succ is the
						// parameter.
						subst[n] = substitution{expr: &syntax.Ident{Pos: u.Pos, Name: n}, sc: sc, lex: plex}
						continue
					}
				}
				if sc.lookup(n) == nil {
					return errorf(u.Pos, "INSTANCE %s: no substitution for %s (declared at %s) and no %s in module %s", u.Module, n, poss[i], n, sc.name)
				}
				subst[n] = substitution{expr: &syntax.Ident{Pos: u.Pos, Name: n}, sc: sc, lex: plex}
			}
		}
		return nil
	}
	if err := implicit(mod); err != nil {
		return err
	}
	outer := l.inst
	l.inst = u
	isc, err := l.build(mod, subst, len(u.Params) > 0 || site != nil)
	l.inst = outer
	if err != nil {
		return err
	}
	if u.Name == "" {
		for n, d := range isc.names {
			if d.kind == dkSubst || isc.local[n] {
				continue // X's constants and LOCAL definitions are not names of the instantiating module
			}
			if old, ok := sc.names[n]; ok && old != d && old.kind != dkBuiltin {
				continue
			}
			sc.names[n] = d
			sc.setLocal(n, u.Local)
		}
		return nil
	}
	sc.names[u.Name] = &def{kind: dkInstance, name: u.Name, pos: u.Pos, inst: &instanceDef{params: u.Params, sc: isc, site: site}, arity: len(u.Params), sc: sc}
	sc.setLocal(u.Name, u.Local)
	return nil
}

var errNotFound = errors.New("not found")

// rootAssumes lists the assumptions TLC checks: those of the root module
// and of the modules it extends, directly or not, extended modules first
// (as SANY's ModuleNode.getAssumptions). The assumptions of instantiated
// modules are not checked: an instance's ASSUME may be about its constants
// in general (\A data, hash : CalculateHash(data, hash) \in BOOLEAN), which
// TLC could not evaluate.
func (l *loader) rootAssumes(root *syntax.Module, rootSc *scope) []assumeDef {
	var out []assumeDef
	seen := map[string]bool{}
	var walk func(mod *syntax.Module, sc *scope)
	walk = func(mod *syntax.Module, sc *scope) {
		if seen[mod.Name] {
			return
		}
		seen[mod.Name] = true
		for _, e := range mod.Extends {
			esc := l.extended[e]
			if esc == nil || esc.module == nil {
				continue // a standard module: no assumptions
			}
			walk(esc.module, esc)
		}
		for _, u := range mod.Units {
			if a, ok := u.(*syntax.Assume); ok {
				out = append(out, assumeDef{pos: a.Pos, expr: a.Expr, sc: sc, name: a.Name})
			}
		}
	}
	walk(root, rootSc)
	return out
}
