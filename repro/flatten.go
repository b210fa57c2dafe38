package repro

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/build/constraint"
	"go/format"
	"go/parser"
	"go/printer"
	"go/scanner"
	"go/token"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
)

// modulePath is the import path of modelfuzz's packages.
const modulePath = "github.com/modelfuzz/modelfuzz/"

// unit is one top-level declaration of a carried package: a function, a
// method, or a whole const/var/type block (a block is kept whole, iota
// depends on it).
type unit struct {
	pkg   string // directory, e.g. "schedule"
	file  *ast.File
	decl  ast.Decl
	recv  string            // a method's receiver type name
	names []string          // the names it declares
	imp   map[string]string // the file's imports: name -> path
}

// flattener holds the parsed carried packages.
type flattener struct {
	fset    *token.FileSet
	units   []*unit
	byName  map[string]map[string][]int // dir -> name -> units
	methods map[string]map[string][]int // dir -> receiver type -> units
	dirs    map[string]bool
}

// flatten returns the Go source of package pkgName made of every
// declaration of the root package (a directory of fsys) and of the
// declarations of the other carried packages (dirs) it uses, transitively:
// one file, with the carried packages' qualifiers removed. A carried
// package may import only the standard library and other modules, not a
// part of modelfuzz that is not carried.
//
// subs holds, by directory, the source of a file that replaces the
// declarations of the same names in that package.
func flatten(fsys fs.FS, root string, dirs []string, subs map[string][]byte, pkgName string) ([]byte, error) {
	f := &flattener{fset: token.NewFileSet(), byName: map[string]map[string][]int{}, methods: map[string]map[string][]int{}, dirs: map[string]bool{}}
	for _, d := range append([]string{root}, dirs...) {
		f.dirs[d] = true
	}
	for _, d := range append([]string{root}, dirs...) {
		if err := f.parseDir(fsys, d, subs[d]); err != nil {
			return nil, err
		}
	}
	keep := make([]bool, len(f.units))
	var work []int
	add := func(i int) {
		if !keep[i] {
			keep[i] = true
			work = append(work, i)
		}
	}
	for i, u := range f.units {
		if u.pkg == root {
			add(i)
		}
	}
	for len(work) > 0 {
		i := work[len(work)-1]
		work = work[:len(work)-1]
		u := f.units[i]
		for _, name := range u.names {
			for _, m := range f.methods[u.pkg][name] {
				add(m)
			}
		}
		if u.recv != "" {
			for _, t := range f.byName[u.pkg][u.recv] {
				add(t)
			}
		}
		var walk func(n ast.Node) bool
		walk = func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok {
					if d, ok := f.carried(u, x.Name); ok {
						for _, j := range f.byName[d][n.Sel.Name] {
							add(j)
						}
						return false
					}
				}
				ast.Inspect(n.X, walk)
				return false
			case *ast.Ident:
				for _, j := range f.byName[u.pkg][n.Name] {
					add(j)
				}
			}
			return true
		}
		ast.Inspect(u.decl, walk)
	}

	// The names the kept declarations declare must not collide once the
	// packages are one: a carried package's name that collides is renamed
	// with its package's name in front (schedule.System -> scheduleSystem).
	declared := map[string][]string{}
	for i, u := range f.units {
		if !keep[i] {
			continue
		}
		for _, name := range u.names {
			if name != "_" && name != "init" && !slices.Contains(declared[name], u.pkg) {
				declared[name] = append(declared[name], u.pkg)
			}
		}
	}
	renames := map[string]map[string]string{}
	for name, pkgs := range declared {
		if len(pkgs) < 2 {
			continue
		}
		for _, d := range pkgs {
			if d == root {
				continue
			}
			if renames[d] == nil {
				renames[d] = map[string]string{}
			}
			renames[d][name] = path.Base(d) + name
		}
	}
	for i, u := range f.units {
		if keep[i] {
			f.rename(u, renames)
		}
	}
	imports := map[string]string{} // name -> path
	var body bytes.Buffer
	for i, u := range f.units {
		if !keep[i] {
			continue
		}
		src, used, err := f.print(u)
		if err != nil {
			return nil, err
		}
		for name, p := range used {
			if prev, ok := imports[name]; ok && prev != p {
				return nil, fmt.Errorf("flatten: import name %s means both %s and %s", name, prev, p)
			}
			imports[name] = p
		}
		body.Write(src)
		body.WriteString("\n\n")
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, "package %s\n\nimport (\n", pkgName)
	names := make([]string, 0, len(imports))
	for name := range imports {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int { return strings.Compare(imports[a], imports[b]) })
	for _, name := range names {
		p := imports[name]
		if defaultName(p) == name {
			fmt.Fprintf(&out, "\t%q\n", p)
		} else {
			fmt.Fprintf(&out, "\t%s %q\n", name, p)
		}
	}
	out.WriteString(")\n\n")
	out.Write(body.Bytes())
	src, err := format.Source(out.Bytes())
	if err != nil {
		return nil, fmt.Errorf("flatten: the flattened source does not parse: %v", err)
	}
	return src, nil
}

