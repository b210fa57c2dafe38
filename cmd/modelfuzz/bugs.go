package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/modelfuzz/modelfuzz/adapters/process"
	"github.com/modelfuzz/modelfuzz/corpus"
	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/guidance"
	"github.com/modelfuzz/modelfuzz/models"
	"github.com/modelfuzz/modelfuzz/schedule"
	"github.com/modelfuzz/modelfuzz/tlc/sidecar"
	"github.com/modelfuzz/modelfuzz/tlc/sim"
)

// campaignEnv is a stored campaign opened to replay its inputs as the
// campaign ran them: the same system and, when it had one, the same model.
type campaignEnv struct {
	dir   string
	store *corpus.Store
	camp  *fuzzer.Campaign
	fac   schedule.Factory
	info  adapterInfo
	// model, when the campaign had one: the mapper and an in-process engine.
	mapr schedule.Mapper
	sim  *sim.Simulator
}

func openCampaign(dir string) (*campaignEnv, error) {
	if dir == "" {
		return nil, fmt.Errorf("--corpus DIR is required")
	}
	store, err := corpus.Open(dir, corpus.Options{MustExist: true})
	if err != nil {
		return nil, err
	}
	env := &campaignEnv{dir: dir, store: store}
	if err := env.load(); err != nil {
		store.Close()
		return nil, err
	}
	return env, nil
}

func (e *campaignEnv) load() error {
	camp, err := e.store.Campaign()
	if err != nil {
		return err
	}
	if camp == nil {
		return fmt.Errorf("corpus %s: holds no campaign yet", e.dir)
	}
	info, err := lookupAdapter(camp.Adapter)
	if err != nil {
		return fmt.Errorf("corpus %s: %v", e.dir, err)
	}
	fac, err := info.fromConfig(camp.AdapterConfig)
	if err != nil {
		return fmt.Errorf("corpus %s: adapter configuration: %v", e.dir, err)
	}
	e.camp, e.info, e.fac = camp, info, fac
	return nil
}

// loadModel loads the campaign's model in process (a no-op without one).
func (e *campaignEnv) loadModel() error {
	if e.camp.Model == "" || e.sim != nil {
		return nil
	}
	if e.info.mapperFor == nil {
		return fmt.Errorf("corpus %s: adapter %s has no model mapper", e.dir, e.camp.Adapter)
	}
	m, err := models.Load(models.Spec{Model: e.camp.Model, Config: e.camp.ModelConfig, Consts: e.camp.ModelConsts})
	if err != nil {
		return fmt.Errorf("the campaign's model %s: %v", e.camp.Model, err)
	}
	s, err := sim.New(m, 0)
	if err != nil {
		return fmt.Errorf("the campaign's model %s: %v", e.camp.Model, err)
	}
	e.mapr, _ = e.info.mapperFor(e.fac)
	e.sim = s
	return nil
}

// checker replays inputs as the campaign did: system, and model measure
// when the campaign had a model (its divergences and invariants are bugs
// too).
func (e *campaignEnv) checker(timeout time.Duration) (*fuzzer.Checker, error) {
	var measures []fuzzer.Measure
	if e.camp.Model != "" {
		if err := e.loadModel(); err != nil {
			return nil, err
		}
		measures = append(measures, &guidance.ModelMeasure{Mapper: e.mapr, Sim: sidecar.InProc{Simulator: e.sim}})
	}
	return fuzzer.NewChecker(e.fac, measures, timeout), nil
}

func (e *campaignEnv) close() {
	if e.fac != nil {
		closeFactory(e.fac)
	}
	e.store.Close()
}

