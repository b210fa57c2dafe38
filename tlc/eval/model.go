package eval

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/modelfuzz/modelfuzz/tlc/cfg"
	"github.com/modelfuzz/modelfuzz/tlc/semantic"
	"github.com/modelfuzz/modelfuzz/tlc/syntax"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// Model is a spec with its configuration applied, compiled and ready to
// evaluate. It is safe for concurrent use through Evaluators.
type Model struct {
	Module *syntax.Module
	Config *cfg.Config
	Vars   []string

	varDefs []*def
	levels  *semantic.Info // the levels of the definitions, as TLC's front end finds them
	// loader built the scopes; it builds the instances a LET defines
	// (LET CC == INSTANCE M IN ...) when their definition is compiled.
	loader  *loader
	root    *scope
	assumes []assumeDef
	// bindInputs: see LoadOptions.BindInputs; inputAssumes are the
	// ASSUMEs that read the input, checked by Evaluator.Bind.
	bindInputs   bool
	inputAssumes []assumeDef

	init, next node
	// InitName and NextName say where Init and Next came from.
	InitName, NextName string
	initPos, nextPos   syntax.Pos

	Invariants        []Named
	Constraints       []Named
	ActionConstraints []Named
	View              node
	Symmetry          *value.Symmetry // nil without SYMMETRY (or with only the identity)
	// Properties are the cfg's temporal properties; they are not checked.
	Properties    []string
	CheckDeadlock bool

	// Out receives Print/PrintT output (default os.Stdout).
	Out   io.Writer
	outMu sync.Mutex
	// Terse prints the lazy sets of Print, PrintT and Assert unexpanded
	// (TLC's -terse; see value.Format).
	Terse bool

	registers registers
	// compileMu guards compiling definitions on demand after Build (an
	// action named by a simulation request).
	compileMu sync.Mutex
	// compileStack is the definitions being compiled, innermost last.
	compileStack []*def
	// Warnings are problems that TLC would also let pass.
	Warnings []string

	// Env is the environment IOUtils' IOEnv answers; nil means the
	// process's environment. It is set when the model is built (ASSUMEs
	// may read it): see LoadOptions.
	Env map[string]string

	// Stats, when set, answers TLCGet("stats") and TLCGet("level")-like
	// questions about the running check.
	Stats func() map[string]int64

	// modules are the modules the spec's scopes were built from; initDef
	// is the definition of the initial predicate when there is one; the
	// split of the next-state relation into actions is computed on first
	// use (see split.go).
	modules []*syntax.Module
	initDef *def
	alias   node // the cfg's ALIAS (see AliasOf)
	// viewVars are the variables of a VIEW that is a tuple of variables.
	viewVars []string
	// aliasFields are the ALIAS record's fields as written, when it is a
	// record constructor.
	aliasFields []string
	splitOnce   sync.Once
	actions     []*SubAction
	// interpret: nothing is compiled into closures (LoadOptions.Interpret).
	interpret bool
	// exprCov counts the evaluations of expressions (EnableCoverage).
	exprCov *ExprCoverage
	// islands are the expressions of compiled definitions left to the
	// interpreter (see Islands), under ccMu.
	islands []string
	// units are the invariants' conjuncts (see cinv.go), nunits their
	// number.
	unitsOnce sync.Once
	units     [][]*invUnit
	nunits    int
	// ccMu serializes compiling into closures; constMemo remembers which
	// expressions are constant (see Model.constant).
	ccMu      sync.Mutex
	constMemo map[constKey]bool
	// viewPartList are the components of a tuple VIEW (see ViewKey).
	viewOnce     sync.Once
	viewPartList []*viewPart
}

// InitPos is where the initial predicate is defined (the definition the
// cfg names), NextPos where the next-state relation is: the place an error
// that concerns the whole relation, such as a successor state that is not
// completely specified, points to.
func (m *Model) InitPos() syntax.Pos { return m.initPos }

// NextPos is where the next-state relation is defined; see InitPos.
func (m *Model) NextPos() syntax.Pos { return m.nextPos }

