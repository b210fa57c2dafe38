package campaign

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/modelfuzz/modelfuzz/corpus"
	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/guidance"
	"github.com/modelfuzz/modelfuzz/models"
	"github.com/modelfuzz/modelfuzz/record"
	"github.com/modelfuzz/modelfuzz/schedule"
	"github.com/modelfuzz/modelfuzz/tlc/sidecar"
	"github.com/modelfuzz/modelfuzz/tlc/sim"
)

// Env is a stored campaign opened to replay its inputs as the campaign
// ran them: the same system and, when it had one, the same model (in
// process). It is what bugs, replay, minimize and report share.
type Env struct {
	Dir      string
	Store    *corpus.Store
	Settings *Settings
	System   *System

	mapper schedule.Mapper
	sim    *sim.Simulator
	// specM validates the system's own trace (a campaign with --model
	// etcdraft.tla) instead of mapper and sim.
	specM *guidance.SpecMeasure
}

// OpenEnv opens the campaign stored in dir, for a command that may write
// to it (minimize).
func OpenEnv(dir string, logger hclog.Logger) (*Env, error) {
	return openEnv(dir, logger, false)
}

// OpenEnvReadOnly opens the campaign stored in dir for a command that only
// reads: a campaign running on it, or a read-only directory, does not stop
// it (it reads a snapshot, corpus.Options.ReadOnly).
func OpenEnvReadOnly(dir string, logger hclog.Logger) (*Env, error) {
	return openEnv(dir, logger, true)
}

func openEnv(dir string, logger hclog.Logger, readOnly bool) (*Env, error) {
	if dir == "" {
		return nil, fmt.Errorf("--corpus DIR is required")
	}
	store, err := corpus.Open(dir, corpus.Options{MustExist: true, ReadOnly: readOnly})
	if err != nil {
		return nil, err
	}
	e := &Env{Dir: dir, Store: store}
	if err := e.load(logger); err != nil {
		store.Close()
		return nil, err
	}
	return e, nil
}

func (e *Env) load(logger hclog.Logger) error {
	s, err := StoredSettings(e.Store)
	if err != nil {
		return err
	}
	if s == nil {
		return noCampaign(e.Dir, e.Store)
	}
	ad, err := LookupAdapter(s.Adapter)
	if err != nil {
		return fmt.Errorf("corpus %s: %v", e.Dir, err)
	}
	sys, err := ad.Open(s.AdapterConfig, logger)
	if err != nil {
		return fmt.Errorf("corpus %s: adapter configuration: %v", e.Dir, err)
	}
	e.Settings, e.System = s, sys
	return nil
}

// noCampaign is the error of a corpus without campaign settings: a new
// one, or one whose settings were lost (a repair that could not keep
// them), whose records are still there but whose system is unknown.
func noCampaign(dir string, store *corpus.Store) error {
	snap, err := store.Load(0)
	if err == nil && (snap.Counters.Iterations > 0 || len(snap.Bugs) > 0) {
		return fmt.Errorf("corpus %s: its campaign's settings were lost (%d bug(s) and its inputs are kept), so the system to replay them on is unknown; \"modelfuzz corpus export --corpus %s DIR\" writes them for \"modelfuzz replay --adapter ...\", and the next run stores its own settings", dir, len(snap.Bugs), dir)
	}
	return fmt.Errorf("corpus %s: holds no campaign yet (\"modelfuzz run --corpus %s\" starts one)", dir, dir)
}

// CheckBug looks bug id up in a snapshot of the corpus in dir: an error
// when another process holds the corpus, when it cannot be read or holds
// no such bug.
func CheckBug(dir, id string) error {
	if dir == "" {
		return fmt.Errorf("--corpus DIR is required")
	}
	if err := corpus.CheckUnlocked(dir); err != nil {
		return err
	}
	st, err := corpus.Open(dir, corpus.Options{MustExist: true, ReadOnly: true})
	if err != nil {
		return err
	}
	defer st.Close()
	_, err = st.Bug(id)
	return err
}

