package eval

import (
	"github.com/modelfuzz/modelfuzz/tlc/syntax"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// Inputs bound per evaluator.
//
// A trace spec reads the trace it validates from outside the spec: etcd
// raft's Traceetcdraft.tla has TraceLog == ndJsonDeserialize(IOEnv.JSON)
// (filtered), and the server set, the bootstrap, the initial state and
// every step follow from it. Loaded with LoadOptions.BindInputs, a model
// can validate many traces, one per evaluator at a time, without being
// parsed and compiled again: what the spec reads from the world (IOEnv,
// the files it deserializes) is given to each evaluator by Bind, and the
// definitions whose value depends on it (found when the model is built:
// every definition that refers, directly or through others, to an
// operator of stdlib marked Input) have one value per evaluator instead
// of one per model. So do the ASSUMEs that read it: Bind checks them, as
// TLC checks every ASSUME before it starts. An evaluator that is not
// bound reads the world as a model loaded without the option does.

// Input is what an evaluator's spec reads from outside: the environment
// IOEnv answers and files held in memory, already decoded.
type Input struct {
	// Env is the environment (nil: the model's).
	Env map[string]string
	// NDJSON holds the files ndJsonDeserialize reads from memory: the
	// sequence of their lines' values, by path as the spec names it.
	// Other paths are read from the disk.
	NDJSON map[string][]value.Value
}

// inputVal is the value of an input-dependent constant definition in one
// evaluator.
type inputVal struct {
	v   value.Value
	err error
}

// inputValue is d.constValue for a definition that depends on the
// evaluator's input: computed once per Bind.
func (c *ctx) inputValue(d *def) (value.Value, error) {
	if e, ok := c.inputVals[d]; ok {
		return e.v, e.err
	}
	v, err := d.compiled.eval(c, nil)
	if c.inputVals == nil {
		c.inputVals = map[*def]inputVal{}
	}
	c.inputVals[d] = inputVal{v, err}
	return v, err
}

// NDJSONFile implements stdlib.FileContext.
func (c *ctx) NDJSONFile(path string) ([]value.Value, bool) {
	vals, ok := c.files[path]
	return vals, ok
}

// Bind gives the evaluator its input: from now on the spec reads in.Env
// and in.NDJSON's files, and every value computed from its previous
// input is forgotten. The ASSUMEs that read the input are checked: a
// false one is an *AssumeFailure, one that cannot be evaluated an
// *EvalFailure. The model must have been loaded with
// LoadOptions.BindInputs.
func (ev *Evaluator) Bind(in Input) error {
	m := ev.m
	if !m.bindInputs {
		return errorf(syntax.Pos{}, "the model was not loaded to bind inputs per evaluator (LoadOptions.BindInputs)")
	}
	c := ev.c
	c.env, c.files = in.Env, in.NDJSON
	clear(c.inputVals)
	// Everything remembered from evaluations under the previous input:
	// the results may have read it.
	c.stateOf = nil
	clear(c.stateValues)
	clear(c.quantMemos)
	for d := range c.memos {
		if d.input {
			delete(c.memos, d)
		}
	}
	ev.unitMemos = nil
	clear(ev.substs)
	for _, a := range m.inputAssumes {
		// Evaluators of one model bind their inputs concurrently (a trace
		// spec validating many traces at once); compiling touches the
		// model's definitions, as in Actions and Definition.
		m.compileMu.Lock()
		n, _, _, err := m.compileIn(a.sc, a.expr, nil)
		m.compileMu.Unlock()
		if err != nil {
			return &LoadError{err}
		}
		ok, err := evalBool(c, nil, n)
		if err != nil {
			return &EvalFailure{Err: err, What: "evaluating an ASSUME"}
		}
		if !ok {
			return &AssumeFailure{Pos: a.pos, Name: a.name}
		}
	}
	return nil
}

// Model is the model the evaluator evaluates.
func (ev *Evaluator) Model() *Model { return ev.m }

// markInputs marks the definitions whose value depends on the input (see
// above): a definition refers to the names its body (or function
// definition, or substitution) uses, resolved in its scope, instance
// paths followed; a name that is not a definition there (a bound name, a
// LET's) refers to nothing. Marking more than needed costs only caching.
func (m *Model) markInputs() {
	refs := map[*def][]*def{}
	var order []*def
	var visit func(d *def)
	visit = func(d *def) {
		if d == nil {
			return
		}
		if _, ok := refs[d]; ok {
			return
		}
		refs[d] = nil
		order = append(order, d)
		var out []*def
		switch d.kind {
		case dkOp:
			out = m.exprRefs(d.sc, d.body)
		case dkFunc:
			out = m.exprRefs(d.sc, d.fn)
		case dkSubst:
			out = m.exprRefs(d.substSc, d.subst)
		}
		refs[d] = out
		for _, r := range out {
			visit(r)
		}
	}
	var scopes []*scope
	seen := map[*scope]bool{}
	var addScope func(sc *scope)
	addScope = func(sc *scope) {
		if sc == nil || seen[sc] {
			return
		}
		seen[sc] = true
		scopes = append(scopes, sc)
		for _, d := range sc.names {
			if d.kind == dkInstance {
				addScope(d.inst.sc)
			}
		}
		for _, d := range sc.qualified {
			visit(d)
		}
	}
	addScope(m.root)
	for _, sc := range m.loader.extended {
		addScope(sc)
	}
	for _, sc := range scopes {
		for _, d := range sc.names {
			visit(d)
		}
	}
	// Propagate from the input operators to every definition that reaches
	// one, to a fixpoint (definitions may be recursive).
	for _, d := range order {
		if d.kind == dkBuiltin && d.builtin.Input {
			d.input = true
		}
	}
	for changed := true; changed; {
		changed = false
		for _, d := range order {
			if d.input {
				continue
			}
			for _, r := range refs[d] {
				if r.input {
					d.input = true
					changed = true
					break
				}
			}
		}
	}
}

// exprRefs lists the definitions that node n, in scope sc, names.
func (m *Model) exprRefs(sc *scope, n syntax.Node) []*def {
	if n == nil {
		return nil
	}
	var out []*def
	syntax.Inspect(n, func(x syntax.Node) bool {
		switch x := x.(type) {
		case *syntax.Ident:
			if d := sc.lookup(x.Name); d != nil {
				out = append(out, d)
			}
		case *syntax.OpApp:
			if len(x.Path) == 0 {
				if d := sc.lookup(x.Name); d != nil {
					out = append(out, d)
				}
				break
			}
			isc := sc
			for _, st := range x.Path {
				d := isc.lookup(st.Name)
				if d == nil || d.kind != dkInstance {
					isc = nil
					break
				}
				isc = d.inst.sc
			}
			if isc != nil {
				if d := isc.lookupQualified(x.Name); d != nil {
					out = append(out, d)
				}
			}
		}
		return true
	})
	return out
}

// exprReadsInput reports whether expression e of scope sc refers to a
// definition that depends on the input (for a model that binds inputs).
func (m *Model) exprReadsInput(sc *scope, e syntax.Node) bool {
	for _, d := range m.exprRefs(sc, e) {
		if d.input {
			return true
		}
	}
	return false
}
