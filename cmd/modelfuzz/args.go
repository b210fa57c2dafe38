package main

import "github.com/modelfuzz/modelfuzz/internal/cmdline"

// What the commands share with the TLA+ engine's (internal/cmdline): the
// argument checks that say what a command wants, and the memory limit.
var (
	exactArgs        = cmdline.ExactArgs
	minimumArgs      = cmdline.MinimumArgs
	maximumArgs      = cmdline.MaximumArgs
	noArgs           = cmdline.NoArgs
	commandName      = cmdline.CommandName
	applyMemoryLimit = cmdline.ApplyMemoryLimit
)
