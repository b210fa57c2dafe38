package linecov

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime/coverage"
	"slices"
	"strings"
	"sync"

	"github.com/cespare/xxhash/v2"
)

// BuildCommand builds the fuzzer with line coverage of the etcd raft
// library (make cover). The main package is in -coverpkg because go build
// starts the coverage runtime only from an instrumented main package
// (Go 1.26); the Tracker ignores units of main packages.
const BuildCommand = "go build -cover -covermode=atomic -coverpkg=go.etcd.io/raft/v3/...,github.com/modelfuzz/modelfuzz/cmd/modelfuzz -o modelfuzz-cover ./cmd/modelfuzz"

// Available returns nil when this binary has coverage instrumentation usable
// per execution (built with -cover and -covermode=atomic, with at least one
// instrumented package), else an error saying what is missing and how to
// build a binary that has it.
func Available() error {
	_, err := loadProgram()
	return err
}

// Tracker reads the program's coverage counters. Use it from one goroutine
// at a time: the counters are global to the process, so executions
// measured with it must not overlap.
type Tracker struct {
	p   *program
	buf bytes.Buffer // WriteCounters output, reused
	rd  counterReader
	rec funcRecord
	// seen[u] == gen when unit u is already in this call's output: a
	// function could have a record in each of several segments.
	seen []uint32
	gen  uint32

	// The runtime's counters; tests replace them.
	clear func() error
	write func(io.Writer) error
}

// NewTracker returns a tracker of this binary's counters. The meta-data
// (packages, functions, units) is decoded once per process and shared.
func NewTracker() (*Tracker, error) {
	p, err := loadProgram()
	if err != nil {
		return nil, err
	}
	return newTracker(p, coverage.ClearCounters, coverage.WriteCounters), nil
}

func newTracker(p *program, clearFn func() error, write func(io.Writer) error) *Tracker {
	return &Tracker{p: p, clear: clearFn, write: write, seen: make([]uint32, len(p.items))}
}

// Reset clears all counters.
func (t *Tracker) Reset() error {
	if err := t.clear(); err != nil {
		return fmt.Errorf("linecov: clearing counters: %v", err)
	}
	return nil
}

// Covered appends to dst the item of every unit whose counter is non-zero
// since the last Reset, each item once, in the order the runtime lists the
// counters (stable for a binary, not sorted). On error dst comes back
// unchanged.
func (t *Tracker) Covered(dst []uint64) ([]uint64, error) {
	t.buf.Reset()
	if err := t.write(&t.buf); err != nil {
		return dst, fmt.Errorf("linecov: reading counters: %v", err)
	}
	return t.covered(dst, t.buf.Bytes())
}

// Statements returns the number of statements of the unit named by item,
// 0 for an item that names no unit of this binary.
func (t *Tracker) Statements(item uint64) int {
	if u, ok := t.p.index[item]; ok {
		return int(t.p.stmts[u])
	}
	return 0
}

// TotalStatements returns the number of statements of all instrumented
// units.
func (t *Tracker) TotalStatements() int { return t.p.totalStmts }

// Units returns the number of instrumented units.
func (t *Tracker) Units() int { return len(t.p.items) }

// Packages returns the instrumented package paths, sorted.
func (t *Tracker) Packages() []string { return slices.Clone(t.p.pkgPaths) }

// Describe names the unit of item for reports:
// "go.etcd.io/raft/v3/raft.go:123.2,125.3 (raft.(*raft).Step)".
func (t *Tracker) Describe(item uint64) string {
	u, ok := t.p.index[item]
	if !ok {
		return fmt.Sprintf("unknown unit %016x", item)
	}
	ref := t.p.units[u]
	pkg := &t.p.meta.pkgs[ref.pkg]
	f := &pkg.funcs[ref.fn]
	un := &f.units[ref.unit]
	return fmt.Sprintf("%s:%d.%d,%d.%d (%s.%s)", f.file, un.startLine, un.startCol, un.endLine, un.endCol, pkg.name, displayName(f.name))
}

