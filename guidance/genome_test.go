package guidance

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/adapters/etcdraft"
	"github.com/modelfuzz/modelfuzz/schedule"
)

func genomeOnline(t *testing.T, strategy string) (*Online, schedule.Factory) {
	t.Helper()
	fac, err := etcdraft.NewFactory(etcdraft.DefaultConfig())
	require.NoError(t, err)
	shape := schedule.Shape{Steps: 80, MaxMessages: 3, Requests: 3, CrashQuota: 2}
	p := OnlineParams{}
	require.NoError(t, p.Defaults(strategy, fac.Spec()))
	p.RaceRuns = 3
	o, err := NewOnline(strategy, p, schedule.Harness{Shape: shape}, fac, 1)
	require.NoError(t, err)
	return o, fac
}

func decodeGenome(t *testing.T, b []byte) Genome {
	t.Helper()
	var g Genome
	require.NoError(t, json.Unmarshal(b, &g))
	return g
}

// A genome makes the same execution every time, on another instance of
// the system too: a fresh one, the genome its run writes, and a mutant
// of that; the written genome holds every choice the run drew.
func TestGenomeReplaysTheSameExecution(t *testing.T) {
	runs := 30
	if testing.Short() || raceOn {
		runs = 8
	}
	for _, strategy := range []string{"model-pctcp-genome", "model-dpos-genome"} {
		o, fac := genomeOnline(t, strategy)
		a, err := fac.New()
		require.NoError(t, err)
		b, err := fac.New()
		require.NoError(t, err)
		ops := map[string]int{}
		for k := 0; k < runs; k++ {
			r := rand.New(rand.NewPCG(uint64(k), 31))
			g := o.FreshGenome(r)
			for round := 0; round < 4; round++ {
				in, ex, ran, err := o.RunGenome(a, g)
				require.NoError(t, err)
				in2, ex2, ran2, err := o.RunGenome(b, ran)
				require.NoError(t, err)
				require.Equal(t, string(schedule.EncodeInput(in)), string(schedule.EncodeInput(in2)), "%s, genome %d, round %d", strategy, k, round)
				require.Equal(t, string(schedule.EncodeTrace(ex.Trace)), string(schedule.EncodeTrace(ex2.Trace)), "%s, genome %d, round %d", strategy, k, round)
				require.JSONEq(t, string(ran), string(ran2))
				w := decodeGenome(t, ran)
				require.Equal(t, len(in.Steps), w.Steps)
				require.Len(t, w.Born, len(w.Keys))
				require.Len(t, w.Changes, o.Params.Depth-1)
				// The recorded input replays it as an ordinary input.
				again, err := b.Execute(in)
				require.NoError(t, err)
				require.Equal(t, string(schedule.EncodeTrace(ex.Trace)), string(schedule.EncodeTrace(again.Trace)))
				var op string
				g, op, err = o.MutateGenome(ran, r)
				require.NoError(t, err)
				ops[op]++
			}
		}
		t.Logf("%s: mutations %v", strategy, ops)
		for _, op := range []string{MutateChange, MutateSwap, MutateFault, MutateAddFault, MutateReseed} {
			require.Positive(t, ops[op], "%s: %s is drawn", strategy, op)
		}
	}
}

// A mutation changes one choice of the genome and says which: one change
// point, two keys swapped, one fault point moved, removed or added, or
// one reseed (the keys of the chains from its step on left to draw).
func TestGenomeMutationChangesOneChoice(t *testing.T) {
	o, fac := genomeOnline(t, "model-pctcp-genome")
	sys, err := fac.New()
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(4, 4))
	_, _, ran, err := o.RunGenome(sys, o.FreshGenome(r))
	require.NoError(t, err)
	// A parent with fault points, so that every mutation applies.
	for i := 0; i < 3; i++ {
		g, op, err := o.MutateGenome(ran, r)
		require.NoError(t, err)
		if op == MutateAddFault || decodeGenome(t, g).Faults == nil {
			_, _, ran, err = o.RunGenome(sys, g)
			require.NoError(t, err)
		}
	}
	parent := decodeGenome(t, ran)
	seen := map[string]bool{}
	for k := 0; k < 400; k++ {
		b, op, err := o.MutateGenome(ran, r)
		require.NoError(t, err)
		seen[op] = true
		m := decodeGenome(t, b)
		require.Equal(t, parent.Seed, m.Seed)
		same := func(field string) bool {
			switch field {
			case "changes":
				return slices.Equal(parent.Changes, m.Changes)
			case "keys":
				return slices.Equal(parent.Keys, m.Keys)
			case "faults":
				return slices.Equal(parent.Faults, m.Faults)
			}
			return slices.Equal(parent.Reseeds, m.Reseeds)
		}
		changed := map[string]bool{"changes": !same("changes"), "keys": !same("keys"), "faults": !same("faults"), "reseeds": !same("reseeds")}
		switch op {
		case MutateChange:
			require.Equal(t, map[string]bool{"changes": true, "keys": false, "faults": false, "reseeds": false}, changed, op)
			diff := 0
			for i := range m.Changes {
				if m.Changes[i] != parent.Changes[i] {
					diff++
				}
			}
			require.Equal(t, 1, diff, "one change point moved")
		case MutateSwap:
			require.Equal(t, map[string]bool{"changes": false, "keys": true, "faults": false, "reseeds": false}, changed, op)
			var at []int
			for i := range m.Keys {
				if m.Keys[i] != parent.Keys[i] {
					at = append(at, i)
				}
			}
			require.Len(t, at, 2, "two keys swapped")
			require.Equal(t, parent.Keys[at[0]], m.Keys[at[1]])
		case MutateFault, MutateAddFault:
			require.False(t, changed["changes"] || changed["keys"] || changed["reseeds"], op)
			require.LessOrEqual(t, abs(len(m.Faults)-len(parent.Faults)), 1, op)
			if op == MutateAddFault {
				require.Len(t, m.Faults, len(parent.Faults)+1)
			}
		case MutateReseed:
			require.False(t, changed["changes"] || changed["faults"], op)
			last := m.Reseeds[len(m.Reseeds)-1]
			require.Less(t, last.Step, max(parent.Steps, 1))
			require.True(t, slices.Equal(parent.Keys[:len(m.Keys)], m.Keys), "the keys of the chains before the step are kept")
			for i, born := range parent.Born {
				require.Equal(t, born < last.Step, i < len(m.Keys), "chain %d, born in step %d, reseed at %d", i, born, last.Step)
			}
		default:
			t.Fatalf("unknown mutation %q", op)
		}
	}
	require.Len(t, seen, 5, "every mutation was drawn: %v", seen)
}

func abs(x int) int { return max(x, -x) }