// Named is a compiled cfg entry (an invariant, a constraint).
type Named struct {
	Name string
	node node
}

type assumeDef struct {
	pos  syntax.Pos // of the ASSUME keyword
	expr syntax.Expr
	sc   *scope
	name string
}

// LoadError is returned for problems with the spec (parse errors, unknown
// names); ConfigError for problems with the cfg.
type LoadError struct{ Err error }

func (e *LoadError) Error() string { return e.Err.Error() }
func (e *LoadError) Unwrap() error { return e.Err }

// ConfigError is a problem with the model configuration.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// Load parses the spec at specPath and its cfg (cfgPath, or the .cfg file
// next to the spec with the same name when cfgPath is "").
func Load(specPath, cfgPath string) (*Model, error) {
	return LoadWith(specPath, cfgPath, LoadOptions{})
}

// LoadOptions are what a model sees of the world it is checked in.
type LoadOptions struct {
	// Env is the environment IOEnv answers (nil: the process's). Trace
	// validation runs several traces in one process, each with its own
	// JSON=<trace file>.
	Env map[string]string
	// Interpret leaves every evaluation to the interpreter: no
	// definition is compiled into closures (see cexpr.go).
	Interpret bool
	// BindInputs: the model is loaded once to evaluate under several
	// inputs (environments, files read), each evaluator's given by
	// Evaluator.Bind (see input.go). ASSUMEs that read the input are
	// checked by Bind, not by the load.
	BindInputs bool
}

// LoadWith is Load with options.
func LoadWith(specPath, cfgPath string, opt LoadOptions) (*Model, error) {
	if cfgPath == "" {
		cfgPath = specPath[:len(specPath)-len(filepath.Ext(specPath))] + ".cfg"
	}
	conf, err := cfg.ParseFile(cfgPath)
	if err != nil {
		return nil, &ConfigError{err}
	}
	ld := syntax.NewLoader()
	mod, err := ld.LoadFile(specPath)
	if err != nil {
		return nil, &LoadError{err}
	}
	return BuildWith(ld, mod, conf, opt)
}

// Build compiles module mod (loaded with ld) under configuration conf.
func Build(ld *syntax.Loader, mod *syntax.Module, conf *cfg.Config) (*Model, error) {
	return BuildWith(ld, mod, conf, LoadOptions{})
}