// rename renames, in u, the declarations and uses of the names renames
// holds (by package), leaving struct fields, methods and keys alone.
func (f *flattener) rename(u *unit, renames map[string]map[string]string) {
	var walk func(n ast.Node) bool
	fields := func(fl *ast.FieldList) {
		if fl == nil {
			return
		}
		for _, fd := range fl.List {
			ast.Inspect(fd.Type, walk)
		}
	}
	walk = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok {
				if d, ok := f.carried(u, x.Name); ok {
					if to, ok := renames[d][n.Sel.Name]; ok {
						n.Sel.Name = to
					}
					return false
				}
			}
			ast.Inspect(n.X, walk)
			return false
		case *ast.StructType:
			fields(n.Fields)
			return false
		case *ast.InterfaceType:
			fields(n.Methods)
			return false
		case *ast.KeyValueExpr:
			if _, ok := n.Key.(*ast.Ident); !ok {
				ast.Inspect(n.Key, walk)
			}
			ast.Inspect(n.Value, walk)
			return false
		case *ast.FuncDecl:
			if n.Recv != nil {
				fields(n.Recv)
			} else {
				ast.Inspect(n.Name, walk)
			}
			ast.Inspect(n.Type, walk)
			if n.Body != nil {
				ast.Inspect(n.Body, walk)
			}
			return false
		case *ast.Ident:
			if to, ok := renames[u.pkg][n.Name]; ok {
				n.Name = to
			}
		}
		return true
	}
	ast.Inspect(u.decl, walk)
}

// carried reports whether name is, in u's file, the import of a carried
// package, and which.
func (f *flattener) carried(u *unit, name string) (string, bool) {
	p, ok := u.imp[name]
	if !ok || !strings.HasPrefix(p, modulePath) {
		return "", false
	}
	d := strings.TrimPrefix(p, modulePath)
	return d, f.dirs[d]
}

