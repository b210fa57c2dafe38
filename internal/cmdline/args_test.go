package cmdline

import (
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"
)

// A command says what it wants from its usage line: flags with their
// values and optional parts left out, a group in parentheses as one.
func TestArgsWanted(t *testing.T) {
	for use, want := range map[string]string{
		"show --corpus DIR BUG_ID":                            "BUG_ID",
		"replay [flags] (INPUT.json | INPUT_ID | BUG_ID)":     "(INPUT.json | INPUT_ID | BUG_ID)",
		"simulate --model MODEL ACTIONS.json":                 "ACTIONS.json",
		"validate [--spec Traceetcdraft.tla] TRACE.ndjson...": "TRACE.ndjson...",
		"serve --model FILE|NAME":                             "",
	} {
		require.Equal(t, want, argsWanted(&cobra.Command{Use: use}), use)
	}
}

func TestArgsErrors(t *testing.T) {
	root := &cobra.Command{Use: "modelfuzz"}
	tlc := &cobra.Command{Use: "tlc"}
	sim := &cobra.Command{Use: "simulate --model MODEL ACTIONS.json", Args: ExactArgs(1), Run: func(*cobra.Command, []string) {}}
	serve := &cobra.Command{Use: "serve --model FILE|NAME", Args: NoArgs, Run: func(*cobra.Command, []string) {}}
	root.AddCommand(tlc)
	tlc.AddCommand(sim, serve)
	require.EqualError(t, sim.Args(sim, nil), "tlc simulate needs ACTIONS.json (usage: modelfuzz tlc simulate --model MODEL ACTIONS.json)")
	require.EqualError(t, sim.Args(sim, []string{"a", "b"}), `tlc simulate takes ACTIONS.json, not "a b" (usage: modelfuzz tlc simulate --model MODEL ACTIONS.json)`)
	require.NoError(t, sim.Args(sim, []string{"a"}))
	require.EqualError(t, serve.Args(serve, []string{"x"}), `tlc serve takes no arguments, got "x" (a value for a flag? usage: modelfuzz tlc serve --model FILE|NAME)`)
	require.EqualError(t, MinimumArgs(2)(&cobra.Command{Use: "x"}, nil), "x needs at least 2 argument(s) (usage: x)")
}
