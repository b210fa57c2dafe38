package tlc

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// WriteForTLC writes the spec as TLC itself reads it into dir: the root
// module (a copy of an embedded model's source, or of the file) and the
// cfg with the spec's changes applied (constants, VIEW). It returns the
// two files and the directories TLC must also search for the modules the
// root extends (the root module's own directory, for a file).
func WriteForTLC(s Spec, dir string) (module, config string, libs []string, err error) {
	if s.Extend != "" {
		return "", "", nil, fmt.Errorf("a spec extended by another module is not supported with TLC itself yet")
	}
	_, mod, conf, err := parse(s, nil)
	if err != nil {
		return "", "", nil, err
	}
	src := s.Source
	if src == nil {
		if src, err = os.ReadFile(s.Module); err != nil {
			return "", "", nil, err
		}
		abs, err := filepath.Abs(filepath.Dir(s.Module))
		if err != nil {
			return "", "", nil, err
		}
		libs = append(libs, abs)
	}
	module = filepath.Join(dir, mod.Name+".tla")
	if err := os.WriteFile(module, src, 0o644); err != nil {
		return "", "", nil, err
	}
	// TLC finds the cfg beside the module, by a name of its own.
	config = filepath.Join(dir, strings.TrimSuffix(filepath.Base(module), ".tla")+"_tlc.cfg")
	if err := os.WriteFile(config, []byte(conf.String()), 0o644); err != nil {
		return "", "", nil, err
	}
	return module, config, libs, nil
}
