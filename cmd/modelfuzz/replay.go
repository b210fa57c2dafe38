package main

import (
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/spf13/cobra"

	"github.com/modelfuzz/modelfuzz/campaign"
	"github.com/modelfuzz/modelfuzz/internal/cmdline"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// replayFlags are replay's command line.
type replayFlags struct {
	af        campaign.SystemFlags
	corpusDir string
	jsonOut   bool
	original  bool
	timeout   time.Duration
	repeat    int
	specOut   string
}

func newReplayCmd() *cobra.Command {
	var f replayFlags
	cmd := &cobra.Command{
		Use:   "replay [--corpus DIR] (INPUT.json | INPUT_ID | BUG_ID)",
		Short: "Re-execute an input and print its event trace as a timeline",
		Long: `Re-execute one input and print what happened, step by step.

The input is a JSON file, or the id of an input (12) or of a bug (B1) stored
in --corpus; a bug replays its minimized input when it has one (--original:
the input that found it). With --corpus, the system is configured as the
campaign was and, when the campaign had a model, the execution is checked
against it as well; otherwise the system comes from the adapter flags.
The in-process systems (etcdraft, microbench) are deterministic: the same
input always gives the same trace, byte for byte (--json prints it). Real
processes (process, etcd, redisraft) are not: their own timers and the
operating system's scheduling vary between runs, so --repeat N gives the
replay rate of a failure, with the failures of the first run that failed
and, when runs failed in different ways, how many failed each way.

Exit status, as a test's: 0 when the execution shows no failure, 3 when it
fails (a panic, a safety or linearizability violation, a hang, a divergence
from the model, a model invariant; with --repeat, when any run fails), 1
when it could not be replayed (a usage error, an unreadable input, a
system that does not start).`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return f.replay(cmd, args[0]) },
	}
	f.af.Register(cmd.Flags())
	cmd.Flags().StringVar(&f.corpusDir, "corpus", "", "campaign directory holding the input, and the system's configuration")
	cmd.Flags().BoolVar(&f.jsonOut, "json", false, "print the event trace as JSON instead of a timeline")
	cmd.Flags().BoolVar(&f.original, "original", false, "for a bug: replay the input that found it, not its minimized input")
	cmd.Flags().DurationVar(&f.timeout, "exec-timeout", 10*time.Second, "stop an execution that runs longer and report a hang (0: no limit)")
	cmd.Flags().StringVar(&f.specOut, "spec-trace", "", "also write the system's own trace (NDJSON, as etcd raft's tla/validate.sh reads it) to this file")
	cmd.Flags().IntVar(&f.repeat, "repeat", 1, "replay this many times and print how many gave the same trace as the first (and, for a bug, showed its signature; for an input, failed)")
	return cmd
}

// maxRepeat is the most replays of one --repeat: enough to see a
// nondeterminism, bounded so that a mistyped count does not run for days.
const maxRepeat = 1000

// replay replays the input arg names and prints what happened.
func (f *replayFlags) replay(cmd *cobra.Command, arg string) error {
	if f.repeat < 1 {
		return fmt.Errorf("--repeat must be at least 1, got %d", f.repeat)
	}
	if f.repeat > maxRepeat {
		return fmt.Errorf("--repeat %d: at most %d replays", f.repeat, maxRepeat)
	}
	if err := cmdline.NotNegative("--exec-timeout", f.timeout); err != nil {
		return err
	}
	if f.specOut != "" {
		if err := cmdline.OutFile("--spec-trace", f.specOut); err != nil {
			return err
		}
	}
	f.af.SetGiven(cmd.Flags().Changed)
	t, err := campaign.OpenTarget(f.corpusDir, f.af, arg, f.original, f.timeout)
	if err != nil {
		return err
	}
	defer t.Close()
	in, what, spec := t.Input, t.What, t.Spec
	ex, err := t.Run()
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	if f.specOut != "" {
		n, err := campaign.WriteSpecTrace(f.specOut, ex)
		if err != nil {
			return err
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "wrote the library's trace (%d events) to %s; check it with: modelfuzz tlc validate %s (or the maintainers' tla/validate.sh)\n", n, f.specOut, f.specOut)
	}
	if f.repeat > 1 {
		rep, err := t.Repeat(ex, f.repeat)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "replayed %s %d times: %d/%d gave the same trace as the first", what, rep.Runs, rep.Same, rep.Runs)
		if t.Signature != "" {
			fmt.Fprintf(w, "; %d/%d showed its signature %q", rep.Shows, rep.Runs, t.Signature)
		} else if rep.Failing > 0 {
			fmt.Fprintf(w, "; %d/%d failed", rep.Failing, rep.Runs)
		}
		fmt.Fprintln(w)
		printRepeatFailures(w, rep)
		return failedExit(what, rep.Failed)
	}
	if f.jsonOut {
		w.Write(schedule.EncodeTrace(ex.Trace))
		return failedExit(what, ex.Failures)
	}
	fmt.Fprintf(w, "replay of %s on %s: %d steps, %d events, %d skipped\n\n", what, spec.Name, in.Len(), len(ex.Trace), ex.Skipped)
	fmt.Fprint(w, schedule.Timeline(spec, in, ex))
	if len(ex.Failures) == 0 {
		fmt.Fprintln(w, "\nno failure")
	}
	for _, f := range ex.Failures {
		fmt.Fprint(w, campaign.FailureText(f))
	}
	return failedExit(what, ex.Failures)
}

// printRepeatFailures shows what failing runs of a --repeat showed: the
// first failing run's failures as a single replay prints them, and how
// many runs failed with each first signature when there was more than
// one.
func printRepeatFailures(w io.Writer, rep *campaign.Repeated) {
	if rep.Failed == nil {
		return
	}
	if len(rep.Signatures) > 1 {
		sigs := make([]string, 0, len(rep.Signatures))
		for s := range rep.Signatures {
			sigs = append(sigs, s)
		}
		sort.Slice(sigs, func(i, j int) bool {
			if rep.Signatures[sigs[i]] != rep.Signatures[sigs[j]] {
				return rep.Signatures[sigs[i]] > rep.Signatures[sigs[j]]
			}
			return sigs[i] < sigs[j]
		})
		fmt.Fprintln(w, "failing runs by their first failure's signature:")
		for _, s := range sigs {
			fmt.Fprintf(w, "  %d  %s\n", rep.Signatures[s], s)
		}
	}
	fmt.Fprintf(w, "\nrun %d of %d, the first that failed:", rep.FailedRun, rep.Runs)
	for _, f := range rep.Failed {
		fmt.Fprint(w, campaign.FailureText(f))
	}
}

// failedExit is replay's verdict on an execution: nil when it shows no
// failure, else exit status exitFailed with one line naming the first.
func failedExit(what string, failures []schedule.Failure) error {
	if len(failures) == 0 {
		return nil
	}
	more := ""
	if len(failures) > 1 {
		more = fmt.Sprintf(" (and %d more)", len(failures)-1)
	}
	at := fmt.Sprintf("at step %d", failures[0].Step)
	if failures[0].Step < 0 {
		at = "at a step it cannot tell" // a hang of a system that could not be interrupted
	}
	return &exitError{exitFailed, fmt.Errorf("%s failed %s: %s%s", what, at, failures[0].Signature, more)}
}
