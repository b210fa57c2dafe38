package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

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

func newTLCCheckCmd() *cobra.Command {
	var (
		config     string
		workers    int
		jsonOut    bool
		cpuProfile string
		maxDepth   int
	)
	cmd := &cobra.Command{
		Use:   "check SPEC.tla",
		Short: "Explore every reachable state of a TLA+ spec and check its invariants",
		Long: `Check a TLA+ specification exhaustively with its TLC configuration, as TLC
does: a breadth-first search of the state graph counting distinct states
(after VIEW and SYMMETRY) and generated states, checking ASSUMEs,
invariants, deadlock and constraints. A violation prints a numbered trace.

The configuration is SPEC.cfg unless --config names another file. A
PROPERTY the checker cannot check is named at the end ("N properties NOT
checked") and the exit code is 153, never 0.

Exit codes are TLC's: 0 success, 10 assumption false, 11 deadlock,
12 invariant violated, 75 evaluation error, 150 parse error, 151 config error,
153 properties not checked.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return profiled(cpuProfile, func() error {
				return runTLCCheck(cmd.OutOrStdout(), args[0], config, check.Options{Workers: workers, MaxDepth: maxDepth}, jsonOut)
			})
		},
	}
	cmd.Flags().StringVar(&config, "config", "", "TLC configuration file (default: SPEC.cfg)")
	cmd.Flags().StringVar(&cpuProfile, "cpuprofile", "", "write a Go CPU profile of the check to this file")
	cmd.Flags().IntVar(&maxDepth, "max-depth", 0, "explore only the states within this many steps (initial states are at depth 1); the result is then an error saying so")
	cmd.Flags().IntVar(&workers, "workers", 0, "worker goroutines (default: number of CPUs)")
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print one JSON object with the result")
	return cmd
}

type tlcJSON struct {
	Result          string              `json:"result"`
	DistinctStates  int64               `json:"distinct_states"`
	StatesGenerated int64               `json:"states_generated"`
	Depth           int                 `json:"depth"`
	DurationS       float64             `json:"duration_s"`
	Error           string              `json:"error,omitempty"`
	Trace           []map[string]string `json:"trace,omitempty"`
	Unchecked       []string            `json:"unchecked_properties,omitempty"`
}

func runTLCCheck(w io.Writer, spec, config string, opt check.Options, jsonOut bool) error {
	start := time.Now()
	if _, err := os.Stat(spec); err != nil {
		return &exitError{check.ExitParse, fmt.Errorf("tlc check: %v", err)}
	}
	if !jsonOut {
		cfgName := config
		if cfgName == "" {
			cfgName = strings.TrimSuffix(spec, ".tla") + ".cfg"
		}
		fmt.Fprintf(w, "Parsing %s with configuration %s\n", spec, cfgName)
	}
	m, err := eval.Load(spec, config)
	if err != nil {
		code, res := check.LoadFailure(err)
		if jsonOut {
			printTLCJSON(w, &tlcJSON{Result: res, Error: err.Error(), DurationS: round3(time.Since(start).Seconds())})
			return &exitError{code, errors.New("")}
		}
		return &exitError{code, err}
	}
	if jsonOut {
		m.Out = os.Stderr
	}
	if !jsonOut {
		fmt.Fprintln(w, "Computing initial states and exploring the state graph...")
	}
	if !jsonOut {
		opt.Progress = func(p check.Progress) {
			fmt.Fprintf(w, "Progress(%d): %d states generated, %d distinct states found, %d states left on queue.\n",
				p.Depth, p.Generated, p.Distinct, p.Queue)
		}
		opt.ProgressEvery = 10 * time.Second
	}
	res := check.Check(m, opt)
	res.NotChecked(uncheckedProperties(m))
	if jsonOut {
		out := &tlcJSON{Result: res.Result, DistinctStates: res.Distinct, StatesGenerated: res.Generated,
			Depth: res.Depth, DurationS: round3(time.Since(start).Seconds()), Error: res.Error}
		for _, p := range res.Unchecked {
			out.Unchecked = append(out.Unchecked, p.Name)
		}
		for _, st := range res.Trace {
			s := map[string]string{}
			for i, v := range st.Values {
				s[st.Vars[i]] = v.String()
			}
			out.Trace = append(out.Trace, s)
		}
		printTLCJSON(w, out)
	} else {
		printTLCResult(w, res, time.Since(start))
	}
	if res.ExitCode != 0 {
		return &exitError{res.ExitCode, errors.New("")}
	}
	return nil
}

func printTLCJSON(w io.Writer, v *tlcJSON) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

func printTLCResult(w io.Writer, res *check.Result, d time.Duration) {
	switch res.Result {
	case "success":
		fmt.Fprintln(w, "Model checking completed. No error has been found.")
	case "not-checked":
		// Said at the end, below (printUnchecked).
	default:
		fmt.Fprintf(w, "Error: %s\n", res.Error)
		if len(res.Trace) > 0 {
			fmt.Fprintln(w, "Error: The behavior up to this point is:")
			for i, st := range res.Trace {
				what := "<Next>"
				if i == 0 {
					what = "<Initial predicate>"
				}
				fmt.Fprintf(w, "State %d: %s\n", i+1, what)
				names := append([]string(nil), st.Vars...)
				idx := make(map[string]int, len(names))
				for j, n := range st.Vars {
					idx[n] = j
				}
				sort.Strings(names)
				for _, n := range names {
					fmt.Fprintf(w, "/\\ %s = %s\n", n, st.Values[idx[n]].String())
				}
				fmt.Fprintln(w)
			}
		}
	}
	fmt.Fprintf(w, "%d states generated, %d distinct states found, 0 states left on queue.\n", res.Generated, res.Distinct)
	fmt.Fprintf(w, "The depth of the complete state graph search is %d.\n", res.Depth)
	fmt.Fprintf(w, "Finished in %s.\n", d.Round(time.Millisecond))
	printUnchecked(w, res)
}

// uncheckedProperties are the cfg's PROPERTIES that the check does not
// check.
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
