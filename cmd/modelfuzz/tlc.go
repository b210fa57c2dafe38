package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/modelfuzz/modelfuzz/tlc/check"
	"github.com/modelfuzz/modelfuzz/tlc/eval"
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

// uncheckedProperties are the cfg's PROPERTIES that a simulation does
// not check (a model check checks them: check.CheckWithProperties).
func uncheckedProperties(m *eval.Model) []check.Unchecked {
	var out []check.Unchecked
	for _, p := range m.Properties {
		out = append(out, check.Unchecked{Name: p, Why: "temporal properties are not supported"})
	}
	return out
}

// printUnchecked ends the output of a run that found no error but did not
// check every property: never "No error has been found" about those.
func printUnchecked(w io.Writer, res *check.Result) {
	if res.Result == "not-checked" {
		fmt.Fprintf(w, "Model checking completed without finding an error, but %s.\n", res.Error)
	}
}
