package eval

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// Invariants whose quantifier bodies read parts of the state (f[i], f[g[i]]),
// whole variables, state-level definitions, ENABLED, and fail with errors
// in some states (f[g[i]] outside the domain of f).
const memoInvariants = `
D == {k \in 1..3 : g[k] = 1}
Act(i) == f[i] > 0 /\ x' = i
Pair == \A i, j \in 1..3 : f[i] = f[j] => g[i] = g[j] \/ x > 1
Chain == \A i \in 1..3 : f[g[i]] >= 0
Def == \A i \in 1..3 : i \in D => f[i] < 2
Prefix == \A i \in 1..3 : f[i] = 1 => SubSeq(f, 1, i) # <<1, 1>>
Whole == \A i \in 1..3 : f = <<0, 0, 0>> => x # i
Nested == \A i \in 1..3 : \A j \in 1..3 : g[i] + f[j] # 5 \/ x = 0
Enabled == \A i \in 1..3 : g[i] = 2 => ENABLED Act(i)
`

var memoInvariantNames = []string{"Pair", "Chain", "Def", "Prefix", "Whole", "Nested", "Enabled"}

func memoModel(t *testing.T) *Model {
	t.Helper()
	src := evalHeader + "VARIABLES f, g, x\nInit == f = <<0, 0, 0>> /\\ g = <<1, 1, 1>> /\\ x = 0\n" +
		"Next == UNCHANGED <<f, g, x>>\n" + memoInvariants + "====\n"
	cfg := "INIT Init\nNEXT Next\n"
	for _, n := range memoInvariantNames {
		cfg += "INVARIANT " + n + "\n"
	}
	m, err := buildModule(src, cfg)
	require.NoError(t, err)
	return m
}

func outcome(ok bool, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return fmt.Sprint(ok)
}

// An evaluator that remembers quantifier bodies across states gives, in
// every state of a walk that changes one part of the state at a time, what
// an evaluator that has seen no other state gives: the same result or the
// same error.
func TestQuantifierMemoMatchesFreshEvaluation(t *testing.T) {
	m := memoModel(t)
	ev := m.NewEvaluator()
	rng := rand.New(rand.NewPCG(1, 2))
	f, g, x := []int64{0, 0, 0}, []int64{1, 1, 1}, int64(0)
	outcomes := map[string]bool{}
	for step := range 3000 {
		switch rng.IntN(3) {
		case 0:
			f[rng.IntN(3)] = rng.Int64N(3)
		case 1:
			g[rng.IntN(3)] = 1 + rng.Int64N(4) // 4 is outside DOMAIN f
		default:
			x = rng.Int64N(3)
		}
		// Values built anew in each state: equal parts are equal values,
		// not the same ones.
		s := []value.Value{value.Tuple(ints(f...)...), value.Tuple(ints(g...)...), value.IntOf(x)}
		fresh := m.NewEvaluator()
		for i, name := range memoInvariantNames {
			got := outcome(ev.Invariant(i, s))
			want := outcome(fresh.Invariant(i, s))
			require.Equal(t, want, got, "step %d, %s in f = %v, g = %v, x = %d", step, name, f, g, x)
			outcomes[name+" "+want[:min(len(want), 5)]] = true
		}
	}
	// The walk met each invariant holding and failing (and Chain's error).
	for _, name := range memoInvariantNames {
		assert.True(t, outcomes[name+" true"], "%s never held", name)
		if name != "Enabled" {
			assert.True(t, outcomes[name+" false"] || name == "Chain", "%s never failed", name)
		}
	}
	assert.True(t, outcomes["Chain error"], "Chain never failed with an error")
}

// A body that held for a binding is evaluated again when a part of the
// state it read changes, and only then: f[2] alone breaks Pair.
func TestQuantifierMemoFollowsParts(t *testing.T) {
	m := memoModel(t)
	ev := m.NewEvaluator()
	st := func(f ...int64) []value.Value {
		return []value.Value{value.Tuple(ints(f...)...), value.Tuple(ints(1, 2, 3)...), value.IntOf(0)}
	}
	for _, c := range []struct {
		f    []int64
		want bool
	}{
		{[]int64{0, 1, 2}, true},
		{[]int64{0, 1, 1}, false}, // f[2] = f[3], g[2] # g[3]
		{[]int64{0, 1, 2}, true},
		{[]int64{2, 1, 2}, false}, // f[1] = f[3]
		{[]int64{2, 0, 1}, true},
	} {
		ok, err := ev.Invariant(0, st(c.f...))
		require.NoError(t, err)
		assert.Equal(t, c.want, ok, "f = %v", c.f)
	}
}
