package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/modelfuzz/modelfuzz/campaign"
	"github.com/modelfuzz/modelfuzz/corpus"
	"github.com/modelfuzz/modelfuzz/record"
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
		st, err := corpus.Open(dir, corpus.Options{MustExist: true, ReadOnly: true})
		if err != nil {
			return err
		}
		defer st.Close()
		noteSnapshot(os.Stderr, st)
		return fn(st)
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the stored inputs and bugs",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withStore(func(st *corpus.Store) error { return listCorpus(cmd.OutOrStdout(), st) })
		},
	}
	show := &cobra.Command{
		Use:   "show (INPUT_ID | BUG_ID)",
		Short: "Print one stored input or bug as JSON",
		Args:  exactArgs(1),
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
	cmd.AddCommand(list, show, newCorpusExportCmd(&dir, withStore), newCorpusImportCmd(&dir), newCorpusStatsCmd(withStore),
		newCorpusRepairCmd(&dir))
	return cmd
}

func newCorpusExportCmd(dir *string, withStore func(func(*corpus.Store) error) error) *cobra.Command {
	var outDir string
	export := &cobra.Command{
		Use:   "export (--out DIR | DIR)",
		Short: "Write every input and bug as JSON files (inputs/ID.json, bugs/ID.json and its minimized bugs/ID.min.json, campaign.json)",
		Args:  maximumArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 1 && outDir != "" && args[0] != outDir:
				return fmt.Errorf("corpus export: two directories to write into, --out %s and %s; give one", outDir, args[0])
			case len(args) == 1:
				outDir = args[0]
			case outDir == "":
				return fmt.Errorf("corpus export needs the directory to write into: --out DIR (or DIR)")
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
	export.Flags().StringVar(&outDir, "out", "", "directory to write into (or give it as the argument)")
	return export
}

func newCorpusImportCmd(dir *string) *cobra.Command {
	return &cobra.Command{
		Use:   "import FILE_OR_DIR...",
		Short: "Add input files to the corpus; the next run executes them first",
		Args:  minimumArgs(1),
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
		Args: noArgs,
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
func printStats(w io.Writer, recs []*record.StatsRecord, asJSON bool) error {
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

func newCorpusRepairCmd(dir *string) *cobra.Command {
	return &cobra.Command{
		Use:   "repair DIR",
		Short: "Rebuild a damaged corpus from what can still be read, and say what was lost",
		Long: `Rebuild the database of a corpus that cannot be opened (a table file cut
short or overwritten, for example after a disk fault): every table file that
can be read with its checksums intact, and the commits not yet in a table
(the memtable logs), go into a new database; the old one is kept next to it
as db.damaged. It prints what was read, what was lost (inputs and bugs by
id), and raises the campaign's counters to what the surviving records
need, so that "modelfuzz run" on the same corpus continues the campaign.
A corpus that opens as it is is left alone. The corpus may also be given
with --corpus.`,
		Args: maximumArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d := *dir
			if len(args) == 1 {
				if d != "" && d != args[0] {
					return fmt.Errorf("two corpora given: %s and --corpus %s", args[0], d)
				}
				d = args[0]
			}
			if d == "" {
				return fmt.Errorf("which corpus? modelfuzz corpus repair DIR")
			}
			rep, err := corpus.Repair(d)
			if err != nil {
				return err
			}
			printRepair(cmd.OutOrStdout(), rep)
			return nil
		},
	}
}

// noteSnapshot says on stderr that what a command shows is a snapshot.
func noteSnapshot(w io.Writer, st *corpus.Store) {
	if why := st.ReadOnly(); why != "" {
		fmt.Fprintf(w, "corpus %s: %s; reading a snapshot of it taken now\n", st.Dir(), why)
	}
}

// printRepair prints what corpus repair did and lost.
func printRepair(w io.Writer, r *corpus.RepairReport) {
	if r.Nothing {
		fmt.Fprintf(w, "corpus %s: the database opens and every table reads with its checksums intact: nothing to repair\n", r.Dir)
		return
	}
	fmt.Fprintf(w, "corpus %s: repaired from %d readable table file(s) and %d entries of the memtable logs\n", r.Dir, r.Tables, r.Logged)
	for _, d := range r.Damaged {
		fmt.Fprintf(w, "  unreadable, its entries lost: %s\n", d)
	}
	if r.LogNote != "" {
		fmt.Fprintf(w, "  the memtable logs could not be read back, the commits not yet in a table are lost: %s\n", r.LogNote)
	}
	if r.Lost > 0 {
		fmt.Fprintf(w, "  %d entries whose value was in the value log are lost\n", r.Lost)
	}
	fmt.Fprintf(w, "kept: %d input(s), %d bug(s), %d coverage item(s), %d stats snapshot(s)\n", r.Inputs, r.Bugs, r.Coverage, r.Stats)
	lost := false
	if len(r.MissingInputs) > 0 {
		lost = true
		fmt.Fprintf(w, "lost: %d input(s): %s\n", len(r.MissingInputs), idRanges(r.MissingInputs))
	}
	if len(r.MissingBugs) > 0 {
		lost = true
		fmt.Fprintf(w, "lost: %d bug(s): %s\n", len(r.MissingBugs), strings.Join(r.MissingBugs, ", "))
	}
	if !r.Campaign {
		lost = true
		fmt.Fprintln(w, "lost: the campaign's settings; the next run stores those of its command line")
	}
	if !lost {
		fmt.Fprintln(w, "lost: no input, bug or setting (coverage items and stats snapshots in the lost tables are not counted)")
	}
	if r.CountersRebuilt {
		fmt.Fprintln(w, "counters: raised to what the surviving records need")
	}
	fmt.Fprintf(w, "the old database is in %s (delete it when done); \"modelfuzz run --corpus %s\" continues the campaign\n", r.Kept, r.Dir)
}

// idRanges writes ids (sorted) as ranges: 3, 7-12, 20.
func idRanges(ids []uint64) string {
	var parts []string
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.FormatUint(ids[i], 10))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", ids[i], ids[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}
