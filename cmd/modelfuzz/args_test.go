package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"
)

// Every command checks its arguments itself and says what it wants in a
// user's words: no cobra "accepts 1 arg(s), received 0", and no command
// that silently ignores words it does not take.
func TestEveryCommandSaysWhatItWants(t *testing.T) {
	var walk func(c *cobra.Command)
	checked := 0
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Name() == "help" || sub.Name() == "completion" || sub.Hidden {
				continue
			}
			walk(sub)
		}
		if !c.Runnable() || c.DisableFlagParsing {
			return // not a command, or one that reads its words itself (tlc check, TLC's syntax)
		}
		require.NotNil(t, c.Args, "%s: no argument check (extra words would be ignored)", c.CommandPath())
		for _, args := range [][]string{nil, {"a", "b", "c", "d", "e", "f", "g", "h", "i"}} {
			err := c.Args(c, args)
			if err == nil {
				continue
			}
			msg := err.Error()
			require.NotContains(t, msg, "arg(s)", c.CommandPath())
			require.True(t, strings.HasPrefix(msg, commandName(c)+" "), "%s: %q names the command first", c.CommandPath(), msg)
			require.Contains(t, msg, "usage: "+c.CommandPath(), c.CommandPath())
			checked++
		}
	}
	walk(newRootCmd())
	require.Greater(t, checked, 20)
}
