package main

import (
	"github.com/spf13/cobra"
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
