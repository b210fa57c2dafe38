package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/modelfuzz/modelfuzz/tlc/check"
)

func newTLCCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tlc",
		Short: "The TLA+ model engine: check a spec exhaustively, as TLC does",
	}
	cmd.AddCommand(newTLCCheckCmd())
	cmd.AddCommand(newTLCServeCmd())
	cmd.AddCommand(newTLCSimulateCmd())
	cmd.AddCommand(newTLCValidateCmd())
	return cmd
}

// printUnchecked ends the output of a run that found no error but did not
// check every property: never "No error has been found" about those.
func printUnchecked(w io.Writer, res *check.Result) {
	if res.Result == "not-checked" {
		fmt.Fprintf(w, "Model checking completed without finding an error, but %s.\n", res.Error)
	}
}