// BuildWith is Build with options.
func BuildWith(ld *syntax.Loader, mod *syntax.Module, conf *cfg.Config, opt LoadOptions) (*Model, error) {
	levels, err := semantic.Check(ld, mod)
	if err != nil {
		return nil, &LoadError{err}
	}
	m := &Model{Module: mod, Config: conf, Out: os.Stdout, CheckDeadlock: conf.DeadlockCheck(), Env: opt.Env, interpret: opt.Interpret, bindInputs: opt.BindInputs, levels: levels}
	l := &loader{m: m, syn: ld, building: map[string]bool{}, extended: map[string]*scope{},
		overrides: map[string]string{}, scopedOverrides: map[string]map[string]string{},
		scopedValues: map[string]map[string]value.Value{}, unscoped: map[string]string{}}
	for _, c := range conf.Constants {
		if c.Kind == cfg.Substitute && c.Module != "" {
			if l.scopedOverrides[c.Module] == nil {
				l.scopedOverrides[c.Module] = map[string]string{}
			}
			l.scopedOverrides[c.Module][c.Name] = c.Subst
		}
		if c.Module == "" && c.Kind == cfg.Substitute {
			l.unscoped[c.Name] = c.Subst
		} else if c.Module == "" && len(c.Args) == 0 {
			l.unscoped[c.Name] = ""
		}
		if c.Kind == cfg.Assign && c.Module != "" && len(c.Args) == 0 {
			if l.scopedValues[c.Module] == nil {
				l.scopedValues[c.Module] = map[string]value.Value{}
			}
			l.scopedValues[c.Module][c.Name] = c.Value
		}
	}
	m.loader = l
	value.ResetNames() // the order of this model's names, as in TLC's run
	seeNames(mod)      // before the modules it loads, as TLC's parser
	root, err := l.build(mod, nil, false)
	if err != nil {
		return nil, &LoadError{err}
	}
	m.root = root
	seeStrings(m.modules)
	m.assumes = l.rootAssumes(mod, root)
	for _, po := range l.pendingOverrides {
		t := root.lookup(po.target)
		if t == nil {
			return nil, &ConfigError{fmt.Errorf("%s: %s <- [%s]%s: the spec has no definition %s", conf.File, po.name, po.sc.name, po.target, po.target)}
		}
		po.sc.names[po.name] = t
	}
	// The root's definitions that the cfg overrides, before it does.
	before := map[string]*def{}
	for _, io := range l.instOverrides {
		before[io.name] = root.lookup(io.name)
	}
	if err := m.applyConstants(conf); err != nil {
		return nil, &ConfigError{err}
	}
	if err := l.resolveInstOverrides(root, before); err != nil {
		return nil, &ConfigError{err}
	}
	if m.bindInputs {
		m.markInputs()
		var rest []assumeDef
		for _, a := range m.assumes {
			if m.exprReadsInput(a.sc, a.expr) {
				m.inputAssumes = append(m.inputAssumes, a)
			} else {
				rest = append(rest, a)
			}
		}
		m.assumes = rest
	}
	if err := m.checkAssumes(); err != nil {
		return nil, err
	}
	if err := m.compileConfig(conf); err != nil {
		return nil, err
	}
	return m, nil
}

// resolveInstOverrides gives each placeholder of an instance's scope its
// meaning (see instOverride): the root's definition, as the cfg changed it,
// when the root's name is the very definition the instance copies (the
// root extends its module) and the cfg changed it; the instance's own
// otherwise. before holds the root's definitions of those names before
// the cfg was applied (applyConstants changes them in place).
func (l *loader) resolveInstOverrides(root *scope, before map[string]*def) error {
	for _, io := range l.instOverrides {
		rd := before[io.name]
		ext := l.extended[io.module]
		reaches := rd != nil && ext != nil && ext.names[io.name] == rd && !ext.local[io.name]
		src := io.orig
		if reaches {
			src = rd
			if rd.kind != dkValue {
				// TLC evaluates the substitute in the instance's context:
				// with the instance's substitutions applied to whatever it
				// reads. That is the root's own meaning when every constant
				// and variable of the instance is the root's.
				for n, s := range io.subst {
					if a := s.alias(); a == nil || a != root.lookup(n) {
						where := "INSTANCE " + io.module
						if io.inst != nil {
							where = fmt.Sprintf("%s (%s)", where, io.inst.Pos)
						}
						t := l.unscoped[io.name]
						return fmt.Errorf("%s <- %s: %s is also used inside %s, whose substitution for %s TLC applies to %s as well: not supported", io.name, t, io.name, where, n, t)
					}
				}
			}
		}
		ph := io.placeholder
		*ph = def{kind: src.kind, name: io.name, pos: src.pos, sc: src.sc, arity: src.arity, params: src.params, body: src.body,
			fn: src.fn, val: src.val, builtin: src.builtin, inst: src.inst, subst: src.subst, substSc: src.substSc, substLex: src.substLex}
	}
	return nil
}

func cfgErr(conf *cfg.Config, p cfg.Pos, format string, args ...any) error {
	if p.Line == 0 { // set by a command line, not read from the file
		return fmt.Errorf("%s: %s", conf.File, fmt.Sprintf(format, args...))
	}
	return fmt.Errorf("%s:%s: %s", conf.File, p, fmt.Sprintf(format, args...))
}

