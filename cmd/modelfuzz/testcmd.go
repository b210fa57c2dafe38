package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/modelfuzz/modelfuzz/campaign"
	"github.com/modelfuzz/modelfuzz/models"
	"github.com/modelfuzz/modelfuzz/schedule"
)

func newTestCmd() *cobra.Command {
	var (
		af         campaign.SystemFlags
		executions int
		seed       uint64
		steps      int
		jsonOut    bool
		saveDir    string
		model      string
	)
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
		RunE: func(cmd *cobra.Command, args []string) error {
			if executions < 1 && cmd.Flags().Changed("executions") {
				return fmt.Errorf("--executions must be at least 1, got %d", executions)
			}
			if model != "" {
				if models.IsEtcdraftSpec(model) {
					return fmt.Errorf("--model %s validates traces; filter tests evaluate predicates on a model the mapper maps onto (raft.tla)", model)
				}
				af.ForModel()
			}
			sys, err := af.Open(nil)
			if err != nil {
				return err
			}
			defer sys.Close()
			w := cmd.OutOrStdout()
			failed := 0
			var results []*campaign.FilterResult
			for _, path := range args {
				t, err := campaign.LoadFilterTest(path)
				if err != nil {
					return err
				}
				h := schedule.Harness{Shape: schedule.Shape{Steps: sys.Adapter.Steps, MaxMessages: 1, Requests: sys.Adapter.Requests}, Timeouts: 6}
				set := func(dst *int, fromFile, fromFlag int) {
					if fromFile > 0 {
						*dst = fromFile
					}
					if fromFlag > 0 {
						*dst = fromFlag
					}
				}
				set(&h.Steps, t.Steps, steps)
				set(&h.Requests, t.Requests, 0)
				set(&h.CrashQuota, t.Crashes, 0)
				set(&h.Timeouts, t.Timeouts, 0)
				n := 100
				set(&n, t.Executions, executions)
				ft := &campaign.FilterTest{Test: t, System: sys, Harness: h, Executions: n, Seed: seed}
				if model != "" && len(t.Models) > 0 {
					mp, consts, err := sys.Mapper()
					if err != nil {
						return err
					}
					if ft.Model, err = campaign.LoadFilterModel(models.Spec{Model: model, Consts: consts}, t, mp); err != nil {
						return err
					}
				}
				res, err := ft.Run()
				if err != nil {
					return err
				}
				results = append(results, res)
				if !res.Pass {
					failed++
				}
				if saveDir != "" {
					if err := saveFailed(saveDir, path, res); err != nil {
						return err
					}
				}
				if jsonOut {
					continue
				}
				verdict := "PASS"
				if !res.Pass {
					verdict = "FAIL"
				}
				fmt.Fprintf(w, "%s %s (%s): %s\n", verdict, t.Name, path, res.Verdict)
				fmt.Fprintf(w, "  executions %d, satisfied the scenario %d, failed %d; filters acted %v times\n", res.Executions, res.Satisfied, res.Failures, res.Fired)
				for _, f := range res.Failed {
					fmt.Fprintf(w, "  execution %d: %s (step %d): %s\n", f.Execution, f.Failure.Signature, f.Failure.Step, f.Failure.Message)
				}
			}
			if jsonOut {
				enc := json.NewEncoder(w)
				for _, r := range results {
					if err := enc.Encode(r); err != nil {
						return err
					}
				}
			}
			if failed > 0 {
				return &exitError{code: exitFailed, err: fmt.Errorf("%d of %d test(s) failed", failed, len(args))}
			}
			return nil
		},
	}
	af.Register(cmd.Flags())
	cmd.Flags().IntVar(&executions, "executions", 0, "executions per test (default: the test's executions, else 100)")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "seed of the random choices")
	cmd.Flags().IntVar(&steps, "steps", 0, "steps of one execution (default: the test's steps, else the adapter's)")
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print each test's result as a JSON line")
	cmd.Flags().StringVar(&model, "model", "", "the TLA+ model the tests' model \"EXPR\" conditions are evaluated on (raft.tla for etcdraft): each execution is mapped onto it after every step")
	cmd.Flags().StringVar(&saveDir, "save", "", "write the input of each failing signature's first execution into this directory")
	return cmd
}

func saveFailed(dir, path string, res *campaign.FilterResult) error {
	if len(res.Failed) == 0 {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--save: %v", err)
	}
	base := filepath.Base(path)
	base = base[:len(base)-len(filepath.Ext(base))]
	for k, f := range res.Failed {
		out := filepath.Join(dir, fmt.Sprintf("%s-%d.json", base, k+1))
		if err := os.WriteFile(out, schedule.EncodeInput(f.Input), 0o644); err != nil {
			return fmt.Errorf("--save: %v", err)
		}
	}
	return nil
}
