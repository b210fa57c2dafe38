package main

import (
	"encoding/json"
	"fmt"
	"github.com/modelfuzz/modelfuzz/internal/cmdline"
	"github.com/modelfuzz/modelfuzz/schedule"
	"io"

	"github.com/spf13/cobra"

	"github.com/modelfuzz/modelfuzz/campaign"
	"github.com/modelfuzz/modelfuzz/models"
)

// testFlags are test's command line.
type testFlags struct {
	af         campaign.SystemFlags
	executions int
	seed       uint64
	steps      int
	jsonOut    bool
	saveDir    string
	model      string
}

func newTestCmd() *cobra.Command {
	var f testFlags
	cmd := &cobra.Command{
		Use:   "test FILE.filter...",
		Short: "Run filter tests: random searches constrained to a scenario",
		Long: `Run filter tests (docs/filters.md), after Netrix: each test's filters drop,
hold, delay, duplicate or release messages and crash, partition or heal
processes when the events they match happen; every other choice is random.
Each execution is built online from the events the system has enabled and
recorded as an ordinary input.

For each test, the command reports how many executions satisfied its
scenario (reached its accepting state) and which of those failed: an oracle
of the system (a panic, a safety check, linearizability) or the scenario's
rejecting state. A test passes when some execution satisfied the scenario
and, with expect ok, none of those failed; with expect failure "TEXT", when
one failed with a signature containing TEXT. The exit code is 0 when every
test passed, 3 when one did not, 1 on an error (a malformed file: one line,
FILE:LINE:COL: what).

--save DIR writes the input of each failing signature's first execution
as DIR/TEST-N.json, for modelfuzz replay (with the same adapter flags).`,
		Args: minimumArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return f.run(cmd, args) },
	}
	f.af.Register(cmd.Flags())
	cmd.Flags().IntVar(&f.executions, "executions", 0, "executions per test (default: the test's executions, else 100)")
	cmd.Flags().Uint64Var(&f.seed, "seed", 1, "seed of the random choices")
	cmd.Flags().IntVar(&f.steps, "steps", 0, "steps of one execution (default: the test's steps, else the adapter's)")
	cmd.Flags().BoolVar(&f.jsonOut, "json", false, "print each test's result as a JSON line")
	cmd.Flags().StringVar(&f.model, "model", "", "the TLA+ model the tests' model \"EXPR\" conditions are evaluated on (raft.tla for etcdraft): each execution is mapped onto it after every step")
	cmd.Flags().StringVar(&f.saveDir, "save", "", "write the input of each failing signature's first execution into this directory")
	return cmd
}

// run runs the filter tests in paths, one after the other, and prints
// their verdicts; the command fails (exitFailed) when one did not pass.
func (f *testFlags) run(cmd *cobra.Command, paths []string) error {
	if f.executions < 1 && cmd.Flags().Changed("executions") {
		return fmt.Errorf("--executions must be at least 1, got %d", f.executions)
	}
	if f.steps < 0 || f.steps > schedule.MaxSteps {
		return fmt.Errorf("--steps %d: from 1 to %d steps an execution (schedule.MaxSteps)", f.steps, schedule.MaxSteps)
	}
	if f.saveDir != "" {
		if err := cmdline.OutDir("--save", f.saveDir); err != nil {
			return err
		}
	}
	if f.model != "" {
		if models.IsEtcdraftSpec(f.model) {
			return fmt.Errorf("--model %s validates traces; filter tests evaluate predicates on a model the mapper maps onto (raft.tla)", f.model)
		}
		f.af.ForModel()
	}
	sys, err := f.af.Open(nil)
	if err != nil {
		return err
	}
	defer sys.Close()
	fr := &campaign.FilterRun{System: sys, Model: f.model, Steps: f.steps, Executions: f.executions, Seed: f.seed}
	w := cmd.OutOrStdout()
	failed := 0
	var results []*campaign.FilterResult
	for _, path := range paths {
		res, err := fr.RunFile(path)
		if err != nil {
			return err
		}
		results = append(results, res)
		if !res.Pass {
			failed++
		}
		if f.saveDir != "" {
			if err := campaign.SaveFailed(f.saveDir, path, res); err != nil {
				return err
			}
		}
		if !f.jsonOut {
			printFilterResult(w, path, res)
		}
	}
	if f.jsonOut {
		enc := json.NewEncoder(w)
		for _, r := range results {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
	}
	if failed > 0 {
		return &exitError{code: exitFailed, err: fmt.Errorf("%d of %d test(s) failed", failed, len(paths))}
	}
	return nil
}

// printFilterResult prints a test's verdict and the executions that
// failed.
func printFilterResult(w io.Writer, path string, res *campaign.FilterResult) {
	verdict := "PASS"
	if !res.Pass {
		verdict = "FAIL"
	}
	fmt.Fprintf(w, "%s %s (%s): %s\n", verdict, res.Test, path, res.Verdict)
	fmt.Fprintf(w, "  executions %d, satisfied the scenario %d, failed %d; filters acted %v times\n", res.Executions, res.Satisfied, res.Failures, res.Fired)
	for _, f := range res.Failed {
		fmt.Fprintf(w, "  execution %d: %s (step %d): %s\n", f.Execution, f.Failure.Signature, f.Failure.Step, f.Failure.Message)
	}
}
