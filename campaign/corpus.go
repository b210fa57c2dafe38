package campaign

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/modelfuzz/modelfuzz/corpus"
	"github.com/modelfuzz/modelfuzz/internal/jsonerr"
	"github.com/modelfuzz/modelfuzz/record"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// Import adds input files (or every input file of a directory, as Export
// writes them) to the corpus in dir; the next run executes them first. The
// corpus must exist unless create is set (a mistyped --corpus would
// otherwise make a new corpus). Every file is read and checked before
// anything is written, against the stored campaign when there is one (its
// adapter and configuration, and the shape of its inputs: --steps,
// --actions, --max-messages, --crash-quota), else against the system the
// file names: a bad file imports nothing. It returns how many inputs were
// imported.
func Import(dir string, paths []string, create bool) (int, error) {
	if dir == "" {
		return 0, fmt.Errorf("--corpus DIR is required")
	}
	files, err := inputFiles(paths)
	if err != nil {
		return 0, err
	}
	type file struct {
		path string
		in   *schedule.Input
		sys  *schedule.InputSystem
	}
	var ins []file
	for _, f := range files {
		in, sys, err := schedule.ReadInputFile(f)
		if err != nil {
			return 0, err
		}
		ins = append(ins, file{f, in, sys})
	}
	if fi, err := os.Stat(dir); os.IsNotExist(err) && !create {
		return 0, fmt.Errorf("corpus %s: no such directory; check --corpus, or add --create to make a new corpus there", dir)
	} else if err == nil && fi.IsDir() && !create {
		if entries, err := os.ReadDir(dir); err == nil && len(entries) == 0 {
			return 0, fmt.Errorf("corpus %s: empty directory, not a corpus; add --create to make a new corpus there", dir)
		}
	}
	st, err := corpus.Open(dir, corpus.Options{})
	if err != nil {
		return 0, err
	}
	defer st.Close()
	s, err := StoredSettings(st)
	if err != nil {
		return 0, err
	}
	for _, f := range ins {
		if err := fitsCampaign(s, f.in, f.sys); err != nil {
			return 0, fmt.Errorf("input %s: %v", f.path, err)
		}
	}
	snap, err := st.Load(-1)
	if err != nil {
		return 0, err
	}
	c := snap.Counters
	if c.NextInputID == 0 {
		c.NextInputID = 1
	}
	batch := &record.Batch{Counters: &c}
	for _, f := range ins {
		batch.Inputs = append(batch.Inputs, &record.InputRecord{ID: c.NextInputID, Source: "import", Input: f.in})
		c.NextInputID++
	}
	return len(ins), st.Commit(batch)
}

// fitsCampaign checks an input to import against the campaign s (nil: no
// campaign yet, then against the system the file names, named, if any).
func fitsCampaign(s *Settings, in *schedule.Input, named *schedule.InputSystem) error {
	if s == nil {
		if named == nil {
			return nil
		}
		ad, err := LookupAdapter(named.Adapter)
		if err != nil {
			return err
		}
		sys, err := ad.Open(named.Config, nil)
		if err != nil {
			return fmt.Errorf("the system it names: %v", err)
		}
		defer sys.Close()
		return in.Validate(sys.Spec())
	}
	if named != nil {
		if named.Adapter != s.Adapter {
			return fmt.Errorf("written for adapter %q, and the campaign runs %s", named.Adapter, s.Adapter)
		}
		if len(named.Config) > 0 && CompactJSON(named.Config) != CompactJSON(s.AdapterConfig) {
			return fmt.Errorf("written for %s %s, and the campaign runs %s %s", named.Adapter, CompactJSON(named.Config), s.Adapter, CompactJSON(s.AdapterConfig))
		}
	}
	ad, err := LookupAdapter(s.Adapter)
	if err != nil {
		return err
	}
	sys, err := ad.Open(s.AdapterConfig, nil)
	if err != nil {
		return err
	}
	defer sys.Close()
	if err := in.Validate(sys.Spec()); err != nil {
		return err
	}
	return s.Shape.Check(in)
}

// inputFiles expands directories into the input files they hold.
func inputFiles(paths []string) ([]string, error) {
	var files []string
	for _, a := range paths {
		st, err := os.Stat(a)
		if err != nil {
			return nil, fmt.Errorf("input %v", jsonerr.FileError(a, err))
		}
		if !st.IsDir() {
			files = append(files, a)
			continue
		}
		m, _ := filepath.Glob(filepath.Join(a, "*.json"))
		slices.Sort(m)
		n := len(files)
		for _, f := range m {
			if !strings.HasSuffix(f, ".meta.json") && filepath.Base(f) != "campaign.json" {
				files = append(files, f)
			}
		}
		if len(files) == n {
			return nil, fmt.Errorf("input directory %s: no input files (*.json) in it", a)
		}
	}
	return files, nil
}

// Export writes the campaign in store as files under out: campaign.json,
// inputs/ID.json and, for every bug, bugs/ID.json (the input that found
// it), bugs/ID.min.json (its minimized input, when it has one: the
// reproducer to hand on) and bugs/ID.meta.json. It returns the numbers of
// inputs and bugs written.
func Export(store *corpus.Store, out string) (inputs, bugs int, err error) {
	snap, err := store.Load(-1)
	if err != nil {
		return 0, 0, err
	}
	s, err := StoredSettings(store)
	if err != nil {
		return 0, 0, err
	}
	for _, d := range []string{"inputs", "bugs"} {
		if err := os.MkdirAll(filepath.Join(out, d), 0o755); err != nil {
			return 0, 0, err
		}
	}
	var sys *schedule.InputSystem // every file replays on the campaign's system
	if s != nil {
		if err := writeJSON(filepath.Join(out, "campaign.json"), s); err != nil {
			return 0, 0, err
		}
		sys = s.InputSystem()
	}
	for _, r := range snap.Inputs {
		if err := os.WriteFile(filepath.Join(out, "inputs", strconv.FormatUint(r.ID, 10)+".json"), schedule.EncodeInputFor(r.Input, sys), 0o644); err != nil {
			return 0, 0, err
		}
	}
	for _, b := range snap.Bugs {
		if err := os.WriteFile(filepath.Join(out, "bugs", b.ID+".json"), schedule.EncodeInputFor(b.Input, sys), 0o644); err != nil {
			return 0, 0, err
		}
		meta := struct {
			ID, Kind, Signature, Message string
			FirstIteration, Hits         int64
			Steps                        int
			MinimizedSteps               int `json:",omitempty"`
		}{b.ID, b.Kind, b.Signature, b.Message, b.FirstIteration, b.Hits, b.Input.Len(), 0}
		if b.Minimized != nil {
			meta.MinimizedSteps = b.Minimized.Len()
			if err := os.WriteFile(filepath.Join(out, "bugs", b.ID+".min.json"), schedule.EncodeInputFor(b.Minimized, sys), 0o644); err != nil {
				return 0, 0, err
			}
		}
		if err := writeJSON(filepath.Join(out, "bugs", b.ID+".meta.json"), meta); err != nil {
			return 0, 0, err
		}
	}
	return len(snap.Inputs), len(snap.Bugs), nil
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
