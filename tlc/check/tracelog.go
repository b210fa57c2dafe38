package check

import (
	"sync"
	"sync/atomic"
)

// traceLog records, for every distinct state, its fingerprint and the
// record of the state it was first found from (TLC's trace file): 16 bytes
// a state, in chunks that are never moved, so that a record written by one
// worker can be read by any other once the write happened before (the
// level barrier, or the record's own goroutine). An error trace is the
// chain of fingerprints from an initial state, replayed (see replay.go).
type traceLog struct {
	n  atomic.Uint64
	mu sync.Mutex
	// dir is the chunks' directory; a larger copy replaces it when full.
	dir atomic.Pointer[[]*[chunkLen]traceRec]
}

type traceRec struct {
	parent uint64 // the parent's record, or noParent for an initial state
	fp     uint64
}

const (
	chunkBits = 12
	chunkLen  = 1 << chunkBits
	noParent  = ^uint64(0)
)

// add records a state and returns its record's number.
func (l *traceLog) add(parent, fp uint64) uint64 {
	id := l.n.Add(1) - 1
	ch := l.chunk(id >> chunkBits)
	ch[id&(chunkLen-1)] = traceRec{parent: parent, fp: fp}
	return id
}

func (l *traceLog) chunk(i uint64) *[chunkLen]traceRec {
	if d := l.dir.Load(); d != nil && i < uint64(len(*d)) && (*d)[i] != nil {
		return (*d)[i]
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var d []*[chunkLen]traceRec
	if p := l.dir.Load(); p != nil {
		d = *p
	}
	if i < uint64(len(d)) && d[i] != nil {
		return d[i]
	}
	if i >= uint64(len(d)) {
		d = append(make([]*[chunkLen]traceRec, 0, 2*i+8), d...)
		d = d[:i+1]
	} else {
		d = append([]*[chunkLen]traceRec(nil), d...)
	}
	c := new([chunkLen]traceRec)
	d[i] = c
	l.dir.Store(&d)
	return c
}

func (l *traceLog) get(id uint64) traceRec {
	return (*l.dir.Load())[id>>chunkBits][id&(chunkLen-1)]
}

// fps is the chain of fingerprints from an initial state to record id.
func (l *traceLog) fps(id uint64) []uint64 {
	var out []uint64
	for id != noParent {
		r := l.get(id)
		out = append(out, r.fp)
		id = r.parent
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}
