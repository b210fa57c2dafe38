package tlc

import (
	"github.com/modelfuzz/modelfuzz/tlc/check"
	"github.com/modelfuzz/modelfuzz/tlc/eval"
	"github.com/modelfuzz/modelfuzz/tlc/sim"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// The engine's types, as the door's callers meet them.
type (
	// Evaluator evaluates expressions of a Model in given states
	// (Model.NewEvaluator); one per goroutine.
	Evaluator = eval.Evaluator
	// Value is a TLA+ value.
	Value = value.Value
	// State is a state of a trace: the variables and their values.
	State = check.State
	// CheckOptions configure a check or a search.
	CheckOptions = check.Options
	// Result is the outcome of a check or a search.
	Result = check.Result
	// SimOptions configure the generation of random behaviours.
	SimOptions = check.SimOptions
	// SimResult is the outcome of a generation of random behaviours.
	SimResult = check.SimResult
	// Simulator simulates given sequences of actions.
	Simulator = sim.Simulator
	// Call is an action operator's call with its arguments
	// (Evaluator.StepCalls).
	Call = eval.Call
)

// JSONValue is v as the simulator's actions take their parameters:
// numbers, strings, booleans, arrays for tuples, objects for records.
func JSONValue(v Value) (any, error) { return value.ToJSONValue(v) }

// ExitSuccess is the exit code (TLC's) of a check that found no error:
// Result.ExitCode of a success.
const ExitSuccess = check.ExitSuccess

// Check checks m as TLC does: a breadth-first search of every reachable
// state checking the invariants, deadlock and the cfg's PROPERTIES.
func Check(m *Model, opt CheckOptions) *Result { return check.CheckWithProperties(m, opt) }

// Explore searches m's reachable states breadth-first as Check does,
// checking the invariants and deadlock but not the PROPERTIES: a measure
// of the state space (opt.Visit sees every distinct state).
func Explore(m *Model, opt CheckOptions) *Result { return check.Check(m, opt) }

// Simulate generates random behaviours of m and checks them, as TLC's
// -simulate does.
func Simulate(m *Model, opt SimOptions) *SimResult { return check.Simulate(m, opt) }

// NewSimulator prepares the simulation of given sequences of actions of
// m: from an initial state, each action operator is evaluated with its
// parameters and its successor becomes the current state. cache bounds
// the transitions remembered (0: a default).
func NewSimulator(m *Model, cache int) (*Simulator, error) { return sim.New(m, cache) }

// Fingerprint is the fingerprint of a value.
func Fingerprint(v Value) uint64 { return value.Fingerprint(v) }

// FingerprintState is the fingerprint of a state (the values of its
// variables, in the model's order).
func FingerprintState(s []Value) uint64 { return value.FingerprintState(s) }
