package cli

import (
	"encoding/json"
	"fmt"
	"github.com/modelfuzz/modelfuzz/internal/jsonerr"
	"io"
	"sort"

	"github.com/spf13/cobra"

	"github.com/modelfuzz/modelfuzz/internal/cmdline"
	"github.com/modelfuzz/modelfuzz/models"
	"github.com/modelfuzz/modelfuzz/tlc"
	"github.com/modelfuzz/modelfuzz/tlc/check"
	"github.com/modelfuzz/modelfuzz/tlc/sim"
)

// maxActionsBytes is the largest actions file simulate reads.
const maxActionsBytes = 16 << 20

func newSimulateCmd() *cobra.Command {
	var (
		spec    models.Spec
		jsonOut bool
	)
	cmd := &cobra.Command{
		Use:   "simulate --model MODEL ACTIONS.json",
		Short: "Replay a sequence of actions on a TLA+ model and print the states visited",
		Long: `Replay a sequence of actions on a TLA+ model: from the initial state, each
action operator is evaluated with the given parameters and its successor
becomes the current state. Prints the abstract states visited (consecutive
states with the same VIEW are one), where the sequence diverges from the
model, and the invariants violated on the way.

ACTIONS.json is either an array of actions or a request object:

  [{"name": "Start", "params": {"p": 1}}, {"name": "RecvRegister", "params": {"p": 1}}]
  {"actions": [...], "init": {"x": 0}}

Parameter values: numbers, strings (or the name of a model value), booleans,
arrays (tuples) and objects (records).`,
		Args: cmdline.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := jsonerr.ReadFile(args[0], maxActionsBytes, "an actions file", "cli.maxActionsBytes: 16 MiB")
			if err != nil {
				return err
			}
			req, err := sim.DecodeRequest(data)
			if err != nil {
				return jsonerr.In(args[0], err)
			}
			m, err := models.Load(spec)
			if err != nil {
				code, _ := tlc.LoadFailure(err)
				return &ExitError{Code: code, Err: err}
			}
			s, err := tlc.NewSimulator(m, 0)
			if err != nil {
				return &ExitError{Code: check.ExitFailure, Err: err}
			}
			res, err := s.Simulate(req)
			if err != nil {
				return &ExitError{Code: check.ExitFailure, Err: err}
			}
			w := cmd.OutOrStdout()
			if jsonOut {
				enc := json.NewEncoder(w)
				enc.SetEscapeHTML(false)
				return enc.Encode(res)
			}
			printSimulation(w, req, res)
			if res.Divergence != nil || len(res.Violations) > 0 {
				return &ExitError{Code: check.ExitSafety, Err: fmt.Errorf("")}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&spec.Model, "model", "", "the model: an embedded name (microbench.tla) or a .tla file (required)")
	cmd.Flags().StringVar(&spec.Config, "config", "", "the model's cfg (default: MODEL.cfg)")
	cmd.Flags().StringArrayVar(&spec.Consts, "const", nil, "set a constant, NAME=VALUE in cfg syntax (repeatable)")
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the result as JSON")
	return cmd
}

func printSimulation(w io.Writer, req *sim.Request, res *sim.Result) {
	for i, st := range res.States {
		what := "<Initial predicate>"
		if st.Index > 0 {
			a := req.Actions[st.Index-1]
			params, _ := json.Marshal(a.Params) // an object, its keys sorted
			what = fmt.Sprintf("<%s %s> (action %d)", a.Name, params, st.Index-1)
		}
		fmt.Fprintf(w, "State %d: %s key %s\n", i+1, what, st.Key)
		names := make([]string, 0, len(st.State))
		for n := range st.State {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(w, "/\\ %s = %s\n", n, st.State[n])
		}
		fmt.Fprintln(w)
	}
	for _, c := range res.Choices {
		fmt.Fprintf(w, "Note: action %d had %d successors; the first was taken.\n", c.Index, c.Successors)
	}
	for _, v := range res.Violations {
		fmt.Fprintf(w, "Error: invariant %s is violated after %d action(s).\n", v.Invariant, v.Index)
	}
	if d := res.Divergence; d != nil {
		call := d.Action
		if d.Call != "" {
			call = d.Call
		}
		fmt.Fprintf(w, "Divergence at action %d (%s): %s", d.Index, call, d.Reason)
		if d.At != "" {
			fmt.Fprintf(w, ": %s is false (%s)", d.Conjunct, d.At)
		}
		fmt.Fprintln(w)
		if d.Context != "" {
			fmt.Fprintf(w, "The false conjunct is part of (%s): %s\n", d.ContextAt, d.Context)
		}
	} else {
		fmt.Fprintf(w, "All %d actions replayed; %d abstract states visited.\n", len(req.Actions), len(res.States))
	}
}