// StoredSettings reads the settings a corpus holds (nil when none).
func StoredSettings(store *corpus.Store) (*Settings, error) {
	var s Settings
	found, err := store.Campaign(&s)
	if err != nil || !found {
		return nil, err
	}
	return &s, nil
}

// Close stops the system and closes the corpus.
func (e *Env) Close() {
	e.closeSystem()
	e.Store.Close()
}

// closeSystem stops the system and the model, not the corpus (which a Live
// view shares with its running campaign).
func (e *Env) closeSystem() {
	if e.System != nil {
		e.System.Close()
	}
	if e.specM != nil {
		e.specM.Close()
	}
}

// loadModel loads the campaign's model in process (a no-op without one).
func (e *Env) loadModel() error {
	if e.Settings.Model == "" || e.sim != nil || e.specM != nil {
		return nil
	}
	if e.System.TraceSpec != nil {
		sm, err := newSpecMeasure(e.Settings.Model, e.Settings.ModelConfig, nil, hclog.NewNullLogger())
		if err != nil {
			return fmt.Errorf("the campaign's %v", err)
		}
		e.specM = sm
		return nil
	}
	m, _, err := e.System.Mapper()
	if err != nil {
		return fmt.Errorf("corpus %s: %v", e.Dir, err)
	}
	s, err := loadSimulator(models.Spec{Model: e.Settings.Model, Config: e.Settings.ModelConfig, Consts: e.Settings.ModelConsts})
	if err != nil {
		return fmt.Errorf("the campaign's %v", err)
	}
	e.mapper, e.sim = m, s
	return nil
}

// Checker replays inputs as the campaign did: its system, and its model
// measure when it had a model (divergences and model invariants are bugs
// too).
func (e *Env) Checker(timeout time.Duration) (*fuzzer.Checker, error) {
	var measures []fuzzer.Measure
	if e.Settings.Model != "" {
		if err := e.loadModel(); err != nil {
			return nil, err
		}
		if e.specM != nil {
			measures = append(measures, e.specM)
		} else {
			measures = append(measures, &guidance.ModelMeasure{Mapper: e.mapper, Sim: sidecar.InProc{Simulator: e.sim}, Spec: e.System.Spec()})
		}
	}
	return fuzzer.NewChecker(e.System, measures, timeout), nil
}

// IsBugID reports whether an argument names a bug record: a bug (B1) or a
// known disagreement (K1).
func IsBugID(arg string) bool { return strings.HasPrefix(arg, "B") || strings.HasPrefix(arg, "K") }

// ResolveInput finds the input an argument names: a JSON file, an input
// id or a bug id of the campaign (its minimized input unless original).
// It also says what it found, e.g. "bug B1 (minimized)".
func (e *Env) ResolveInput(arg string, original bool) (*schedule.Input, string, error) {
	if !isID(arg) || fileExists(arg) {
		if !fileExists(arg) {
			return nil, "", fmt.Errorf("no input file %q, and not an input id (12), a bug id (B1) or a known disagreement (K1)", arg)
		}
		in, _, err := schedule.ReadInputFile(arg)
		if err != nil {
			return nil, "", err
		}
		return in, arg, nil
	}
	if IsBugID(arg) {
		bug, err := e.Store.Bug(arg)
		if err != nil {
			return nil, "", err
		}
		if original || bug.Minimized == nil {
			return bug.Input, "bug " + bug.ID, nil
		}
		return bug.Minimized, "bug " + bug.ID + " (minimized)", nil
	}
	id, err := strconv.ParseUint(arg, 10, 64)
	if err != nil {
		return nil, "", fmt.Errorf("bad input id %q: out of range", arg)
	}
	rec, err := e.Store.Input(id)
	if err != nil {
		return nil, "", err
	}
	return rec.Input, "input " + arg, nil
}

