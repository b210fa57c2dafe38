package stdlib

import (
	"fmt"
	"slices"
	"sort"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// Op is an operator passed as an argument to a higher-order built-in
// (e.g. SelectSeq(s, Test), FoldSet(Op, base, S), SortSeq(s, Less)).
type Op interface {
	Arity() int
	Call(args []value.Value) (value.Value, error)
}

// Arg is one argument: V for ordinary parameters, Op for operator
// parameters.
type Arg struct {
	V  value.Value
	Op Op
}

// Context is what a few TLC-module operators need from the running
// checker. A nil Context is allowed: Print and PrintT then print nothing,
// and TLCGet, TLCSet and Trace report an error.
type Context interface {
	// Print writes one line of Print/PrintT output (no trailing newline).
	Print(line string)
	// TLCGet implements TLCGet(key): "level", "config", registers...
	TLCGet(key value.Value) (value.Value, error)
	// TLCSet implements TLCSet(key, v).
	TLCSet(key value.Value, v value.Value) error
}

// TerseContext is implemented by a Context that prints values as TLC's
// -terse option does (lazy sets unexpanded; see value.Format). A Context
// without it prints them as TLC does by default.
type TerseContext interface {
	Context
	Terse() bool
}

// TraceContext is implemented by a Context that can produce TLCExt's Trace:
// the sequence of states (records from variable names to values) from an
// initial state to the current one. Trace is an error with a Context that
// does not implement it.
type TraceContext interface {
	Context
	Trace() (value.Value, error)
}

// Builtin is one operator of a standard module.
type Builtin struct {
	// Module is the module that defines the operator ("Sequences").
	Module string
	// Name is the canonical name, as the parser produces it: "Len", "\\o",
	// ":>", "Seq", "-." (unary minus), "=<".
	Name string
	// Arity is the number of arguments; 0 for constants such as Nat.
	Arity int
	// OpParams holds the indexes of the parameters that are operators (the
	// evaluator sets Op instead of V in their Arg); nil if none.
	OpParams []int
	// SideEffect: the operator does more than compute its value (it writes
	// a file), so the evaluator must call it every time TLC would. Output
	// and registers go through Context, which the evaluator sees anyway.
	SideEffect bool
	// Input: the operator reads the world outside the spec (the
	// environment, a file), which an evaluator may be given in place of
	// the process's (see FileContext and EnvContext): a definition that
	// uses it may have another value under another input.
	Input bool
	// Fn computes the operator. It never panics: wrong argument types and
	// counts are errors, whose messages name the operator (the evaluator
	// adds the source position). Errors returned by an Op argument are
	// passed through unchanged.
	Fn func(ctx Context, args []Arg) (value.Value, error)
}

// IsOpParam tells whether parameter i is an operator parameter.
func (b *Builtin) IsOpParam(i int) bool { return slices.Contains(b.OpParams, i) }

// module is one standard module: its direct EXTENDS and its operators.
type module struct {
	extends []string
	// names are the identifiers of the module's text in order, which
	// TLC's parser interns after the spec's (see value.SeeNames).
	names  []string
	ops    map[string]*Builtin
	sorted []*Builtin
}

var modules = map[string]*module{}

// defModule declares a module with the modules it extends (directly).
func defModule(name string, extends ...string) {
	if _, dup := modules[name]; dup {
		panic("stdlib: module declared twice: " + name)
	}
	modules[name] = &module{extends: extends, ops: map[string]*Builtin{}}
}

// seeNames records the identifiers of a module's text (see module.names).
func seeNames(mod string, names ...string) {
	modules[mod].names = names
}

// Names returns the identifiers of module mod's text, in order, when the
// order of a record's fields built by its operators depends on them.
func Names(mod string) []string {
	if m, ok := modules[mod]; ok {
		return m.names
	}
	return nil
}

// def registers operators of a declared module. Registration happens in
// init functions; a mistake there is a programming error and panics at
// start-up (tested).
func def(mod string, bs ...*Builtin) {
	m, ok := modules[mod]
	if !ok {
		panic("stdlib: operators for undeclared module " + mod)
	}
	for _, b := range bs {
		if _, dup := m.ops[b.Name]; dup {
			panic("stdlib: operator defined twice: " + mod + "!" + b.Name)
		}
		for _, i := range b.OpParams {
			if i < 0 || i >= b.Arity {
				panic("stdlib: bad operator parameter index for " + mod + "!" + b.Name)
			}
		}
		b.Module = mod
		b.Fn = guard(b, b.Fn)
		m.ops[b.Name] = b
		m.sorted = append(m.sorted, b)
	}
	sort.Slice(m.sorted, func(i, j int) bool { return m.sorted[i].Name < m.sorted[j].Name })
}

// guard checks the argument count and kinds before calling fn, and turns a
// panic into an error, so that Fn keeps its never-panic promise.
func guard(b *Builtin, fn func(Context, []Arg) (value.Value, error)) func(Context, []Arg) (value.Value, error) {
	return func(ctx Context, args []Arg) (v value.Value, err error) {
		if len(args) != b.Arity {
			return nil, fmt.Errorf("%s: expected %d arguments, got %d", b.Name, b.Arity, len(args))
		}
		for i, a := range args {
			if b.IsOpParam(i) {
				if a.Op == nil {
					return nil, fmt.Errorf("%s: %s must be an operator", b.Name, ordinal(i, b.Arity))
				}
			} else if a.V == nil {
				return nil, fmt.Errorf("%s: %s has no value", b.Name, ordinal(i, b.Arity))
			}
		}
		defer func() {
			if r := recover(); r != nil {
				v, err = nil, fmt.Errorf("%s: internal error: %v", b.Name, r)
			}
		}()
		v, err = fn(ctx, args)
		switch {
		case err != nil:
			// Implementations may return a partial value (or a typed nil
			// pointer) with an error: callers see only the error.
			return nil, err
		case v == nil:
			return nil, fmt.Errorf("%s: internal error: no value", b.Name)
		}
		return v, nil
	}
}

// Lookup returns the operator name of module (not of the modules it
// extends; see Extends).
func Lookup(module, name string) (*Builtin, bool) {
	m, ok := modules[module]
	if !ok {
		return nil, false
	}
	b, ok := m.ops[name]
	return b, ok
}

// IsModule tells whether this package provides the module, possibly with no
// operators (the TLAPS proof libraries) or only some of them (IOUtils).
func IsModule(name string) bool {
	_, ok := modules[name]
	return ok
}

// Extends returns the standard modules whose operators a module brings in
// with it: the modules it EXTENDS, transitively, in breadth-first order and
// without duplicates (Integers -> [Naturals]; Reals -> [Integers,
// Naturals]). Modules a standard module only instantiates LOCALly, as
// Sequences does Naturals, are not included: EXTENDS Sequences alone does
// not define +, as in TLC.
func Extends(name string) []string {
	m, ok := modules[name]
	if !ok {
		return nil
	}
	var out []string
	seen := map[string]bool{name: true}
	queue := slices.Clone(m.extends)
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, n)
		if mm, ok := modules[n]; ok {
			queue = append(queue, mm.extends...)
		}
	}
	return out
}