// displayName writes a method on a pointer, which the meta-data names
// "*raft.Step", as Go's symbols do: "(*raft).Step".
func displayName(fn string) string {
	if dot := strings.IndexByte(fn, '.'); strings.HasPrefix(fn, "*") && dot > 1 {
		return "(" + fn[:dot] + ")" + fn[dot:]
	}
	return fn
}

// Item returns the item of a unit: the xxhash of
// "<package path>\x00<function name>\x00<start line>:<start column>-<end line>:<end column>",
// e.g. "go.etcd.io/raft/v3\x00(*raft).Step\x00123:2-125:3". Should two
// units of a program share the text (or the hash), the later ones in
// meta-data order hash the text followed by "\x00" and 1, 2, ...
func Item(pkgPath, funcName string, startLine, startCol, endLine, endCol int) uint64 {
	return xxhash.Sum64String(itemKey(pkgPath, funcName, startLine, startCol, endLine, endCol))
}

func itemKey(pkgPath, funcName string, startLine, startCol, endLine, endCol int) string {
	return fmt.Sprintf("%s\x00%s\x00%d:%d-%d:%d", pkgPath, funcName, startLine, startCol, endLine, endCol)
}

// program is the instrumented program: its units in meta-data order
// (package, function, unit), with tables that map a counter record to its
// units in constant time. Units of main packages are not tracked: the
// build instruments its main package only so that the coverage runtime
// starts, and the main package is the fuzzer's, not the system's.
type program struct {
	meta       *metaFile
	pkgFuncs   []int32   // package -> its first function in funcUnits; one more entry at the end
	tracked    []bool    // package -> its units are tracked
	funcUnits  []int32   // function (flattened) -> its first unit; one more entry at the end
	items      []uint64  // unit -> item
	stmts      []uint32  // unit -> statements
	units      []unitRef // unit -> where it is in meta
	index      map[uint64]int32
	totalStmts int
	pkgPaths   []string
}

type unitRef struct{ pkg, fn, unit int32 }

var loadProgram = sync.OnceValues(func() (*program, error) {
	var b bytes.Buffer
	if err := coverage.WriteMeta(&b); err != nil {
		return nil, errors.New("linecov: this binary has no coverage meta-data: it was not built with -cover, " +
			"or it is a test binary (go test -cover writes the meta-data only at exit); " +
			"build the fuzzer with line coverage with make cover (" + BuildCommand + ")")
	}
	m, err := decodeMeta(b.Bytes())
	if err != nil {
		return nil, err
	}
	return newProgram(m)
})

