package hub

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/modelfuzz/modelfuzz/record"
)

// Store is the worker's corpus as its campaign's record.Store: every
// commit goes to the corpus first, then what it holds of the campaign's
// findings is published (in the background, in order; while the hub is out
// of reach it waits in memory, and after a kill -9 the next join publishes
// it from the corpus).
func (w *Worker) Store(corpus record.Store) record.Store { return &store{inner: corpus, w: w} }

type store struct {
	inner record.Store
	w     *Worker
}

// Load loads the corpus and publishes what of it the hub lacks: the kept
// inputs after the last one the hub has from this worker, the coverage
// items the hub does not hold, and every bug (merged by signature).
func (s *store) Load(recent int) (*record.Snapshot, error) {
	snap, err := s.inner.Load(-1)
	if err != nil {
		return nil, err
	}
	w := s.w
	w.mu.Lock()
	hubCov, lastOwn := w.hubCov, w.lastOwn
	w.hubCov = nil
	w.mu.Unlock()
	var ps []pub
	for _, in := range snap.Inputs {
		if published(in) && in.ID > lastOwn {
			ps = append(ps, w.inputPub(in))
		}
	}
	for _, m := range slices.Sorted(maps.Keys(snap.Coverage)) {
		var missing []uint64
		for _, x := range snap.Coverage[m] {
			if !hubCov[m][x] {
				missing = append(missing, x)
			}
		}
		for len(missing) > 0 {
			n := min(len(missing), 50000)
			ps = append(ps, w.coveragePub([]record.CoverageItems{{Measure: m, Items: missing[:n]}}))
			missing = missing[n:]
		}
	}
	for _, b := range snap.Bugs {
		c := *b
		ps = append(ps, pub{bug: &c})
	}
	if len(ps) > 0 {
		w.opt.Logf("hub %s: publishing %d record(s) of this corpus the hub lacks", w.opt.URL, len(ps))
	}
	w.enqueue(ps...)
	// What the loop asked for: pending imports and the most recent kept inputs.
	if recent >= 0 {
		var kept []*record.InputRecord
		for _, in := range snap.Inputs {
			if in.Source == "import" && in.Iteration == 0 {
				kept = append(kept, in)
			}
		}
		var fuzz []*record.InputRecord
		for _, in := range snap.Inputs {
			if in.Source == "fuzz" {
				fuzz = append(fuzz, in)
			}
		}
		kept = append(kept, fuzz[max(0, len(fuzz)-recent):]...)
		slices.SortFunc(kept, func(a, b *record.InputRecord) int { return cmpU(a.ID, b.ID) })
		snap.Inputs = kept
	}
	return snap, nil
}

// published says whether an input is one the hub shares: kept because it
// reached new coverage.
func published(in *record.InputRecord) bool {
	return in.Input != nil && (in.Source == "fuzz" || (in.Source == "import" && len(in.NewItems) > 0))
}

// Commit commits b to the corpus, then enqueues what of it the hub shares.
func (s *store) Commit(b *record.Batch) error {
	if err := s.inner.Commit(b); err != nil {
		return err
	}
	w := s.w
	var ps []pub
	for _, in := range b.Inputs {
		if published(in) {
			ps = append(ps, w.inputPub(in))
		}
	}
	if len(b.Coverage) > 0 {
		ps = append(ps, w.coveragePub(b.Coverage))
	}
	for _, bug := range b.Bugs {
		c := *bug // the loop goes on changing its own
		ps = append(ps, pub{bug: &c})
	}
	if b.Stats != nil {
		data, _ := json.Marshal(Stats{Worker: w.opt.Name, Stats: b.Stats})
		ps = append(ps, pub{subject: subjectStats + w.opt.Name, id: msgID(w.opt.Name, data), data: data})
		w.status.Updated, w.status.Stats = now(), b.Stats
		st, _ := json.Marshal(&w.status)
		ps = append(ps, pub{status: st})
	}
	w.enqueue(ps...)
	return nil
}

func (w *Worker) inputPub(in *record.InputRecord) pub {
	data, _ := json.Marshal(Input{Worker: w.opt.Name, ID: in.ID, Iteration: in.Iteration, NewItems: in.NewItems,
		GuideItems: in.GuideItems, GuideSteps: in.GuideSteps, Input: in.Input})
	return pub{subject: subjectInput + w.opt.Name, id: msgID(w.opt.Name, data), data: data}
}

func (w *Worker) coveragePub(c []record.CoverageItems) pub {
	data, _ := json.Marshal(Coverage{Worker: w.opt.Name, Coverage: c})
	return pub{subject: subjectCov + w.opt.Name, id: msgID(w.opt.Name, data), data: data}
}

// Fault and Err are the corpus's (record.FaultReporter), when it watches
// its medium.
func (s *store) Fault() <-chan struct{} {
	if fr, ok := s.inner.(record.FaultReporter); ok {
		return fr.Fault()
	}
	return nil
}

func (s *store) Err() error {
	if fr, ok := s.inner.(record.FaultReporter); ok {
		return fr.Err()
	}
	return nil
}

func cmpU(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
