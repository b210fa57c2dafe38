package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/modelfuzz/modelfuzz/internal/cmdline"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/modelfuzz/modelfuzz/campaign"
	"github.com/modelfuzz/modelfuzz/corpus"
	"github.com/modelfuzz/modelfuzz/hub"
	"github.com/modelfuzz/modelfuzz/schedule"
)

func newBugsCmd() *cobra.Command {
	var (
		dir, hubURL string
		jsonOut     bool
	)
	cmd := &cobra.Command{
		Use:   "bugs --corpus DIR",
		Short: "List the distinct bugs of a campaign",
		Long: `List the distinct bugs a campaign found (one row per signature): kind,
how many executions hit it, the first and last iteration, the length of the
input that found it and of its minimized reproducer.

"bugs show ID" replays the reproducer and prints its timeline and, when the
campaign has a model, the model states it visits.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if hubURL != "" {
				return withHub(hubURL, func(cl *hub.Client) error {
					text, err := campaign.HubBugsText(cl, jsonOut)
					fmt.Fprint(cmd.OutOrStdout(), text)
					return err
				})
			}
			return listBugs(cmd.OutOrStdout(), dir, jsonOut)
		},
	}
	cmd.Flags().StringVar(&hubURL, "hub", "", "list the bugs of the campaign at this hub (nats://HOST:4222): one a signature, with every worker's hits")
	cmd.PersistentFlags().StringVar(&dir, "corpus", "", "campaign directory (required)")
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the bugs as a JSON array")

	var original bool
	var timeout time.Duration
	show := &cobra.Command{
		Use:   "show --corpus DIR BUG_ID",
		Short: "Replay a bug's reproducer: its timeline and the model states it visits",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cmdline.NotNegative("--exec-timeout", timeout); err != nil {
				return err
			}
			env, err := campaign.OpenEnvReadOnly(dir, nil)
			if err != nil {
				return err
			}
			defer env.Close()
			noteSnapshot(cmd.ErrOrStderr(), env.Store)
			b, err := env.Store.Bug(args[0])
			if err != nil {
				return err
			}
			text, err := env.BugText(b, original, timeout)
			fmt.Fprint(cmd.OutOrStdout(), text)
			return err
		},
	}
	show.Flags().BoolVar(&original, "original", false, "replay the input that found the bug, not the minimized one")
	show.Flags().DurationVar(&timeout, "exec-timeout", 10*time.Second, "stop a replay that runs longer (a hang)")
	cmd.AddCommand(show, newBugsExportCmd(&dir))
	return cmd
}

// listBugs prints the distinct bugs of the campaign in dir, one row each.
func listBugs(w io.Writer, dir string, jsonOut bool) error {
	if dir == "" {
		return fmt.Errorf("bugs needs --corpus DIR")
	}
	// The store alone: a corpus whose settings a repair could not keep
	// still lists its bugs.
	st, err := corpus.Open(dir, corpus.Options{MustExist: true, ReadOnly: true})
	if err != nil {
		return err
	}
	defer st.Close()
	noteSnapshot(os.Stderr, st)
	bugs, err := st.Bugs()
	if err != nil {
		return err
	}
	if jsonOut {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		return enc.Encode(campaign.BugRows(bugs))
	}
	fmt.Fprint(w, campaign.BugListText(bugs, dir))
	return nil
}

func newMinimizeCmd() *cobra.Command {
	var (
		dir      string
		out      string
		tries    int
		budget   time.Duration
		original bool
		timeout  time.Duration
	)
	cmd := &cobra.Command{
		Use:   "minimize --corpus DIR BUG_ID [--out FILE]",
		Short: "Shrink a bug's input to a small one that shows the same bug",
		Long: `Shrink the input of a stored bug while it still shows the same bug (the
same signature): delta debugging over its steps, then removing crash and
restart pairs and lowering message counts and request values. Every try
replays the candidate deterministically, as the campaign ran it (with its
model, if it had one). The result is stored with the bug (the original
stays) and, with -o, written as an input file.

It starts from the bug's minimized input when there is one (--original:
from the input that found it), so running it again continues a
minimization stopped by its budget. Ctrl-C stops and keeps the best so far.
--out (-o) FILE writes the minimized input, with the campaign's system, as
a file "modelfuzz replay FILE" replays.

Exit status: 0 when it stored a minimized input (which "modelfuzz replay"
then fails on, exit 3), 1 when the bug's input no longer shows the bug
(nothing to minimize) or on an error.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkMinimizeFlags(tries, budget, timeout, out); err != nil {
				return err
			}
			// The bug is looked up in a snapshot first: a refusal leaves
			// the corpus's files as they were (opening it to write
			// rotates its logs).
			if err := campaign.CheckBug(dir, args[0]); err != nil {
				return err
			}
			env, err := campaign.OpenEnv(dir, nil)
			if err != nil {
				return err
			}
			defer env.Close()
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			t0 := time.Now()
			m, err := env.Minimize(ctx, args[0], original, schedule.MinimizeOptions{MaxTries: tries, MaxTime: budget}, timeout)
			if err != nil {
				return err
			}
			if m.Stopped != nil {
				fmt.Fprintf(os.Stderr, "modelfuzz: minimize %s stopped: %v\n", m.Bug.ID, m.Stopped)
			}
			w := cmd.OutOrStdout()
			fmt.Fprint(w, m.Text(dir, time.Since(t0)))
			if out != "" {
				if err := os.WriteFile(out, schedule.EncodeInputFor(m.Bug.Minimized, env.Settings.InputSystem()), 0o644); err != nil {
					return err
				}
				fmt.Fprintf(w, "written to %s\n", out)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "corpus", "", "campaign directory (required)")
	cmd.Flags().StringVarP(&out, "out", "o", "", "also write the minimized input to this file")
	// --output was its name before --out was every command's.
	cmd.Flags().StringVar(&out, "output", "", "")
	_ = cmd.Flags().MarkHidden("output")
	cmd.Flags().IntVar(&tries, "tries", 5000, "most executions to spend")
	cmd.Flags().DurationVar(&budget, "time", 0, "most time to spend (0: no limit)")
	cmd.Flags().BoolVar(&original, "original", false, "start from the input that found the bug, not from its minimized input")
	cmd.Flags().DurationVar(&timeout, "exec-timeout", 10*time.Second, "stop an execution that runs longer (a hang)")
	return cmd
}

// checkMinimizeFlags refuses a budget or --out that minimize cannot use.
func checkMinimizeFlags(tries int, budget, timeout time.Duration, out string) error {
	if tries < 1 {
		return fmt.Errorf("--tries must be at least 1, got %d", tries)
	}
	if err := errors.Join(cmdline.NotNegative("--time", budget), cmdline.NotNegative("--exec-timeout", timeout)); err != nil {
		return err
	}
	if out != "" {
		return cmdline.OutFile("--out", out)
	}
	return nil
}