// newProgram checks that m's counters can be read per execution and builds
// the unit tables.
func newProgram(m *metaFile) (*program, error) {
	if m.mode != modeAtomic {
		return nil, fmt.Errorf("linecov: this binary was built with -covermode=%s; clearing counters between executions needs -covermode=atomic (make cover: %s)", modeName(m.mode), BuildCommand)
	}
	if m.granularity != granularityPerBlock {
		return nil, fmt.Errorf("linecov: this binary counts coverage per function (granularity %d); line coverage needs a counter per block (make cover: %s)", m.granularity, BuildCommand)
	}
	p := &program{meta: m, index: map[uint64]int32{}}
	for pi := range m.pkgs {
		pkg := &m.pkgs[pi]
		p.pkgFuncs = append(p.pkgFuncs, int32(len(p.funcUnits)))
		track := pkg.name != "main"
		p.tracked = append(p.tracked, track)
		hasUnits := false
		for fi := range pkg.funcs {
			f := &pkg.funcs[fi]
			p.funcUnits = append(p.funcUnits, int32(len(p.items)))
			if !track {
				continue
			}
			for ui := range f.units {
				u := &f.units[ui]
				key := itemKey(pkg.path, f.name, int(u.startLine), int(u.startCol), int(u.endLine), int(u.endCol))
				item := xxhash.Sum64String(key)
				for n := 1; ; n++ {
					if _, dup := p.index[item]; !dup {
						break
					}
					item = xxhash.Sum64String(fmt.Sprintf("%s\x00%d", key, n))
				}
				p.index[item] = int32(len(p.items))
				p.items = append(p.items, item)
				p.stmts = append(p.stmts, u.stmts)
				p.units = append(p.units, unitRef{int32(pi), int32(fi), int32(ui)})
				p.totalStmts += int(u.stmts)
				hasUnits = true
			}
		}
		if hasUnits {
			p.pkgPaths = append(p.pkgPaths, pkg.path)
		}
	}
	p.pkgFuncs = append(p.pkgFuncs, int32(len(p.funcUnits)))
	p.funcUnits = append(p.funcUnits, int32(len(p.items)))
	if len(p.items) == 0 {
		return nil, fmt.Errorf("linecov: this binary was built with -cover but instruments no code outside its main package; name the system's packages with -coverpkg (make cover: %s)", BuildCommand)
	}
	slices.Sort(p.pkgPaths)
	p.pkgPaths = slices.Compact(p.pkgPaths)
	return p, nil
}

// covered appends to dst the items of the units with non-zero counters in
// the counter-data file b.
func (t *Tracker) covered(dst []uint64, b []byte) ([]uint64, error) {
	p, rd, rec := t.p, &t.rd, &t.rec
	n0 := len(dst)
	t.gen++
	if t.gen == 0 {
		clear(t.seen)
		t.gen = 1
	}
	seen, gen := t.seen, t.gen
	if err := rd.init(b); err != nil {
		return dst, err
	}
	if rd.hash != p.meta.hash {
		return dst, fmt.Errorf("linecov: counter data of meta-data %x, this program's is %x", rd.hash, p.meta.hash)
	}
	npkgs := uint32(len(p.pkgFuncs) - 1)
	for {
		ok, err := rd.next(rec)
		if err != nil {
			return dst[:n0], err
		}
		if !ok {
			return dst, nil
		}
		if rec.pkg >= npkgs {
			return dst[:n0], fmt.Errorf("linecov: counter data: package %d out of range (%d packages)", rec.pkg, npkgs)
		}
		f0, f1 := p.pkgFuncs[rec.pkg], p.pkgFuncs[rec.pkg+1]
		if rec.fn >= uint32(f1-f0) {
			return dst[:n0], fmt.Errorf("linecov: counter data: package %s: function %d out of range (%d functions)", p.meta.pkgs[rec.pkg].path, rec.fn, f1-f0)
		}
		if mf := &p.meta.pkgs[rec.pkg].funcs[rec.fn]; len(rec.counters) != len(mf.units) {
			return dst[:n0], fmt.Errorf("linecov: counter data: %s.%s has %d counters, the meta-data %d units",
				p.meta.pkgs[rec.pkg].path, mf.name, len(rec.counters), len(mf.units))
		}
		if !p.tracked[rec.pkg] {
			continue
		}
		f := f0 + int32(rec.fn)
		u0, u1 := p.funcUnits[f], p.funcUnits[f+1]
		items, seen := p.items[u0:u1], seen[u0:u1]
		for i, v := range rec.counters {
			if v != 0 && seen[i] != gen {
				seen[i] = gen
				dst = append(dst, items[i])
			}
		}
	}
}

// Lines returns the source file and the first and last line of a unit.
func (t *Tracker) Lines(item uint64) (file string, first, last int, ok bool) {
	u, ok := t.p.index[item]
	if !ok {
		return "", 0, 0, false
	}
	ref := t.p.units[u]
	f := &t.p.meta.pkgs[ref.pkg].funcs[ref.fn]
	un := &f.units[ref.unit]
	return f.file, int(un.startLine), int(un.endLine), true
}
