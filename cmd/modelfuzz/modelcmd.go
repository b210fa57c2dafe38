package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/modelfuzz/modelfuzz/campaign"
	"github.com/modelfuzz/modelfuzz/models"
	"github.com/modelfuzz/modelfuzz/tlc/check"
)

func newModelCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "model",
		Short: "Look at a model: its coverage abstractions, its known disagreements with the system",
	}
	cmd.AddCommand(newModelSizeCmd(), newModelKnownCmd())
	return cmd
}

func newModelKnownCmd() *cobra.Command {
	var (
		model, config string
		known         []string
	)
	cmd := &cobra.Command{
		Use:   "known --model etcdraft.tla [--known FILE]",
		Short: "List the known disagreements of a trace spec with the system, and the spec's hash",
		Long: `List the known disagreements of a trace spec with the system that a
campaign with --model counts apart, not as bugs: those modelfuzz ships, the
ones of SPEC.known.json beside the spec, and those of --known files. Also
prints the spec's hash, which a known-disagreements file names (entries
written for another version of the spec do not apply). docs/known.md
describes the files.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if model == "" {
				return fmt.Errorf("--model is required (etcdraft.tla, or a path to Traceetcdraft.tla)")
			}
			text, err := campaign.KnownText(model, config, known)
			if err != nil {
				return err
			}
			fmt.Fprint(cmd.OutOrStdout(), text)
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&model, "model", "", "the trace spec: etcdraft.tla (etcd raft's Traceetcdraft.tla from the module cache) or a path to Traceetcdraft.tla")
	fs.StringVar(&config, "model-config", "", "its cfg (default: the spec's, .cfg)")
	fs.StringArrayVar(&known, "known", nil, "a known-disagreements file besides the shipped ones (repeatable)")
	return cmd
}

func newModelSizeCmd() *cobra.Command {
	var (
		spec      models.Spec
		views     string
		maxDepth  int
		maxStates int64
		workers   int
		jsonOut   bool
	)
	cmd := &cobra.Command{
		Use:   "size --model MODEL [--view V1,V2] --max-depth N",
		Short: "Count the abstract states of coverage abstractions within bounds",
		Long: `Count how many abstract states each coverage abstraction (a VIEW: a
definition of the model) makes of the model's states within bounds. The
states are searched breadth-first without any VIEW, within the cfg's
CONSTRAINTs and --max-depth/--max-states, and each view is evaluated on
every state reached.

An abstraction's size is the most coverage by it can reach: a view that
keeps every detail rewards any new input, one that keeps what matters
rewards the inputs that reach it. Measure a view before guiding a campaign
with it (modelfuzz run --model-config CFG whose VIEW names it).

Example: modelfuzz model size --model raft.tla --view View,OrderView,ShapeView --max-depth 9`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case maxDepth < 0 || maxDepth == 0 && cmd.Flags().Changed("max-depth"):
				return fmt.Errorf("--max-depth must be at least 1, got %d", maxDepth)
			case maxStates < 0:
				return fmt.Errorf("--max-states must not be negative, got %d", maxStates)
			case workers < 0:
				return fmt.Errorf("--workers must not be negative, got %d (0: one per CPU)", workers)
			}
			var names []string
			for _, v := range strings.Split(views, ",") {
				if v = strings.TrimSpace(v); v != "" {
					names = append(names, v)
				}
			}
			if len(names) == 0 {
				v, err := models.ViewName(spec)
				if err != nil {
					code, _ := check.LoadFailure(err)
					return &exitError{code, err}
				}
				if v == "" {
					return fmt.Errorf("the model's cfg has no VIEW: name the views to measure with --view")
				}
				names = []string{v}
			}
			if maxDepth <= 0 && maxStates <= 0 {
				return fmt.Errorf("--max-depth or --max-states is required: a model's states are rarely finite within a campaign's bounds")
			}
			res, err := models.Size(spec, names, models.SizeOptions{MaxDepth: maxDepth, MaxStates: maxStates, Workers: workers})
			if err != nil {
				code, _ := check.LoadFailure(err)
				return &exitError{code, err}
			}
			printSize(cmd.OutOrStdout(), res, jsonOut)
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&spec.Model, "model", "", "the model: an embedded one (raft.tla, microbench.tla) or a .tla file")
	fs.StringVar(&spec.Config, "model-config", "", "the model's cfg (default: MODEL.cfg), for its constants, constraints and VIEW")
	fs.StringArrayVar(&spec.Consts, "const", nil, "set a constant, NAME=VALUE in cfg syntax (repeatable)")
	fs.StringVar(&views, "view", "", "the views to measure, comma-separated definitions of the model (default: the cfg's VIEW)")
	fs.IntVar(&maxDepth, "max-depth", 0, "search the states within this many steps of an initial state (an initial state is at depth 1)")
	fs.Int64Var(&maxStates, "max-states", 0, "stop the search after this many distinct states")
	fs.IntVar(&workers, "workers", 0, "search workers (default: one per CPU)")
	fs.BoolVar(&jsonOut, "json", false, "print the result as one JSON object")
	return cmd
}

func printSize(w io.Writer, res *models.SizeResult, asJSON bool) {
	if asJSON {
		b, _ := json.Marshal(res)
		fmt.Fprintln(w, string(b))
		return
	}
	bound := "the cfg's bounds (complete)"
	if !res.Complete {
		bound = fmt.Sprintf("depth %d", res.Depth)
	}
	fmt.Fprintf(w, "%d distinct states within %s\n", res.States, bound)
	fmt.Fprintf(w, "%-20s %16s %12s\n", "view", "abstract states", "of states")
	for _, v := range res.Views {
		fmt.Fprintf(w, "%-20s %16d %11.1f%%\n", v.View, v.Abstract, 100*float64(v.Abstract)/float64(max(res.States, 1)))
	}
}
