package campaign

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/modelfuzz/modelfuzz/corpus"
	"github.com/modelfuzz/modelfuzz/record"
)

// CorpusListing is "corpus list": a campaign's settings, counters, inputs
// and bugs, as a text.
func CorpusListing(st *corpus.Store) (string, error) {
	camp, err := StoredSettings(st)
	if err != nil {
		return "", err
	}
	snap, err := st.Load(-1)
	if err != nil {
		return "", err
	}
	var w bytes.Buffer
	if camp != nil {
		fmt.Fprintf(&w, "campaign: adapter %s %s, strategy %s, seed %d, created %s\n", camp.Adapter, CompactJSON(camp.AdapterConfig), camp.Strategy, camp.Seed, camp.Created)
		fmt.Fprintf(&w, "inputs: %d steps, %d requests, at most %d messages a delivery, %d crashes; actions %s\n",
			camp.Steps, camp.Requests, camp.MaxMessages, camp.CrashQuota, camp.actions())
	}
	c := snap.Counters
	fmt.Fprintf(&w, "iterations %d over %d session(s), %.1fs; coverage:", c.Iterations, c.Sessions, c.RunSeconds)
	for _, m := range slices.Sorted(maps.Keys(snap.Coverage)) {
		fmt.Fprintf(&w, " %s %d", m, len(snap.Coverage[m]))
	}
	fmt.Fprintf(&w, "\n\ninputs (%d):\n", len(snap.Inputs))
	tw := tabwriter.NewWriter(&w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "  ID\tSOURCE\tITERATION\tSTEPS\tNEW COVERAGE")
	for _, r := range snap.Inputs {
		fmt.Fprintf(tw, "  %d\t%s\t%d\t%d\t%s\n", r.ID, r.Source, r.Iteration, r.Input.Len(), newItemsText(r.NewItems))
	}
	tw.Flush()
	fmt.Fprintf(&w, "\nbugs (%d):\n", len(snap.Bugs))
	tw = tabwriter.NewWriter(&w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "  ID\tKIND\tHITS\tFIRST\tLAST\tSTEPS\tSIGNATURE")
	for _, b := range snap.Bugs {
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%d\t%d\t%s\n", b.ID, b.Kind, b.Hits, b.FirstIteration, b.LastIteration, b.Input.Len(), b.Signature)
	}
	err = tw.Flush()
	return w.String(), err
}

