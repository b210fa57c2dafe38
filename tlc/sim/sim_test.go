package sim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/tlc/cfg"
	"github.com/modelfuzz/modelfuzz/tlc/eval"
	"github.com/modelfuzz/modelfuzz/tlc/syntax"
)

const counterSpec = `---- MODULE Counter ----
EXTENDS Naturals
VARIABLES x, y
Init == x \in {0, 10} /\ y = 0
Inc(n) == x' = x + n /\ UNCHANGED y
Toggle == y' = 1 - y /\ UNCHANGED x
Either == \/ x' = x + 1 /\ UNCHANGED y
          \/ x' = x + 2 /\ UNCHANGED y
Small == x < 15
Cond == x < 5 \/ y = 0
View == x
====
`

func newSim(t *testing.T, view bool) *Simulator {
	src := "INIT Init\nNEXT Toggle\nINVARIANT Small\n"
	if view {
		src += "VIEW View\n"
	}
	return newSimCfg(t, src)
}

func newSimCfg(t *testing.T, src string) *Simulator {
	mods, err := syntax.ParseSource("Counter.tla", []byte(counterSpec))
	require.NoError(t, err)
	ld := syntax.NewLoader()
	ld.Add(mods...)
	c, err := cfg.Parse("Counter.cfg", []byte(src))
	require.NoError(t, err)
	m, err := eval.Build(ld, mods[0], c)
	require.NoError(t, err)
	s, err := New(m, 16)
	require.NoError(t, err)
	return s
}

func TestSimulateStatesDivergenceViolations(t *testing.T) {
	s := newSim(t, false)
	res, err := s.Simulate(&Request{Actions: []Action{
		{Name: "Inc", Params: map[string]any{"n": int64(3)}},
		{Name: "Toggle"},
		{Name: "Inc", Params: map[string]any{"n": 20}},
		{Name: "Nope"},
		{Name: "Toggle"},
	}})
	require.NoError(t, err)
	require.Len(t, res.States, 4)
	require.Equal(t, []int{0, 1, 2, 3}, []int{res.States[0].Index, res.States[1].Index, res.States[2].Index, res.States[3].Index})
	require.JSONEq(t, "23", string(res.States[3].State["x"]))
	require.Equal(t, &Divergence{Index: 3, Action: "Nope", Reason: `the model has no action "Nope"`}, res.Divergence)
	require.Equal(t, []Violation{{Invariant: "Small", Index: 3}}, res.Violations)
	require.Len(t, res.Keys, 4)
}

func TestResyncGoesOnPastADivergence(t *testing.T) {
	s := newSim(t, false)
	acts := []Action{
		{Name: "Inc", Params: map[string]any{"n": int64(3)}},
		{Name: "Nope"},
		{Name: "Inc", Params: map[string]any{"n": int64(20)}},
		{Name: "Nope"},
		{Name: "Toggle"},
	}
	res, err := s.Simulate(&Request{Actions: acts, Resync: true})
	require.NoError(t, err)
	// The first divergence is the one reported; both unknown actions are
	// skipped and the others applied from the state before each.
	require.Equal(t, &Divergence{Index: 1, Action: "Nope", Reason: `the model has no action "Nope"`}, res.Divergence)
	require.Equal(t, 2, res.Skipped)
	require.Equal(t, []int{0, 1, 3, 5}, []int{res.States[0].Index, res.States[1].Index, res.States[2].Index, res.States[3].Index})
	require.JSONEq(t, "23", string(res.States[3].State["x"]))
	require.JSONEq(t, "1", string(res.States[3].State["y"]))
	// x = 23 violates Small, but past the divergence: not the execution's.
	require.Empty(t, res.Violations)

	plain, err := s.Simulate(&Request{Actions: acts})
	require.NoError(t, err)
	require.Equal(t, res.Divergence, plain.Divergence)
	require.Zero(t, plain.Skipped)
	require.Len(t, plain.States, 2, "without Resync the simulation stops at the divergence")
}

func TestSimulateParameterProblems(t *testing.T) {
	s := newSim(t, false)
	for _, tc := range []struct {
		a      Action
		reason string
	}{
		{Action{Name: "Inc"}, "missing parameter n"},
		{Action{Name: "Inc", Params: map[string]any{"n": 1, "m": 2}}, "unknown parameter(s) [m] (the action takes [n])"},
		{Action{Name: "Inc", Params: map[string]any{"n": 1.5}}, "parameter n: JSON number 1.5 is not an integer"},
		{Action{Name: "Inc", Params: map[string]any{"n": "a"}}, "evaluation error"},
	} {
		res, err := s.Simulate(&Request{Actions: []Action{tc.a}})
		require.NoError(t, err)
		require.NotNil(t, res.Divergence, "%+v", tc.a)
		require.Contains(t, res.Divergence.Reason, tc.reason)
	}
}