// applyConstants gives the cfg's values and substitutions to constants
// and definitions. Defs are changed in place, so every module that shares
// them (through EXTENDS) sees the change.
func (m *Model) applyConstants(conf *cfg.Config) error {
	for _, c := range conf.Constants {
		if c.Module != "" {
			continue // applied while building that module's scope
		}
		d := m.root.lookup(c.Name)
		if d == nil {
			// TLC ignores values for names the spec does not declare.
			m.Warnings = append(m.Warnings, cfgErr(conf, c.Pos, "%s is not a constant or definition of the spec; its value is ignored", c.Name).Error())
			continue
		}
		switch c.Kind {
		case cfg.Assign:
			if len(c.Args) > 0 {
				return cfgErr(conf, c.Pos, "%s: assigning values to operator arguments is not supported", c.Name)
			}
			if d.kind == dkVar {
				return cfgErr(conf, c.Pos, "%s is a variable, not a constant", c.Name)
			}
			*d = def{kind: dkValue, name: d.name, pos: d.pos, sc: d.sc, val: c.Value}
		case cfg.Substitute:
			t := m.root.lookup(c.Subst)
			if t == nil {
				return cfgErr(conf, c.Pos, "%s <- %s: the spec has no definition %s", c.Name, c.Subst, c.Subst)
			}
			if d.kind == dkVar || t.kind == dkVar {
				return cfgErr(conf, c.Pos, "%s <- %s: variables cannot be substituted", c.Name, c.Subst)
			}
			if d.kind == dkConst && d.arity != t.arity && t.kind == dkOp && len(t.params) != d.arity {
				return cfgErr(conf, c.Pos, "%s <- %s: %s takes %d argument(s) but %s takes %d", c.Name, c.Subst, c.Name, d.arity, c.Subst, len(t.params))
			}
			name, pos := d.name, d.pos
			*d = def{kind: t.kind, name: name, pos: pos, sc: t.sc, arity: t.arity, params: t.params, body: t.body,
				fn: t.fn, val: t.val, builtin: t.builtin, inst: t.inst, subst: t.subst, substSc: t.substSc, substLex: t.substLex}
		}
	}
	// Every constant must have a value now.
	var missing []*def
	for _, d := range m.root.names {
		if d.kind == dkConst {
			missing = append(missing, d)
		}
	}
	if len(missing) > 0 {
		sort.Slice(missing, func(i, j int) bool { return posLess(missing[i].pos, missing[j].pos, missing[i].name, missing[j].name) })
		names := make([]string, len(missing))
		for i, d := range missing {
			names[i] = d.name
		}
		return errorf(missing[0].pos, "no value for constant(s) %s: give them values in %s", strings.Join(names, ", "), conf.File)
	}
	return nil
}

func posLess(a, b syntax.Pos, an, bn string) bool {
	if a.File != b.File {
		return a.File < b.File
	}
	if a.Line != b.Line {
		return a.Line < b.Line
	}
	if a.Col != b.Col {
		return a.Col < b.Col
	}
	return an < bn
}

func (m *Model) checkAssumes() error {
	ev := m.NewEvaluator()
	for _, a := range m.assumes {
		n, _, _, err := m.compileIn(a.sc, a.expr, nil)
		if err != nil {
			return &LoadError{err}
		}
		ok, err := evalBool(ev.c, nil, n)
		if err != nil {
			return &EvalFailure{Err: err, What: "evaluating an ASSUME"}
		}
		if !ok {
			return &AssumeFailure{Pos: a.pos, Name: a.name}
		}
	}
	return nil
}

// AssumeFailure is an ASSUME that evaluates to FALSE.
type AssumeFailure struct {
	Pos  syntax.Pos
	Name string
}

func (e *AssumeFailure) Error() string {
	if e.Name != "" {
		return fmt.Sprintf("%s: assumption %s is false", e.Pos, e.Name)
	}
	return fmt.Sprintf("%s: assumption is false", e.Pos)
}

// EvalFailure is a run-time evaluation error.
type EvalFailure struct {
	Err  error
	What string
}

// InvariantLevel is the EvalFailure.What of an INVARIANT that is not a
// state predicate.
const InvariantLevel = "the level of an invariant"

