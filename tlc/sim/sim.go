// Package sim replays a sequence of actions on a TLA+ model: from the
// initial state, each action operator is evaluated with the given
// parameters and its successor becomes the current state. It reports the
// abstract states visited (fingerprints of the cfg's VIEW), where the
// sequence diverges from the model (an unknown or disabled action), and
// the invariants violated on the way. It memoizes transitions, since
// fuzzing replays many sequences with shared prefixes.
//
// It is the engine behind the sidecar (tlc/sidecar) and the in-process
// model guidance; it knows nothing of the fuzzer.
package sim

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelfuzz/modelfuzz/tlc/eval"
	"github.com/modelfuzz/modelfuzz/tlc/syntax"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// Action is one action to apply: an action operator of the model and its
// parameters by formal name (JSON-shaped values: numbers, strings or model
// value names, booleans, arrays as tuples, objects as records).
type Action struct {
	Name   string         `json:"name"`
	Params map[string]any `json:"params,omitempty"`
}

// Request is a simulation request.
type Request struct {
	Actions []Action `json:"actions"`
	// Init selects the initial state when there are several: the values
	// some variables must have.
	Init map[string]any `json:"init,omitempty"`
	// States, when false, leaves the states' variables out of the answer
	// (keys only): what the fuzzer needs, at a fraction of the size.
	States *bool `json:"include_states,omitempty"`
	// Resync, when true, goes on past a divergence: the action the model
	// does not allow is skipped (the model state stays) and the next ones
	// are applied, each skipped too when not enabled. The states reached
	// so are states of the model, not necessarily the implementation's:
	// coverage keeps a signal after a divergence (a fuzzer's bug that
	// diverges in most executions would leave it blind), while the
	// divergence reported is still the first.
	Resync bool `json:"resync,omitempty"`
	// Text, in process only, also gives each state's variables as TLA+
	// text (State.Text), as TLC prints values.
	Text bool `json:"-"`
}

// State is one visited abstract state.
type State struct {
	Key   string                     `json:"key"` // the abstract fingerprint, 16 hex digits
	State map[string]json.RawMessage `json:"state,omitempty"`
	// Index is how many actions had been applied when it was reached
	// (0: the initial state).
	Index int `json:"index"`
	// Text holds the variables' values as TLA+ (Request.Text).
	Text map[string]string `json:"-"`
	// View is the state's VIEW value as TLC itself gives it, which
	// tlc/tlcjava turns into Key; the native engine leaves it out.
	View json.RawMessage `json:"view,omitempty"`
}

// Divergence is where the actions stop matching the model.
type Divergence struct {
	Index  int    `json:"index"` // of the action, from 0; -1 for the initial state
	Action string `json:"action"`
	Reason string `json:"reason"`
	// For an action that is not enabled: the conjunct of its body (or of
	// an operator it calls, or of the branch of an IF or CASE in it that
	// applied) that is false, its source and its position
	// ("raft.tla:120:9").
	Conjunct string `json:"conjunct,omitempty"`
	At       string `json:"at,omitempty"`
	// Context is the conjunct of the action's body (or of an operator it
	// calls) that holds Conjunct, when Conjunct is nested in it (an IF
	// whose branch failed), and ContextAt its position; for people who
	// want the whole condition, not for telling bugs apart.
	Context   string `json:"context,omitempty"`
	ContextAt string `json:"context_at,omitempty"`
	// Call is the action with its parameters as the model received them,
	// in the operator's order and TLA+'s notation:
	// HandleAppendRequest(i=2, j=1, entries=<<[term |-> 3, value |-> ""]>>).
	Call string `json:"call,omitempty"`
}

// Violation is an invariant false in a visited state.
type Violation struct {
	Invariant string `json:"invariant"`
	Index     int    `json:"index"` // as State.Index
}

// Choice records an action that had several successors; the first in the
// engine's deterministic enumeration order was taken.
type Choice struct {
	Index      int `json:"index"`
	Successors int `json:"successors"`
}

