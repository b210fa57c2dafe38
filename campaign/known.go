package campaign

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/go-hclog"

	"github.com/modelfuzz/modelfuzz/guidance"
	"github.com/modelfuzz/modelfuzz/models"
)

// KnownBeside is the known-disagreements file a campaign reads beside its
// trace spec: SPEC.known.json for SPEC.tla.
func KnownBeside(spec string) string { return strings.TrimSuffix(spec, ".tla") + ".known.json" }

// KnownFiles reads the known-disagreements files of a trace spec: the ones
// modelfuzz ships (written into dir, since their witnesses are read as
// files), the file beside the spec when there is one, and the files given.
func KnownFiles(spec, dir string, given []string) ([]*guidance.KnownFile, error) {
	var files []*guidance.KnownFile
	shipped := models.KnownFiles()
	for name, data := range shipped {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return nil, fmt.Errorf("known disagreements: %v", err)
		}
	}
	f, err := guidance.ParseKnown(filepath.Join(dir, models.EtcdraftKnown), shipped[models.EtcdraftKnown])
	if err != nil {
		return nil, fmt.Errorf("the shipped known disagreements: %v", err)
	}
	files = append(files, f)
	paths := given
	if beside := KnownBeside(spec); fileExists(beside) {
		paths = append([]string{beside}, paths...)
	}
	for _, p := range paths {
		f, err := guidance.ReadKnown(p)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// newSpecMeasure is the measure of a campaign with a trace spec: each
// execution's own trace validated against it, with the spec's known
// disagreements (KnownFiles) marked as known.
func newSpecMeasure(model, config string, given []string, logger hclog.Logger) (*guidance.SpecMeasure, error) {
	spec := models.EtcdraftTraceSpec(model)
	if config == "" {
		config = strings.TrimSuffix(spec, ".tla") + ".cfg"
	}
	// The shipped files are written for the spec to read as it loads;
	// nothing reads them after.
	dir, err := os.MkdirTemp("", "modelfuzz-known-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	files, err := KnownFiles(spec, dir, given)
	if err != nil {
		return nil, err
	}
	hash, err := guidance.SpecHash(spec, config)
	if err != nil {
		return nil, fmt.Errorf("known disagreements: the spec's hash: %v", err)
	}
	set, err := guidance.KnownFor(spec, hash, files...)
	if err != nil {
		return nil, err
	}
	for _, s := range set.Skipped {
		logger.Warn("known disagreements not applied: " + s)
	}
	return guidance.NewSpecMeasure(spec, config, set)
}

// KnownText is "model known": the trace spec of --model, its hash (what a
// known-disagreements file names), the known disagreements that apply to
// it and where each comes from, and the files that do not apply.
func KnownText(model, config string, given []string) (string, error) {
	if !models.IsEtcdraftSpec(model) {
		return "", fmt.Errorf("--model %s: known disagreements are of a trace spec (--model etcdraft.tla, or a path to Traceetcdraft.tla)", model)
	}
	spec := models.EtcdraftTraceSpec(model)
	if config == "" {
		config = strings.TrimSuffix(spec, ".tla") + ".cfg"
	}
	hash, err := guidance.SpecHash(spec, config)
	if err != nil {
		return "", fmt.Errorf("--model %s: %v", model, err)
	}
	dir, err := os.MkdirTemp("", "modelfuzz-known-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	files, err := KnownFiles(spec, dir, given)
	if err != nil {
		return "", err
	}
	set, err := guidance.KnownFor(spec, hash, files...)
	if err != nil {
		return "", err
	}
	var w strings.Builder
	fmt.Fprintf(&w, "spec %s\ncfg %s\nsha256 %s\n", spec, config, hash)
	fmt.Fprintf(&w, "%d known disagreement(s) apply:\n", len(set.Entries))
	for i, k := range set.Entries {
		from := set.From[i]
		if filepath.Dir(from) == dir {
			from = "shipped"
		}
		fmt.Fprintf(&w, "  %-36s %s (%s)\n", k.ID, k.Title, from)
	}
	for _, s := range set.Skipped {
		fmt.Fprintf(&w, "not applied: %s\n", s)
	}
	return w.String(), nil
}
