package campaign

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/guidance"
	"github.com/modelfuzz/modelfuzz/record"
)

// After a failure of the corpus, a bug found after its last commit is
// said not to be stored, and the replay hint names a stored one; a lost
// corpus is named by neither view.
func TestOutcomeSaysWhatIsStored(t *testing.T) {
	sum := &fuzzer.Summary{Strategy: "model", Iterations: 100, Session: 60, Duration: 2 * time.Second, ExecsPerSec: 30.0004,
		Coverage: map[string]int{guidance.MeasureModel: 7, guidance.MeasureTraces: 5}, Divergences: 1, Unstored: 4,
		Bugs: []*record.BugRecord{
			{ID: "B1", Kind: "panic", Signature: "panic: x", Message: "x", FirstIteration: 40, Hits: 2},
			{ID: "B2", Kind: "safety", Signature: "safety: y", Message: "y", FirstIteration: 101, Hits: 1},
		}}
	o := &Outcome{Summary: sum, Corpus: "c"}
	text := o.Text()
	require.Contains(t, text, "campaign done: 100 iterations in total, 60 in this session (2.0s, 30 exec/s)\n")
	require.Contains(t, text, "  B2   safety  first at iteration 101, 1 hit(s) (not stored): y\n")
	require.Contains(t, text, "replay one with: modelfuzz replay --corpus c B1\n")
	require.Contains(t, text, "corpus: c (up to iteration 100; the 4 execution(s) after it were not stored)\n")
	require.True(t, strings.HasSuffix(text, "\nno new bug in this session, 2 in the campaign\n"), "the last line says what the session found:\n%s", text)
	js, err := json.Marshal(o.JSON())
	require.NoError(t, err)
	require.JSONEq(t, `{"iterations":100,"duration_s":2,"execs_per_sec":30,"strategy":"model","unique_traces":5,"model_states":7,
		"divergences":1,"corpus_size":0,"bugs":[{"id":"B1","signature":"panic: x","kind":"panic","first_iteration":40},
		{"id":"B2","signature":"safety: y","kind":"safety","first_iteration":101}],"new_bugs":0,"interrupted":false,"corpus":"c","unstored":4,
		"coverage":{"model":7,"traces":5}}`, string(js))

	sum.StoreLost = true
	require.NotContains(t, o.Text(), "replay one with")
	require.Contains(t, o.Text(), "corpus: c is lost; nothing of this campaign can be replayed from it\n")
	require.Empty(t, o.JSON().Corpus)
	require.True(t, o.JSON().CorpusLost)
}

// Known disagreements are listed apart, per kind, in the text and in the
// JSON: they are not bugs.
func TestOutcomeListsKnownApart(t *testing.T) {
	sum := &fuzzer.Summary{Strategy: "model", Iterations: 100, Session: 100, Duration: time.Second, ExecsPerSec: 100,
		Coverage: map[string]int{guidance.MeasureModel: 7}, Divergences: 9, KnownExecutions: 8,
		Known: []*record.BugRecord{
			{ID: "K1", Kind: "spec-divergence", Signature: "known: a", Known: "a", FirstIteration: 3, Hits: 6},
			{ID: "K2", Kind: "model-invariant", Signature: "known: b", Known: "b", FirstIteration: 50, Hits: 2},
		}}
	o := &Outcome{Summary: sum, Corpus: "c"}
	text := o.Text()
	require.Contains(t, text, "model: 7 abstract states, 9 execution(s) diverged from the model, 8 showed a known disagreement\n")
	require.Contains(t, text, "no bugs found\n")
	require.Contains(t, text, "2 known disagreement(s) of the model with the system, not bugs (in 8 execution(s)):\n")
	require.Contains(t, text, "  K1   a                                    6 hit(s), first at iteration 3\n")
	js, err := json.Marshal(o.JSON())
	require.NoError(t, err)
	var out struct {
		Bugs            []OutcomeBug   `json:"bugs"`
		Known           []OutcomeKnown `json:"known"`
		KnownExecutions int64          `json:"known_executions"`
	}
	require.NoError(t, json.Unmarshal(js, &out))
	require.Empty(t, out.Bugs)
	require.Equal(t, []OutcomeKnown{{"K1", "a", "spec-divergence", 6, 3}, {"K2", "b", "model-invariant", 2, 50}}, out.Known)
	require.Equal(t, int64(8), out.KnownExecutions)
}