// Result is the answer to a Request.
type Result struct {
	States     []State     `json:"states"`
	Divergence *Divergence `json:"divergence"`
	Violations []Violation `json:"violations"`
	Choices    []Choice    `json:"choices,omitempty"`
	// Skipped counts the actions skipped past the divergence (Resync).
	Skipped int `json:"skipped,omitempty"`
	// Keys are the abstract fingerprints of States, as numbers.
	Keys []uint64 `json:"-"`
}

// Simulator simulates actions on one model. It is safe for concurrent use.
type Simulator struct {
	m       *eval.Model
	mvs     map[string]value.ModelValue
	actions map[string]eval.ActionInfo
	// nameKeys are the fingerprints of the actions' names.
	nameKeys map[string]uint64
	pool     sync.Pool // *eval.Evaluator
	cache    *cache
	initial  [][]value.Value
	// unitReads holds, per conjunct of each invariant, the variables its
	// evaluations have read (bit k: variable k).
	unitReads [][]unitRead
	invNames  []string
	// viewRead is what is known of the variables the VIEW reads.
	viewRead unitRead

	mu    sync.Mutex
	stats Stats
}

// Stats counts the simulator's work.
type Stats struct {
	Requests, Actions, CacheHits int64
}

// DefaultCache is the default bound of memoized transitions. A cached
// transition holds a whole successor state (kilobytes for raft.tla), so
// the bound is what keeps a long campaign's engine in bounded memory;
// hits come from the common prefixes of executions, which a small cache
// keeps (raft.tla campaigns: 2^14 entries run as fast as 2^20, with a
// fraction of the memory; docs/benchmarks.md).
const DefaultCache = 1 << 14

