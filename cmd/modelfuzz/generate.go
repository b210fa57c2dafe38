package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/modelfuzz/modelfuzz/campaign"
)

func newGenerateCmd() *cobra.Command {
	var (
		dir, out string
		opt      campaign.GenerateOptions
		jsonOut  bool
	)
	cmd := &cobra.Command{
		Use:   "generate --corpus DIR --max-depth N [--out DIR]",
		Short: "Make schedules from the model's paths to the abstract states a campaign has not reached",
		Long: `Search the campaign's model breadth-first within --max-depth/--max-states,
take the abstract states (values of its cfg's VIEW) that no execution of the
campaign reached, and for each make the system follow a shortest path of the
model to it: the inverse of the campaign's mapper turns every action into the
steps that make the system take it. When it does not get there, paths to
other concrete states of the same view are tried (--alternatives). Each schedule runs on the system and is
measured as the campaign measures; the targets it does not reach are grouped
by the variables in which the nearest state it did reach differs
(docs/generate.md). --out writes the schedules that reached states the
campaign had not, for "modelfuzz corpus import". The corpus is not changed.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opt.Check(); err != nil {
				return err
			}
			env, err := campaign.OpenEnvReadOnly(dir, nil)
			if err != nil {
				return err
			}
			defer env.Close()
			noteSnapshot(cmd.ErrOrStderr(), env.Store)
			res, err := env.Generate(opt)
			if err != nil {
				return err
			}
			if out != "" {
				if err := env.WriteGenerated(res, out); err != nil {
					return err
				}
			}
			if jsonOut {
				b, _ := json.Marshal(res)
				fmt.Fprintln(cmd.OutOrStdout(), string(b))
				return nil
			}
			fmt.Fprint(cmd.OutOrStdout(), res.Text())
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&dir, "corpus", "", "campaign directory (required)")
	fs.IntVar(&opt.MaxDepth, "max-depth", 0, "search the model's states within this many steps of an initial state")
	fs.Int64Var(&opt.MaxStates, "max-states", 0, "stop the search after this many distinct states")
	fs.IntVar(&opt.Limit, "limit", 0, "run at most this many targets, shortest paths first (0: all)")
	fs.IntVar(&opt.Alternatives, "alternatives", 16, "when a target's shortest path does not get the system there, try paths to up to this many more concrete states of its view")
	fs.StringVar(&opt.SearchConfig, "search-config", "", "search the model with this cfg instead of the campaign's (its VIEW must be the campaign's; e.g. CONSTRAINT and ACTION_CONSTRAINT that keep to what the system can do)")
	fs.StringVar(&opt.SearchExtend, "search-extend", "", "a module that EXTENDS the model, defining the operators --search-config names")
	fs.IntVar(&opt.Workers, "workers", 1, "search workers; with more than one the path found to a state may differ from run to run")
	fs.StringArrayVar(&opt.Consts, "const", nil, "set a constant of the search only, NAME=VALUE (a tighter bound of the cfg's CONSTRAINT; repeatable)")
	fs.StringVar(&out, "out", "", "write the schedules that reached new states into this directory, one file each")
	fs.BoolVar(&jsonOut, "json", false, "print the result as one JSON object")
	return cmd
}