func TestViewMergesAndInitSelection(t *testing.T) {
	s := newSim(t, true)
	// Toggle changes y only: the same view (x), so one abstract state.
	res, err := s.Simulate(&Request{Actions: []Action{{Name: "Toggle"}, {Name: "Toggle"}, {Name: "Inc", Params: map[string]any{"n": 1}}}})
	require.NoError(t, err)
	require.Len(t, res.States, 2)
	require.Equal(t, 3, res.States[1].Index)
	// The second initial state, selected by init.
	res, err = s.Simulate(&Request{Init: map[string]any{"x": 10}})
	require.NoError(t, err)
	require.JSONEq(t, "10", string(res.States[0].State["x"]))
	res, err = s.Simulate(&Request{Init: map[string]any{"x": 7}})
	require.NoError(t, err)
	require.Equal(t, -1, res.Divergence.Index)
	// Several successors: the first is taken, and the choice reported.
	res, err = s.Simulate(&Request{Actions: []Action{{Name: "Either"}}})
	require.NoError(t, err)
	require.Equal(t, []Choice{{Index: 0, Successors: 2}}, res.Choices)
	require.JSONEq(t, "1", string(res.States[1].State["x"]))
}

func TestMemoizedTransitionsGiveTheSameAnswers(t *testing.T) {
	s := newSim(t, false)
	req := &Request{Actions: []Action{{Name: "Inc", Params: map[string]any{"n": 2}}, {Name: "Toggle"}, {Name: "Inc", Params: map[string]any{"n": 2}}}}
	first, err := s.Simulate(req)
	require.NoError(t, err)
	for i := 0; i < 50; i++ { // far beyond the cache's 16 entries
		again, err := s.Simulate(req)
		require.NoError(t, err)
		require.Equal(t, first.Keys, again.Keys)
		_, err = s.Simulate(&Request{Actions: []Action{{Name: "Inc", Params: map[string]any{"n": int64(i)}}}})
		require.NoError(t, err)
	}
	require.Greater(t, s.Stats().CacheHits, int64(0))
}

// An invariant's value is kept by the variables it reads; Cond reads y only
// when x >= 5, so a value kept while x < 5 (by x alone) must not answer for
// a state with x >= 5 whatever y is.
func TestInvariantsKeptByTheVariablesTheyRead(t *testing.T) {
	s := newSimCfg(t, "INIT Init\nNEXT Toggle\nINVARIANT Cond Small\n")
	inc := func(n int64) Action { return Action{Name: "Inc", Params: map[string]any{"n": n}} }
	toggle := Action{Name: "Toggle"}
	// x, y from index 0: 0,0  0,1  0,0  6,0  6,1 (Cond false)  6,0  6,1
	// (again)  16,1 (both)
	acts := []Action{toggle, toggle, inc(6), toggle, toggle, toggle, inc(10)}
	want := []Violation{{"Cond", 4}, {"Cond", 6}, {"Cond", 7}, {"Small", 7}}
	for range 2 { // the second time from the cache
		res, err := s.Simulate(&Request{Actions: acts})
		require.NoError(t, err)
		require.Nil(t, res.Divergence)
		require.Equal(t, want, res.Violations)
	}
	// A second simulator reaching the same states in another order agrees.
	s2 := newSimCfg(t, "INIT Init\nNEXT Toggle\nINVARIANT Cond Small\n")
	res, err := s2.Simulate(&Request{Actions: []Action{inc(6), toggle, toggle, toggle, toggle}})
	require.NoError(t, err)
	require.Equal(t, []Violation{{"Cond", 2}, {"Cond", 4}}, res.Violations)
	res, err = s2.Simulate(&Request{Actions: []Action{toggle, inc(6), toggle}})
	require.NoError(t, err)
	require.Equal(t, []Violation{{"Cond", 2}}, res.Violations)
}

const votesSpec = `---- MODULE Votes ----
EXTENDS Naturals
VARIABLES voted, term
Init == voted = 0 /\ term = 1
Grant(c) == /\ voted \in {0, c}
            /\ voted' = c
Vote(c, t, len) == /\ t >= term
                   /\ len >= 2
                   /\ Grant(c)
                   /\ term' = t
Next == \E c \in {1, 2} : Vote(c, 1, 2)
====
`

