package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/modelfuzz/modelfuzz/corpus"
	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/schedule"
)

func newCorpusCmd() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "corpus",
		Short: "Inspect, export and import the inputs and bugs of a campaign",
	}
	cmd.PersistentFlags().StringVar(&dir, "corpus", "", "campaign directory (required)")
	open := func(create bool) (*corpus.Store, error) {
		if dir == "" {
			return nil, fmt.Errorf("--corpus DIR is required")
		}
		return corpus.Open(dir, corpus.Options{MustExist: !create})
	}

	list := &cobra.Command{
		Use:   "list",
		Short: "List the stored inputs and bugs",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := open(false)
			if err != nil {
				return err
			}
			defer st.Close()
			camp, err := st.Campaign()
			if err != nil {
				return err
			}
			snap, err := st.Load(-1)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if camp != nil {
				fmt.Fprintf(w, "campaign: adapter %s %s, strategy %s, seed %d, created %s\n", camp.Adapter, compactJSON(camp.AdapterConfig), camp.Strategy, camp.Seed, camp.Created)
			}
			c := snap.Counters
			fmt.Fprintf(w, "iterations %d over %d session(s), %.1fs; coverage:", c.Iterations, c.Sessions, c.RunSeconds)
			for _, m := range sortedCoverage(snap.Coverage) {
				fmt.Fprintf(w, " %s %d", m, len(snap.Coverage[m]))
			}
			fmt.Fprintf(w, "\n\ninputs (%d):\n", len(snap.Inputs))
			tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
			fmt.Fprintln(tw, "  ID\tSOURCE\tITERATION\tSTEPS\tNEW COVERAGE")
			for _, r := range snap.Inputs {
				fmt.Fprintf(tw, "  %d\t%s\t%d\t%d\t%s\n", r.ID, r.Source, r.Iteration, r.Input.Len(), newItemsText(r.NewItems))
			}
			tw.Flush()
			fmt.Fprintf(w, "\nbugs (%d):\n", len(snap.Bugs))
			tw = tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
			fmt.Fprintln(tw, "  ID\tKIND\tHITS\tFIRST\tLAST\tSTEPS\tSIGNATURE")
			for _, b := range snap.Bugs {
				fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%d\t%d\t%s\n", b.ID, b.Kind, b.Hits, b.FirstIteration, b.LastIteration, b.Input.Len(), b.Signature)
			}
			return tw.Flush()
		},
	}

	show := &cobra.Command{
		Use:   "show (INPUT_ID | BUG_ID)",
		Short: "Print one stored input or bug as JSON",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := open(false)
			if err != nil {
				return err
			}
			defer st.Close()
			v, err := lookupRecord(st, args[0])
			if err != nil {
				return err
			}
			b, _ := json.MarshalIndent(v, "", "  ")
			fmt.Fprintln(cmd.OutOrStdout(), string(b))
			return nil
		},
	}

	var outDir string
	export := &cobra.Command{
		Use:   "export --out DIR",
		Short: "Write every input and bug as JSON files (inputs/ID.json, bugs/ID.json, campaign.json)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if outDir == "" {
				return fmt.Errorf("--out DIR is required")
			}
			st, err := open(false)
			if err != nil {
				return err
			}
			defer st.Close()
			snap, err := st.Load(-1)
			if err != nil {
				return err
			}
			camp, err := st.Campaign()
			if err != nil {
				return err
			}
			for _, d := range []string{"inputs", "bugs"} {
				if err := os.MkdirAll(filepath.Join(outDir, d), 0o755); err != nil {
					return err
				}
			}
			if camp != nil {
				b, _ := json.MarshalIndent(camp, "", "  ")
				if err := os.WriteFile(filepath.Join(outDir, "campaign.json"), append(b, '\n'), 0o644); err != nil {
					return err
				}
			}
			for _, r := range snap.Inputs {
				if err := os.WriteFile(filepath.Join(outDir, "inputs", strconv.FormatUint(r.ID, 10)+".json"), schedule.EncodeInput(r.Input), 0o644); err != nil {
					return err
				}
			}
			for _, b := range snap.Bugs {
				if err := os.WriteFile(filepath.Join(outDir, "bugs", b.ID+".json"), schedule.EncodeInput(b.Input), 0o644); err != nil {
					return err
				}
				meta, _ := json.MarshalIndent(struct {
					ID, Kind, Signature, Message string
					FirstIteration, Hits         int64
				}{b.ID, b.Kind, b.Signature, b.Message, b.FirstIteration, b.Hits}, "", "  ")
				if err := os.WriteFile(filepath.Join(outDir, "bugs", b.ID+".meta.json"), append(meta, '\n'), 0o644); err != nil {
					return err
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "exported %d inputs and %d bugs to %s\n", len(snap.Inputs), len(snap.Bugs), outDir)
			return nil
		},
	}
	export.Flags().StringVar(&outDir, "out", "", "directory to write into")

	imp := &cobra.Command{
		Use:   "import FILE_OR_DIR...",
		Short: "Add input files to the corpus; the next run executes them first",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var files []string
			for _, a := range args {
				st, err := os.Stat(a)
				if err != nil {
					return fmt.Errorf("import: %v", err)
				}
				if !st.IsDir() {
					files = append(files, a)
					continue
				}
				m, _ := filepath.Glob(filepath.Join(a, "*.json"))
				sort.Strings(m)
				for _, f := range m {
					if !strings.HasSuffix(f, ".meta.json") && filepath.Base(f) != "campaign.json" {
						files = append(files, f)
					}
				}
			}
			// Parse everything before writing anything: a bad file imports nothing.
			var ins []*schedule.Input
			for _, f := range files {
				data, err := os.ReadFile(f)
				if err != nil {
					return fmt.Errorf("import: %v", err)
				}
				in, err := schedule.DecodeInput(data)
				if err != nil {
					return fmt.Errorf("import %s: %v", f, err)
				}
				ins = append(ins, in)
			}
			st, err := open(true)
			if err != nil {
				return err
			}
			defer st.Close()
			if camp, err := st.Campaign(); err != nil {
				return err
			} else if camp != nil {
				info, err := lookupAdapter(camp.Adapter)
				if err != nil {
					return err
				}
				fac, err := info.fromConfig(camp.AdapterConfig)
				if err != nil {
					return err
				}
				for i, in := range ins {
					if err := in.Validate(fac.Spec()); err != nil {
						return fmt.Errorf("import %s: %v", files[i], err)
					}
				}
			}
			snap, err := st.Load(-1)
			if err != nil {
				return err
			}
			c := snap.Counters
			if c.NextInputID == 0 {
				c.NextInputID = 1
			}
			batch := &fuzzer.Batch{Counters: &c}
			for _, in := range ins {
				batch.Inputs = append(batch.Inputs, &fuzzer.InputRecord{ID: c.NextInputID, Source: "import", Input: in})
				c.NextInputID++
			}
			if err := st.Commit(batch); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "imported %d input(s) into %s; the next run executes them first\n", len(ins), dir)
			return nil
		},
	}
	var statsJSON bool
	stats := &cobra.Command{
		Use:   "stats",
		Short: "Print the campaign's stats snapshots (coverage over time) as CSV, or JSON lines",
		Long: `Print the stats snapshots a campaign stored every --stats-every: fuzzing
time over all sessions, iterations, executions per second, corpus size,
bugs, every measure's coverage and the process's memory. CSV with a
header by default (one column per measure), --json for one JSON object per
line. This is coverage over time, across restarts, ready to plot.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := open(false)
			if err != nil {
				return err
			}
			defer st.Close()
			recs, err := st.Stats()
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if statsJSON {
				enc := json.NewEncoder(w)
				for _, r := range recs {
					if err := enc.Encode(r); err != nil {
						return err
					}
				}
				return nil
			}
			measures := map[string]bool{}
			for _, r := range recs {
				for m := range r.Coverage {
					measures[m] = true
				}
			}
			var ms []string
			for m := range measures {
				ms = append(ms, m)
			}
			sort.Strings(ms)
			fmt.Fprint(w, "seq,time,run_seconds,session,iterations,execs_per_sec,corpus,bugs,failures")
			for _, m := range ms {
				fmt.Fprintf(w, ",%s", m)
			}
			fmt.Fprintln(w, ",rss_bytes,heap_bytes")
			for _, r := range recs {
				fmt.Fprintf(w, "%d,%s,%g,%d,%d,%g,%d,%d,%d", r.Seq, r.Time, r.RunSeconds, r.Session, r.Iterations, r.ExecsPerSec, r.Corpus, r.Bugs, r.Failures)
				for _, m := range ms {
					fmt.Fprintf(w, ",%d", r.Coverage[m])
				}
				fmt.Fprintf(w, ",%d,%d\n", r.RSSBytes, r.HeapBytes)
			}
			return nil
		},
	}
	stats.Flags().BoolVar(&statsJSON, "json", false, "one JSON object per snapshot and line")
	cmd.AddCommand(list, show, export, imp, stats)
	return cmd
}

func lookupRecord(st *corpus.Store, id string) (any, error) {
	if strings.HasPrefix(id, "B") {
		return st.Bug(id)
	}
	n, err := strconv.ParseUint(id, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("%q is neither an input id (12) nor a bug id (B1)", id)
	}
	return st.Input(n)
}

func newItemsText(m map[string]int) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s +%d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func sortedCoverage(m map[string][]uint64) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