func (e *EvalFailure) Error() string { return e.Err.Error() }
func (e *EvalFailure) Unwrap() error { return e.Err }

// compileName compiles the cfg's reference to a definition of the root module.
func (m *Model) compileName(conf *cfg.Config, id cfg.Ident, what string) (node, *def, error) {
	d := m.root.lookup(id.Name)
	if d == nil {
		return nil, nil, &ConfigError{cfgErr(conf, id.Pos, "%s %s: the spec has no definition %s", what, id.Name, id.Name)}
	}
	if d.kind == dkOp && len(d.params) > 0 {
		return nil, nil, &ConfigError{cfgErr(conf, id.Pos, "%s %s: %s takes arguments", what, id.Name, id.Name)}
	}
	c := &compiler{m: m, sc: m.root}
	n, err := c.ref(syntax.Pos{File: conf.File, Line: id.Pos.Line, Col: id.Pos.Col}, d, id.Name, nil, nil)
	if err != nil {
		return nil, nil, &LoadError{err}
	}
	return n, d, nil
}

func (m *Model) compileConfig(conf *cfg.Config) error {
	switch {
	case conf.Specification.Name != "":
		d := m.root.lookup(conf.Specification.Name)
		if d == nil || d.kind != dkOp {
			return &ConfigError{cfgErr(conf, conf.Specification.Pos, "SPECIFICATION %s: the spec has no such definition", conf.Specification.Name)}
		}
		if err := m.splitSpec(d); err != nil {
			return err
		}
	case conf.Init.Name != "" && conf.Next.Name != "":
		n, d, err := m.compileName(conf, conf.Init, "INIT")
		if err != nil {
			return err
		}
		m.init, m.InitName, m.initPos, m.initDef = n, conf.Init.Name, d.pos, d
		if n, d, err = m.compileName(conf, conf.Next, "NEXT"); err != nil {
			return err
		}
		m.next, m.NextName, m.nextPos = n, conf.Next.Name, d.pos
	case conf.Init.Name != "":
		n, d, err := m.compileName(conf, conf.Init, "INIT")
		if err != nil {
			return err
		}
		m.init, m.InitName, m.initPos, m.initDef = n, conf.Init.Name, d.pos, d
	default:
		// A model without variables may have no behaviour at all: TLC then
		// checks the assumptions (and prints what they print) and reports
		// success with no state. Anything to check in states needs them.
		if len(m.Vars) > 0 || len(conf.Invariants) > 0 || len(conf.Properties) > 0 {
			return &ConfigError{fmt.Errorf("%s: no SPECIFICATION and no INIT/NEXT", conf.File)}
		}
	}
	for _, id := range conf.Invariants {
		n, _, err := m.compileName(conf, id, "INVARIANT")
		if err != nil {
			return err
		}
		if l, ok := m.levels.Level(id.Name); ok && l > semantic.State {
			// TLC's words; it exits as for an invariant it cannot evaluate.
			return &EvalFailure{Err: fmt.Errorf("The invariant %s is not a state predicate (one with no primes or temporal operators).", id.Name), What: InvariantLevel}
		}
		m.Invariants = append(m.Invariants, Named{id.Name, n})
	}
	for _, id := range conf.Constraints {
		n, _, err := m.compileName(conf, id, "CONSTRAINT")
		if err != nil {
			return err
		}
		m.Constraints = append(m.Constraints, Named{id.Name, n})
	}
	for _, id := range conf.ActionConstraints {
		n, _, err := m.compileName(conf, id, "ACTION_CONSTRAINT")
		if err != nil {
			return err
		}
		m.ActionConstraints = append(m.ActionConstraints, Named{id.Name, n})
	}
	if conf.View.Name != "" {
		n, d, err := m.compileName(conf, conf.View, "VIEW")
		if err != nil {
			return err
		}
		m.View = n
		if t, ok := d.body.(*syntax.Tuple); ok && d.kind == dkOp {
			// TLC's -view prints a state of such a VIEW as its variables.
			for _, e := range t.Elems {
				id, ok := e.(*syntax.Ident)
				if !ok || m.root.lookup(id.Name) == nil || m.root.lookup(id.Name).kind != dkVar {
					m.viewVars = nil
					break
				}
				m.viewVars = append(m.viewVars, id.Name)
			}
		}
	}
	if conf.Alias.Name != "" {
		n, d, err := m.compileName(conf, conf.Alias, "ALIAS")
		if err != nil {
			return err
		}
		m.alias = n
		if rl, ok := d.body.(*syntax.RecordLit); ok && d.kind == dkOp {
			// TLC prints the fields in the order the record is written.
			for _, f := range rl.Fields {
				m.aliasFields = append(m.aliasFields, f.Name)
			}
		}
	}
	if conf.Symmetry.Name != "" {
		n, _, err := m.compileName(conf, conf.Symmetry, "SYMMETRY")
		if err != nil {
			return err
		}
		v, err := n.eval(m.newCtx(), nil)
		if err != nil {
			return &EvalFailure{Err: err, What: "evaluating SYMMETRY"}
		}
		perms, err := value.PermsFromSet(v)
		if err == nil {
			m.Symmetry, err = value.NewSymmetry(perms, 1<<20)
		}
		if err != nil {
			return &ConfigError{cfgErr(conf, conf.Symmetry.Pos, "SYMMETRY %s: %v", conf.Symmetry.Name, err)}
		}
	}
	for _, p := range conf.Properties {
		m.Properties = append(m.Properties, p.Name)
	}
	if m.Symmetry != nil && len(conf.Properties) > 0 {
		// TLC's warning: liveness is checked on the graph of symmetry
		// classes, where a cycle of classes need not be one of states.
		m.Warnings = append(m.Warnings, "Declaring symmetry during liveness checking is dangerous. It might cause TLC to miss violations of the stated liveness properties. Please check liveness without symmetry defined.")
	}
	return nil
}