// isID reports whether arg is written as an input id (12), a bug id (B1)
// or a known disagreement's (K1).
func isID(arg string) bool {
	digits := strings.TrimPrefix(strings.TrimPrefix(arg, "B"), "K")
	if digits == "" {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// BugReplay is a bug's input replayed: the timeline with the failures it
// showed, and the model's view of it.
type BugReplay struct {
	Timeline  string
	ModelView string // "" without a model
	// Detail is the Detail of the replay's failure with the bug's
	// signature ("" when the replay did not show it).
	Detail string
}

// ReplayBug replays in, an input of bug b.
func (e *Env) ReplayBug(b *record.BugRecord, in *schedule.Input, timeout time.Duration) (*BugReplay, error) {
	chk, err := e.Checker(timeout)
	if err != nil {
		return nil, err
	}
	ex, _, err := chk.Run(in)
	if err != nil {
		return nil, fmt.Errorf("replay of %s: %v", b.ID, err)
	}
	r := &BugReplay{}
	var t strings.Builder
	t.WriteString(schedule.Timeline(e.System.Spec(), in, ex))
	reproduced := false
	for _, f := range ex.Failures {
		t.WriteString(FailureText(f))
		if f.Signature == b.Signature && !reproduced {
			reproduced, r.Detail = true, f.Detail
		}
	}
	if reproduced {
		fmt.Fprintf(&t, "\nthe replay shows %s again (same signature)\n", b.ID)
	} else {
		fmt.Fprintf(&t, "\nthe replay does NOT show %s (signature not seen)\n", b.ID)
	}
	r.Timeline = t.String()
	if e.Settings.Model != "" {
		if r.ModelView, err = e.modelView(in, ex); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// FailureText is how a failure is shown under a timeline.
func FailureText(f schedule.Failure) string {
	at := fmt.Sprintf("at step %d", f.Step)
	if f.Step < 0 {
		at = "at a step it cannot tell"
	}
	return fmt.Sprintf("\nFAILURE %s: %s: %s\nsignature: %s\n", at, f.Kind, f.Message, f.Signature)
}

// modelView shows the model actions an execution maps to and the
// abstract states they visit, with the variables each action changed,
// and where the execution leaves the model or violates an invariant.
func (e *Env) modelView(in *schedule.Input, ex *schedule.Execution) (string, error) {
	model := e.Settings.Model
	if e.specM != nil {
		return e.specView(ex)
	}
	acts, err := e.mapper.Map(in, ex)
	if err != nil {
		return "", fmt.Errorf("mapping the trace onto %s: %v", model, err)
	}
	req := guidance.SimRequest(acts, false)
	req.Text = true
	res, err := e.sim.Simulate(req)
	if err != nil {
		return "", fmt.Errorf("simulating on %s: %v", model, err)
	}
	var w strings.Builder
	fmt.Fprintf(&w, "model %s: %d action(s) mapped, %d abstract state(s) visited\n", model, len(acts), len(res.States))
	if n, ok := e.mapper.(interface{ Note() string }); ok {
		fmt.Fprintf(&w, "  (%s)\n", n.Note())
	}
	var prev map[string]string
	si := 0
	for i := -1; i < len(acts); i++ {
		if res.Divergence != nil && res.Divergence.Index == i {
			d := res.Divergence
			fmt.Fprintf(&w, "  DIVERGES at action %d (step %d), %s\n", i, stepOfAction(acts, i), guidance.DivergenceText(e.System.Spec(), in, ex, acts, d))
			if d.Context != "" {
				w.WriteString(contextText(model, d))
			}
			break
		}
		if i >= 0 {
			fmt.Fprintf(&w, "  action %d (step %d) %s\n", i, acts[i].Step, e.actionText(acts[i]))
		}
		for si < len(res.States) && res.States[si].Index == i+1 {
			st := res.States[si]
			fmt.Fprintf(&w, "    state %s%s\n", st.Key, changedVars(prev, st.Text))
			prev = st.Text
			si++
		}
		for _, v := range res.Violations {
			if v.Index == i+1 {
				fmt.Fprintf(&w, "  VIOLATES invariant %s after action %d (step %d)\n", v.Invariant, i, stepOfAction(acts, i))
			}
		}
	}
	if res.Divergence == nil && len(res.Violations) == 0 {
		fmt.Fprintln(&w, "  the model allows every action and no invariant is violated")
	}
	return w.String(), nil
}

// specView shows how the trace spec took an execution's own trace: how
// many events it matched, and where it stopped.
func (e *Env) specView(ex *schedule.Execution) (string, error) {
	v, err := e.specM.Validate(ex)
	if err != nil {
		return "", fmt.Errorf("validating the trace against %s: %v", e.specM.Spec, err)
	}
	var w strings.Builder
	tr := v.Trace
	fmt.Fprintf(&w, "trace spec %s: %d of %d events of the library's trace matched, %d abstract state(s) reached\n",
		e.specM.Spec, tr.Consumed, len(tr.Log), len(v.Keys))
	if f := guidance.SpecFailure(ex, v); f != nil {
		fmt.Fprintf(&w, "  %s (step %d)\n", f.Message, f.Step)
		for _, line := range strings.Split(strings.TrimRight(f.Detail, "\n"), "\n") {
			if line != "" {
				fmt.Fprintf(&w, "  %s\n", line)
			}
		}
		if len(tr.Stuck) > 0 {
			st := tr.Stuck[len(tr.Stuck)-1]
			fmt.Fprintln(&w, "  spec state after the last matched event:")
			for i, name := range st.Vars {
				val := st.Values[i].String()
				if len(val) > 400 {
					val = val[:397] + "..."
				}
				fmt.Fprintf(&w, "    %s = %s\n", name, val)
			}
		}
	} else {
		fmt.Fprintln(&w, "  the spec allows every event and no invariant is violated")
	}
	return w.String(), nil
}

// contextText shows where the false conjunct of a divergence lies in the
// condition that holds it: the model's source lines from the condition's
// first to the conjunct's, numbered, the conjunct's marked; the condition
// as one expression when the source is not at hand.
func contextText(model string, d *sim.Divergence) string {
	var w strings.Builder
	fmt.Fprintf(&w, "    the false conjunct, in the condition at %s:\n", d.ContextAt)
	file, from, _ := posOf(d.ContextAt)
	file2, to, col := posOf(d.At)
	src, err := models.Source(model)
	name := strings.TrimSuffix(filepath.Base(model), ".tla") + ".tla"
	if err != nil || file != name || file2 != name || from < 1 || to < from {
		fmt.Fprintf(&w, "      %s\n", d.Context)
		return w.String()
	}
	lines := strings.Split(string(src), "\n")
	if to > len(lines) {
		fmt.Fprintf(&w, "      %s\n", d.Context)
		return w.String()
	}
	const most = 12 // lines shown before the conjunct's
	for n := from; n <= to; n++ {
		if n == from+most/2 && to-from > most {
			fmt.Fprintf(&w, "      %5s |\n", "...")
			n = to - most/2
		}
		fmt.Fprintf(&w, "      %5d | %s\n", n, lines[n-1])
	}
	fmt.Fprintf(&w, "      %5s | %s^ false\n", "", strings.Repeat(" ", max(col-1, 0)))
	return w.String()
}

// posOf splits a position "raft.tla:120:9".
func posOf(at string) (file string, line, col int) {
	parts := strings.Split(at, ":")
	if len(parts) != 3 {
		return "", 0, 0
	}
	line, _ = strconv.Atoi(parts[1])
	col, _ = strconv.Atoi(parts[2])
	return parts[0], line, col
}

func stepOfAction(acts []schedule.ModelAction, i int) int {
	if i >= 0 && i < len(acts) {
		return acts[i].Step
	}
	return -1
}

// actionText shows a mapped action as the model takes it: TLA+, its
// parameters in the operator's order. An action the model cannot take
// (the divergence says why) is shown as mapped.
func (e *Env) actionText(a schedule.ModelAction) string {
	if text, err := e.sim.CallText(sim.Action{Name: a.Name, Params: a.Params}); err == nil {
		return text
	}
	return guidance.ActionCall(a)
}

// changedVars lists the variables whose value differs from prev (all of
// them for the initial state), values cut to 120 characters.
func changedVars(prev, cur map[string]string) string {
	var names []string
	for n, v := range cur {
		if pv, ok := prev[n]; !ok || pv != v {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	var b strings.Builder
	for _, n := range names {
		v := cur[n]
		if len(v) > 120 {
			v = v[:117] + "..."
		}
		fmt.Fprintf(&b, "\n      %s = %s", n, v)
	}
	return b.String()
}

// Target is an input to replay with the checker that replays it as its
// campaign ran it.
type Target struct {
	Input     *schedule.Input
	What      string // what the input is, e.g. "bug B1 (minimized)"
	Signature string // the bug's, when the target is a bug
	Spec      *schedule.SystemSpec
	Checker   *fuzzer.Checker
	close     func()
}

// Close releases the target's system (and corpus).
func (t *Target) Close() { t.close() }

// fileTarget is the target of an input file that names its campaign's
// model: replayed on system s and checked against that model as the
// campaign checked it.
func fileTarget(s *System, in *schedule.Input, arg string, named *schedule.InputSystem, timeout time.Duration) (*Target, error) {
	env := &Env{System: s, Settings: &Settings{Adapter: named.Adapter, AdapterConfig: named.Config, Model: named.Model, ModelConfig: named.ModelConfig}}
	if env.System.TraceSpec == nil {
		_, consts, err := s.Mapper()
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("input %s: the model it names, %s: %v", arg, named.Model, err)
		}
		env.Settings.ModelConsts = consts
	}
	c, err := env.Checker(timeout)
	if err != nil {
		env.closeSystem()
		return nil, fmt.Errorf("input %s: the model it names, %s: %v", arg, named.Model, err)
	}
	return &Target{Input: in, What: arg, Spec: s.Spec(), Checker: c, close: env.closeSystem}, nil
}

// OpenTarget resolves arg, an input to replay: with a corpus dir, a file,
// input id or bug id of that campaign, replayed on its system and model;
// without, an input file replayed on the system sys describes.
func OpenTarget(dir string, sys SystemFlags, arg string, original bool, timeout time.Duration) (*Target, error) {
	if dir == "" {
		in, named, err := schedule.ReadInputFile(arg)
		if err != nil {
			if !fileExists(arg) {
				return nil, fmt.Errorf("%v (give an input file, or an id with --corpus DIR)", err)
			}
			return nil, err
		}
		var s *System
		if named != nil && !sys.AnyGiven() {
			// The file was written from a campaign: its system, not the
			// command line's default, and its model.
			ad, err := LookupAdapter(named.Adapter)
			if err != nil {
				return nil, fmt.Errorf("input %s: %v", arg, err)
			}
			if s, err = ad.Open(named.Config, nil); err != nil {
				return nil, fmt.Errorf("input %s: the system it names: %v", arg, err)
			}
			if named.Model != "" {
				return fileTarget(s, in, arg, named, timeout)
			}
		} else if s, err = sys.Open(nil); err != nil {
			return nil, err
		}
		return &Target{Input: in, What: arg, Spec: s.Spec(), Checker: fuzzer.NewChecker(s, nil, timeout), close: s.Close}, nil
	}
	if sys.AnyGiven() {
		return nil, fmt.Errorf("the adapter's flags are for an input file: with --corpus %s, the input replays on the campaign's own system (leave them out)", dir)
	}
	env, err := OpenEnvReadOnly(dir, nil)
	if err != nil {
		return nil, err
	}
	t := &Target{Spec: env.System.Spec(), close: env.Close}
	if t.Input, t.What, err = env.ResolveInput(arg, original); err != nil {
		env.Close()
		return nil, err
	}
	if IsBugID(arg) {
		if b, err := env.Store.Bug(arg); err == nil {
			t.Signature = b.Signature
		}
	}
	if t.Checker, err = env.Checker(timeout); err != nil {
		env.Close()
		return nil, err
	}
	return t, nil
}