// A divergence names the conjunct that is false, in the action's body or
// in an action it calls, with its position: the same action failing for
// different reasons gives different divergences.
func TestDivergenceNamesTheFalseConjunct(t *testing.T) {
	mods, err := syntax.ParseSource("Votes.tla", []byte(votesSpec))
	require.NoError(t, err)
	ld := syntax.NewLoader()
	ld.Add(mods...)
	c, err := cfg.Parse("Votes.cfg", []byte("INIT Init\nNEXT Next\n"))
	require.NoError(t, err)
	m, err := eval.Build(ld, mods[0], c)
	require.NoError(t, err)
	s, err := New(m, 16)
	require.NoError(t, err)
	vote := func(c, t, l int) Action {
		return Action{Name: "Vote", Params: map[string]any{"c": c, "t": t, "len": l}}
	}
	for _, tc := range []struct {
		acts         []Action
		conjunct, at string
	}{
		{[]Action{vote(1, 0, 5)}, "t >= term", "Votes.tla:7:25"},
		{[]Action{vote(1, 1, 1)}, "len >= 2", "Votes.tla:8:27"},
		{[]Action{vote(1, 1, 5), vote(2, 1, 5)}, "voted \\in {0, c}", "Votes.tla:5:22"},
	} {
		res, err := s.Simulate(&Request{Actions: tc.acts})
		require.NoError(t, err)
		require.NotNil(t, res.Divergence)
		require.Equal(t, "not enabled", res.Divergence.Reason)
		require.Equal(t, tc.conjunct, res.Divergence.Conjunct)
		require.Equal(t, tc.at, res.Divergence.At)
		require.Empty(t, res.Divergence.Context, "a conjunct of the body or of a call is its own context")
	}
}

const appendSpec = `---- MODULE Append ----
EXTENDS Naturals, Sequences
VARIABLES log, commit
Init == log = <<>> /\ commit = 0
Append(entries, ok) ==
    /\ IF commit > 0
          THEN /\ ok
               /\ UNCHANGED <<log, commit>>
          ELSE /\ \A k \in 1..Len(entries) : entries[k].term > 0
               /\ log' = log \o entries
               /\ commit' = Len(log')
Bump(t) == LET ok == \/ t > 5
                     \/ t = 5 /\ commit > 1
           IN /\ ok
              /\ commit' = commit + 1
              /\ UNCHANGED log
Next == Append(<<>>, TRUE) \/ Bump(6)
====
`

// A conjunct that fails inside the branch of an IF is the one named; the
// IF is its context.
// The action is shown with its parameters as TLA+ values.
func TestDivergenceNamesTheConjunctInsideAnIf(t *testing.T) {
	mods, err := syntax.ParseSource("Append.tla", []byte(appendSpec))
	require.NoError(t, err)
	ld := syntax.NewLoader()
	ld.Add(mods...)
	c, err := cfg.Parse("Append.cfg", []byte("INIT Init\nNEXT Next\n"))
	require.NoError(t, err)
	m, err := eval.Build(ld, mods[0], c)
	require.NoError(t, err)
	s, err := New(m, 16)
	require.NoError(t, err)
	entry := func(term int) map[string]any { return map[string]any{"term": term, "value": ""} }
	app := func(ok bool, ents ...map[string]any) Action {
		e := []any{}
		for _, x := range ents {
			e = append(e, x)
		}
		return Action{Name: "Append", Params: map[string]any{"entries": e, "ok": ok}}
	}
	res, err := s.Simulate(&Request{Actions: []Action{app(true, entry(1)), app(false)}})
	require.NoError(t, err)
	require.NotNil(t, res.Divergence)
	d := res.Divergence
	require.Equal(t, 1, d.Index)
	require.Equal(t, "ok", d.Conjunct)
	require.Equal(t, "Append.tla:7:19", d.At)
	require.Contains(t, d.Context, "IF (commit > 0) THEN")
	require.Equal(t, "Append.tla:6:8", d.ContextAt)
	require.Equal(t, "Append(entries=<<>>, ok=FALSE)", d.Call)

	res, err = s.Simulate(&Request{Actions: []Action{app(true, entry(1), entry(0))}})
	require.NoError(t, err)
	d = res.Divergence
	require.NotNil(t, d)
	require.Equal(t, `\A k \in (1 .. Len(entries)) : (entries[k].term > 0)`, d.Conjunct)
	require.Equal(t, "Append.tla:9:19", d.At)
	require.Equal(t, `Append(entries=<<[term |-> 1, value |-> ""], [term |-> 0, value |-> ""]>>, ok=TRUE)`, d.Call)

	// A disjunction none of whose sides holds is what is false, not the
	// first conjunct of its last side; a side that got further is.
	bump := func(t int) Action { return Action{Name: "Bump", Params: map[string]any{"t": t}} }
	for _, tc := range []struct {
		acts         []Action
		conjunct, at string
	}{
		{[]Action{bump(4)}, "ok", "Append.tla:14:18"},
		{[]Action{bump(5)}, "commit > 1", "Append.tla:13:41"},
	} {
		res, err := s.Simulate(&Request{Actions: tc.acts})
		require.NoError(t, err)
		require.NotNil(t, res.Divergence)
		require.Equal(t, tc.conjunct, res.Divergence.Conjunct)
		require.Equal(t, tc.at, res.Divergence.At)
	}
}
