package campaign

import (
	"strconv"
	"sync"

	"github.com/cespare/xxhash/v2"

	"github.com/modelfuzz/modelfuzz/linecov"
)

// lineTracker turns the code units an execution covered (linecov) into the
// source lines they span: the items of the "lines" measure are lines, so
// its coverage is the number of lines of the system under test covered.
type lineTracker struct {
	t     *linecov.Tracker
	mu    sync.Mutex
	lines map[uint64][]uint64 // unit -> its line items
	units []uint64
	seen  map[uint64]struct{}
}

func newLineTracker() (*lineTracker, error) {
	if err := linecov.Available(); err != nil {
		return nil, err
	}
	t, err := linecov.NewTracker()
	if err != nil {
		return nil, err
	}
	return &lineTracker{t: t, lines: map[uint64][]uint64{}, seen: map[uint64]struct{}{}}, nil
}

// Reset implements fuzzer.UnitTracker.
func (l *lineTracker) Reset() error { return l.t.Reset() }

// Covered implements fuzzer.UnitTracker: the lines of the covered units.
func (l *lineTracker) Covered(dst []uint64) ([]uint64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var err error
	l.units, err = l.t.Covered(l.units[:0])
	if err != nil {
		return dst, err
	}
	clear(l.seen)
	for _, u := range l.units {
		items, ok := l.lines[u]
		if !ok {
			items = l.unitLines(u)
			l.lines[u] = items
		}
		for _, it := range items {
			if _, dup := l.seen[it]; !dup {
				l.seen[it] = struct{}{}
				dst = append(dst, it)
			}
		}
	}
	return dst, nil
}

func (l *lineTracker) unitLines(u uint64) []uint64 {
	file, first, last, ok := l.t.Lines(u)
	if !ok {
		return []uint64{u}
	}
	var out []uint64
	for ln := first; ln <= last; ln++ {
		out = append(out, xxhash.Sum64String(file+":"+strconv.Itoa(ln)))
	}
	return out
}
