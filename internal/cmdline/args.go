// Package cmdline is what modelfuzz's commands share, the fuzzer's and the
// TLA+ engine's alike: argument checks that say what a command wants, the
// process's memory limit, CPU profiles and the logger.
//
// It must not import anything of modelfuzz: every command depends on it.
package cmdline

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// The argument checks of the commands: one line that says what the
// command wants, from its usage line, instead of cobra's "accepts 1
// arg(s), received 0".

// argsWanted is what a command's usage line names as its arguments,
// leaving out flags with their values and optional parts in brackets:
// "show --corpus DIR BUG_ID" -> "BUG_ID"; a group in parentheses is one.
func argsWanted(c *cobra.Command) string {
	var out []string
	words := strings.Fields(c.Use)[1:]
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case strings.HasPrefix(w, "-"):
			if !strings.Contains(w, "=") && i+1 < len(words) && isPlaceholder(words[i+1]) {
				i++ // the flag's value
			}
		case strings.HasPrefix(w, "["), strings.HasPrefix(w, "("):
			open, close := w[:1], map[string]string{"[": "]", "(": ")"}[w[:1]]
			group := []string{w}
			depth := strings.Count(w, open) - strings.Count(w, close)
			for depth > 0 && i+1 < len(words) {
				i++
				group = append(group, words[i])
				depth += strings.Count(words[i], open) - strings.Count(words[i], close)
			}
			if open == "(" {
				out = append(out, strings.Join(group, " "))
			}
		case isPlaceholder(w):
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

// isPlaceholder: an upper-case word of a usage line, e.g. DIR, BUG_ID,
// FILE.html, INPUT.json.
func isPlaceholder(w string) bool {
	base, _, _ := strings.Cut(w, ".")
	return base != "" && strings.ToUpper(base) == base && strings.ToLower(base) != base
}

// CommandName is the command's path without the program's name: the
// program's name already starts every error line.
func CommandName(c *cobra.Command) string {
	return strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" ")
}

// usageLine is the command's usage with its full path.
func usageLine(c *cobra.Command) string {
	rest := ""
	if i := strings.IndexByte(c.Use, ' '); i >= 0 {
		rest = c.Use[i:]
	}
	return c.CommandPath() + rest
}

func argsError(c *cobra.Command, got []string, want string) error {
	if len(got) == 0 {
		return fmt.Errorf("%s needs %s (usage: %s)", CommandName(c), want, usageLine(c))
	}
	return fmt.Errorf("%s takes %s, not %q (usage: %s)", CommandName(c), want, strings.Join(got, " "), usageLine(c))
}

// ExactArgs accepts exactly n arguments.
func ExactArgs(n int) cobra.PositionalArgs {
	return countArgs(n, n, fmt.Sprintf("%d argument(s)", n))
}

// MinimumArgs accepts n arguments or more.
func MinimumArgs(n int) cobra.PositionalArgs {
	return countArgs(n, -1, fmt.Sprintf("at least %d argument(s)", n))
}

// MaximumArgs accepts at most n arguments.
func MaximumArgs(n int) cobra.PositionalArgs {
	return countArgs(0, n, fmt.Sprintf("at most %d argument(s)", n))
}

// countArgs accepts from least to most arguments (most -1: no upper
// bound); otherwise it says what the usage line names, or count when the
// usage line names nothing.
func countArgs(least, most int, count string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) >= least && (most < 0 || len(args) <= most) {
			return nil
		}
		want := argsWanted(c)
		if want == "" {
			want = count
		}
		return argsError(c, args, want)
	}
}

// NoArgs accepts no argument: a word after the command is a mistake,
// perhaps a value meant for a flag.
func NoArgs(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	return fmt.Errorf("%s takes no arguments, got %q (a value for a flag? usage: %s)", CommandName(c), strings.Join(args, " "), usageLine(c))
}
