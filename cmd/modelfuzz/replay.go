package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/modelfuzz/modelfuzz/campaign"
	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/schedule"
)

func newReplayCmd() *cobra.Command {
	var (
		af        campaign.SystemFlags
		corpusDir string
		jsonOut   bool
		original  bool
		timeout   time.Duration
		repeat    int
		specOut   string
	)
	cmd := &cobra.Command{
		Use:   "replay [--corpus DIR] (INPUT.json | INPUT_ID | BUG_ID)",
		Short: "Re-execute an input and print its event trace as a timeline",
		Long: `Re-execute one input and print what happened, step by step.

The input is a JSON file, or the id of an input (12) or of a bug (B1) stored
in --corpus; a bug replays its minimized input when it has one (--original:
the input that found it). With --corpus, the system is configured as the
campaign was and, when the campaign had a model, the execution is checked
against it as well; otherwise the system comes from the adapter flags.
Executions are deterministic: the same input always gives the same trace,
byte for byte (--json prints it).

Exit status, as a test's: 0 when the execution shows no failure, 3 when it
fails (a panic, a safety or linearizability violation, a hang, a divergence
from the model, a model invariant; with --repeat, when any run fails), 1
when it could not be replayed (a usage error, an unreadable input, a
system that does not start).`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if repeat < 1 {
				return fmt.Errorf("--repeat must be at least 1, got %d", repeat)
			}
			af.SetGiven(cmd.Flags().Changed)
			t, err := campaign.OpenTarget(corpusDir, af, args[0], original, timeout)
			if err != nil {
				return err
			}
			defer t.Close()
			chk, in, what, spec := t.Checker, t.Input, t.What, t.Spec
			ex, _, err := chk.Run(in)
			if err != nil {
				return fmt.Errorf("replay %s: %v", what, err)
			}
			w := cmd.OutOrStdout()
			if specOut != "" {
				if len(ex.Spec) == 0 {
					return fmt.Errorf("--spec-trace: the execution recorded no trace of its own (only a campaign with --model etcdraft.tla records the library's trace)")
				}
				b, err := campaign.SpecTraceFile(ex.Spec)
				if err != nil {
					return fmt.Errorf("--spec-trace: %v", err)
				}
				if err := os.WriteFile(specOut, b, 0o644); err != nil {
					return fmt.Errorf("--spec-trace: %v", err)
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "wrote the library's trace (%d events) to %s; check it with: modelfuzz tlc validate %s (or the maintainers' tla/validate.sh)\n", len(ex.Spec), specOut, specOut)
			}
			if repeat > 1 {
				return replayRepeat(w, chk, in, ex, what, t.Signature, repeat)
			}
			if jsonOut {
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
		},
	}
	af.Register(cmd.Flags())
	cmd.Flags().StringVar(&corpusDir, "corpus", "", "campaign directory holding the input, and the system's configuration")
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the event trace as JSON instead of a timeline")
	cmd.Flags().BoolVar(&original, "original", false, "for a bug: replay the input that found it, not its minimized input")
	cmd.Flags().DurationVar(&timeout, "exec-timeout", 10*time.Second, "stop an execution that runs longer and report a hang (0: no limit)")
	cmd.Flags().StringVar(&specOut, "spec-trace", "", "also write the system's own trace (NDJSON, as etcd raft's tla/validate.sh reads it) to this file")
	cmd.Flags().IntVar(&repeat, "repeat", 1, "replay this many times and print how many gave the same trace as the first (and, for a bug, showed its signature)")
	return cmd
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
	return &exitError{exitFailed, fmt.Errorf("%s failed at step %d: %s%s", what, failures[0].Step, failures[0].Signature, more)}
}

// replayRepeat replays in n times in all and reports how often the trace
// was byte-identical to the first one's and, for a bug, how often its
// signature showed.
func replayRepeat(w io.Writer, chk *fuzzer.Checker, in *schedule.Input, first *schedule.Execution, what, signature string, n int) error {
	want := schedule.EncodeTrace(first.Trace)
	same, shows := 1, 0
	var failed []schedule.Failure // of the first run that failed
	if len(first.Failures) > 0 {
		failed = first.Failures
	}
	has := func(ex *schedule.Execution) bool {
		for _, f := range ex.Failures {
			if f.Signature == signature {
				return true
			}
		}
		return false
	}
	if has(first) {
		shows++
	}
	for i := 1; i < n; i++ {
		ex, _, err := chk.Run(in)
		if err != nil {
			return fmt.Errorf("replay %s (run %d): %v", what, i+1, err)
		}
		if bytes.Equal(schedule.EncodeTrace(ex.Trace), want) {
			same++
		}
		if has(ex) {
			shows++
		}
		if failed == nil && len(ex.Failures) > 0 {
			failed = ex.Failures
		}
	}
	fmt.Fprintf(w, "replayed %s %d times: %d/%d gave the same trace as the first", what, n, same, n)
	if signature != "" {
		fmt.Fprintf(w, "; %d/%d showed its signature %q", shows, n, signature)
	}
	fmt.Fprintln(w)
	return failedExit(what, failed)
}
