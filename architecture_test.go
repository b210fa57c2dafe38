package modelfuzz

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ARCHITECTURE.md's package table names every Go package of the module,
// and only packages that exist: a package added, moved or removed without
// the document fails here.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	named, err := architecturePackages("ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(named) == 0 {
		t.Fatal(`ARCHITECTURE.md: no package table under "## Packages"`)
	}
	have, err := goPackageDirs(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range have {
		if !slices.Contains(named, dir) {
			t.Errorf("package %s is not in ARCHITECTURE.md's package table", display(dir))
		}
	}
	for _, dir := range named {
		if !slices.Contains(have, dir) {
			t.Errorf("ARCHITECTURE.md's package table names %s, which holds no Go package", display(dir))
		}
	}
}

// architecturePackages reads the first column of the table in the
// "## Packages" section of the document: one package a row, written as
// `path` or `path/` (`.` for the module's root), returned as a slash path
// relative to the root ("" for the root).
func architecturePackages(doc string) ([]string, error) {
	f, err := os.Open(doc)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			in = line == "## Packages"
			continue
		}
		if !in || !strings.HasPrefix(line, "| `") {
			continue
		}
		cell := strings.TrimPrefix(line, "| `")
		end := strings.IndexByte(cell, '`')
		if end < 0 {
			continue
		}
		out = append(out, normalize(cell[:end]))
	}
	return out, sc.Err()
}

// goPackageDirs lists the directories under root that hold a non-test Go
// file, as slash paths relative to root, leaving out testdata and hidden
// directories (which the go command ignores too).
func goPackageDirs(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		dir := normalize(filepath.ToSlash(rel))
		if !slices.Contains(out, dir) {
			out = append(out, dir)
		}
		return nil
	})
	return out, err
}

func normalize(p string) string {
	p = strings.TrimSuffix(p, "/")
	if p == "." {
		return ""
	}
	return p
}

func display(dir string) string {
	if dir == "" {
		return ". (the module's root)"
	}
	return dir
}
