package check

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// The queue of unexplored states
//
// The search is level-synchronous: workers expand the states of one level
// (all at the same distance from the initial states) into the next. A
// level keeps its first states in memory, as the evaluator made them (a
// trace spec's levels are a handful of states, and the evaluator's memos
// recognize the values they share with their predecessors), and encodes
// the others (value.AppendBinary) into blocks of a temporary file (in
// Options.QueueDir), whose name is removed as soon as it is made. A state
// leaves memory once expanded: what remains of it is its fingerprint in
// the fpSet and its record in the traceLog.
//
// A block is a run of entries, each the uvarint number of the state's
// record in the traceLog followed by its variables' encodings. Workers
// append whole blocks to the level's file under its lock and claim whole
// blocks when they read it, so the file needs no index but the list of
// blocks.
//
// Checkpoints (not written yet; the CLI's -checkpoint would add them): at
// a level boundary the whole search is the fpSet's tables, the traceLog's
// records, the current level (its in-memory states encoded as the others)
// and the counters. Writing those four, with the model values' names in
// rank order (the encoding writes model values by rank, which a new
// process assigns anew), is a checkpoint; a recovery reads them back and
// continues with expand on the level.

// item is a state waiting to be explored.
type item struct {
	vals []value.Value
	id   uint64 // its record in the traceLog
}

type block struct {
	off int64
	n   int
}

// level is one level of the search.
type level struct {
	mem    []item
	file   *os.File
	path   string
	mu     sync.Mutex // guards what follows, while the level is written
	blocks []block
	size   int64
	onDisk atomic.Int64 // states in the file

	inMem atomic.Int64 // states given a place in memory, while written
}

// queue makes the levels' files.
type queue struct {
	// memStates is how many states of a level stay in memory.
	memStates int64
	base      string // where the files are made ("": the system's temporary directory)
}

const blockBytes = 1 << 20

func (l *level) len() int64 { return int64(len(l.mem)) + l.onDisk.Load() }

// writer is one worker's output into a level.
type writer struct {
	l   *level
	q   *queue
	mem []item
	buf []byte
	err error
	// lastVal and last are each variable's value in the state written
	// before and its encoding: a value shared with it (a sibling's
	// unchanged variable) is not encoded again.
	lastVal []value.Value
	last    [][]byte
}

func (w *writer) add(vals []value.Value, id uint64) {
	if w.l.inMem.Add(1) <= w.q.memStates {
		w.mem = append(w.mem, item{vals: vals, id: id})
		return
	}
	w.buf = binary.AppendUvarint(w.buf, id)
	if len(w.last) != len(vals) {
		w.last, w.lastVal = make([][]byte, len(vals)), make([]value.Value, len(vals))
	}
	for j, v := range vals {
		if v == w.lastVal[j] {
			w.buf = append(w.buf, w.last[j]...)
			continue
		}
		at := len(w.buf)
		w.buf = value.AppendBinary(w.buf, v)
		w.last[j] = append(w.last[j][:0], w.buf[at:]...)
		w.lastVal[j] = v
	}
	w.l.onDisk.Add(1)
	if len(w.buf) >= blockBytes {
		w.flush()
	}
}

// flush writes the buffered entries as one block.
func (w *writer) flush() {
	if len(w.buf) == 0 || w.err != nil {
		w.buf = w.buf[:0]
		return
	}
	l := w.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.file == nil {
		f, err := w.q.create()
		if err != nil {
			w.err = err
			return
		}
		l.file, l.path = f, f.Name()
		if os.Remove(l.path) == nil {
			l.path = ""
		}
	}
	if _, err := l.file.WriteAt(w.buf, l.size); err != nil {
		w.err = fmt.Errorf("writing the queue: %w", err)
		return
	}
	l.blocks = append(l.blocks, block{off: l.size, n: len(w.buf)})
	l.size += int64(len(w.buf))
	w.buf = w.buf[:0]
}

// create makes a level's file. Its name is removed at once where the
// system allows it (the file lives on while open), so that nothing is left
// behind when the process is interrupted or killed.
func (q *queue) create() (*os.File, error) {
	f, err := os.CreateTemp(q.base, "modelfuzz-queue-*")
	if err != nil {
		return nil, fmt.Errorf("the queue: %w", err)
	}
	return f, nil
}

// done releases a level's file.
func (l *level) done() {
	if l.file != nil {
		l.file.Close()
		if l.path != "" { // the name was not removed at once
			os.Remove(l.path)
		}
		l.file = nil
	}
}

// reader is one worker's input from a level.
type reader struct {
	l   *level
	dec *value.Decoder
	buf []byte
	// last holds each variable's encoding in the state read before and
	// lastVal its value. Successive states of a block are mostly siblings,
	// which leave most variables unchanged: an encoding seen just before
	// is not decoded again, and the states share the value, as they did
	// in memory before they were written (the symmetry's and the
	// evaluator's memos, keyed by address, recognize it again).
	last    [][]byte
	lastVal []value.Value
}

// readBlock decodes block i and calls fn for each state in it.
func (r *reader) readBlock(i int, vars int, fn func(it item)) error {
	b := r.l.blocks[i]
	if cap(r.buf) < b.n {
		r.buf = make([]byte, b.n)
	}
	buf := r.buf[:b.n]
	if _, err := r.l.file.ReadAt(buf, b.off); err != nil {
		return fmt.Errorf("reading the queue: %w", err)
	}
	for len(buf) > 0 {
		id, n := binary.Uvarint(buf)
		if n <= 0 {
			return fmt.Errorf("reading the queue: a corrupt entry")
		}
		buf = buf[n:]
		if len(r.last) != vars {
			r.last, r.lastVal = make([][]byte, vars), make([]value.Value, vars)
		}
		vals := make([]value.Value, vars)
		for j := range vals {
			// Encodings are prefix-free: when buf starts with the last
			// one, the value is exactly that one.
			if prev := r.last[j]; r.lastVal[j] != nil && bytes.HasPrefix(buf, prev) {
				vals[j], buf = r.lastVal[j], buf[len(prev):]
				continue
			}
			v, rest, err := r.dec.Decode(buf)
			if err != nil {
				return fmt.Errorf("reading the queue: %w", err)
			}
			r.last[j] = append(r.last[j][:0], buf[:len(buf)-len(rest)]...)
			r.lastVal[j] = v
			vals[j], buf = v, rest
		}
		fn(item{vals: vals, id: id})
	}
	return nil
}
