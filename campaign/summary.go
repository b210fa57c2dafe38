package campaign

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/guidance"
)

// Outcome is how a campaign ended, as run reports it: the loop's summary
// and what the campaign adds to it.
type Outcome struct {
	*fuzzer.Summary
	Corpus string // the campaign's directory
	// Unmapped counts, by type, the events the model's mapper does not
	// turn into model actions (nil: none).
	Unmapped map[string]int
	Online   []guidance.Quantity // an online strategy's quantities (nil: none)
	// Checks are the system's own oracle checks by name (nil: the system
	// does not count them).
	Checks map[string]int64
}

// Outcome is the campaign's end, from the summary its Run returned.
func (c *Campaign) Outcome(sum *fuzzer.Summary) *Outcome {
	return &Outcome{Summary: sum, Corpus: c.Settings.CorpusDir, Unmapped: c.Unmapped(), Online: c.OnlineReport(), Checks: c.Checks()}
}

// OutcomeJSON is "run --json"'s summary, one JSON object.
type OutcomeJSON struct {
	Iterations   int64          `json:"iterations"`
	DurationS    float64        `json:"duration_s"`
	ExecsPerSec  float64        `json:"execs_per_sec"`
	Strategy     string         `json:"strategy"`
	UniqueTraces int            `json:"unique_traces"`
	ModelStates  *int           `json:"model_states,omitempty"`
	LinesCovered *int           `json:"lines_covered,omitempty"`
	Divergences  *int64         `json:"divergences,omitempty"`
	Unmapped     map[string]int `json:"unmapped_events,omitempty"`
	CorpusSize   int            `json:"corpus_size"`
	Bugs         []OutcomeBug   `json:"bugs"`
	NewBugs      int            `json:"new_bugs"` // first found in this session
	// Known are the known disagreements of the model with the system the
	// campaign met (not bugs), KnownExecutions the executions that showed
	// one.
	Known           []OutcomeKnown      `json:"known,omitempty"`
	KnownExecutions int64               `json:"known_executions,omitempty"`
	Interrupted     bool                `json:"interrupted"`
	Corpus          string              `json:"corpus,omitempty"`
	CorpusLost      bool                `json:"corpus_lost,omitempty"`
	Unstored        int64               `json:"unstored,omitempty"`
	Abandoned       int64               `json:"abandoned,omitempty"`
	HarnessErrors   int64               `json:"harness_errors,omitempty"`
	Dropped         int64               `json:"dropped,omitempty"`
	Coverage        map[string]int      `json:"coverage"`
	Online          []guidance.Quantity `json:"online,omitempty"`
	// Checks are the system's own oracle checks by name (etcd: histories
	// linearizable, not_linearizable, linearizability_unknown).
	Checks map[string]int64 `json:"checks,omitempty"`
}

// OutcomeBug is a bug in "run --json"'s summary.
type OutcomeBug struct {
	ID             string `json:"id"`
	Signature      string `json:"signature"`
	Kind           string `json:"kind"`
	FirstIteration int64  `json:"first_iteration"`
}

// OutcomeKnown is a known disagreement in "run --json"'s summary: the
// entry it is, how many executions showed it, and the first.
type OutcomeKnown struct {
	ID             string `json:"id"`
	Known          string `json:"known"`
	Kind           string `json:"kind"`
	Hits           int64  `json:"hits"`
	FirstIteration int64  `json:"first_iteration"`
}

