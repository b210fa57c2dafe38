package syntax

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
)

// standardModules are provided natively by the evaluator and never read from
// disk: the standard modules of TLA+ and TLC, the TLAPS proof libraries, and
// the community modules the evaluator implements.
var standardModules = map[string]bool{
	// TLA+ and TLC standard modules.
	"Naturals": true, "Integers": true, "Reals": true, "Sequences": true,
	"FiniteSets": true, "Bags": true, "TLC": true, "RealTime": true,
	// TLAPS libraries (only their operator definitions matter to a checker).
	"TLAPS": true, "NaturalsInduction": true, "SequenceTheorems": true,
	"SequencesExtTheorems": true, "FiniteSetTheorems": true,
	"FunctionTheorems": true, "WellFoundedInduction": true,
	"BagsTheorems": true, "FiniteSetsExtTheorems": true, "FoldTheorems": true,
	// Community modules.
	"SequencesExt": true, "FiniteSetsExt": true, "Functions": true,
	"Folds": true, "Json": true, "Randomization": true, "IOUtils": true,
	"CSV": true, "TLCExt": true, "Bitwise": true, "BagsExt": true,
	"Combinatorics": true, "DyadicRationals": true, "Statistics": true,
	"Strings": true, "SVG": true, "ShiViz": true, "VectorClocks": true,
	"Variants": true,
}

// IsStandardModule reports whether the module name is built in (see
// standardModules); the Loader never reads such a module from disk.
func IsStandardModule(name string) bool { return standardModules[name] }

// StandardModules returns the names of the built-in modules, sorted.
func StandardModules() []string {
	names := make([]string, 0, len(standardModules))
	for n := range standardModules {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// library holds the modules written in TLA+ that come with the engine
// (community modules such as Graphs): Load parses one when no search
// directory has a module of its name, as TLC looks in the spec's
// directory before its library.
var (
	libraryMu sync.RWMutex
	library   = map[string][]byte{}
)

// RegisterLibrary makes src, the text of module name, available to every
// Loader (see Load). It is meant for init functions.
func RegisterLibrary(name string, src []byte) {
	libraryMu.Lock()
	defer libraryMu.Unlock()
	library[name] = src
}

// LibraryFile is the file name positions in a library module carry.
func LibraryFile(name string) string { return "[library]/" + name + ".tla" }

// ErrStandardModule is returned (wrapped) by Loader.Load for a built-in
// module.
var ErrStandardModule = errors.New("standard module is built in")

// Loader finds modules by name. It knows every module of the files it has
// parsed (so modules defined in multi-module files resolve), and otherwise
// reads Name.tla from its search directories on demand. Results are cached.
// A Loader is safe for concurrent use.
type Loader struct {
	dirs []string

	mu      sync.Mutex
	modules map[string]*Module
	files   map[string][]*Module // by cleaned path
}

// NewLoader returns a loader searching dirs, in order.
func NewLoader(dirs ...string) *Loader {
	return &Loader{dirs: dirs, modules: map[string]*Module{}, files: map[string][]*Module{}}
}

// LoadFile parses the file (once), registers all its modules, and returns
// its main module: the one named like the file, else the first. The file's
// directory is added to the search path if it is not there yet.
func (l *Loader) LoadFile(path string) (*Module, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	dir := filepath.Dir(path)
	known := false
	for _, d := range l.dirs {
		if filepath.Clean(d) == filepath.Clean(dir) {
			known = true
		}
	}
	if !known {
		l.dirs = append(l.dirs, dir)
	}
	mods, err := l.parseFileLocked(path)
	if err != nil {
		return nil, err
	}
	return MainModule(path, mods), nil
}

func (l *Loader) parseFileLocked(path string) ([]*Module, error) {
	key := filepath.Clean(path)
	if mods, ok := l.files[key]; ok {
		return mods, nil
	}
	mods, err := ParseFile(path)
	if err != nil {
		return nil, err
	}
	l.files[key] = mods
	for _, m := range mods {
		if _, dup := l.modules[m.Name]; !dup {
			l.modules[m.Name] = m
		}
	}
	return mods, nil
}

// Add registers modules parsed elsewhere (for example from ParseSource), so
// that Load finds them by name. An already known name is not replaced.
func (l *Loader) Add(mods ...*Module) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, m := range mods {
		if _, dup := l.modules[m.Name]; !dup {
			l.modules[m.Name] = m
		}
	}
}

// Load returns the module called name: a module already registered (from a
// parsed file or Add), else Name.tla from the first search directory that
// has it, else a library module of that name (see RegisterLibrary). For a
// standard module it returns an error wrapping
// ErrStandardModule (unless a module of that name was registered
// explicitly), and for an unknown one an error naming the directories
// searched.
func (l *Loader) Load(name string) (*Module, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if m, ok := l.modules[name]; ok {
		return m, nil
	}
	if IsStandardModule(name) {
		return nil, fmt.Errorf("module %s: %w", name, ErrStandardModule)
	}
	for _, d := range l.dirs {
		path := filepath.Join(d, name+".tla")
		if _, err := os.Stat(path); err != nil {
			continue
		}
		if _, err := l.parseFileLocked(path); err != nil {
			return nil, err
		}
		if m, ok := l.modules[name]; ok {
			return m, nil
		}
		return nil, fmt.Errorf("%s: file defines no module named %s", path, name)
	}
	libraryMu.RLock()
	src, ok := library[name]
	libraryMu.RUnlock()
	if ok {
		file := LibraryFile(name)
		mods, err := ParseSource(file, src)
		if err != nil {
			return nil, err
		}
		l.files[file] = mods
		for _, m := range mods {
			if _, dup := l.modules[m.Name]; !dup {
				l.modules[m.Name] = m
			}
		}
		if m, ok := l.modules[name]; ok {
			return m, nil
		}
	}
	return nil, fmt.Errorf("module %s not found (searched %v)", name, l.dirs)
}
