package campaign

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/modelfuzz/modelfuzz/guidance"
	"github.com/modelfuzz/modelfuzz/linearize"
	"github.com/modelfuzz/modelfuzz/record"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// BugRow is one bug as "bugs --json" lists it.
type BugRow struct {
	ID             string `json:"id"`
	Kind           string `json:"kind"`
	Signature      string `json:"signature"`
	Message        string `json:"message"`
	Hits           int64  `json:"hits"`
	FirstIteration int64  `json:"first_iteration"`
	LastIteration  int64  `json:"last_iteration"`
	OriginalSteps  int    `json:"original_steps"`
	MinimizedSteps *int   `json:"minimized_steps"`
	MinimizeDone   bool   `json:"minimize_done"`
	MinimizeNote   string `json:"minimize_note,omitempty"`
	// Known is the known disagreement a K record counts (not a bug).
	Known string `json:"known,omitempty"`
}

// BugRows are the rows of bugs (an empty list for none).
func BugRows(bugs []*record.BugRecord) []BugRow {
	rows := []BugRow{}
	for _, b := range bugs {
		r := BugRow{b.ID, b.Kind, b.Signature, b.Message, b.Hits, b.FirstIteration, b.LastIteration, b.Input.Len(), nil, b.MinimizeDone, b.MinimizeNote, b.Known}
		if b.Minimized != nil {
			n := b.Minimized.Len()
			r.MinimizedSteps = &n
		}
		rows = append(rows, r)
	}
	return rows
}

// BugsSeenBy keeps the bugs seen by the model (model) or by the system's
// own oracles (!model), in their order; known disagreements are neither.
func BugsSeenBy(bugs []*record.BugRecord, model bool) []*record.BugRecord {
	var group []*record.BugRecord
	for _, b := range bugs {
		if b.Known == "" && schedule.FailureKind(b.Kind).FromModel() == model {
			group = append(group, b)
		}
	}
	return group
}

// SplitKnown splits records into bugs and known disagreements, each in
// their order.
func SplitKnown(all []*record.BugRecord) (bugs, known []*record.BugRecord) {
	for _, b := range all {
		if b.Known != "" {
			known = append(known, b)
		} else {
			bugs = append(bugs, b)
		}
	}
	return bugs, known
}

// KnownDisagreements keeps the records of known disagreements between the
// model and the system (record.BugRecord.Known), in their order.
func KnownDisagreements(bugs []*record.BugRecord) []*record.BugRecord {
	var group []*record.BugRecord
	for _, b := range bugs {
		if b.Known != "" {
			group = append(group, b)
		}
	}
	return group
}

// KnownTitle is a known disagreement's record described in one line: the
// title its entry gives (the first line of the record's detail).
func KnownTitle(b *record.BugRecord) string {
	first, _, _ := strings.Cut(b.Detail, "\n")
	if _, title, ok := strings.Cut(first, ": "); ok {
		return title
	}
	return b.Known
}

// MinimizedText says how far a bug's minimization got: its steps, "-"
// before one ran, "flaky" when the bug did not show again.
func MinimizedText(b *record.BugRecord) string {
	switch {
	case b.MinimizeNote != "":
		return "flaky"
	case b.Minimized == nil:
		return "-"
	case !b.MinimizeDone:
		return fmt.Sprintf("%d (partial)", b.Minimized.Len())
	}
	return fmt.Sprint(b.Minimized.Len())
}

// BugText is "bugs show": a bug's report header and details, the timeline
// of its reproducer replayed (the minimized input unless original), a
// picture of a history that is not linearizable (written beside the
// corpus) and the model's view. On an error, the text is what was
// gathered before it.
func (e *Env) BugText(b *record.BugRecord, original bool, timeout time.Duration) (string, error) {
	in, which := b.Reproducer(), "minimized"
	if original || b.Minimized == nil {
		in, which = b.Input, "original (not minimized)"
		if original {
			which = "original"
		}
	}
	var w strings.Builder
	w.WriteString(HeaderText(e.ReportHeader(b, in, which)))
	fmt.Fprintf(&w, "\n%s  %s  %d hit(s), iterations %d to %d\n", b.ID, b.Kind, b.Hits, b.FirstIteration, b.LastIteration)
	fmt.Fprintf(&w, "signature: %s\nmessage:   %s\n", b.Signature, b.Message)
	fmt.Fprintf(&w, "reproducer: %s, %d steps (found with %d steps", which, in.Len(), b.Input.Len())
	if b.Minimized != nil {
		state := "done"
		if !b.MinimizeDone {
			state = "stopped early"
		}
		fmt.Fprintf(&w, "; minimization %s after %d executions", state, b.MinimizeTries)
	}
	if b.MinimizeNote != "" {
		fmt.Fprintf(&w, "; %s", b.MinimizeNote)
	}
	fmt.Fprintln(&w, ")")
	if b.Detail != "" {
		w.WriteString(e.foundText(b))
	}
	r, err := e.ReplayBug(b, in, timeout)
	if err != nil {
		return w.String(), err
	}
	fmt.Fprintf(&w, "\n%s", r.Timeline)
	if b.Kind == string(schedule.FailureLinearizability) {
		// porcupine's picture of the history that is not linearizable:
		// the replay's when it showed the bug, else the stored one.
		detail := r.Detail
		if detail == "" {
			detail = b.Detail
		}
		path := filepath.Join(e.Dir, b.ID+"-linearizability.html")
		var err error
		if v, ok := e.System.Factory.(HistoryVisualizer); ok {
			err = v.VisualizeHistory(detail, path)
		} else {
			var hist linearize.History
			if hist, err = linearize.HistoryFromDetail(detail); err == nil {
				err = linearize.WriteVisualization(hist, path)
			}
		}
		if err == nil {
			fmt.Fprintf(&w, "\nporcupine's visualization of the client history: %s\n", path)
		}
		if err != nil {
			fmt.Fprintf(&w, "\nno visualization of the client history: %v\n", err)
		}
	}
	if r.ModelView != "" {
		fmt.Fprintf(&w, "\n%s", r.ModelView)
	}
	return w.String(), nil
}

