package eval

import (
	"fmt"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// Evaluator evaluates a model's formulas in states. One Evaluator is used
// by one goroutine; create one per worker.
type Evaluator struct {
	m *Model
	c *ctx
	// unitMemos remembers where each conjunct of the invariants held
	// (see Invariant).
	unitMemos []invariantMemo
	// nextBuf is where successorsOf builds next states, unless nextBusy.
	nextBuf  []value.Value
	nextBusy bool
	// substs is the cache of substitutions Holds lends its context.
	substs map[substKey]value.Value
}

// NewEvaluator returns an evaluator for m.
func (m *Model) NewEvaluator() *Evaluator {
	return &Evaluator{m: m, c: m.newCtx(), nextBuf: make([]value.Value, len(m.Vars))}
}

// Quiet makes the evaluator print nothing (Print, PrintT): the checker
// rebuilds an error trace by evaluating again what it evaluated once, and
// TLC prints what it prints once.
func (ev *Evaluator) Quiet() { ev.c.quiet = true }

// Interpret makes the evaluator leave every evaluation to the
// interpreter, as if no definition were compiled into closures: what the
// differential test of the two evaluators compares against.
func (ev *Evaluator) Interpret() { ev.c.interp = true }

// SetLevel sets what TLCGet("level") returns.
func (ev *Evaluator) SetLevel(l int) { ev.c.level = l }

// IncompleteError is a state that an Init or Next formula does not
// determine completely.
type IncompleteError struct {
	Var  string
	Init bool
}

func (e *IncompleteError) Error() string {
	if e.Init {
		return fmt.Sprintf("the initial predicate does not give variable %s a value", e.Var)
	}
	return fmt.Sprintf("the next-state relation does not give %s' a value (successor state not completely specified)", e.Var)
}

// Init calls fn for every initial state, in TLC's enumeration order. The
// slice passed to fn is fn's to keep.
func (ev *Evaluator) Init(fn func(s []value.Value) error) error {
	m := ev.m
	if m.init == nil {
		if len(m.Vars) == 0 {
			return nil // a model of constants only: no state (see compileConfig)
		}
		return fmt.Errorf("the model has no initial predicate")
	}
	partial := make([]value.Value, len(m.Vars))
	c := ev.c
	defer c.save()()
	c.initMode, c.cur, c.next, c.primed = true, partial, partial, 0
	if m.exprCov != nil {
		defer c.enterRoot(m.exprCov.init)()
	}
	return c.enum(m.init, nil, func() error {
		for i, v := range partial {
			if v == nil {
				return &IncompleteError{Var: m.Vars[i], Init: true}
			}
		}
		defer c.covMadeState()()
		return fn(append([]value.Value(nil), partial...))
	})
}

// TakeComposed returns the number of intermediate states of action
// compositions (the A-steps of A \cdot B) enumerated since the last call.
// TLC counts them as generated states, besides the composed steps.
func (ev *Evaluator) TakeComposed() int64 {
	n := ev.c.composed
	ev.c.composed = 0
	return n
}

// HasNext reports whether the model has a next-state relation.
func (ev *Evaluator) HasNext() bool { return ev.m.next != nil }

// Next calls fn for every successor of s under the next-state relation.
func (ev *Evaluator) Next(s []value.Value, fn func(t []value.Value) error) error {
	return ev.successors(ev.m.next, nil, s, fn)
}

func (ev *Evaluator) successors(n node, env *Env, s []value.Value, fn func(t []value.Value) error) error {
	m := ev.m
	if n == nil {
		return nil
	}
	next := make([]value.Value, len(m.Vars))
	c := ev.c
	defer c.save()()
	c.initMode, c.cur, c.next, c.primed = false, s, next, 0
	return c.enum(n, env, func() error {
		for i, v := range next {
			if v == nil {
				return &IncompleteError{Var: m.Vars[i]}
			}
		}
		defer c.covMadeState()()
		return fn(append([]value.Value(nil), next...))
	})
}

// successorsOf is successors of the body of action d applied to args, by
// its compiled enumeration when there is one.
func (ev *Evaluator) successorsOf(d *def, args []value.Value, s []value.Value, fn func(t []value.Value) error) error {
	m := ev.m
	// The next state is built in a buffer the evaluator keeps: every
	// assignment is undone by the time the enumeration returns.
	next := ev.nextBuf
	if next == nil || ev.nextBusy {
		next = make([]value.Value, len(m.Vars))
	} else {
		clear(next)
		ev.nextBusy = true
		defer func() { ev.nextBusy = false }()
	}
	c := ev.c
	defer c.save()()
	c.initMode, c.cur, c.next, c.primed = false, s, next, 0
	k := func() error {
		for i, v := range next {
			if v == nil {
				return &IncompleteError{Var: m.Vars[i]}
			}
		}
		return fn(append([]value.Value(nil), next...))
	}
	if err, ok := c.enumBodyArgs(d, args, nil, k); ok {
		return err
	}
	var env *Env
	if len(args) > 0 {
		env = &Env{vals: args}
	}
	return c.enum(d.compiled, env, k)
}

func (ev *Evaluator) stateBool(n node, s []value.Value) (bool, error) {
	c := ev.c
	defer c.save()()
	c.initMode, c.cur, c.next, c.primed = false, s, nil, 0
	return evalBool(c, nil, n)
}

// InvariantReads evaluates invariant i in s, without the memo of recent
// states, and says which variables the evaluation read (bit k: variable k;
// every bit when the model has more than 64 variables) and whether its
// result may be reused for another state that agrees on them (false when
// the evaluation had an effect, such as printing, that TLC would repeat).
// A simulator keeps results by the values of the variables read, across
// the many states that share them.
func (ev *Evaluator) InvariantReads(i int, s []value.Value) (ok bool, reads uint64, reusable bool, err error) {
	c := ev.c
	saved, effects := c.readVars, c.effects
	c.readVars, c.effects = 0, 0
	ok, err = ev.stateBool(ev.m.Invariants[i].node, s)
	reads, reusable = c.readVars, c.effects == 0 && err == nil
	if len(s) > 64 {
		reads = ^uint64(0)
	}
	c.readVars, c.effects = saved|c.readVars, effects+c.effects
	return ok, reads, reusable, err
}

// invariantMemo remembers the last few states an invariant held in, by
// the values of the variables it read.
type invariantMemo struct {
	held [4]heldIn
	next int
}

type heldIn struct {
	reads uint64        // bit i: variable i was read
	vals  []value.Value // the values of the variables read (nil elsewhere)
}

func (m *invariantMemo) holds(s []value.Value) bool {
	for _, h := range m.held {
		if h.vals != nil && h.matches(s) {
			return true
		}
	}
	return false
}

func (h *heldIn) matches(s []value.Value) bool {
	for i, v := range h.vals {
		if h.reads&(1<<uint(i)) == 0 || v == s[i] {
			continue
		}
		// Unequal fingerprints are unequal values; equal ones are
		// compared, so that a collision cannot hide a violation.
		if value.Fingerprint(v) != value.Fingerprint(s[i]) {
			return false
		}
		if eq, err := value.Equal(v, s[i]); err != nil || !eq {
			return false
		}
	}
	return true
}

func (m *invariantMemo) add(reads uint64, s []value.Value) {
	vals := make([]value.Value, len(s))
	for i := range s {
		if reads&(1<<uint(i)) != 0 {
			vals[i] = s[i]
		}
	}
	m.held[m.next] = heldIn{reads, vals}
	m.next = (m.next + 1) % len(m.held)
}

// InConstraints reports whether s satisfies every CONSTRAINT.
func (ev *Evaluator) InConstraints(s []value.Value) (bool, error) {
	for _, n := range ev.m.Constraints {
		ok, err := ev.stateBool(n.node, s)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// InActionConstraints reports whether the step s -> t satisfies every
// ACTION_CONSTRAINT.
func (ev *Evaluator) InActionConstraints(s, t []value.Value) (bool, error) {
	c := ev.c
	defer c.save()()
	for _, n := range ev.m.ActionConstraints {
		c.initMode, c.cur, c.next, c.primed = false, s, t, 0
		ok, err := evalBool(c, nil, n.node)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// ViewOf evaluates the cfg's VIEW in s (s itself, as a tuple, when there is
// no VIEW).
func (ev *Evaluator) ViewOf(s []value.Value) (value.Value, error) {
	if ev.m.View == nil {
		return value.Tuple(s...), nil
	}
	c := ev.c
	defer c.save()()
	c.initMode, c.cur, c.next, c.primed = false, s, nil, 0
	return ev.m.View.eval(c, nil)
}

// HasView reports whether the cfg has a VIEW.
func (m *Model) HasView() bool { return m.View != nil }

// ActionInfo describes an action operator of the root module: a
// definition whose body mentions primed variables.
type ActionInfo struct {
	Name   string
	Params []string
}

// Actions lists the root module's action operators, sorted by name.
func (m *Model) Actions() []ActionInfo {
	var out []ActionInfo
	for name, d := range m.root.names {
		if d.kind != dkOp || d.sc != m.root || d.name != name {
			continue
		}
		m.compileMu.Lock()
		err := m.ensure(d)
		m.compileMu.Unlock()
		if err != nil || !d.prime {
			continue
		}
		ai := ActionInfo{Name: name}
		for _, p := range d.params {
			ai.Params = append(ai.Params, p.Name)
		}
		out = append(out, ai)
	}
	sortActions(out)
	return out
}

// Action returns the root-module definition name as an action, with its
// parameter names; ok is false when there is no such operator.
func (m *Model) Action(name string) (ActionInfo, bool) {
	d := m.root.lookup(name)
	if d == nil || d.kind != dkOp {
		return ActionInfo{}, false
	}
	ai := ActionInfo{Name: name}
	for _, p := range d.params {
		if p.Arity > 0 {
			return ActionInfo{}, false
		}
		ai.Params = append(ai.Params, p.Name)
	}
	return ai, true
}

// ActionSuccessors calls fn for every successor of s under the action
// operator name applied to args (in parameter order).
func (ev *Evaluator) ActionSuccessors(name string, args []value.Value, s []value.Value, fn func(t []value.Value) error) error {
	m := ev.m
	d := m.root.lookup(name)
	if d == nil || d.kind != dkOp {
		return fmt.Errorf("the model has no action %s", name)
	}
	if len(args) != len(d.params) {
		return fmt.Errorf("action %s takes %d parameter(s), got %d", name, len(d.params), len(args))
	}
	m.compileMu.Lock()
	err := m.ensure(d)
	m.compileMu.Unlock()
	if err != nil {
		return err
	}
	return ev.successorsOf(d, args, s, fn)
}

// ModelValues returns the model values the cfg defines, by name.
func (m *Model) ModelValues() map[string]value.ModelValue {
	out := map[string]value.ModelValue{}
	var walk func(v value.Value)
	walk = func(v value.Value) {
		switch x := v.(type) {
		case value.ModelValue:
			out[x.String()] = x
		case *value.Set:
			for _, e := range x.Elems() {
				walk(e)
			}
		}
	}
	for _, c := range m.Config.Constants {
		if c.Value != nil {
			walk(c.Value)
		}
	}
	return out
}

// InvariantNames lists the cfg's invariants in order.
func (m *Model) InvariantNames() []string {
	out := make([]string, len(m.Invariants))
	for i, inv := range m.Invariants {
		out[i] = inv.Name
	}
	return out
}

// Definition evaluates the root module's zero-arity definition name in
// state s (nil for a constant-level definition).
func (ev *Evaluator) Definition(name string, s []value.Value) (value.Value, error) {
	m := ev.m
	d := m.root.lookup(name)
	if d == nil || d.kind != dkOp || len(d.params) > 0 {
		return nil, fmt.Errorf("the spec has no definition %s without parameters", name)
	}
	m.compileMu.Lock()
	err := m.ensure(d)
	m.compileMu.Unlock()
	if err != nil {
		return nil, err
	}
	c := ev.c
	defer c.save()()
	c.initMode, c.cur, c.next, c.primed = false, s, nil, 0
	return d.compiled.eval(c, nil)
}
