package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/modelfuzz/modelfuzz/campaign"
	"github.com/modelfuzz/modelfuzz/models"
	"github.com/modelfuzz/modelfuzz/report"
)

func newCompareCmd() *cobra.Command {
	var c campaign.Comparison
	cmd := &cobra.Command{
		Use:   "compare --adapter A --model M --strategies model,line,trace,random --runs R --iterations N --out DIR",
		Short: "Compare coverage guidance strategies on one system: statistics, plots and an HTML report",
		Long: `Run --runs campaigns of every strategy, each of --iterations iterations,
with the seeds --seed, --seed+1, ... (the same seeds for every strategy),
--jobs campaigns at once, each in its own modelfuzz process (so line
coverage counters never mix). Every campaign measures every notion of
coverage the build supports (model states with --model, unique traces,
lines in a coverage build), whatever guides it.

Writes to --out: results.json (per strategy and run: coverage over
iterations with the fuzzing time of each point, final coverage, bugs with
the iteration that found them first), report.html (self-contained), and
plots, each as PNG and SVG: for each measure, coverage over iterations and
over fuzzing time (mean over runs with a min-max band), and the iterations
to the first bug. The report compares --base (default model) against every
other strategy: Mann-Whitney U (p-value) on final coverage, Vargha-Delaney
A12 on final coverage and on the first-bug iteration (a run without a bug
counts as budget + 1), and the same per CPU second: final coverage per
CPU second and the CPU seconds to the first bug (each campaign's user +
system time from its process's rusage; with --stop-on-bug the CPU to its
first bug, otherwise pro rata of its iterations). Divergences from the
model are not counted as bugs.

Line guidance needs the coverage build (make cover; run ./modelfuzz-cover
compare ...).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runCompare(cmd, &c) },
	}
	fs := cmd.Flags()
	c.System.Register(fs)
	fs.StringVar(&c.Model, "model", "", "the TLA+ model measured in every campaign (model states), e.g. raft.tla")
	fs.StringVar(&c.Strategies, "strategies", "model,trace,random", "comma-separated strategies: model, line, trace, random, the online ones (pct, pctcp, pos, dpos, tapct, rounds), the model-seeded ones (model-pctcp, model-dpos, model-pctcp-tails, model-dpos-tails, model-pctcp-genome, model-dpos-genome), model-reorder and the learning ones (walk, negrl, bonusmaxrl, waypointrl); see run --strategy")
	fs.IntVar(&c.Runs, "runs", 5, "campaigns per strategy")
	fs.Int64Var(&c.Iterations, "iterations", 2000, "iterations of every campaign")
	fs.IntVar(&c.Parallel, "jobs", 2, "campaigns run at once (each campaign runs one system instance: run's --parallel 1)")
	// run's --parallel is system instances within one campaign; compare's
	// old --parallel meant campaigns at once. The old spelling still works.
	fs.IntVar(&c.Parallel, "parallel", 2, "campaigns run at once (the old name of --jobs)")
	fs.MarkDeprecated("parallel", "use --jobs: campaigns run at once (run's --parallel is system instances within one campaign)")
	fs.StringVar(&c.Out, "out", "", "directory for results.json, report.html and the plots (required)")
	fs.Uint64Var(&c.Seed, "seed", 1, "seed of the first run; run k uses seed+k")
	fs.StringVar(&c.Base, "base", "model", "the strategy compared against every other one")
	fs.IntVar(&c.Points, "points", 200, "coverage samples recorded per campaign")
	fs.IntVar(&c.Steps, "steps", 0, "steps of a random input (default: the adapter's)")
	fs.IntVar(&c.Mutations, "mutations", 0, "mutants queued per new coverage item in every campaign (default: run's)")
	fs.StringVar(&c.ModelConfig, "model-config", "", "the model's cfg for every campaign (default: MODEL.cfg); its VIEW is the model coverage every strategy is measured by")
	fs.StringVar(&c.Energy, "energy", "", "energy schedule of every campaign: fixed or rare (default: run's)")
	fs.Float64Var(&c.FreshShare, "fresh-share", 0, "with --energy rare: share of iterations that run random inputs (default: run's)")
	fs.IntVar(&c.Stack, "stack", 0, "with --energy rare: most rounds of mutation of an ordinary mutant in every campaign (default: run's)")
	fs.StringVar(&c.Waypoints, "waypoints", "", "passed to the learning strategies (negrl, bonusmaxrl, waypointrl, walk): a module of TLA+ predicates, FILE.tla[:DEF]; waypointrl learns to pass them, the others count the episodes that do")
	fs.StringVar(&c.ReferenceViews, "reference-view", "", "also measure every campaign by these VIEWs of the model (comma-separated; coverage view:NAME), so that strategies are compared on one abstraction besides the cfg's")
	fs.BoolVar(&c.StopOnBug, "stop-on-bug", false, "end each campaign at its first bug (bug-finding experiments; coverage curves then end there)")
	fs.BoolVar(&c.Keep, "keep", false, "keep every campaign's corpus under DIR/runs (default: only the series and summaries)")
	return cmd
}

func runCompare(cmd *cobra.Command, c *campaign.Comparison) error {
	// As for run, the model names its system unless --adapter is given:
	// raft.tla and etcdraft.tla go with etcdraft.
	if c.Model != "" && !cmd.Flags().Changed("adapter") {
		if name := campaign.AdapterForModel(c.Model); name != "" {
			c.System.Adapter = name
		} else if models.IsEtcdraftSpec(c.Model) {
			c.System.Adapter = "etcdraft"
		}
	}
	// The campaigns get the adapter flags as given.
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		if campaign.IsSystemFlag(fl.Name) {
			c.SystemArgs = append(c.SystemArgs, "--"+fl.Name+"="+fl.Value.String())
		}
	})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	w := cmd.ErrOrStderr()
	c.Started = func(n int, names []string) {
		fmt.Fprintf(w, "compare: %d campaigns (%s x %d seeds), %d iterations each, %d at once\n",
			n, strings.Join(names, ", "), c.Runs, c.Iterations, c.Parallel)
	}
	c.Done = func(done, total int, strategy string, seed uint64, r *report.Run, err error) {
		if err != nil {
			fmt.Fprintf(w, "  [%d/%d] %s seed %d: FAILED: %v\n", done, total, strategy, seed, err)
			return
		}
		fmt.Fprintf(w, "  [%d/%d] %s seed %d: %s\n", done, total, strategy, seed, campaign.RunText(r))
	}
	start := time.Now()
	rc, err := c.Run(ctx)
	if err != nil {
		return err
	}
	text, err := campaign.WriteComparisonSummary(rc, c.Out, time.Since(start))
	fmt.Fprint(cmd.OutOrStdout(), text)
	return err
}
