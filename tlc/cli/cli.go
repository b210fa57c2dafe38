// Package cli is the TLA+ engine's command line, `modelfuzz tlc`: check
// a spec as TLC does (with TLC's options and exit codes), simulate a
// sequence of actions, validate a system's traces against a trace spec,
// and serve simulation to the fuzzer (the sidecar).
//
// A program mounts NewCommand under its root command, and exits with the
// code of an *ExitError its commands return. The package must not know
// about the fuzzer: it imports nothing of fuzzer, campaign, corpus,
// guidance or the adapters.
package cli

import (
	"github.com/spf13/cobra"
)

// NewCommand is `tlc` and its subcommands.
func NewCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tlc",
		Short: "The TLA+ model engine: check a spec exhaustively, as TLC does",
	}
	cmd.AddCommand(newCheckCmd())
	cmd.AddCommand(newServeCmd())
	cmd.AddCommand(newSimulateCmd())
	cmd.AddCommand(newValidateCmd())
	return cmd
}

// ExitError is an error with the exit code the program must end with
// (TLC's, for tlc check). An empty message means the command has said
// everything already.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }

func (e *ExitError) Unwrap() error { return e.Err }
