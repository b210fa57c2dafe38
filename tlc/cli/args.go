package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/modelfuzz/modelfuzz/tlc/check"
)

// TLC's command line (tlc2.TLC.handleParameters) spells its options with
// one dash: modelfuzz tlc check -workers 2 -deadlock -simulate -depth 50
// Spec. translateTLCArgs rewrites such a command line into the long flags
// of `tlc check` (which take the same names), so that both spellings
// work; each option of TLC that the check does not implement is refused
// by name, never ignored.

// tlcOption is one of TLC's options: how many arguments follow it, and,
// when the check does not implement it, why.
type tlcOption struct {
	args        int
	unsupported string
}

var tlcOptions = map[string]tlcOption{
	// Implemented (the flag of the same name), or accepted because it asks
	// for what the check does anyway.
	"workers": {args: 1}, "config": {args: 1}, "deadlock": {}, "continue": {}, "difftrace": {},
	"simulate": {}, "modelcheck": {}, "depth": {args: 1}, "seed": {args: 1}, "dump": {args: 1},
	"coverage": {args: 1}, "checkpoint": {args: 1}, "recover": {args: 1}, "maxSetSize": {args: 1},
	"fp": {args: 1}, "metadir": {args: 1}, "cleanup": {}, "nowarning": {}, "userFile": {args: 1},
	"noGenerateSpecTE": {}, "noTE": {}, "noGenerateSpecTEBin": {}, "noTEBin": {}, "view": {}, "gzip": {},
	"tool": {}, "teSpecOutDir": {args: 1}, "terse": {}, "generateSpecTE": {},
	// Not implemented.
	"generate":         {unsupported: "random generation of behaviours with TLC's probabilistic enumeration"},
	"debug":            {unsupported: "TLC's debugging output"},
	"debugger":         {unsupported: "the TLA+ debugger"},
	"inv":              {args: 1, unsupported: "invariants given on the command line (put them in the cfg)"},
	"invlevel":         {args: 1, unsupported: "level invariants given on the command line"},
	"lncheck":          {args: 1, unsupported: "TLC's liveness checking strategies"},
	"loadTrace":        {args: 2, unsupported: "loading a trace"},
	"dumpTrace":        {args: 2, unsupported: "dumping the error trace in TLC's formats (use --json)"},
	"postCondition":    {args: 1, unsupported: "post conditions"},
	"aril":             {args: 1, unsupported: "TLC's simulation random-number adjustment"},
	"dfid":             {args: 1, unsupported: "depth-first iterative deepening"},
	"fpmem":            {args: 1, unsupported: "the fingerprint set's memory share"},
	"fpbits":           {args: 1, unsupported: "a multi-file fingerprint set"},
	"suppressMessages": {args: 1, unsupported: "TLC's message codes"},
	"messagesAsErrors": {args: 1, unsupported: "TLC's message codes"},
}

// simulateArgs are the keys TLC accepts in the argument of -simulate.
var simulateArgs = []string{"num=", "file=", "stats=", "sched"}

// translateTLCArgs rewrites TLC's single-dash options into long flags.
// flags are the command's own, which a single dash may also name
// (-json). Arguments after "--" are left alone.
func translateTLCArgs(args []string, flags *pflag.FlagSet) ([]string, error) {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...), nil
		}
		if strings.HasPrefix(a, "--") || !strings.HasPrefix(a, "-") || a == "-" {
			out = append(out, a)
			// A long flag's value is its own, whatever it looks like
			// (--max-depth -1 is a bad depth, not an option -1).
			if f := flags.Lookup(strings.TrimPrefix(a, "--")); f != nil && f.NoOptDefVal == "" && !strings.Contains(a, "=") && i+1 < len(args) {
				i++
				out = append(out, args[i])
			}
			continue
		}
		name, value, hasValue := strings.Cut(a[1:], "=")
		if name == "h" || name == "help" {
			out = append(out, "--help")
			continue
		}
		opt, isTLC := tlcOptions[name]
		if !isTLC {
			// TLC matches these few without regard to case.
			for _, n := range []string{"noTE", "noTEBin", "loadTrace", "dumpTrace", "postCondition"} {
				if strings.EqualFold(name, n) {
					name, opt, isTLC = n, tlcOptions[n], true
				}
			}
		}
		if !isTLC {
			if flags.Lookup(name) != nil {
				out = append(out, "--"+a[1:])
				continue
			}
			return nil, usageErrorf("unknown option %s", a)
		}
		if opt.unsupported != "" {
			return nil, usageErrorf("option -%s is not supported by modelfuzz tlc check (%s)", name, opt.unsupported)
		}
		if hasValue {
			out = append(out, "--"+name+"="+value)
			continue
		}
		switch name {
		case "simulate":
			out = append(out, "--simulate")
			if i+1 < len(args) && hasAnyPrefix(args[i+1], simulateArgs) {
				i++
				for _, kv := range strings.Split(args[i], ",") {
					switch {
					case strings.HasPrefix(kv, "num="):
						out = append(out, "--num="+strings.TrimPrefix(kv, "num="))
					default:
						return nil, usageErrorf("-simulate %s: only num=N is supported", kv)
					}
				}
			}
			continue
		case "dump":
			// -dump FILE, or -dump dot[,colorize,actionlabels,...] FILE.
			if i+2 < len(args) && (args[i+1] == "dot" || strings.HasPrefix(args[i+1], "dot,")) {
				out = append(out, "--dump-dot="+args[i+2])
				if opts := strings.TrimPrefix(strings.TrimPrefix(args[i+1], "dot"), ","); opts != "" {
					out = append(out, "--dot-options="+opts)
				}
				i += 2
				continue
			}
		case "generateSpecTE":
			// TLC's optional "nomonolith" asks for the modules in files of
			// their own; ours are (the module and its cfg).
			if i+1 < len(args) && args[i+1] == "nomonolith" {
				i++
			}
		case "noTE":
			name = "noGenerateSpecTE"
		case "noTEBin":
			name = "noGenerateSpecTEBin"
		}
		out = append(out, "--"+name)
		for k := 0; k < opt.args; k++ {
			if i+1 >= len(args) {
				return nil, usageErrorf("option -%s needs %d argument(s)", name, opt.args)
			}
			i++
			out = append(out, args[i])
		}
	}
	return out, nil
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// usageErrorf is a command line the check refuses: TLC's exit code 1.
func usageErrorf(format string, args ...any) error {
	return &ExitError{Code: check.ExitUsage, Err: fmt.Errorf("tlc check: "+format, args...)}
}
