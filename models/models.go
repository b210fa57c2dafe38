// Package models holds the TLA+ models modelfuzz ships, embedded into the
// binary, and loads a model by embedded name or by path.
package models

import (
	"embed"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/modelfuzz/modelfuzz/tlc"
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
	// Interpret evaluates with the interpreter alone (tlc.Spec.Interpret).
	Interpret bool
}

// Load parses and compiles a model. A name that is not an existing file
// but names an embedded model loads the embedded one.
func Load(s Spec) (*tlc.Model, error) {
	ts, err := s.source()
	if err != nil {
		return nil, err
	}
	return tlc.Load(ts)
}

// ViewName is the VIEW the model's cfg names ("" for none), after s.View
// and s.NoView.
func ViewName(s Spec) (string, error) {
	ts, err := s.source()
	if err != nil {
		return "", err
	}
	return tlc.ViewName(ts)
}

// source is the model as the engine loads it: its files, or the embedded
// model's sources.
func (s Spec) source() (tlc.Spec, error) {
	if s.Model == "" {
		return tlc.Spec{}, fmt.Errorf("no model given (--model FILE.tla, or one of %s)", strings.Join(Embedded(), ", "))
	}
	if st, err := os.Stat(s.Model); err == nil && st.IsDir() {
		return tlc.Spec{}, fmt.Errorf("model %s: is a directory, not a .tla file", s.Model)
	}
	ts := tlc.Spec{Module: s.Model, Config: s.Config, Consts: s.Consts, View: s.View, NoView: s.NoView, Extend: s.Extend, Interpret: s.Interpret}
	if fileExists(s.Model) {
		if s.Config != "" && !fileExists(s.Config) {
			return tlc.Spec{}, fmt.Errorf("model %s: its cfg %s: no such file", s.Model, s.Config)
		}
		return ts, nil
	}
	name := strings.TrimSuffix(filepath.Base(s.Model), ".tla")
	src, err := files.ReadFile(name + ".tla")
	if err != nil || s.Model != name && s.Model != name+".tla" {
		return tlc.Spec{}, fmt.Errorf("model %s: no such file, and not an embedded model (embedded: %s)", s.Model, strings.Join(Embedded(), ", "))
	}
	ts.Module, ts.Source = name+".tla", src
	if s.Config != "" {
		// An embedded cfg by its bare name only: a path that names no
		// file is an error, not the embedded cfg of the same name.
		if csrc, rerr := files.ReadFile(s.Config); rerr == nil && filepath.Base(s.Config) == s.Config && !fileExists(s.Config) {
			ts.ConfigSource = csrc
		} else if !fileExists(s.Config) {
			return tlc.Spec{}, fmt.Errorf("model %s: its cfg %s: no such file, and not one of the embedded cfgs", s.Model, s.Config)
		}
		return ts, nil
	}
	csrc, err := files.ReadFile(name + ".cfg")
	if err != nil {
		return tlc.Spec{}, &tlc.ConfigError{Err: err}
	}
	ts.Config, ts.ConfigSource = name+".cfg", csrc
	return ts, nil
}

// Source is the text of a model's root module: the file, or the embedded
// model's source.
func Source(model string) ([]byte, error) {
	if fileExists(model) {
		return os.ReadFile(model)
	}
	name := strings.TrimSuffix(filepath.Base(model), ".tla")
	if model == name || model == name+".tla" {
		if src, err := files.ReadFile(name + ".tla"); err == nil {
			return src, nil
		}
	}
	return nil, fmt.Errorf("model %s: no such file, and not an embedded model (embedded: %s)", model, strings.Join(Embedded(), ", "))
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// WriteForTLC writes the model as TLC itself reads it into dir (see
// tlc.WriteForTLC).
func WriteForTLC(s Spec, dir string) (module, config string, libs []string, err error) {
	ts, err := s.source()
	if err != nil {
		return "", "", nil, err
	}
	return tlc.WriteForTLC(ts, dir)
}
