package tlc

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/modelfuzz/modelfuzz/tlc/cfg"
	"github.com/modelfuzz/modelfuzz/tlc/check"
	"github.com/modelfuzz/modelfuzz/tlc/eval"
	"github.com/modelfuzz/modelfuzz/tlc/syntax"
)

// Model is a spec compiled under its configuration.
type Model = eval.Model

// LoadError is a problem with a spec's modules (a parse error, an unknown
// name), ConfigError one with its cfg.
type (
	LoadError   = eval.LoadError
	ConfigError = eval.ConfigError
)

// Spec is a model to load: its root module and cfg, each a file or a
// source text, and the changes made to the cfg.
type Spec struct {
	// Module is the root module's file; or, when Source is set, its file
	// name, and Source its text (a model embedded in the binary).
	Module string
	Source []byte
	// Config is the cfg's file (default: Module's, with .cfg for its
	// extension); or, when ConfigSource is set, its file name, and
	// ConfigSource its text.
	Config       string
	ConfigSource []byte
	// Consts replace (or add) constants of the cfg: NAME=VALUE, VALUE in
	// cfg syntax.
	Consts []string
	// View, when set, replaces the cfg's VIEW with this definition of the
	// model; NoView leaves the cfg's VIEW out.
	View   string
	NoView bool
	// Extend, when set, is the file of a module that EXTENDS the model and
	// defines more of it (waypoints): it becomes the root module, with the
	// model's cfg. It may declare no variable of its own, so that its
	// states are the model's.
	Extend string
	// Env is the environment IOEnv answers (nil: the process's).
	Env map[string]string
	// Interpret evaluates with the interpreter alone, compiling no
	// definition into closures: slower, for comparing the two evaluators.
	Interpret bool
}

// Load parses the spec's modules and its cfg, applies the changes, and
// compiles the model. A problem with the modules is an *eval.LoadError, one
// with the cfg an *eval.ConfigError (LoadFailure says TLC's exit code).
func Load(s Spec) (*Model, error) {
	ld, mod, conf, err := parse(s, nil)
	if err != nil {
		return nil, err
	}
	return eval.BuildWith(ld, mod, conf, eval.LoadOptions{Env: s.Env, Interpret: s.Interpret})
}

// Parse reads the spec's modules and its cfg without compiling them: the
// error Load would meet first there, if any.
func Parse(s Spec) error {
	_, _, _, err := parse(s, nil)
	return err
}

// ViewName is the VIEW the spec's cfg names ("" for none), after s.View
// and s.NoView.
func ViewName(s Spec) (string, error) {
	_, _, conf, err := parse(s, nil)
	if err != nil {
		return "", err
	}
	return conf.View.Name, nil
}

// LoadFailure is TLC's exit code and result name for an error of Load: a
// false assumption, a cfg error, a parse error, or another failure.
func LoadFailure(err error) (int, string) { return check.LoadFailure(err) }

// parse reads a spec's modules and its cfg (conf, when not nil, is the
// cfg already read), with s's changes applied.
func parse(s Spec, conf *cfg.Config) (*syntax.Loader, *syntax.Module, *cfg.Config, error) {
	ld := syntax.NewLoader()
	var mod *syntax.Module
	if s.Source != nil {
		mods, err := syntax.ParseSource(s.Module, s.Source)
		if err != nil {
			return nil, nil, nil, &eval.LoadError{Err: err}
		}
		ld.Add(mods...)
		mod = syntax.MainModule(s.Module, mods)
	} else {
		var err error
		if mod, err = ld.LoadFile(s.Module); err != nil {
			return nil, nil, nil, &eval.LoadError{Err: err}
		}
	}
	if conf == nil {
		var err error
		if conf, err = readConfig(s); err != nil {
			return nil, nil, nil, err
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

// readConfig parses the spec's cfg.
func readConfig(s Spec) (*cfg.Config, error) {
	var conf *cfg.Config
	var err error
	switch {
	case s.ConfigSource != nil:
		conf, err = cfg.Parse(s.Config, s.ConfigSource)
	case s.Config != "":
		conf, err = cfg.ParseFile(s.Config)
	default:
		conf, err = cfg.ParseFile(strings.TrimSuffix(s.Module, filepath.Ext(s.Module)) + ".cfg")
	}
	if err != nil {
		return nil, &eval.ConfigError{Err: err}
	}
	return conf, nil
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
