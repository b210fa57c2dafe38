package stdlib

import (
	"embed"
	"path"
	"strings"

	"github.com/modelfuzz/modelfuzz/tlc/syntax"
)

// The community modules written here in TLA+ (tla/*.tla): they use the
// built-in modules, and a module of the same name in the spec's directory
// comes first (see syntax.RegisterLibrary).
//
//go:embed tla/*.tla
var libraryFS embed.FS

func init() {
	entries, err := libraryFS.ReadDir("tla")
	if err != nil {
		panic("stdlib: " + err.Error())
	}
	for _, e := range entries {
		src, err := libraryFS.ReadFile(path.Join("tla", e.Name()))
		if err != nil {
			panic("stdlib: " + err.Error())
		}
		syntax.RegisterLibrary(strings.TrimSuffix(e.Name(), ".tla"), src)
	}
}

// LibraryModules returns the names of the modules written in TLA+ that
// this package provides, sorted.
func LibraryModules() []string {
	entries, _ := libraryFS.ReadDir("tla")
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = strings.TrimSuffix(e.Name(), ".tla")
	}
	return out
}