// foundText shows the failure as the campaign found it: its stored
// detail (a client history, the processes' output, the trace a model
// diverged on), which a replay of a system on real time may not show
// again. The whole detail is written beside the corpus, as ID-detail.txt,
// and a trace a model diverged on as ID-trace.json (a file the mappers'
// golden tests read); the text gives their paths and the detail's first
// lines.
func (e *Env) foundText(b *record.BugRecord) string {
	var w strings.Builder
	path := filepath.Join(e.Dir, b.ID+"-detail.txt")
	if err := os.WriteFile(path, []byte(b.Detail), 0o644); err != nil {
		fmt.Fprintf(&w, "\nthe failure as found: its detail could not be written: %v\n", err)
	} else {
		fmt.Fprintf(&w, "\nthe failure as found (its whole detail: %s):\n", path)
	}
	if tr, ok := strings.CutPrefix(b.Detail, guidance.DivergedTraceHeader); ok {
		tpath := filepath.Join(e.Dir, b.ID+"-trace.json")
		if err := os.WriteFile(tpath, []byte(tr), 0o644); err != nil {
			fmt.Fprintf(&w, "  the trace could not be written: %v\n", err)
		} else {
			fmt.Fprintf(&w, "  the trace the model diverged on, %d events: %s\n", strings.Count(tr, "\n  {"), tpath)
		}
		return w.String()
	}
	const most, width = 20, 200
	lines := strings.Split(strings.TrimRight(b.Detail, "\n"), "\n")
	for i, l := range lines {
		if i == most {
			fmt.Fprintf(&w, "  ... %d more line(s)\n", len(lines)-most)
			break
		}
		if len(l) > width {
			l = l[:width] + " ..."
		}
		fmt.Fprintf(&w, "  %s\n", l)
	}
	return w.String()
}

// HistoryVisualizer is a system whose linearizability failures hold a
// client history of its own kind (not linearize.History): it draws the
// history of a failure's detail into an HTML page.
type HistoryVisualizer interface {
	VisualizeHistory(detail, path string) error
}

// BugListText is what "bugs" prints of the bugs of the campaign in dir:
// the system's own failures first, then what only the model saw (a
// divergence may be a bug of the model as much as of the system), then
// the known disagreements, one row a bug.
func BugListText(bugs []*record.BugRecord, dir string) string {
	var w strings.Builder
	if len(bugs) == 0 {
		fmt.Fprintf(&w, "no bugs in %s\n", dir)
		return w.String()
	}
	known := KnownDisagreements(bugs)
	n := len(bugs) - len(known)
	if n == 0 {
		fmt.Fprintf(&w, "no bugs in %s\n", dir)
	}
	printed := n == 0
	first := ""
	for _, model := range []bool{false, true} {
		group := BugsSeenBy(bugs, model)
		if len(group) == 0 {
			continue
		}
		if printed {
			fmt.Fprintln(&w)
		}
		printed = true
		if first == "" {
			first = group[0].ID
		}
		if model {
			fmt.Fprintln(&w, "seen by the model (the execution and the model disagree):")
		} else {
			fmt.Fprintln(&w, "seen by the system's own oracles (panic, safety, linearizability, hang):")
		}
		tw := tabwriter.NewWriter(&w, 2, 8, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tKIND\tHITS\tFIRST\tLAST\tSTEPS\tMINIMIZED\tSIGNATURE")
		for _, b := range group {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%s\t%s\n", b.ID, b.Kind, b.Hits, b.FirstIteration, b.LastIteration,
				b.Input.Len(), MinimizedText(b), b.Signature)
		}
		tw.Flush()
	}
	if len(known) > 0 {
		fmt.Fprintln(&w)
		fmt.Fprintln(&w, "known disagreements of the model with the system (not bugs: the model is wrong or narrower, the system right):")
		tw := tabwriter.NewWriter(&w, 2, 8, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tKIND\tHITS\tFIRST\tLAST\tKNOWN\tWHAT")
		for _, b := range known {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\t%s\n", b.ID, b.Kind, b.Hits, b.FirstIteration, b.LastIteration, b.Known, KnownTitle(b))
		}
		tw.Flush()
		if first == "" {
			first = known[0].ID
		}
	}
	fmt.Fprintf(&w, "\n%d distinct bug(s), %d known disagreement(s); details: modelfuzz bugs show --corpus %s %s\n", n, len(known), dir, first)
	return w.String()
}
