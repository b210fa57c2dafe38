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
	"github.com/modelfuzz/modelfuzz/record"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// Import adds input files (or every input file of a directory, as Export
// writes them) to the corpus in dir, creating it if needed; the next run
// executes them first. Every file is read and checked (against the stored
// campaign's system, if any) before anything is written: a bad file
// imports nothing. It returns how many inputs were imported.
func Import(dir string, paths []string) (int, error) {
	files, err := inputFiles(paths)
	if err != nil {
		return 0, err
	}
	var ins []*schedule.Input
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return 0, fmt.Errorf("import: %v", err)
		}
		in, err := schedule.DecodeInput(data)
		if err != nil {
			return 0, fmt.Errorf("import %s: %v", f, err)
		}
		ins = append(ins, in)
	}
	if dir == "" {
		return 0, fmt.Errorf("--corpus DIR is required")
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
	if s != nil {
		ad, err := LookupAdapter(s.Adapter)
		if err != nil {
			return 0, err
		}
		sys, err := ad.Open(s.AdapterConfig, nil)
		if err != nil {
			return 0, err
		}
		defer sys.Close()
		for i, in := range ins {
			if err := in.Validate(sys.Spec()); err != nil {
				return 0, fmt.Errorf("import %s: %v", files[i], err)
			}
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
	for _, in := range ins {
		batch.Inputs = append(batch.Inputs, &record.InputRecord{ID: c.NextInputID, Source: "import", Input: in})
		c.NextInputID++
	}
	return len(ins), st.Commit(batch)
}

// inputFiles expands directories into the input files they hold.
func inputFiles(paths []string) ([]string, error) {
	var files []string
	for _, a := range paths {
		st, err := os.Stat(a)
		if err != nil {
			return nil, fmt.Errorf("import: %v", err)
		}
		if !st.IsDir() {
			files = append(files, a)
			continue
		}
		m, _ := filepath.Glob(filepath.Join(a, "*.json"))
		slices.Sort(m)
		for _, f := range m {
			if !strings.HasSuffix(f, ".meta.json") && filepath.Base(f) != "campaign.json" {
				files = append(files, f)
			}
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