// New prepares a simulator; cacheSize bounds the memoized transitions
// (0: DefaultCache).
func New(m *eval.Model, cacheSize int) (*Simulator, error) {
	if cacheSize <= 0 {
		cacheSize = DefaultCache
	}
	s := &Simulator{m: m, mvs: m.ModelValues(), actions: map[string]eval.ActionInfo{}, cache: newCache(cacheSize)}
	s.nameKeys = map[string]uint64{}
	for _, a := range m.Actions() {
		s.actions[a.Name] = a
		s.nameKeys[a.Name] = value.Fingerprint(value.Str(a.Name))
	}
	s.invNames = m.InvariantNames()
	s.unitReads = make([][]unitRead, len(s.invNames))
	for i := range s.unitReads {
		s.unitReads[i] = make([]unitRead, m.InvariantUnits(i))
	}
	s.pool.New = func() any { return m.NewEvaluator() }
	ev := s.evaluator()
	defer s.pool.Put(ev)
	if err := ev.Init(func(st []value.Value) error {
		s.initial = append(s.initial, st)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("initial states: %w", err)
	}
	if len(s.initial) == 0 {
		return nil, fmt.Errorf("the model has no initial state")
	}
	return s, nil
}

func (s *Simulator) evaluator() *eval.Evaluator { return s.pool.Get().(*eval.Evaluator) }

// Model returns the simulated model.
func (s *Simulator) Model() *eval.Model { return s.m }

// Actions lists the model's action operators.
func (s *Simulator) Actions() []eval.ActionInfo {
	out := make([]eval.ActionInfo, 0, len(s.actions))
	for _, a := range s.actions {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Stats returns counters.
func (s *Simulator) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// info is what is known of a state: its abstract key and the invariants it violates.
type info struct {
	key        uint64
	violations []string
}

// stateInfo is what is known of st, whose fingerprint is fp. prev, when
// not nil, is the state st was reached from and pin what is known of it.
func (s *Simulator) stateInfo(ev *eval.Evaluator, st []value.Value, fp uint64, prev []value.Value, pin *info) (info, error) {
	if in, ok := s.cache.info(fp); ok {
		return in, nil
	}
	// The variables the step changed: the VIEW is prev's if it reads
	// none of them, and a conjunct that held in prev (as every conjunct
	// did if prev violated nothing) and reads none of them holds in st.
	var changed uint64
	known := prev != nil && pin != nil && len(st) <= 64
	if known {
		for k := range st {
			if !value.Identical(prev[k], st[k]) {
				changed |= 1 << uint(k)
			}
		}
	}
	var in info
	if known && s.viewRead.evaluated.Load() && s.viewRead.vars.Load()&changed == 0 {
		in.key = pin.key
	} else {
		key, reads, err := ev.ViewKey(st)
		if err != nil {
			return info{}, fmt.Errorf("evaluating VIEW: %w", err)
		}
		in.key = key
		s.viewRead.vars.Or(reads)
		s.viewRead.evaluated.Store(true)
	}
	after := known && len(pin.violations) == 0
	for i, name := range s.invNames {
		ok, err := s.invariant(ev, i, st, after, changed)
		if err != nil {
			return info{}, fmt.Errorf("evaluating invariant %s: %w", name, err)
		}
		if !ok {
			in.violations = append(in.violations, name)
		}
	}
	s.cache.putInfo(fp, in)
	return in, nil
}

// invariant evaluates invariant i in st conjunct by conjunct (see
// eval.Evaluator.InvariantUnit). When after is set, every conjunct held
// in the state st came from, and one that reads none of the variables in
// changed holds in st; another may be found in the cache.
//
// A conjunct is a function of the variables it reads, and most of a new
// state's variables are those of the state it came from (a vote changes
// votes, not logs): its value is kept by the fingerprints of the variables
// its evaluations have read so far (reads[u], which only grows), so that a
// new state that agrees with a known one on them is not evaluated again.
// A result is kept under the set of variables it was looked up with plus
// those its evaluation read, and that set is part of the key: an entry is
// only found by a state that agrees on every variable the evaluation read.
func (s *Simulator) invariant(ev *eval.Evaluator, i int, st []value.Value, after bool, changed uint64) (bool, error) {
	if len(st) > 64 {
		return ev.Invariant(i, st)
	}
	reads := s.unitReads[i]
	for u := range reads {
		known := reads[u].vars.Load()
		if after && known&changed == 0 && reads[u].evaluated.Load() {
			continue // held before, and reads nothing the step changed
		}
		key := unitKey(i, u, known, st)
		if ok, found := s.cache.invariant(key); found {
			if !ok {
				return false, nil
			}
			continue
		}
		ok, read, reusable, err := ev.InvariantUnit(i, u, st)
		if err != nil {
			return false, err
		}
		if !reusable {
			reads[u].vars.Store(^uint64(0))
		} else {
			if all := known | read; all != known {
				reads[u].vars.Or(read)
				key = unitKey(i, u, all, st)
			}
			s.cache.putInvariant(key, ok)
		}
		reads[u].evaluated.Store(true)
		if !ok {
			return false, nil
		}
	}
	return true, nil
}

// unitRead is what is known of the variables a conjunct reads: those its
// evaluations have read so far, once it has been evaluated.
type unitRead struct {
	vars      atomic.Uint64
	evaluated atomic.Bool
}

func unitKey(i, u int, vars uint64, st []value.Value) uint64 {
	var h value.Hasher
	h.AddUint64(uint64(i))
	h.AddUint64(uint64(u))
	h.AddUint64(vars)
	for k, v := range st {
		if vars&(1<<uint(k)) != 0 {
			h.Add(v)
		}
	}
	return h.Sum()
}

// Simulate runs a request.
func (s *Simulator) Simulate(req *Request) (*Result, error) {
	ev := s.evaluator()
	defer s.pool.Put(ev)
	withStates := req.States == nil || *req.States
	res := &Result{States: []State{}, Violations: []Violation{}}
	cur, err := s.selectInit(req.Init)
	if err != nil {
		res.Divergence = &Divergence{Index: -1, Action: "Init", Reason: err.Error()}
		return res, nil
	}
	var hits int64
	visit := func(st []value.Value, in info, index int) error {
		if res.Divergence == nil {
			// Past a divergence (Resync) the states are the model's own,
			// not the execution's: what they violate is not the
			// execution's failure.
			for _, inv := range in.violations {
				res.Violations = append(res.Violations, Violation{Invariant: inv, Index: index})
			}
		}
		if n := len(res.Keys); n > 0 && res.Keys[n-1] == in.key {
			return nil // consecutive states with the same view are one abstract state
		}
		res.Keys = append(res.Keys, in.key)
		out := State{Key: hexKey(in.key), Index: index}
		if withStates {
			if out.State, err = s.stateJSON(st); err != nil {
				return err
			}
		}
		if req.Text {
			out.Text = make(map[string]string, len(st))
			for i, v := range st {
				out.Text[s.m.Vars[i]] = v.String()
			}
		}
		res.States = append(res.States, out)
		return nil
	}
	fp := value.FingerprintState(cur)
	in, err := s.stateInfo(ev, cur, fp, nil, nil)
	if err != nil {
		return nil, err
	}
	if err := visit(cur, in, 0); err != nil {
		return nil, err
	}
	for i, a := range req.Actions {
		t, hit, reason, err := s.step(ev, cur, fp, &in, &a, true)
		if err != nil {
			return nil, fmt.Errorf("action %d (%s): %w", i, a.Name, err)
		}
		if hit {
			hits++
		}
		if reason != "" {
			if res.Divergence == nil {
				res.Divergence = &Divergence{Index: i, Action: a.Name, Reason: reason}
				if reason == notEnabled {
					s.explain(ev, cur, &a, res.Divergence)
				}
			}
			if !req.Resync {
				break
			}
			res.Skipped++
			continue
		}
		if t.n > 1 {
			res.Choices = append(res.Choices, Choice{Index: i, Successors: t.n})
		}
		cur, fp, in = t.next, t.fp, t.info
		if err := visit(cur, t.info, i+1); err != nil {
			return nil, err
		}
	}
	s.mu.Lock()
	s.stats.Requests++
	s.stats.Actions += int64(len(req.Actions))
	s.stats.CacheHits += hits
	s.mu.Unlock()
	return res, nil
}

func (s *Simulator) selectInit(want map[string]any) ([]value.Value, error) {
	if len(want) == 0 {
		return s.initial[0], nil
	}
	vars := s.m.Vars
	idx := map[string]int{}
	for i, v := range vars {
		idx[v] = i
	}
	conds := map[int]value.Value{}
	for name, x := range want {
		i, ok := idx[name]
		if !ok {
			return nil, fmt.Errorf("init: the model has no variable %s", name)
		}
		v, err := value.FromJSONValue(x, s.mvs)
		if err != nil {
			return nil, fmt.Errorf("init: %s: %v", name, err)
		}
		conds[i] = v
	}
	for _, st := range s.initial {
		ok := true
		for i, v := range conds {
			if eq, err := value.Equal(st[i], v); err != nil || !eq {
				ok = false
				break
			}
		}
		if ok {
			return st, nil
		}
	}
	return nil, fmt.Errorf("no initial state has the values given in init")
}

// hexKey is a key as the answer writes it, 16 hex digits.
func hexKey(k uint64) string {
	const digits = "0123456789abcdef"
	var b [16]byte
	for i := 15; i >= 0; i-- {
		b[i] = digits[k&15]
		k >>= 4
	}
	return string(b[:])
}

// step applies one action to cur (whose fingerprint is fp). reason is
// non-empty for a divergence; otherwise the transition holds the
// successor with its fingerprint and, when facts is set, what is known of
// it (its key and violated invariants), which a cached transition keeps,
// so that a replayed prefix costs a lookup per action.
func (s *Simulator) step(ev *eval.Evaluator, cur []value.Value, fp uint64, cin *info, a *Action, facts bool) (t transition, hit bool, reason string, err error) {
	ai, ok := s.actions[a.Name]
	if !ok {
		if ai, ok = s.m.Action(a.Name); !ok {
			return t, false, "the model has no action " + strconv.Quote(a.Name), nil
		}
	}
	// The key of the transition: the state, the action and its
	// arguments, whose values are converted into a buffer that only a
	// transition not in the cache copies.
	var buf [8]value.Value
	args := buf[:0]
	if len(ai.Params) > len(buf) {
		args = make([]value.Value, 0, len(ai.Params))
	}
	var h value.Hasher
	h.AddUint64(fp)
	h.AddUint64(s.nameKey(a.Name))
	for _, p := range ai.Params {
		x, ok := a.Params[p]
		if !ok {
			return t, false, "missing parameter " + p, nil
		}
		v, err := value.FromJSONValue(x, s.mvs)
		if err != nil {
			return t, false, fmt.Sprintf("parameter %s: %v", p, err), nil
		}
		args = append(args, v)
		h.Add(v)
	}
	if len(a.Params) > len(ai.Params) {
		var extra []string
		for k := range a.Params {
			if !slices.Contains(ai.Params, k) {
				extra = append(extra, k)
			}
		}
		sort.Strings(extra)
		return t, false, fmt.Sprintf("unknown parameter(s) %v (the action takes %v)", extra, ai.Params), nil
	}
	key := h.Sum()
	if t, ok := s.cache.transition(key); ok {
		if t.next == nil {
			return t, true, notEnabled, nil
		}
		if facts && !t.known {
			if t.info, err = s.stateInfo(ev, t.next, t.fp, cur, cin); err != nil {
				return t, true, "", err
			}
			t.known = true
			s.cache.putTransition(key, t)
		}
		return t, true, "", nil
	}
	var first []value.Value
	count := 0
	err = ev.ActionSuccessors(a.Name, slices.Clone(args), cur, func(t []value.Value) error {
		if first == nil {
			first = t
		}
		count++
		return nil
	})
	if err != nil {
		return t, false, "evaluation error: " + err.Error(), nil
	}
	t = transition{next: first, n: count}
	if first != nil {
		t.fp = value.FingerprintState(first)
		if facts {
			if t.info, err = s.stateInfo(ev, first, t.fp, cur, cin); err != nil {
				return t, false, "", err
			}
			t.known = true
		}
	}
	s.cache.putTransition(key, t)
	if first == nil {
		return t, false, notEnabled, nil
	}
	return t, false, "", nil
}

// nameKey is the fingerprint of an action's name, part of a
// transition's key.
func (s *Simulator) nameKey(name string) uint64 {
	if k, ok := s.nameKeys[name]; ok {
		return k
	}
	return value.Fingerprint(value.Str(name))
}

// notEnabled is the reason of an action that has no successor.
const notEnabled = "not enabled"

// explain finds the conjunct that keeps action a from being enabled in
// state cur (once per result, at its divergence: the engine's probe is too
// slow for every step).
func (s *Simulator) explain(ev *eval.Evaluator, cur []value.Value, a *Action, d *Divergence) {
	ai, ok := s.actions[a.Name]
	if !ok {
		if ai, ok = s.m.Action(a.Name); !ok {
			return
		}
	}
	args := make([]value.Value, len(ai.Params))
	for i, p := range ai.Params {
		v, err := value.FromJSONValue(a.Params[p], s.mvs)
		if err != nil {
			return
		}
		args[i] = v
	}
	d.Call = callText(a.Name, ai.Params, args)
	ap, n, err := ev.ProbeAction(a.Name, args, cur)
	if err != nil || n > 0 || ap.Stuck.Line == 0 {
		return
	}
	at := ap.Stuck
	if ap.Innermost.Line != 0 && ap.Innermost != ap.Stuck {
		if text := s.m.ExprText(ap.Innermost); text != "" {
			d.Context, d.ContextAt = s.m.ExprText(ap.Stuck), posText(ap.Stuck)
			at = ap.Innermost
		}
	}
	d.At, d.Conjunct = posText(at), s.m.ExprText(at)
}

// CallText shows action a as the model takes it: its operator with the
// parameters in the operator's order, as TLA+ values (TLC's notation),
// e.g. HandleAppendRequest(i=2, j=1, entries=<<[term |-> 3, value |-> ""]>>).
// An action the model does not have, or cannot take, is an error.
func (s *Simulator) CallText(a Action) (string, error) {
	ai, ok := s.actions[a.Name]
	if !ok {
		if ai, ok = s.m.Action(a.Name); !ok {
			return "", fmt.Errorf("the model has no action %q", a.Name)
		}
	}
	args := make([]value.Value, len(ai.Params))
	for i, p := range ai.Params {
		x, ok := a.Params[p]
		if !ok {
			return "", fmt.Errorf("%s: missing parameter %s", a.Name, p)
		}
		v, err := value.FromJSONValue(x, s.mvs)
		if err != nil {
			return "", fmt.Errorf("%s: parameter %s: %v", a.Name, p, err)
		}
		args[i] = v
	}
	return callText(a.Name, ai.Params, args), nil
}

func callText(name string, params []string, args []value.Value) string {
	var b strings.Builder
	b.WriteString(name + "(")
	for i, p := range params {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p + "=" + args[i].String())
	}
	b.WriteString(")")
	return b.String()
}

// posText is a position as messages show it: "raft.tla:120:9".
func posText(p syntax.Pos) string {
	return filepath.Base(p.File) + ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Col)
}

func (s *Simulator) stateJSON(st []value.Value) (map[string]json.RawMessage, error) {
	out := make(map[string]json.RawMessage, len(st))
	for i, v := range st {
		b, err := value.ToJSON(v)
		if err != nil {
			return nil, fmt.Errorf("variable %s: %w", s.m.Vars[i], err)
		}
		out[s.m.Vars[i]] = b
	}
	return out, nil
}

// StateString renders a state TLC-style, for people.
func (s *Simulator) StateString(st map[string]json.RawMessage) string {
	names := make([]string, 0, len(st))
	for n := range st {
		names = append(names, n)
	}
	sort.Strings(names)
	out := ""
	for _, n := range names {
		out += "/\\ " + n + " = " + string(st[n]) + "\n"
	}
	return out
}

// ViewState is the value of the model's VIEW in one state a simulation
// reached.
type ViewState struct {
	Index int         // actions applied when it was reached (0: the initial state)
	View  value.Value // the VIEW's value in it
}

// Views runs req as Simulate does and returns the VIEW's value in every
// state reached (consecutive equal values included), for callers that read
// the view rather than fingerprint it: waypoints, whose VIEW is a tuple of
// predicates. The divergence is the first, as in Simulate.
func (s *Simulator) Views(req *Request) ([]ViewState, *Divergence, error) {
	ev := s.evaluator()
	defer s.pool.Put(ev)
	cur, err := s.selectInit(req.Init)
	if err != nil {
		return nil, &Divergence{Index: -1, Action: "Init", Reason: err.Error()}, nil
	}
	var out []ViewState
	var div *Divergence
	visit := func(st []value.Value, index int) error {
		v, err := ev.ViewOf(st)
		if err != nil {
			return fmt.Errorf("evaluating VIEW: %w", err)
		}
		out = append(out, ViewState{Index: index, View: v})
		return nil
	}
	if err := visit(cur, 0); err != nil {
		return nil, nil, err
	}
	for i, a := range req.Actions {
		t, _, reason, err := s.step(ev, cur, value.FingerprintState(cur), nil, &a, false)
		if err != nil {
			return nil, nil, fmt.Errorf("action %d (%s): %w", i, a.Name, err)
		}
		next := t.next
		if reason != "" {
			if div == nil {
				div = &Divergence{Index: i, Action: a.Name, Reason: reason}
			}
			if !req.Resync {
				break
			}
			continue
		}
		cur = next
		if err := visit(cur, i+1); err != nil {
			return nil, nil, err
		}
	}
	return out, div, nil
}
