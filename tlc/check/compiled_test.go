//go:build !race

package check

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelfuzz/modelfuzz/tlc/eval"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// differentialStates is how many states of each spec the differential
// test explores.
const differentialStates = 600

// TestCompiledAgreesWithInterpreter runs the compiled evaluator and the
// interpreter side by side on every spec of the conformance suite, the
// golden specs of this package and our models: from the same states,
// the same initial states, the same successors in the same order (of the
// whole next-state relation and of each of its actions), the same
// invariants, constraints, action constraints and VIEW, the same
// predicates of the temporal properties and fairness, the same errors.
// The invariants are also evaluated inside the enumeration of successors,
// as the checker does.
func TestCompiledAgreesWithInterpreter(t *testing.T) {
	type spec struct{ name, tla, cfg string }
	var specs []spec
	for _, c := range readCasesOptional() {
		specs = append(specs, spec{"suite/" + c.Name(), filepath.Join(examplesDir, c.Module), filepath.Join(examplesDir, c.Cfg)})
	}
	golden, _ := filepath.Glob("testdata/*.cfg")
	for _, cfgPath := range golden {
		tla := strings.TrimSuffix(cfgPath, ".cfg") + ".tla"
		if _, err := os.Stat(tla); err == nil {
			specs = append(specs, spec{"golden/" + filepath.Base(tla), tla, cfgPath})
		}
	}
	for _, m := range [][2]string{{"raft.tla", "raft_check.cfg"}, {"raft.tla", "raft.cfg"}, {"microbench.tla", "microbench_check.cfg"}} {
		specs = append(specs, spec{"models/" + m[0] + "/" + m[1], filepath.Join("../../models", m[0]), filepath.Join("../../models", m[1])})
	}
	only := os.Getenv("DIFFERENTIAL_CASE")
	for _, sp := range specs {
		if only != "" && !strings.Contains(sp.name, only) {
			continue
		}
		t.Run(sp.name, func(t *testing.T) {
			m, err := eval.Load(sp.tla, sp.cfg)
			if err != nil {
				t.Skipf("does not load: %v", err)
			}
			m.Out = discard{}
			if n := compareEvaluators(t, m, differentialStates); n == 0 {
				t.Logf("no state")
			}
		})
	}
}

func readCasesOptional() []Case {
	if _, err := os.Stat(filepath.Join(examplesDir, "cases.tsv")); err != nil {
		return nil
	}
	return readCases(&testing.T{})
}

// outcome is what one evaluator said about one question, in words.
type outcome string

func errText(err error) string {
	if err == nil {
		return ""
	}
	var ie *eval.IncompleteError
	if errors.As(err, &ie) {
		return "incomplete: " + ie.Error()
	}
	return "error: " + err.Error()
}

// successorsOf lists the successors of s, each with the invariants'
// values in it evaluated during the enumeration.
func successorsOf(m *eval.Model, ev *eval.Evaluator, s []value.Value, action int) ([][]value.Value, outcome) {
	var out [][]value.Value
	var b strings.Builder
	fn := func(t []value.Value) error {
		out = append(out, t)
		fmt.Fprintf(&b, "%016x", value.FingerprintState(t))
		for i := range m.Invariants {
			ok, err := ev.Invariant(i, t)
			fmt.Fprintf(&b, " %v%s", ok, errText(err))
		}
		b.WriteByte(';')
		return nil
	}
	var err error
	if action < 0 {
		err = ev.Next(s, fn)
	} else {
		err = ev.NextAction(action, s, fn)
	}
	b.WriteString(errText(err))
	return out, outcome(b.String())
}

// stateFacts is what the evaluator says of s alone.
func stateFacts(m *eval.Model, ev *eval.Evaluator, s []value.Value) outcome {
	var b strings.Builder
	for i := range m.Invariants {
		ok, err := ev.Invariant(i, s)
		fmt.Fprintf(&b, "inv%d %v%s;", i, ok, errText(err))
		ok, reads, reusable, err := ev.InvariantReads(i, s)
		fmt.Fprintf(&b, "reads%d %v %v%s;", i, ok, reusable, errText(err))
		_ = reads // the variables read may differ: the compiled code reads arguments eagerly
	}
	ok, err := ev.InConstraints(s)
	fmt.Fprintf(&b, "constraints %v%s;", ok, errText(err))
	if m.HasView() {
		v, err := ev.ViewOf(s)
		if err == nil {
			fmt.Fprintf(&b, "view %016x;", value.Fingerprint(v))
		} else {
			fmt.Fprintf(&b, "view %s;", errText(err))
		}
	}
	// The key of the VIEW, computed without building it, is its
	// fingerprint (or the state's without a VIEW).
	key, _, err := ev.ViewKey(s)
	fmt.Fprintf(&b, "key %016x%s;", key, errText(err))
	return outcome(b.String())
}