// specPart is a piece of a SPECIFICATION formula with the scope it is in.
type specPart struct {
	e  syntax.Expr
	sc *scope
}

// splitSpec finds Init and Next in Init /\ [][Next]_vars /\ fairness.
func (m *Model) splitSpec(d *def) error {
	var inits []specPart
	var initDefs []*def // the definitions the initial predicate is made of
	inInit := false     // walking one of them
	var next *specPart
	var walk func(e syntax.Expr, sc *scope, depth int) error
	walk = func(e syntax.Expr, sc *scope, depth int) error {
		if depth > 30 {
			return &LoadError{errorf(e.Position(), "SPECIFICATION: definitions nest too deeply")}
		}
		switch x := e.(type) {
		case *syntax.BulletList:
			if x.Kind == `/\` {
				for _, it := range x.Items {
					if err := walk(it, sc, depth+1); err != nil {
						return err
					}
				}
				return nil
			}
		case *syntax.OpApp:
			if x.Name == `/\` && len(x.Args) == 2 && len(x.Path) == 0 {
				for _, it := range x.Args {
					if err := walk(it, sc, depth+1); err != nil {
						return err
					}
				}
				return nil
			}
			if len(x.Args) == 0 {
				if dd, dsc := m.specDef(x, sc); dd != nil {
					return walk(dd.body, dsc, depth+1)
				}
			}
		case *syntax.Ident:
			if dd := sc.lookup(x.Name); dd != nil && dd.kind == dkOp && len(dd.params) == 0 {
				if !temporal(dd.body) && !inInit {
					// The outermost definition: InitNB == InitA /\ InitB is
					// one initial predicate, InitNB.
					initDefs = append(initDefs, dd)
					inInit = true
					defer func() { inInit = false }()
				}
				return walk(dd.body, dd.sc, depth+1)
			}
		case *syntax.Label:
			return walk(x.Body, sc, depth+1)
		case *syntax.Always:
			if box, ok := x.X.(*syntax.ActionBox); ok {
				if next != nil {
					return &LoadError{errorf(x.Pos, "SPECIFICATION has two [][Next]_vars parts")}
				}
				// TLC explores Next itself; the stuttering steps that
				// [Next]_vars also allows add no states.
				next = &specPart{box.Action, sc}
				return nil
			}
			return nil // a temporal conjunct: not part of the state graph
		case *syntax.Fairness, *syntax.Eventually, *syntax.LeadsTo, *syntax.TemporalQuant:
			return nil
		}
		if temporal(e) {
			return nil // fairness under a quantifier, say
		}
		inits = append(inits, specPart{e, sc})
		return nil
	}
	if err := walk(d.body, d.sc, 0); err != nil {
		return err
	}
	var parts []node
	for _, p := range inits {
		n, _, _, err := m.compileIn(p.sc, p.e, nil)
		if err != nil {
			return &LoadError{err}
		}
		parts = append(parts, n)
	}
	m.init = &andNode{at{d.pos}, flatten(parts, true)}
	m.InitName, m.initPos = d.name+" (initial predicate)", d.pos
	if len(initDefs) == 1 {
		m.initDef = initDefs[0]
	}
	if next != nil {
		n, _, _, err := m.compileIn(next.sc, next.e, nil)
		if err != nil {
			return &LoadError{err}
		}
		m.next = n
		m.NextName, m.nextPos = d.name+" (next-state relation)", next.e.Position()
	}
	return nil
}

func (m *Model) specDef(x *syntax.OpApp, sc *scope) (*def, *scope) {
	if len(x.Path) == 0 {
		if dd := sc.lookup(x.Name); dd != nil && dd.kind == dkOp && len(dd.params) == 0 {
			return dd, dd.sc
		}
		return nil, nil
	}
	c := &compiler{m: m, sc: sc}
	dd, _, hasInst, err := c.resolvePath(x, nil)
	if err != nil || hasInst || dd.kind != dkOp || len(dd.params) > 0 {
		return nil, nil
	}
	return dd, dd.sc
}

func (m *Model) print(line string) {
	m.outMu.Lock()
	defer m.outMu.Unlock()
	fmt.Fprintln(m.Out, line)
}

func (m *Model) configRecord() (value.Value, error) {
	return value.Record([]string{"deadlock", "depth", "mode", "traces", "worker"},
		[]value.Value{value.Bool(m.CheckDeadlock), value.IntOf(-1), value.Str("bfs"), value.IntOf(-1), value.IntOf(1)})
}

// statsValue is one count of the running search (TLCGet(key)).
func (m *Model) statsValue(key string) (value.Value, error) {
	if m.Stats == nil {
		return nil, fmt.Errorf("TLCGet(%q) is only defined while model checking", key)
	}
	return value.IntOf(m.Stats()[key]), nil
}

func (m *Model) statsRecord() (value.Value, error) {
	if m.Stats == nil {
		return nil, fmt.Errorf("TLCGet(\"stats\") is only available while model checking")
	}
	s := m.Stats()
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	vals := make([]value.Value, len(keys))
	for i, k := range keys {
		vals[i] = value.IntOf(s[k])
	}
	return value.Record(keys, vals)
}

type registers struct {
	mu sync.Mutex
	r  map[int]value.Value
}

func (r *registers) get(i int) (value.Value, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	v, ok := r.r[i]
	if !ok {
		return nil, fmt.Errorf("TLCGet(%d): register %d was never set", i, i)
	}
	return v, nil
}

func (r *registers) set(i int, v value.Value) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.r == nil {
		r.r = map[int]value.Value{}
	}
	r.r[i] = v
	return nil
}

// temporal reports whether e contains a temporal operator (syntactically).
func temporal(e syntax.Expr) bool {
	switch e.(type) {
	case *syntax.Always, *syntax.Eventually, *syntax.LeadsTo, *syntax.Fairness, *syntax.TemporalQuant:
		return true
	}
	for _, ch := range children(e) {
		if temporal(ch) {
			return true
		}
	}
	return false
}