// JSON is the outcome as "run --json" prints it.
func (o *Outcome) JSON() *OutcomeJSON {
	s := o.Summary
	out := &OutcomeJSON{Online: o.Online, Dropped: s.Dropped, Coverage: s.Coverage, Iterations: s.Iterations, DurationS: round3(s.Duration.Seconds()), ExecsPerSec: round3(s.ExecsPerSec),
		Strategy: s.Strategy, UniqueTraces: s.Coverage[guidance.MeasureTraces], CorpusSize: s.CorpusSize,
		Bugs: []OutcomeBug{}, NewBugs: s.NewBugs, Interrupted: s.Interrupted, Corpus: o.Corpus, Unmapped: o.Unmapped, Checks: o.Checks,
		CorpusLost: s.StoreLost, Unstored: s.Unstored, Abandoned: s.Abandoned, HarnessErrors: s.HarnessErrors}
	if s.StoreLost {
		out.Corpus = "" // never point at a corpus that is not there
	}
	for _, b := range s.Bugs {
		out.Bugs = append(out.Bugs, OutcomeBug{b.ID, b.Signature, b.Kind, b.FirstIteration})
	}
	for _, b := range s.Known {
		out.Known = append(out.Known, OutcomeKnown{b.ID, b.Known, b.Kind, b.Hits, b.FirstIteration})
	}
	out.KnownExecutions = s.KnownExecutions
	if n, ok := s.Coverage[guidance.MeasureLines]; ok {
		out.LinesCovered = &n
	}
	if n, ok := s.Coverage[guidance.MeasureModel]; ok {
		d := s.Divergences
		out.ModelStates, out.Divergences = &n, &d
	}
	return out
}

// Text is the outcome as run prints it for people.
func (o *Outcome) Text() string {
	s, dir := o.Summary, o.Corpus
	var w strings.Builder
	state := "done"
	switch {
	case s.Interrupted:
		state = "interrupted"
	case s.StoppedEarly != "":
		state = "stopped: " + s.StoppedEarly
	}
	fmt.Fprintf(&w, "campaign %s: %d iterations in total, %d in this session (%.1fs, %s exec/s)\n",
		state, s.Iterations, s.Session, s.Duration.Seconds(), RateText(s.ExecsPerSec))
	fmt.Fprintf(&w, "strategy %s, corpus %d inputs, coverage: %s\n", s.Strategy, s.CorpusSize, CoverageText(s.Coverage))
	if len(o.Online) > 0 {
		var parts []string
		for _, q := range o.Online {
			parts = append(parts, fmt.Sprintf("%s %s", q.Name, strconv.FormatFloat(q.Value, 'g', 4, 64)))
		}
		fmt.Fprintf(&w, "online strategy %s: %s\n", s.Strategy, strings.Join(parts, ", "))
	}
	if len(o.Checks) > 0 {
		fmt.Fprintf(&w, "the system's checks (every execution, minimizations and replays included): %s\n", checksText(o.Checks))
	}
	if s.HarnessErrors > 0 {
		fmt.Fprintf(&w, "harness errors: %d iteration(s) failed in the harness and say nothing of the system (the log has each)\n", s.HarnessErrors)
	}
	if s.Dropped > 0 {
		fmt.Fprintf(&w, "dropped at --queue-max this session: %d queued inputs (raise --queue-max to keep them)\n", s.Dropped)
	}
	if _, ok := s.Coverage[guidance.MeasureModel]; ok {
		fmt.Fprintf(&w, "model: %d abstract states, %d execution(s) diverged from the model", s.Coverage[guidance.MeasureModel], s.Divergences)
		if s.KnownExecutions > 0 {
			fmt.Fprintf(&w, ", %d showed a known disagreement", s.KnownExecutions)
		}
		fmt.Fprintln(&w)
		if len(o.Unmapped) > 0 {
			w.WriteString(unmappedText(o.Unmapped))
		}
	}
	o.bugsText(&w)
	switch {
	case s.StoreLost:
		fmt.Fprintf(&w, "corpus: %s is lost; nothing of this campaign can be replayed from it\n", dir)
	case s.Unstored > 0:
		fmt.Fprintf(&w, "corpus: %s (up to iteration %d; the %d execution(s) after it were not stored)\n", dir, s.Iterations, s.Unstored)
	case s.Abandoned > 0:
		fmt.Fprintf(&w, "corpus: %s (up to iteration %d; %d execution(s) in flight did not finish within %v of the stop: stopped, not recorded)\n", dir, s.Iterations, s.Abandoned, fuzzer.StopGrace)
	default:
		fmt.Fprintf(&w, "corpus: %s\n", dir)
	}
	// The last line, where a reader (or a script's tail -1) looks: what
	// this session found. run exits 0 either way.
	switch {
	case s.NewBugs > 0:
		fmt.Fprintf(&w, "%d new bug(s) in this session, %d in the campaign\n", s.NewBugs, len(s.Bugs))
	case len(s.Bugs) > 0:
		fmt.Fprintf(&w, "no new bug in this session, %d in the campaign\n", len(s.Bugs))
	default:
		fmt.Fprintln(&w, "no new bug in this session, none in the campaign")
	}
	return w.String()
}