// temporalPreds lists the predicates of the cfg's PROPERTIES and of the
// fairness of its SPECIFICATION.
func temporalPreds(m *eval.Model) []*eval.Pred {
	var out []*eval.Pred
	var walk func(t *eval.Temporal)
	walk = func(t *eval.Temporal) {
		if t == nil {
			return
		}
		if t.Pred != nil {
			out = append(out, t.Pred)
		}
		if t.Step != nil {
			out = append(out, t.Step)
		}
		for _, a := range t.Args {
			walk(a)
		}
	}
	for _, p := range m.ResolveProperties() {
		walk(p.F)
	}
	if st, err := m.SpecTemporal(); err == nil {
		walk(st)
	}
	return out
}

// holds evaluates every predicate on s (the state predicates) or on the
// step s -> t (the action predicates, when t is not nil).
func holds(ev *eval.Evaluator, preds []*eval.Pred, s, t []value.Value) outcome {
	var b strings.Builder
	for _, p := range preds {
		if p.Action != (t != nil) {
			continue
		}
		ok, err := ev.Holds(p, s, t)
		fmt.Fprintf(&b, "%v%s;", ok, errText(err))
	}
	return outcome(b.String())
}

// compareEvaluators explores up to limit states of m breadth first and
// fails t where the compiled evaluator and the interpreter disagree. It
// returns the number of states explored.
func compareEvaluators(t *testing.T, m *eval.Model, limit int) int {
	t.Helper()
	cev, iev := m.NewEvaluator(), m.NewEvaluator()
	iev.Interpret()
	cev.Quiet()
	iev.Quiet()
	var cinit, iinit [][]value.Value
	cerr := cev.Init(func(s []value.Value) error { cinit = append(cinit, s); return nil })
	ierr := iev.Init(func(s []value.Value) error { iinit = append(iinit, s); return nil })
	if errText(cerr) != errText(ierr) || len(cinit) != len(iinit) {
		t.Fatalf("initial states: compiled %d (%v), interpreted %d (%v)", len(cinit), cerr, len(iinit), ierr)
	}
	for i := range cinit {
		if value.FingerprintState(cinit[i]) != value.FingerprintState(iinit[i]) {
			t.Fatalf("initial state %d differs", i)
		}
	}
	preds := temporalPreds(m)
	seen := map[uint64]bool{}
	queue := cinit
	n := 0
	actions := len(m.NextActions())
	for len(queue) > 0 && n < limit {
		s := queue[0]
		queue = queue[1:]
		fp := value.FingerprintState(s)
		if seen[fp] {
			continue
		}
		seen[fp] = true
		n++
		if cf, inf := stateFacts(m, cev, s), stateFacts(m, iev, s); cf != inf {
			t.Fatalf("state %v:\ncompiled    %s\ninterpreted %s", s, cf, inf)
		}
		if ch, ih := holds(cev, preds, s, nil), holds(iev, preds, s, nil); ch != ih {
			t.Fatalf("temporal predicates in %v:\ncompiled    %s\ninterpreted %s", s, ch, ih)
		}
		if !cev.HasNext() {
			continue
		}
		csucc, cout := successorsOf(m, cev, s, -1)
		_, iout := successorsOf(m, iev, s, -1)
		if cout != iout {
			t.Fatalf("successors of %v:\ncompiled    %s\ninterpreted %s", s, cout, iout)
		}
		for a := 0; a < actions && a < 64; a++ {
			_, cout := successorsOf(m, cev, s, a)
			_, iout := successorsOf(m, iev, s, a)
			if cout != iout {
				t.Fatalf("successors of %v by action %d:\ncompiled    %s\ninterpreted %s", s, a, cout, iout)
			}
		}
		for _, u := range csucc {
			if len(m.ActionConstraints) > 0 {
				cok, cerr := cev.InActionConstraints(s, u)
				iok, ierr := iev.InActionConstraints(s, u)
				if cok != iok || errText(cerr) != errText(ierr) {
					t.Fatalf("action constraints from %v to %v: compiled %v %v, interpreted %v %v", s, u, cok, cerr, iok, ierr)
				}
			}
			if ch, ih := holds(cev, preds, s, u), holds(iev, preds, s, u); ch != ih {
				t.Fatalf("temporal predicates from %v to %v:\ncompiled    %s\ninterpreted %s", s, u, ch, ih)
			}
			queue = append(queue, u)
		}
	}
	return n
}

// TestOurModelsCompileWhole checks that nothing of our models, as checked
// and as simulated, is left to the interpreter: their speed is the
// compiled evaluator's.
func TestOurModelsCompileWhole(t *testing.T) {
	for _, mc := range [][2]string{{"raft.tla", "raft_check.cfg"}, {"raft.tla", "raft.cfg"}, {"raft.tla", "raft_standing.cfg"}, {"microbench.tla", "microbench_check.cfg"}, {"microbench.tla", "microbench.cfg"}} {
		m, err := eval.Load(filepath.Join("../../models", mc[0]), filepath.Join("../../models", mc[1]))
		if err != nil {
			t.Fatal(err)
		}
		if n := compareEvaluators(t, m, 300); n < 100 {
			t.Fatalf("%s: only %d states", mc[1], n)
		}
		if is := m.Islands(); len(is) > 0 {
			t.Errorf("%s/%s: left to the interpreter: %v", mc[0], mc[1], is)
		}
	}
}