func newBugsCmd() *cobra.Command {
	var (
		dir     string
		jsonOut bool
	)
	cmd := &cobra.Command{
		Use:   "bugs --corpus DIR",
		Short: "List the distinct bugs of a campaign",
		Long: `List the distinct bugs a campaign found (one row per signature): kind,
how many executions hit it, the first and last iteration, the length of the
input that found it and of its minimized reproducer.

"bugs show ID" replays the reproducer and prints its timeline and, when the
campaign has a model, the model states it visits.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			env, err := openCampaign(dir)
			if err != nil {
				return err
			}
			defer env.close()
			bugs, err := env.store.Bugs()
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if jsonOut {
				type row struct {
					ID             string `json:"id"`
					Kind           string `json:"kind"`
					Signature      string `json:"signature"`
					Message        string `json:"message"`
					Hits           int64  `json:"hits"`
					FirstIteration int64  `json:"first_iteration"`
					LastIteration  int64  `json:"last_iteration"`
					OriginalSteps  int    `json:"original_steps"`
					MinimizedSteps *int   `json:"minimized_steps"`
					MinimizeDone   bool   `json:"minimize_done"`
					MinimizeNote   string `json:"minimize_note,omitempty"`
				}
				rows := []row{}
				for _, b := range bugs {
					r := row{b.ID, b.Kind, b.Signature, b.Message, b.Hits, b.FirstIteration, b.LastIteration, b.Input.Len(), nil, b.MinimizeDone, b.MinimizeNote}
					if b.Minimized != nil {
						n := b.Minimized.Len()
						r.MinimizedSteps = &n
					}
					rows = append(rows, r)
				}
				enc := json.NewEncoder(w)
				enc.SetEscapeHTML(false)
				return enc.Encode(rows)
			}
			if len(bugs) == 0 {
				fmt.Fprintf(w, "no bugs in %s\n", dir)
				return nil
			}
			tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tKIND\tHITS\tFIRST\tLAST\tSTEPS\tMINIMIZED\tSIGNATURE")
			for _, b := range bugs {
				fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%s\t%s\n", b.ID, b.Kind, b.Hits, b.FirstIteration, b.LastIteration,
					b.Input.Len(), minimizedText(b), b.Signature)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			fmt.Fprintf(w, "\n%d distinct bug(s); details: modelfuzz bugs show --corpus %s %s\n", len(bugs), dir, bugs[0].ID)
			return nil
		},
	}
	cmd.PersistentFlags().StringVar(&dir, "corpus", "", "campaign directory (required)")
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the bugs as a JSON array")

	var original bool
	var timeout time.Duration
	show := &cobra.Command{
		Use:   "show --corpus DIR BUG_ID",
		Short: "Replay a bug's reproducer: its timeline and the model states it visits",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			env, err := openCampaign(dir)
			if err != nil {
				return err
			}
			defer env.close()
			b, err := env.store.Bug(args[0])
			if err != nil {
				return err
			}
			return showBug(cmd.OutOrStdout(), env, b, original, timeout)
		},
	}
	show.Flags().BoolVar(&original, "original", false, "replay the input that found the bug, not the minimized one")
	show.Flags().DurationVar(&timeout, "exec-timeout", 10*time.Second, "stop a replay that runs longer (a hang)")
	cmd.AddCommand(show)
	return cmd
}

func minimizedText(b *fuzzer.BugRecord) string {
	switch {
	case b.MinimizeNote != "":
		return "flaky"
	case b.Minimized == nil:
		return "-"
	case !b.MinimizeDone:
		return fmt.Sprintf("%d (partial)", b.Minimized.Len())
	}
	return fmt.Sprint(b.Minimized.Len())
}

// showBug prints a bug, the timeline of its reproducer and the model's view.
func showBug(w io.Writer, env *campaignEnv, b *fuzzer.BugRecord, original bool, timeout time.Duration) error {
	in, which := b.Reproducer(), "minimized"
	if original || b.Minimized == nil {
		in, which = b.Input, "original (not minimized)"
		if original {
			which = "original"
		}
	}
	fmt.Fprintf(w, "%s  %s  %d hit(s), iterations %d to %d\n", b.ID, b.Kind, b.Hits, b.FirstIteration, b.LastIteration)
	fmt.Fprintf(w, "signature: %s\nmessage:   %s\n", b.Signature, b.Message)
	fmt.Fprintf(w, "reproducer: %s, %d steps (found with %d steps", which, in.Len(), b.Input.Len())
	if b.Minimized != nil {
		state := "done"
		if !b.MinimizeDone {
			state = "stopped early"
		}
		fmt.Fprintf(w, "; minimization %s after %d executions", state, b.MinimizeTries)
	}
	if b.MinimizeNote != "" {
		fmt.Fprintf(w, "; %s", b.MinimizeNote)
	}
	fmt.Fprintln(w, ")")
	timeline, modelView, detail, err := replayBugDetail(env, b, in, timeout)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%s", timeline)
	if b.Kind == process.KindLinearizability {
		// porcupine's picture of the history that is not linearizable:
		// the replay's when it showed the bug, else the stored one.
		if detail == "" {
			detail = b.Detail
		}
		hist, err := process.HistoryFromDetail(detail)
		if err == nil {
			path := filepath.Join(env.dir, b.ID+"-linearizability.html")
			if err = process.WriteVisualization(hist, path); err == nil {
				fmt.Fprintf(w, "\nporcupine's visualization of the client history: %s\n", path)
			}
		}
		if err != nil {
			fmt.Fprintf(w, "\nno visualization of the client history: %v\n", err)
		}
	}
	if modelView != "" {
		fmt.Fprintf(w, "\n%s", modelView)
	}
	return nil
}

// replayBug replays in, an input of bug b, and returns its timeline with
// the failures it shows, and the model's view of it (empty without a
// model).
func replayBug(env *campaignEnv, b *fuzzer.BugRecord, in *schedule.Input, timeout time.Duration) (timeline, modelView string, err error) {
	timeline, modelView, _, err = replayBugDetail(env, b, in, timeout)
	return timeline, modelView, err
}

// replayBugDetail is replayBug that also returns the Detail of the
// replay's failure with the bug's signature ("" when it did not show).
func replayBugDetail(env *campaignEnv, b *fuzzer.BugRecord, in *schedule.Input, timeout time.Duration) (timeline, modelView, detail string, err error) {
	chk, err := env.checker(timeout)
	if err != nil {
		return "", "", "", err
	}
	ex, _, err := chk.Run(in)
	if err != nil {
		return "", "", "", fmt.Errorf("replay of %s: %v", b.ID, err)
	}
	var t strings.Builder
	t.WriteString(schedule.Timeline(env.fac.Spec(), in, ex))
	reproduced := false
	for _, f := range ex.Failures {
		fmt.Fprintf(&t, "\nFAILURE at step %d: %s: %s\nsignature: %s\n", f.Step, f.Kind, f.Message, f.Signature)
		if f.Signature == b.Signature && !reproduced {
			reproduced, detail = true, f.Detail
		}
	}
	if reproduced {
		fmt.Fprintf(&t, "\nthe replay shows %s again (same signature)\n", b.ID)
	} else {
		fmt.Fprintf(&t, "\nthe replay does NOT show %s (signature not seen)\n", b.ID)
	}
	if env.camp.Model == "" {
		return t.String(), "", detail, nil
	}
	var m strings.Builder
	if err := showModelRun(&m, env, in, ex); err != nil {
		return "", "", "", err
	}
	return t.String(), m.String(), detail, nil
}

// showModelRun prints the model actions an execution maps to and the
// abstract states they visit, with the variables each action changed,
// and where the execution leaves the model or violates an invariant.
func showModelRun(w io.Writer, env *campaignEnv, in *schedule.Input, ex *schedule.Execution) error {
	acts, err := env.mapr.Map(in, ex)
	if err != nil {
		return fmt.Errorf("mapping the trace onto %s: %v", env.camp.Model, err)
	}
	res, err := env.sim.Simulate(guidance.SimRequest(acts, true))
	if err != nil {
		return fmt.Errorf("simulating on %s: %v", env.camp.Model, err)
	}
	fmt.Fprintf(w, "model %s: %d action(s) mapped, %d abstract state(s) visited\n", env.camp.Model, len(acts), len(res.States))
	var prev map[string]json.RawMessage
	si := 0
	for i := -1; i < len(acts); i++ {
		if res.Divergence != nil && res.Divergence.Index == i {
			fmt.Fprintf(w, "  DIVERGES at action %d (step %d), %s: %s\n", i, stepOfAction(acts, i), actionText(acts, i), res.Divergence.Reason)
			break
		}
		if i >= 0 {
			fmt.Fprintf(w, "  action %d (step %d) %s\n", i, acts[i].Step, actionText(acts, i))
		}
		for si < len(res.States) && res.States[si].Index == i+1 {
			st := res.States[si]
			fmt.Fprintf(w, "    state %s%s\n", st.Key, changedVars(prev, st.State))
			prev = st.State
			si++
		}
		for _, v := range res.Violations {
			if v.Index == i+1 {
				fmt.Fprintf(w, "  VIOLATES invariant %s after action %d (step %d)\n", v.Invariant, i, stepOfAction(acts, i))
			}
		}
	}
	if res.Divergence == nil && len(res.Violations) == 0 {
		fmt.Fprintln(w, "  the model allows every action and no invariant is violated")
	}
	return nil
}

func stepOfAction(acts []schedule.ModelAction, i int) int {
	if i >= 0 && i < len(acts) {
		return acts[i].Step
	}
	return -1
}

func actionText(acts []schedule.ModelAction, i int) string {
	if i < 0 || i >= len(acts) {
		return "Init"
	}
	return acts[i].Name + paramsText(acts[i].Params)
}

// changedVars lists the variables whose value differs from prev (all of
// them for the initial state), values cut to 120 characters.
func changedVars(prev, cur map[string]json.RawMessage) string {
	var names []string
	for n, v := range cur {
		if pv, ok := prev[n]; !ok || !bytes.Equal(pv, v) {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return ""
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		v := string(cur[n])
		if len(v) > 120 {
			v = v[:117] + "..."
		}
		fmt.Fprintf(&b, "\n      %s = %s", n, v)
	}
	return b.String()
}

func newMinimizeCmd() *cobra.Command {
	var (
		dir      string
		out      string
		tries    int
		budget   time.Duration
		original bool
		timeout  time.Duration
	)
	cmd := &cobra.Command{
		Use:   "minimize --corpus DIR BUG_ID [-o FILE]",
		Short: "Shrink a bug's input to a small one that shows the same bug",
		Long: `Shrink the input of a stored bug while it still shows the same bug (the
same signature): delta debugging over its steps, then removing crash and
restart pairs and lowering message counts and request values. Every try
replays the candidate deterministically, as the campaign ran it (with its
model, if it had one). The result is stored with the bug (the original
stays) and, with -o, written as an input file.

It starts from the bug's minimized input when there is one (--original:
from the input that found it), so running it again continues a
minimization stopped by its budget. Ctrl-C stops and keeps the best so far.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if tries < 1 {
				return fmt.Errorf("--tries must be at least 1, got %d", tries)
			}
			env, err := openCampaign(dir)
			if err != nil {
				return err
			}
			defer env.close()
			b, err := env.store.Bug(args[0])
			if err != nil {
				return err
			}
			start := b.Reproducer()
			if original {
				start = b.Input
			}
			chk, err := env.checker(timeout)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			keep := func(in *schedule.Input) (bool, error) { return chk.Reproduces(in, b.Signature) }
			t0 := time.Now()
			res, st, err := schedule.Minimize(ctx, start, keep, schedule.MinimizeOptions{MaxTries: tries, MaxTime: budget})
			if res == nil {
				return fmt.Errorf("minimize %s: %v", b.ID, err)
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "modelfuzz: minimize %s stopped: %v\n", b.ID, err)
			}
			b.Minimized, b.MinimizeTries, b.MinimizeNote = res, b.MinimizeTries+st.Tries, ""
			b.MinimizeDone = st.Complete && err == nil
			if err := env.store.Commit(&fuzzer.Batch{Bugs: []*fuzzer.BugRecord{b}}); err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			state := "a fixpoint: no single step can be removed or simplified"
			if !b.MinimizeDone {
				state = "stopped early (budget or Ctrl-C); run again to go on"
			}
			fmt.Fprintf(w, "%s: %d steps -> %d steps in %d executions (%.1fs), %s\n", b.ID, st.Before, st.After, st.Tries, time.Since(t0).Seconds(), state)
			fmt.Fprintf(w, "stored with the bug; replay: modelfuzz replay --corpus %s %s\n", dir, b.ID)
			if out != "" {
				if err := os.WriteFile(out, schedule.EncodeInput(res), 0o644); err != nil {
					return err
				}
				fmt.Fprintf(w, "written to %s\n", out)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "corpus", "", "campaign directory (required)")
	cmd.Flags().StringVarP(&out, "output", "o", "", "also write the minimized input to this file")
	cmd.Flags().IntVar(&tries, "tries", 5000, "most executions to spend")
	cmd.Flags().DurationVar(&budget, "time", 0, "most time to spend (0: no limit)")
	cmd.Flags().BoolVar(&original, "original", false, "start from the input that found the bug, not from its minimized input")
	cmd.Flags().DurationVar(&timeout, "exec-timeout", 10*time.Second, "stop an execution that runs longer (a hang)")
	return cmd
}