func (f *flattener) parseDir(fsys fs.FS, dir string, sub []byte) error {
	ents, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return err
	}
	f.byName[dir] = map[string][]int{}
	f.methods[dir] = map[string][]int{}
	type source struct {
		name string
		src  []byte
	}
	var files []source
	if sub != nil {
		files = append(files, source{"substitute.go", sub})
	}
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := fs.ReadFile(fsys, path.Join(dir, name))
		if err != nil {
			return err
		}
		files = append(files, source{name, src})
	}
	replaced := map[string]bool{}
	for k, fl := range files {
		name := fl.name
		file, err := parser.ParseFile(f.fset, path.Join(dir, name), fl.src, parser.ParseComments)
		if err != nil {
			return err
		}
		if !builtWithoutTags(file) {
			continue
		}
		imp := map[string]string{}
		for _, is := range file.Imports {
			p, _ := strconv.Unquote(is.Path.Value)
			n := defaultName(p)
			if is.Name != nil {
				n = is.Name.Name
			}
			if n == "_" {
				continue
			}
			if strings.HasPrefix(p, modulePath) && !f.dirs[strings.TrimPrefix(p, modulePath)] {
				return fmt.Errorf("flatten: %s/%s imports %s, which is not carried", dir, name, p)
			}
			imp[n] = p
		}
		for _, d := range file.Decls {
			u := &unit{pkg: dir, file: file, decl: d, imp: imp}
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil {
					u.recv = recvName(d.Recv.List[0].Type)
				} else {
					u.names = []string{d.Name.Name}
				}
			case *ast.GenDecl:
				if d.Tok == token.IMPORT {
					continue
				}
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						u.names = append(u.names, s.Name.Name)
					case *ast.ValueSpec:
						for _, n := range s.Names {
							u.names = append(u.names, n.Name)
						}
					}
				}
			}
			if slices.ContainsFunc(u.names, func(n string) bool { return replaced[n] }) {
				continue
			}
			if k == 0 && sub != nil {
				for _, n := range u.names {
					replaced[n] = true
				}
			}
			i := len(f.units)
			f.units = append(f.units, u)
			for _, n := range u.names {
				f.byName[dir][n] = append(f.byName[dir][n], i)
			}
			if u.recv != "" {
				f.methods[dir][u.recv] = append(f.methods[dir][u.recv], i)
			}
		}
	}
	return nil
}

// defaultName is the name an import of path p gets without one: its last
// element, or the one before a major version ("go.etcd.io/raft/v3": raft).
func defaultName(p string) string {
	dir, last := path.Split(p)
	if len(last) > 1 && last[0] == 'v' && strings.Trim(last[1:], "0123456789") == "" && dir != "" {
		return path.Base(dir)
	}
	return last
}

// builtWithoutTags reports whether a file's //go:build line, if any, holds
// with no build tags set (the exported test is built without any).
func builtWithoutTags(file *ast.File) bool {
	for _, g := range file.Comments {
		if g.Pos() > file.Package {
			break
		}
		for _, c := range g.List {
			if constraint.IsGoBuild(c.Text) {
				x, err := constraint.Parse(c.Text)
				if err != nil {
					return false
				}
				return x.Eval(func(string) bool { return false })
			}
		}
	}
	return true
}

func recvName(t ast.Expr) string {
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// print renders u with its comments, the qualifiers of carried packages
// removed, and returns the other imports it uses.
func (f *flattener) print(u *unit) ([]byte, map[string]string, error) {
	start, end := u.decl.Pos(), u.decl.End()
	switch d := u.decl.(type) {
	case *ast.FuncDecl:
		if d.Doc != nil {
			start = d.Doc.Pos()
		}
	case *ast.GenDecl:
		if d.Doc != nil {
			start = d.Doc.Pos()
		}
	}
	var comments []*ast.CommentGroup
	for _, g := range u.file.Comments {
		if g.Pos() >= start && g.End() <= end {
			comments = append(comments, g)
		}
	}
	var buf bytes.Buffer
	if err := printer.Fprint(&buf, f.fset, &printer.CommentedNode{Node: u.decl, Comments: comments}); err != nil {
		return nil, nil, err
	}
	src := buf.Bytes()
	used := map[string]string{}
	var sc scanner.Scanner
	fset := token.NewFileSet()
	tf := fset.AddFile("", -1, len(src))
	sc.Init(tf, src, nil, scanner.ScanComments)
	var out bytes.Buffer
	last := 0
	prevIdent, prevOff := "", -1
	for {
		pos, tok, lit := sc.Scan()
		if tok == token.EOF {
			break
		}
		off := tf.Offset(pos)
		if tok == token.PERIOD && prevOff >= 0 {
			if _, ok := f.carried(u, prevIdent); ok {
				out.Write(src[last:prevOff])
				last = off + 1
			} else if p, ok := u.imp[prevIdent]; ok {
				used[prevIdent] = p
			}
		}
		prevIdent, prevOff = "", -1
		if tok == token.IDENT {
			prevIdent, prevOff = lit, off
		}
	}
	out.Write(src[last:])
	return out.Bytes(), used, nil
}
