package main

import (
	"encoding/json"
	"fmt"
	"github.com/modelfuzz/modelfuzz/internal/cmdline"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/modelfuzz/modelfuzz/campaign"
	"github.com/modelfuzz/modelfuzz/corpus"
	"github.com/modelfuzz/modelfuzz/hub"
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
			return withStore(func(st *corpus.Store) error {
				text, err := campaign.CorpusListing(st)
				fmt.Fprint(cmd.OutOrStdout(), text)
				return err
			})
		},
	}
	show := &cobra.Command{
		Use:   "show (INPUT_ID | BUG_ID)",
		Short: "Print one stored input or bug as JSON",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withStore(func(st *corpus.Store) error {
				v, err := campaign.LookupRecord(st, args[0])
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
	var outDir, hubURL string
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
			if err := cmdline.OutDir("--out", outDir); err != nil {
				return err
			}
			if hubURL != "" {
				return withHub(hubURL, func(cl *hub.Client) error {
					inputs, bugs, err := campaign.HubExport(cl, outDir)
					fmt.Fprintf(cmd.OutOrStdout(), "exported %d inputs and %d bugs of the hub to %s\n", inputs, bugs, outDir)
					return err
				})
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
	export.Flags().StringVar(&hubURL, "hub", "", "export the campaign at this hub (nats://HOST:4222): every input its workers published (inputs/WORKER-ID.json) and its bugs")
	return export
}

func newCorpusImportCmd(dir *string) *cobra.Command {
	var create bool
	imp := &cobra.Command{
		Use:   "import FILE_OR_DIR...",
		Short: "Add input files to the corpus; the next run executes them first",
		Long: `Add input files (or every *.json input file of a directory, as "corpus
export" writes them) to the campaign in --corpus; the next run executes
them first. Every file is checked before anything is written: against the
campaign's system (its adapter and configuration: process numbers,
actions) and the shape of its inputs (--steps, --actions, --max-messages,
--crash-quota); a bad file imports nothing. The corpus must exist: a
mistyped --corpus is refused, --create makes a new corpus there (its
inputs are then checked against the system each file names).`,
		Args: minimumArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			n, err := campaign.Import(*dir, args, create)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "imported %d input(s) into %s; the next run executes them first\n", n, *dir)
			return nil
		},
	}
	imp.Flags().BoolVar(&create, "create", false, "make a new corpus in --corpus if there is none")
	return imp
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
				table, err := campaign.StatsTable(recs, statsJSON)
				cmd.OutOrStdout().Write(table)
				return err
			})
		},
	}
	stats.Flags().BoolVar(&statsJSON, "json", false, "one JSON object per snapshot and line")
	return stats
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
			fmt.Fprint(cmd.OutOrStdout(), campaign.RepairText(rep))
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