// unmappedShown is how many kinds of unmapped events the summary names.
const unmappedShown = 5

// unmappedText says how many events the mapper left out, naming the most
// frequent kinds; "run --json" lists them all.
func unmappedText(u map[string]int) string {
	total := 0
	kinds := slices.Collect(maps.Keys(u))
	for _, k := range kinds {
		total += u[k]
	}
	slices.SortFunc(kinds, func(a, b string) int {
		if u[a] != u[b] {
			return u[b] - u[a]
		}
		return strings.Compare(a, b)
	})
	var w strings.Builder
	fmt.Fprintf(&w, "events not mapped to model actions (by design, see the mapper's doc): %d of %d kind(s)\n", total, len(kinds))
	shown := kinds[:min(len(kinds), unmappedShown)]
	parts := make([]string, len(shown))
	for i, k := range shown {
		parts[i] = fmt.Sprintf("%s %d", k, u[k])
	}
	fmt.Fprintf(&w, "  most: %s\n", strings.Join(parts, ", "))
	if len(kinds) > len(shown) {
		fmt.Fprintf(&w, "  the other %d kind(s): run --json (unmapped_events)\n", len(kinds)-len(shown))
	}
	return w.String()
}

// bugsText lists the campaign's bugs and how to replay one, then the
// known disagreements it met, apart. After a failure of the store, bugs
// found after its last commit (iteration s.Iterations) are not in the
// corpus, and a lost corpus holds nothing.
func (o *Outcome) bugsText(w *strings.Builder) {
	s := o.Summary
	defer o.knownText(w)
	if len(s.Bugs) == 0 {
		fmt.Fprintln(w, "no bugs found")
		return
	}
	replayable := ""
	fmt.Fprintf(w, "%d bug(s):\n", len(s.Bugs))
	width := 7 // the kinds' column, as wide as the widest
	for _, b := range s.Bugs {
		width = max(width, len(b.Kind)+1)
	}
	for _, b := range s.Bugs {
		stored, note := !s.StoreLost && b.FirstIteration <= s.Iterations, ""
		if !stored && !s.StoreLost {
			note = " (not stored)"
		}
		if stored && replayable == "" {
			replayable = b.ID
		}
		fmt.Fprintf(w, "  %-4s %-*s first at iteration %d, %d hit(s)%s: %s\n", b.ID, width, b.Kind, b.FirstIteration, b.Hits, note, b.Message)
	}
	if replayable != "" {
		fmt.Fprintf(w, "replay one with: modelfuzz replay --corpus %s %s\n", o.Corpus, replayable)
	}
}

// knownText lists the known disagreements the campaign met, by kind.
func (o *Outcome) knownText(w *strings.Builder) {
	s := o.Summary
	if len(s.Known) == 0 {
		return
	}
	fmt.Fprintf(w, "%d known disagreement(s) of the model with the system, not bugs (in %d execution(s)):\n", len(s.Known), s.KnownExecutions)
	for _, b := range s.Known {
		fmt.Fprintf(w, "  %-4s %-36s %d hit(s), first at iteration %d\n", b.ID, b.Known, b.Hits, b.FirstIteration)
	}
}

