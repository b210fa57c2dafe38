// Command modelfuzz fuzzes the schedules of distributed systems, guided by
// coverage (of TLA+ model states, of happens-before traces, or none).
//
// This package is the cobra commands and their printing only: flags, output
// formats, signals. The logic lives in campaign/ (assembling and replaying
// campaigns), fuzzer/ (the loop), schedule/ (the input), guidance/
// (the measures), corpus/, adapters/ and tlc/.
package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/modelfuzz/modelfuzz/internal/buildinfo"
	"github.com/modelfuzz/modelfuzz/internal/cmdline"
	"github.com/modelfuzz/modelfuzz/tlc/cli"
)

// exitFailed is the exit code of a command whose subject failed, as a
// failing test's: a replayed execution that shows a failure, a filter test
// that did not pass. 1 is for the command's own errors (usage, files).
const exitFailed = 3

// exitError carries a specific exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

func main() {
	root := newRootCmd()
	if err := root.Execute(); err != nil {
		code := 1
		var ee *exitError
		var ce *cli.ExitError
		switch {
		case errors.As(err, &ee):
			code = ee.code
		case errors.As(err, &ce):
			code = ce.Code
		}
		msg := err.Error()
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		if msg != "" {
			fmt.Fprintln(os.Stderr, "modelfuzz: "+msg)
		}
		os.Exit(code)
	}
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "modelfuzz",
		Short: "Fuzz the schedules of distributed systems, guided by coverage",
		Long: `modelfuzz tests implementations of distributed protocols by fuzzing the
schedule of a real cluster: which process runs, how many of its messages it
receives, when it crashes or restarts, when its timer fires, when a client
request arrives. Inputs that reach new coverage are kept and mutated further.

A first campaign, on the built-in micro-benchmark with a seeded bug, guided
by its TLA+ model:

  modelfuzz run --adapter microbench --model microbench.tla --inject flush-before-last --workers 3 --tasks 5 --iterations 5000

Then look at what it found and replay it:

  modelfuzz corpus list --corpus modelfuzz-corpus/microbench-model
  modelfuzz replay --corpus modelfuzz-corpus/microbench-model B1

The TLA+ engine works on its own too: modelfuzz tlc check SPEC.tla.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildinfo.Read().String(),
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.AddCommand(newRunCmd(), newHubCmd(), newReplayCmd(), newBugsCmd(), newMinimizeCmd(), newCompareCmd(), newReportCmd(), newGenerateCmd(), groupCommand(newCorpusCmd()),
		groupCommand(cli.NewCommand()), groupCommand(newModelCmd()), newTestCmd())
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return fmt.Errorf("%s: %s (see '%s --help')", c.CommandPath(), cmdline.FlagErrorText(err), c.CommandPath())
	})
	return root
}

// groupCommand makes c, a command whose subcommands do the work, refuse
// a word that is none of them (cobra prints the help and exits 0).
func groupCommand(c *cobra.Command) *cobra.Command {
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(c *cobra.Command, args []string) error {
		if len(args) > 0 {
			return fmt.Errorf("unknown command %q for %q (see '%s --help')", args[0], c.CommandPath(), c.CommandPath())
		}
		return c.Help()
	}
	return c
}
