package eval

import (
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/modelfuzz/modelfuzz/tlc/stdlib"
	"github.com/modelfuzz/modelfuzz/tlc/syntax"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// ctx is the state an evaluation runs in. It is owned by one goroutine.
type ctx struct {
	m *Model
	// quiet: Print prints nothing (an evaluation repeated to rebuild a trace).
	quiet bool
	cur   []value.Value // the current state (unprimed variables)
	next  []value.Value // the next state being built (primed variables); nil entries are unassigned
	// primed > 0 while evaluating inside e': variables read from next.
	primed int
	// initMode: enumerating initial states; cur and next are the same
	// partial state, and x = e / x \in S assign x.
	initMode bool
	level    int
	// lenient: a conjunct of an action that reads a primed variable with
	// no value yet is taken to hold (see enabledNode.lenient); unbound
	// says the error being returned is of that kind.
	lenient, unbound bool
	// substPrimed holds, under lenient, the values x' = e gave to the
	// primed instance variables x that stand for expressions (a
	// refinement mapping), which cannot be assigned.
	substPrimed map[*def]value.Value
	// substCache, when not nil, holds the values of instance
	// substitutions in the current and next state, which do not change
	// while it is set (Evaluator.Holds).
	substCache map[substKey]value.Value

	// depth counts the nested calls being evaluated (operators, recursive
	// functions, LET definitions, closures): a definition that recurses
	// without end fails with an error instead of overflowing the stack.
	depth int
	// steps counts calls and binder iterations; when maxSteps > 0 an
	// evaluation fails once it has taken more (a bound for tests that run
	// arbitrary input).
	steps, maxSteps int64

	// cov is the coverage tree node of the expression being evaluated
	// (nil: coverage is off; see coverage.go).
	cov *CovNode
	// covMade counts the states an enumeration yielded, under coverage.
	covMade int64
	// covLast is the last conjunct entered, which TLC credits with an
	// initial state.
	covLast *CovNode

	// probe, when set, records how far action calls get (ProbeNext).
	probe *probe

	// watches is the number of \E being enumerated with pruning, and
	// touched the bits of those whose bound values the evaluation read
	// (see prune.go).
	watches int
	touched uint64

	// readVars collects the state variables an evaluation reads (bit i for
	// variable i < 64), and effects counts what it does besides computing
	// a value from the state: output, registers, files. Invariant results
	// are remembered by the values of the variables they read
	// (Evaluator.Invariant).
	readVars uint64
	effects  int

	// recording > 0 while quantifier bodies are evaluated to be kept;
	// atoms then lists the parts of the state they read, those of the
	// innermost from atomBase, and quantMemos holds the results (see
	// quantmemo.go).
	recording  int
	atomBase   int
	atoms      []readAtom
	quantMemos map[*quantNode]*quantMemo

	// stateValues caches the zero-arity definitions evaluated in the
	// state stateOf (see stateValue).
	stateOf     []value.Value
	stateValues map[*def]stateValue

	// composed counts the intermediate states of action compositions
	// (A \cdot B) enumerated, which TLC counts as generated (see
	// Evaluator.TakeComposed).
	composed int64

	// memos keeps results of operators that do not depend on the state
	// (see memo.go).
	memos map[*def]*callMemo

	// stk holds the frames of compiled code, and bargs the arguments of
	// the builtins it calls (see cexpr.go); interp leaves every
	// evaluation to the interpreter.
	stk    cstack
	bargs  []stdlib.Arg
	interp bool
	// undo lists the variables compiled enumeration steps assigned (see
	// cenum.go).
	undo []int
	// env and files are the input the evaluator was given (nil: the
	// model's), inputVals the values of the definitions that depend on
	// it (see input.go).
	env       map[string]string
	files     map[string][]value.Value
	inputVals map[*def]inputVal
}

type stateValue struct {
	v     value.Value
	reads uint64
}

// stateValue evaluates the zero-arity state-level definition d (without
// primes) in the current state, once per state: a definition such as
// CurrentLeaders == {i \in Server : state[i] = Leader} used inside a
// quantifier would otherwise be recomputed for every binding. A value whose
// evaluation had an effect is not kept, so that the effect is repeated.
func (c *ctx) stateValue(d *def, pos syntax.Pos) (value.Value, error) {
	// The cache keeps the state it is for alive: the array cannot be
	// reused for another state while it is the key.
	if len(c.stateOf) != len(c.cur) || &c.stateOf[0] != &c.cur[0] {
		c.stateOf = c.cur
		clear(c.stateValues)
	}
	if sv, ok := c.stateValues[d]; ok {
		c.readVars |= sv.reads
		if c.recording > 0 {
			c.recordVars(sv.reads)
		}
		return sv.v, nil
	}
	if err := c.enter(pos); err != nil {
		return nil, err
	}
	reads, effects := c.readVars, c.effects
	c.readVars, c.effects = 0, 0
	var v value.Value
	var err error
	if d.kind == dkOp {
		v, err = c.evalBody(d, nil)
	} else {
		v, err = d.compiled.eval(c, nil)
	}
	c.leave()
	read, effect := c.readVars, c.effects
	c.readVars, c.effects = reads|read, effects+effect
	if err == nil && effect == 0 {
		if c.stateValues == nil {
			c.stateValues = map[*def]stateValue{}
		}
		c.stateValues[d] = stateValue{v, read}
	}
	return v, err
}

// effect records an output, a register access or a file written: the
// evaluation must happen every time TLC would do it.
func (c *ctx) effect() {
	c.effects++
	c.touchAll()
}

// maxCallDepth bounds the nesting of calls. TLC's JVM stack gives out at
// a similar depth; a Go stack overflow would kill the process.
const maxCallDepth = 20000

// enter records a call at pos; the caller must call leave when it returns.
func (c *ctx) enter(pos syntax.Pos) error {
	if c.depth >= maxCallDepth {
		return errorf(pos, "the evaluation nests more than %d calls deep (a recursive definition that does not terminate?)", maxCallDepth)
	}
	if err := c.step(pos); err != nil {
		return err
	}
	c.depth++
	return nil
}

func (c *ctx) leave() { c.depth-- }

// step counts one unit of work against maxSteps.
func (c *ctx) step(pos syntax.Pos) error {
	c.steps++
	if c.maxSteps > 0 && c.steps > c.maxSteps {
		return errorf(pos, "evaluation budget of %d steps exceeded", c.maxSteps)
	}
	return nil
}

// newCtx returns an evaluation context for model m.
func (m *Model) newCtx() *ctx {
	return &ctx{m: m, maxSteps: defaultMaxSteps.Load(), interp: m.interpret}
}

// defaultMaxSteps is the budget of every new context (0: none). Only tests
// that evaluate arbitrary input (FuzzEval) set it.
var defaultMaxSteps atomic.Int64

// save returns a function that restores the context's state: evaluations
// nest (a callback of an enumeration evaluates an invariant). The nested
// evaluation starts without the enclosing enumeration's pruning watches
// (see prune.go): it runs once a successor is complete, when the
// enclosing bindings have succeeded and what it reads no longer matters
// to them.
func (c *ctx) save() func() {
	cur, next, primed, initMode := c.cur, c.next, c.primed, c.initMode
	watches, touched := c.watches, c.touched
	c.watches, c.touched = 0, 0
	return func() {
		c.cur, c.next, c.primed, c.initMode = cur, next, primed, initMode
		c.watches, c.touched = watches, touched
	}
}

// Print implements stdlib.Context.
func (c *ctx) Print(line string) {
	c.effect()
	if c.quiet {
		return
	}
	c.m.print(line)
}

// Terse implements stdlib.TerseContext.
func (c *ctx) Terse() bool { return c.m.Terse }

// Env implements stdlib.EnvContext.
func (c *ctx) Env() map[string]string {
	if c.env != nil {
		return c.env
	}
	return c.m.Env
}

// TLCGet implements stdlib.Context.
func (c *ctx) TLCGet(key value.Value) (value.Value, error) {
	c.effect() // registers and statistics change under the evaluation
	switch k := key.(type) {
	case value.Str:
		switch string(k) {
		case "level":
			return value.IntOf(int64(c.level)), nil
		case "config":
			return c.m.configRecord()
		case "stats":
			return c.m.statsRecord()
		case "queue", "distinct", "generated", "diameter":
			// The running search's counts, as TLC answers them: "queue"
			// is the number of states waiting to be explored at the
			// moment of the evaluation.
			return c.m.statsValue(string(k))
		}
		if strings.HasPrefix(string(k), "-D") {
			// TLC answers Java system properties. The one specs ask for
			// says whether action composition (\cdot) is enabled: it
			// always is here.
			if string(k) == "-Dtlc2.tool.impl.Tool.cdot" {
				return value.Str("true"), nil
			}
			return nil, fmt.Errorf("TLCGet(%q): Java system properties are not available (there is no JVM)", string(k))
		}
		return nil, fmt.Errorf("TLCGet(%s) is not supported", k)
	case value.Int:
		return c.m.registers.get(int(k))
	}
	return nil, fmt.Errorf("TLCGet: unsupported key %s", key)
}

// TLCSet implements stdlib.Context.
func (c *ctx) TLCSet(key value.Value, v value.Value) error {
	c.effect()
	if k, ok := key.(value.Int); ok {
		return c.m.registers.set(int(k), v)
	}
	if s, ok := key.(value.Str); ok && strings.HasPrefix(string(s), "exit") {
		return nil
	}
	return fmt.Errorf("TLCSet: unsupported key %s", key)
}