// CoverageText shows coverage (or any counts by name) sorted by name:
// "model 12  traces 30".
func CoverageText(c map[string]int) string {
	var parts []string
	for _, m := range slices.Sorted(maps.Keys(c)) {
		parts = append(parts, fmt.Sprintf("%s %d", m, c[m]))
	}
	return strings.Join(parts, "  ")
}

// checksText writes the system's check counts sorted by name:
// "linearizable 120  linearizability_unknown 2".
func checksText(c map[string]int64) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(c)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, c[k]))
	}
	return strings.Join(parts, "  ")
}

func round3(x float64) float64 { return float64(int64(x*1000+0.5)) / 1000 }

// NewBugIDs are the ids of the bugs this session found first, as the
// summary counts them: the last sum.NewBugs of the bugs (ids are given in
// the order bugs are found).
func NewBugIDs(sum *fuzzer.Summary) []string {
	var ids []string
	for _, b := range sum.Bugs[max(0, len(sum.Bugs)-sum.NewBugs):] {
		ids = append(ids, b.ID)
	}
	return ids
}

// StatusLine is the progress of a campaign as one line for a terminal:
// iterations, executions per second, corpus, coverage, bugs, queue.
func StatusLine(s fuzzer.Stats) string {
	minimizing := ""
	if s.Minimizing > 0 {
		minimizing = fmt.Sprintf(" (minimizing %d)", s.Minimizing)
	}
	if s.Known > 0 {
		minimizing += fmt.Sprintf("  known %d", s.Known)
	}
	checks := ""
	if len(s.Checks) > 0 {
		checks = "  checks: " + checksText(s.Checks)
	}
	return fmt.Sprintf("%s  iter %d  %s exec/s  corpus %d  %s  bugs %d%s%s  %s  %s",
		s.Strategy, s.Iterations, RateText(s.ExecsPerSec), s.CorpusSize, CoverageText(s.Coverage), s.Bugs, minimizing, checks, queueText(s), s.Elapsed.Round(time.Second))
}

// RateText writes a rate of executions per second: whole numbers from
// about 10 up, two significant digits below (a real cluster's 0.26 is not 0).
func RateText(r float64) string {
	switch {
	case r >= 9.5:
		return strconv.FormatFloat(r, 'f', 0, 64)
	case r >= 1:
		return strconv.FormatFloat(r, 'f', 1, 64)
	case r > 0:
		return strconv.FormatFloat(r, 'g', 2, 64)
	}
	return "0"
}

// roundRate is RateText's rounding as a number, for key-value logs.
func roundRate(r float64) float64 {
	f, _ := strconv.ParseFloat(RateText(r), 64)
	return f
}

// ProgressArgs are the same figures as StatusLine as the key-value pairs
// of a log line.
func ProgressArgs(s fuzzer.Stats) []any {
	args := []any{"iterations", s.Iterations, "execs_per_sec", roundRate(s.ExecsPerSec), "corpus", s.CorpusSize, "bugs", s.Bugs,
		"queue", s.Queue}
	if s.Pool > 0 {
		args = append(args, "pool", s.Pool)
	}
	if s.Dropped > 0 {
		args = append(args, "dropped", s.Dropped)
	}
	if s.Known > 0 {
		args = append(args, "known", s.Known)
	}
	for _, m := range slices.Sorted(maps.Keys(s.Coverage)) {
		args = append(args, m, s.Coverage[m])
	}
	for _, k := range slices.Sorted(maps.Keys(s.Checks)) {
		args = append(args, k, s.Checks[k])
	}
	return args
}

// queueText is the progress line's view of the work ahead: the inputs
// queued to run, the pool the rare schedule mutates from, and what the
// --queue-max cap dropped.
func queueText(s fuzzer.Stats) string {
	t := fmt.Sprintf("queue %d", s.Queue)
	if s.Pool > 0 {
		t += fmt.Sprintf("  pool %d", s.Pool)
	}
	if s.Dropped > 0 {
		t += fmt.Sprintf(" (dropped %d)", s.Dropped)
	}
	return t
}