func newItemsText(m map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s +%d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// actions lists the actions of a campaign's generated inputs; campaigns
// stored before --actions used the first five.
func (s *Settings) actions() string {
	if s.Actions != "" {
		return s.Actions
	}
	return "deliver,crash,restart,timeout,request"
}

// StatsTable is "corpus stats": stats snapshots as CSV (one column per
// measure) or JSON lines.
func StatsTable(recs []*record.StatsRecord, asJSON bool) ([]byte, error) {
	var w bytes.Buffer
	if asJSON {
		enc := json.NewEncoder(&w)
		for _, r := range recs {
			if err := enc.Encode(r); err != nil {
				return w.Bytes(), err
			}
		}
		return w.Bytes(), nil
	}
	measures := map[string]bool{}
	for _, r := range recs {
		for m := range r.Coverage {
			measures[m] = true
		}
	}
	ms := slices.Sorted(maps.Keys(measures))
	fmt.Fprint(&w, "seq,time,run_seconds,session,iterations,execs_per_sec,corpus,bugs,failures")
	for _, m := range ms {
		fmt.Fprintf(&w, ",%s", m)
	}
	fmt.Fprintln(&w, ",rss_bytes,heap_bytes,queue,pool,dropped")
	for _, r := range recs {
		fmt.Fprintf(&w, "%d,%s,%g,%d,%d,%g,%d,%d,%d", r.Seq, r.Time, r.RunSeconds, r.Session, r.Iterations, r.ExecsPerSec, r.Corpus, r.Bugs, r.Failures)
		for _, m := range ms {
			fmt.Fprintf(&w, ",%d", r.Coverage[m])
		}
		fmt.Fprintf(&w, ",%d,%d,%d,%d,%d\n", r.RSSBytes, r.HeapBytes, r.Queue, r.Pool, r.Dropped)
	}
	return w.Bytes(), nil
}

// LookupRecord finds a stored input (by its number) or bug (B1, ...; K1,
// ... for a known disagreement).
func LookupRecord(st *corpus.Store, id string) (any, error) {
	if IsBugID(id) {
		return st.Bug(id)
	}
	n, err := strconv.ParseUint(id, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("%q is neither an input id (12) nor a bug id (B1)", id)
	}
	return st.Input(n)
}

// RepairText says what corpus repair did, kept and lost.
func RepairText(r *corpus.RepairReport) string {
	var w strings.Builder
	if r.MarkerRestored {
		fmt.Fprintf(&w, "corpus %s: MODELFUZZ, the file that marks a corpus, was missing: restored\n", r.Dir)
	}
	if r.Nothing {
		fmt.Fprintf(&w, "corpus %s: the database opens and every table reads with its checksums intact: nothing to repair\n", r.Dir)
		return w.String()
	}
	if r.Problem != "" {
		fmt.Fprintf(&w, "corpus %s: %s\n", r.Dir, r.Problem)
	}
	fmt.Fprintf(&w, "repaired from %d table file(s) (%d entries read) and %d entries of the memtable logs\n", r.Tables, r.Entries, r.Logged)
	for _, d := range r.Damaged {
		fmt.Fprintf(&w, "  %s\n", d)
	}
	if r.LogNote != "" {
		fmt.Fprintf(&w, "  the memtable logs could not be read back, the commits not yet in a table are lost: %s\n", r.LogNote)
	}
	kept := fmt.Sprintf("kept: %d input(s), %d bug(s), %d coverage item(s), %d stats snapshot(s)", r.Inputs, r.Bugs, r.Coverage, r.Stats)
	if r.Campaign {
		kept += ", the campaign's settings"
	}
	fmt.Fprintln(&w, kept)
	var lost []string
	if len(r.MissingInputs) > 0 {
		lost = append(lost, fmt.Sprintf("%d input(s): %s", len(r.MissingInputs), idRanges(r.MissingInputs)))
	}
	if len(r.MissingBugs) > 0 {
		lost = append(lost, fmt.Sprintf("%d bug(s): %s", len(r.MissingBugs), strings.Join(r.MissingBugs, ", ")))
	}
	if !r.Campaign {
		lost = append(lost, "the campaign's settings (the next run stores those of its command line)")
	}
	if r.Lost > 0 {
		lost = append(lost, fmt.Sprintf("%d entries in all (records, coverage items, stats snapshots)", r.Lost))
	}
	for _, t := range r.LostTables {
		lost = append(lost, fmt.Sprintf("every record of %s (how many cannot be known: the table's index is gone with it)", t))
	}
	if len(lost) == 0 {
		fmt.Fprintln(&w, "lost: nothing")
	} else {
		fmt.Fprintf(&w, "lost: %s\n", strings.Join(lost, "; "))
	}
	if len(r.Older) > 0 {
		fmt.Fprintf(&w, "older: kept at the version found, a newer one may have been in what could not be read: %s\n", strings.Join(r.Older, ", "))
	}
	if r.CountersRebuilt {
		fmt.Fprintln(&w, "counters: raised to what every record and every version of them needs (no id is used twice)")
	}
	fmt.Fprintf(&w, "the damaged database is kept in %s (delete it when done); \"modelfuzz run --corpus %s\" continues the campaign\n", r.Kept, r.Dir)
	return w.String()
}

// idRanges writes ids (sorted) as ranges: 3, 7-12, 20.
func idRanges(ids []uint64) string {
	var parts []string
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.FormatUint(ids[i], 10))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", ids[i], ids[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}
