package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/modelfuzz/modelfuzz/campaign"
	"github.com/modelfuzz/modelfuzz/corpus"
	"github.com/modelfuzz/modelfuzz/fuzzer"
)

func newCorpusCmd() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "corpus",
		Short: "Inspect, export and import the inputs and bugs of a campaign",
	}
	cmd.PersistentFlags().StringVar(&dir, "corpus", "", "campaign directory (required)")
	// withStore runs fn on the existing corpus in --corpus.
	withStore := func(fn func(st *corpus.Store) error) error {
		if dir == "" {
			return fmt.Errorf("--corpus DIR is required")
		}
		st, err := corpus.Open(dir, corpus.Options{MustExist: true})
		if err != nil {
			return err
		}
		defer st.Close()
		return fn(st)
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the stored inputs and bugs",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withStore(func(st *corpus.Store) error { return listCorpus(cmd.OutOrStdout(), st) })
		},
	}
	show := &cobra.Command{
		Use:   "show (INPUT_ID | BUG_ID)",
		Short: "Print one stored input or bug as JSON",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withStore(func(st *corpus.Store) error {
				v, err := lookupRecord(st, args[0])
				if err != nil {
					return err
				}
				b, _ := json.MarshalIndent(v, "", "  ")
				fmt.Fprintln(cmd.OutOrStdout(), string(b))
				return nil
			})
		},
	}
	cmd.AddCommand(list, show, newCorpusExportCmd(&dir, withStore), newCorpusImportCmd(&dir), newCorpusStatsCmd(withStore))
	return cmd
}

func newCorpusExportCmd(dir *string, withStore func(func(*corpus.Store) error) error) *cobra.Command {
	var outDir string
	export := &cobra.Command{
		Use:   "export --out DIR",
		Short: "Write every input and bug as JSON files (inputs/ID.json, bugs/ID.json and its minimized bugs/ID.min.json, campaign.json)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if outDir == "" {
				return fmt.Errorf("--out DIR is required")
			}
			return withStore(func(st *corpus.Store) error {
				inputs, bugs, err := campaign.Export(st, outDir)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "exported %d inputs and %d bugs to %s\n", inputs, bugs, outDir)
				return nil
			})
		},
	}
	export.Flags().StringVar(&outDir, "out", "", "directory to write into")
	return export
}

func newCorpusImportCmd(dir *string) *cobra.Command {
	return &cobra.Command{
		Use:   "import FILE_OR_DIR...",
		Short: "Add input files to the corpus; the next run executes them first",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			n, err := campaign.Import(*dir, args)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "imported %d input(s) into %s; the next run executes them first\n", n, *dir)
			return nil
		},
	}
}

func newCorpusStatsCmd(withStore func(func(*corpus.Store) error) error) *cobra.Command {
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
			return withStore(func(st *corpus.Store) error {
				recs, err := st.Stats()
				if err != nil {
					return err
				}
				return printStats(cmd.OutOrStdout(), recs, statsJSON)
			})
		},
	}
	stats.Flags().BoolVar(&statsJSON, "json", false, "one JSON object per snapshot and line")
	return stats
}

// listCorpus prints a campaign's settings, counters, inputs and bugs.
func listCorpus(w io.Writer, st *corpus.Store) error {
	camp, err := campaign.StoredSettings(st)
	if err != nil {
		return err
	}
	snap, err := st.Load(-1)
	if err != nil {
		return err
	}
	if camp != nil {
		fmt.Fprintf(w, "campaign: adapter %s %s, strategy %s, seed %d, created %s\n", camp.Adapter, campaign.CompactJSON(camp.AdapterConfig), camp.Strategy, camp.Seed, camp.Created)
		fmt.Fprintf(w, "inputs: %d steps, %d requests, at most %d messages a delivery, %d crashes; actions %s\n",
			camp.Steps, camp.Requests, camp.MaxMessages, camp.CrashQuota, campaignActions(camp))
	}
	c := snap.Counters
	fmt.Fprintf(w, "iterations %d over %d session(s), %.1fs; coverage:", c.Iterations, c.Sessions, c.RunSeconds)
	for _, m := range slices.Sorted(maps.Keys(snap.Coverage)) {
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
}

// printStats prints stats snapshots as CSV (one column per measure) or
// JSON lines.
func printStats(w io.Writer, recs []*fuzzer.StatsRecord, asJSON bool) error {
	if asJSON {
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
	ms := slices.Sorted(maps.Keys(measures))
	fmt.Fprint(w, "seq,time,run_seconds,session,iterations,execs_per_sec,corpus,bugs,failures")
	for _, m := range ms {
		fmt.Fprintf(w, ",%s", m)
	}
	fmt.Fprintln(w, ",rss_bytes,heap_bytes,queue,pool,dropped")
	for _, r := range recs {
		fmt.Fprintf(w, "%d,%s,%g,%d,%d,%g,%d,%d,%d", r.Seq, r.Time, r.RunSeconds, r.Session, r.Iterations, r.ExecsPerSec, r.Corpus, r.Bugs, r.Failures)
		for _, m := range ms {
			fmt.Fprintf(w, ",%d", r.Coverage[m])
		}
		fmt.Fprintf(w, ",%d,%d,%d,%d,%d\n", r.RSSBytes, r.HeapBytes, r.Queue, r.Pool, r.Dropped)
	}
	return nil
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
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s +%d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// campaignActions lists the actions of a campaign's generated inputs;
// campaigns stored before --actions used the first five.
func campaignActions(camp *campaign.Settings) string {
	if camp.Actions != "" {
		return camp.Actions
	}
	return "deliver,crash,restart,timeout,request"
}
