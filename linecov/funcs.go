package linecov

import (
	"cmp"
	"slices"
	"strconv"
)

// Func is one function (or function literal) of an instrumented package
// other than a main package, with its units.
type Func struct {
	Package    string   // import path: "go.etcd.io/raft/v3"
	Name       string   // display name, as Describe writes it: "(*raft).Step", "(*raft).Step.func1"
	File       string   // import path of the package and file name: "go.etcd.io/raft/v3/raft.go"
	Line       int      // the first line of its units
	Literal    bool     // a function literal
	Units      []uint64 // the items of its units, in meta-data order
	Statements int      // of all its units
}

// Funcs returns every function of the tracked packages (the instrumented
// packages but main ones) that has units, sorted by file, line and name.
// Functions without units, which the compiler does not emit, are left out.
func (t *Tracker) Funcs() []Func {
	p := t.p
	var out []Func
	for pi := range p.meta.pkgs {
		if !p.tracked[pi] {
			continue
		}
		pkg := &p.meta.pkgs[pi]
		f0 := p.pkgFuncs[pi]
		for fi := range pkg.funcs {
			u0, u1 := p.funcUnits[f0+int32(fi)], p.funcUnits[f0+int32(fi)+1]
			if u0 == u1 {
				continue
			}
			mf := &pkg.funcs[fi]
			f := Func{Package: pkg.path, Name: displayName(mf.name), File: mf.file, Literal: mf.lit,
				Units: slices.Clone(p.items[u0:u1])}
			for u := u0; u < u1; u++ {
				f.Statements += int(p.stmts[u])
				if ln := int(mf.units[p.units[u].unit].startLine); f.Line == 0 || ln < f.Line {
					f.Line = ln
				}
			}
			out = append(out, f)
		}
	}
	slices.SortStableFunc(out, func(a, b Func) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Name, b.Name))
	})
	return out
}

// FuncCoverage is a function and how much of it a set of units covers.
type FuncCoverage struct {
	Func
	CoveredUnits      int
	CoveredStatements int
}

// Reached reports whether at least one of the function's units is covered.
func (f *FuncCoverage) Reached() bool { return f.CoveredUnits > 0 }

// Percent is the share of the function's statements covered, 0 to 100
// (100 for a function without statements that is reached).
func (f *FuncCoverage) Percent() float64 {
	if f.Statements == 0 {
		if f.Reached() {
			return 100
		}
		return 0
	}
	return 100 * float64(f.CoveredStatements) / float64(f.Statements)
}

// Coverage is what a set of covered units reaches of the program.
type Coverage struct {
	Funcs []FuncCoverage // every function, as Funcs sorts them
	// Lines counts the source lines (file and line number) the covered
	// units span, TotalLines those all units span: the lines a guidance
	// "lines" measure counts.
	Lines, TotalLines int
}

// Coverage returns what the units of covered (items, as Covered lists
// them; items of no unit of this program are ignored) reach, function by
// function.
func (t *Tracker) Coverage(covered []uint64) *Coverage {
	set := make(map[uint64]struct{}, len(covered))
	for _, it := range covered {
		set[it] = struct{}{}
	}
	c := &Coverage{}
	lines, all := map[string]struct{}{}, map[string]struct{}{}
	for _, f := range t.Funcs() {
		fc := FuncCoverage{Func: f}
		for _, it := range f.Units {
			u := t.p.index[it]
			ref := t.p.units[u]
			mu := &t.p.meta.pkgs[ref.pkg].funcs[ref.fn].units[ref.unit]
			_, hit := set[it]
			if hit {
				fc.CoveredUnits++
				fc.CoveredStatements += int(t.p.stmts[u])
			}
			for ln := mu.startLine; ln <= mu.endLine; ln++ {
				key := f.File + ":" + strconv.Itoa(int(ln))
				all[key] = struct{}{}
				if hit {
					lines[key] = struct{}{}
				}
			}
		}
		c.Funcs = append(c.Funcs, fc)
	}
	c.Lines, c.TotalLines = len(lines), len(all)
	return c
}