// Operators returns the operators of one module (not of the modules it
// extends), sorted by name.
func Operators(module string) []*Builtin {
	m, ok := modules[module]
	if !ok {
		return nil
	}
	return slices.Clone(m.sorted)
}

// Modules returns the names of all modules this package provides, sorted.
func Modules() []string {
	out := make([]string, 0, len(modules))
	for n := range modules {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func init() {
	// Standard modules of TLA+ (Specifying Systems) and TLC.
	defModule("Naturals")
	defModule("Integers", "Naturals")
	defModule("Reals", "Integers")
	defModule("Sequences")
	defModule("FiniteSets")
	defModule("Bags")
	defModule("TLC")
	defModule("RealTime", "Reals")

	// Community modules, extending what their current versions extend
	// (FiniteSetsExt brings Functions' Range into scope); the others
	// instantiate the modules they use LOCALly.
	defModule("Folds")
	defModule("Functions", "Integers", "Folds")
	defModule("FiniteSetsExt", "Integers", "FiniteSets", "Folds", "Functions")
	defModule("SequencesExt", "Sequences", "Naturals", "FiniteSets", "FiniteSetsExt", "Folds", "Functions", "Bags", "TLC")
	defModule("BagsExt")
	defModule("TLCExt")
	defModule("Json")
	defModule("Bitwise")
	defModule("Randomization")
	defModule("IOUtils")
	defModule("SVG")
	defModule("VectorClocks", "Naturals", "Sequences", "Functions")
	// Provided so that EXTENDS resolves; their operators are not
	// implemented (a spec that uses one gets an unknown-operator error).
	for _, n := range []string{"CSV", "Combinatorics", "DyadicRationals", "Statistics", "Strings", "ShiViz", "Variants"} {
		defModule(n)
	}

	// TLAPS proof libraries: a model checker only needs them to load. They
	// bring in the modules their theorems are about.
	defModule("TLAPS")
	defModule("NaturalsInduction", "Integers", "TLAPS")
	defModule("WellFoundedInduction", "NaturalsInduction", "FiniteSets", "TLAPS")
	defModule("FunctionTheorems", "Functions", "Integers", "TLAPS")
	defModule("FiniteSetTheorems", "FiniteSets", "Functions", "WellFoundedInduction", "TLAPS")
	defModule("SequenceTheorems", "Sequences", "Integers", "WellFoundedInduction", "Functions", "TLAPS")
	defModule("SequencesTheorems", "SequenceTheorems")
	defModule("SequencesExtTheorems", "SequencesExt", "SequenceTheorems", "TLAPS")
	defModule("BagsTheorems", "Bags", "Integers", "TLAPS")
	defModule("FiniteSetsExtTheorems", "FiniteSetsExt", "FiniteSetTheorems", "TLAPS")
	defModule("FoldTheorems", "Folds", "FiniteSetTheorems", "TLAPS")

	registerNaturals()
	registerSequences()
	registerFiniteSets()
	registerBags()
	registerTLC()
	registerFolds()
	registerFunctions()
	registerFiniteSetsExt()
	registerSequencesExt()
	registerBagsExt()
	registerTLCExt()
	registerJSON()
	registerBitwise()
	registerRandomization()
	registerIOUtils()
	registerSVG()
	registerVectorClocks()
	for m, names := range standardNames {
		seeNames(m, names...)
	}
}