// The summary names the most frequent kinds of unmapped events on a line
// of its own and points at --json for the rest; its last line counts the
// bugs the session found.
func TestOutcomeUnmappedAndNewBugs(t *testing.T) {
	unmapped := map[string]int{}
	for i := range 30 {
		unmapped[fmt.Sprintf("recv MsgKind%02d", i)] = 1000 + i
	}
	sum := &fuzzer.Summary{Strategy: "model", Iterations: 10, Session: 10, NewBugs: 1,
		Coverage: map[string]int{guidance.MeasureModel: 7}, Bugs: []*record.BugRecord{
			{ID: "B1", Kind: "divergence", Signature: "divergence: x", Message: "x", FirstIteration: 4, Hits: 2},
			{ID: "B2", Kind: "safety", Signature: "safety: y", Message: "y", FirstIteration: 5, Hits: 1},
		}}
	text := (&Outcome{Summary: sum, Corpus: "c", Unmapped: unmapped}).Text()
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for _, l := range lines {
		require.LessOrEqual(t, len(l), 160, "a summary line of %d characters: %s", len(l), l)
	}
	require.Contains(t, text, "events not mapped to model actions (by design, see the mapper's doc): 30435 of 30 kind(s)\n"+
		"  most: recv MsgKind29 1029, recv MsgKind28 1028, recv MsgKind27 1027, recv MsgKind26 1026, recv MsgKind25 1025\n"+
		"  the other 25 kind(s): run --json (unmapped_events)\n")
	require.Contains(t, text, "  B1   divergence  first at iteration 4, 2 hit(s): x\n  B2   safety      first at iteration 5, 1 hit(s): y\n")
	require.Equal(t, "1 new bug(s) in this session, 2 in the campaign", lines[len(lines)-1])

	sum.Bugs, sum.NewBugs = nil, 0
	text = (&Outcome{Summary: sum, Corpus: "c"}).Text()
	require.True(t, strings.HasSuffix(text, "\nno new bug in this session, none in the campaign\n"), text)
}

// The report and the live page split failures by kind: that every failed
// execution also diverged does not read as if every failure were a
// divergence.
func TestFailuresByKind(t *testing.T) {
	bugs := []*record.BugRecord{
		{ID: "B1", Kind: "divergence", Hits: 800}, {ID: "B2", Kind: "safety", Hits: 30},
		{ID: "B3", Kind: "divergence", Hits: 80}, {ID: "B4", Kind: "panic", Hits: 30},
	}
	require.Equal(t, "4 distinct: 2 divergence, 1 panic, 1 safety", BugsByKindText(bugs))
	require.Equal(t, "910 execution(s) with a failure; by kind: 880 divergence, 30 panic, 30 safety (an execution that failed in two ways counts in both)",
		FailuresText(910, bugs))
	require.Equal(t, "none", BugsByKindText(nil))
	require.Equal(t, "no execution failed", FailuresText(0, nil))
}

// TestRateText: a slow cluster's rate is not written as 0.
func TestRateText(t *testing.T) {
	for r, want := range map[float64]string{0: "0", 0.26: "0.26", 0.0123: "0.012", 1.26: "1.3", 9.96: "10", 26.4: "26", 1584.2: "1584"} {
		require.Equal(t, want, RateText(r), "rate %v", r)
	}
	require.Equal(t, 0.26, roundRate(0.2612))
}

// The system's own checks (etcd's linearizability checks, undecided ones
// apart) show in the progress line, the log line, the text and the JSON.
func TestChecksAreReported(t *testing.T) {
	checks := map[string]int64{"linearizable": 118, "not_linearizable": 0, "linearizability_unknown": 2}
	st := fuzzer.Stats{Strategy: "model", Iterations: 120, Coverage: map[string]int{guidance.MeasureModel: 7}, Checks: checks}
	require.Contains(t, StatusLine(st), "checks: linearizability_unknown 2  linearizable 118  not_linearizable 0")
	args := ProgressArgs(st)
	require.Equal(t, []any{"linearizability_unknown", int64(2), "linearizable", int64(118), "not_linearizable", int64(0)}, args[len(args)-6:])
	o := &Outcome{Summary: &fuzzer.Summary{Strategy: "model", Iterations: 120, Session: 120, Duration: time.Second,
		Coverage: map[string]int{guidance.MeasureModel: 7}}, Corpus: "c", Checks: checks}
	require.Contains(t, o.Text(), "the system's checks (every execution, minimizations and replays included): linearizability_unknown 2  linearizable 118  not_linearizable 0\n")
	require.Equal(t, checks, o.JSON().Checks)
	require.NotContains(t, StatusLine(fuzzer.Stats{Strategy: "model"}), "checks")
}

// Iterations lost to the harness are said in the text and the JSON.
func TestOutcomeSaysHarnessErrors(t *testing.T) {
	sum := &fuzzer.Summary{Strategy: "model", Iterations: 136, Session: 136, Coverage: map[string]int{guidance.MeasureTraces: 134}, HarnessErrors: 2}
	o := &Outcome{Summary: sum, Corpus: "c"}
	require.Contains(t, o.Text(), "harness errors: 2 iteration(s) failed in the harness and say nothing of the system (the log has each)\n")
	js, err := json.Marshal(o.JSON())
	require.NoError(t, err)
	require.Contains(t, string(js), `"harness_errors":2`)
	sum.HarnessErrors = 0
	require.NotContains(t, o.Text(), "harness errors")
}
