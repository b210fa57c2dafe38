// Package models holds the TLA+ models modelfuzz ships, embedded into the
// binary, and loads a model by embedded name or by path.
package models

import (
	"embed"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/modelfuzz/modelfuzz/tlc/cfg"
	"github.com/modelfuzz/modelfuzz/tlc/eval"
	"github.com/modelfuzz/modelfuzz/tlc/syntax"
)

//go:embed *.tla *.cfg
var files embed.FS

// Embedded lists the embedded models (file names of their .tla).
func Embedded() []string {
	ents, _ := files.ReadDir(".")
	var out []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tla") {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

// Spec is a model to load: an embedded name ("microbench.tla") or a path,
// an optional cfg path, and constant values that replace the cfg's
// ("Workers=3").
type Spec struct {
	Model  string
	Config string
	Consts []string
	// View, when set, replaces the cfg's VIEW with this definition of the
	// model; NoView leaves the cfg's VIEW out.
	View   string
	NoView bool
	// Extend, when set, is the path of a module that EXTENDS the model and
	// defines more of it (waypoints): it becomes the root module, with the
	// model's cfg. It may declare no variable of its own, so that its
	// states are the model's.
	Extend string
}

// Load parses and compiles a model. A name that is not an existing file
// but names an embedded model loads the embedded one.
func Load(s Spec) (*eval.Model, error) {
	ld, mod, conf, err := parse(s)
	if err != nil {
		return nil, err
	}
	return eval.Build(ld, mod, conf)
}

// ViewName is the VIEW the model's cfg names ("" for none), after s.View
// and s.NoView.
func ViewName(s Spec) (string, error) {
	_, _, conf, err := parse(s)
	if err != nil {
		return "", err
	}
	return conf.View.Name, nil
}

// parse reads a model's modules and its cfg, with s's changes applied.
func parse(s Spec) (*syntax.Loader, *syntax.Module, *cfg.Config, error) {
	if s.Model == "" {
		return nil, nil, nil, fmt.Errorf("no model given (--model FILE.tla, or one of %v)", Embedded())
	}
	ld := syntax.NewLoader()
	var mod *syntax.Module
	var conf *cfg.Config
	if st, err := os.Stat(s.Model); err == nil && !st.IsDir() {
		if mod, err = ld.LoadFile(s.Model); err != nil {
			return nil, nil, nil, &eval.LoadError{Err: err}
		}
		cpath := s.Config
		if cpath == "" {
			cpath = strings.TrimSuffix(s.Model, filepath.Ext(s.Model)) + ".cfg"
		}
		if conf, err = cfg.ParseFile(cpath); err != nil {
			return nil, nil, nil, &eval.ConfigError{Err: err}
		}
	} else {
		name := strings.TrimSuffix(filepath.Base(s.Model), ".tla")
		src, err := files.ReadFile(name + ".tla")
		if err != nil || s.Model != name && s.Model != name+".tla" {
			return nil, nil, nil, fmt.Errorf("model %s: no such file, and not an embedded model (embedded: %v)", s.Model, Embedded())
		}
		mods, err := syntax.ParseSource(name+".tla", src)
		if err != nil {
			return nil, nil, nil, &eval.LoadError{Err: err}
		}
		ld.Add(mods...)
		mod = syntax.MainModule(name+".tla", mods)
		if s.Config != "" {
			// An embedded cfg by its bare name only: a path that names no
			// file is an error, not the embedded cfg of the same name.
			if csrc, rerr := files.ReadFile(s.Config); rerr == nil && filepath.Base(s.Config) == s.Config && !fileExists(s.Config) {
				conf, err = cfg.Parse(s.Config, csrc)
			} else {
				conf, err = cfg.ParseFile(s.Config)
			}
		} else {
			var csrc []byte
			if csrc, err = files.ReadFile(name + ".cfg"); err == nil {
				conf, err = cfg.Parse(name+".cfg", csrc)
			}
		}
		if err != nil {
			return nil, nil, nil, &eval.ConfigError{Err: err}
		}
	}
	if err := setConsts(conf, s.Consts); err != nil {
		return nil, nil, nil, &eval.ConfigError{Err: err}
	}
	if s.Extend != "" {
		ext, err := ld.LoadFile(s.Extend)
		if err != nil {
			return nil, nil, nil, &eval.LoadError{Err: err}
		}
		if !slices.Contains(ext.Extends, mod.Name) {
			return nil, nil, nil, fmt.Errorf("%s: module %s does not extend the model %s (write EXTENDS %s)", s.Extend, ext.Name, mod.Name, mod.Name)
		}
		for _, u := range ext.Units {
			if v, ok := u.(*syntax.VariableDecl); ok {
				return nil, nil, nil, fmt.Errorf("%s:%d:%d: module %s declares a variable; it may only define operators over the model's", s.Extend, v.Pos.Line, v.Pos.Col, ext.Name)
			}
		}
		mod = ext
	}
	switch {
	case s.NoView:
		conf.View = cfg.Ident{}
	case s.View != "":
		conf.View = cfg.Ident{Name: s.View}
	}
	return ld, mod, conf, nil
}

// setConsts replaces (or adds) constant values given as NAME=VALUE, with
// VALUE in cfg syntax.
func setConsts(conf *cfg.Config, consts []string) error {
	for _, kv := range consts {
		name, val, ok := strings.Cut(kv, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return fmt.Errorf("--const %q: want NAME=VALUE", kv)
		}
		c, err := cfg.Parse("--const", []byte("CONSTANT "+name+" = "+val+"\n"))
		if err != nil || len(c.Constants) != 1 {
			return fmt.Errorf("--const %q: bad value: %v", kv, err)
		}
		replaced := false
		for i := range conf.Constants {
			if conf.Constants[i].Name == name && conf.Constants[i].Module == "" {
				conf.Constants[i] = c.Constants[0]
				replaced = true
			}
		}
		if !replaced {
			conf.Constants = append(conf.Constants, c.Constants[0])
		}
	}
	return nil
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
