package fuzzer

import (
	"encoding/binary"

	"github.com/cespare/xxhash/v2"
)

// Measure is one notion of coverage: it maps an execution to coverage items
// (64-bit keys). The loop keeps the set of items seen for every measure; a
// strategy's guiding measure decides which executions are interesting.
//
// Items must be stable across runs and machines (they are stored in the
// corpus), and deterministic for a given input. A measure may also observe
// failures (the model measure reports divergences from the model and
// violated model invariants).
type Measure interface {
	Name() string
	Measure(in *Input, ex *Execution) (Observation, error)
}

// BatchMeasure is a Measure that is cheaper over several executions at
// once (a model engine in another process: one round trip). The loop uses
// it for the inputs it executes ahead.
type BatchMeasure interface {
	Measure
	MeasureBatch(ins []*Input, exs []*Execution) ([]Observation, []error)
}

// Observation is what a measure saw in one execution.
type Observation struct {
	Items    []uint64
	Failures []Failure
}

// Measure names.
const (
	MeasureTraces = "traces" // Mazurkiewicz trace classes (happens-before)
	MeasureModel  = "model"  // abstract model states
	MeasureLines  = "lines"  // covered statements of the system under test
)

// TraceMeasure covers classes of the happens-before partial order of an
// execution, i.e. Mazurkiewicz traces: two executions that differ only in the
// order of independent events (on different nodes, not linked by a message)
// have the same item.
type TraceMeasure struct{}

// Name implements Measure.
func (TraceMeasure) Name() string { return MeasureTraces }

// Measure implements Measure.
func (TraceMeasure) Measure(_ *Input, ex *Execution) (Observation, error) {
	return Observation{Items: []uint64{TraceHash(ex.Trace)}}, nil
}

// TraceHash fingerprints the happens-before partial order of a trace.
//
// Every event gets a hash of its label (kind, type, args; never its step or
// message id, which depend on the interleaving), its node's previous event
// and, for a recv, the hash of the matching send. The hash of a node's last
// event thus covers the node's whole causal past, and the tuple of the last
// hashes of all nodes identifies the partial order: it is invariant under
// swapping adjacent independent events and changes otherwise (up to hash
// collisions).
func TraceHash(t Trace) uint64 {
	var last []uint64 // last event hash per node
	// Hashes of sends by message id: adapters number messages 1, 2, ... so a
	// slice serves; ids beyond it (or negative) go to a map.
	sendSlice := make([]uint64, len(t)+1)
	var sendMap map[int]uint64
	var d xxhash.Digest
	var buf [8]byte
	for i := range t {
		e := &t[i]
		if e.Node < 0 {
			continue
		}
		for e.Node >= len(last) {
			last = append(last, 0)
		}
		d.Reset()
		binary.LittleEndian.PutUint64(buf[:], last[e.Node])
		d.Write(buf[:])
		if e.Kind == EvRecv {
			var sh uint64
			if e.Msg >= 0 && e.Msg < len(sendSlice) {
				sh = sendSlice[e.Msg]
			} else {
				sh = sendMap[e.Msg]
			}
			binary.LittleEndian.PutUint64(buf[:], sh)
			d.Write(buf[:])
		}
		hashLabel(&d, e)
		h := d.Sum64()
		if e.Kind == EvSend && e.Msg != 0 {
			if e.Msg > 0 && e.Msg < len(sendSlice) {
				sendSlice[e.Msg] = h
			} else {
				if sendMap == nil {
					sendMap = map[int]uint64{}
				}
				sendMap[e.Msg] = h
			}
		}
		last[e.Node] = h
	}
	d.Reset()
	for _, h := range last {
		binary.LittleEndian.PutUint64(buf[:], h)
		d.Write(buf[:])
	}
	return d.Sum64()
}

func hashLabel(d *xxhash.Digest, e *Event) {
	var buf [8]byte
	d.WriteString(e.Kind)
	d.Write([]byte{0})
	binary.LittleEndian.PutUint64(buf[:], uint64(int64(e.Peer)))
	d.Write(buf[:])
	d.WriteString(e.Type)
	d.Write([]byte{0})
	for _, a := range e.Args {
		d.WriteString(a.Key)
		if a.IsStr {
			d.Write([]byte{1})
			d.WriteString(a.Str)
			d.Write([]byte{0})
		} else {
			binary.LittleEndian.PutUint64(buf[:], uint64(a.Int))
			d.Write([]byte{2})
			d.Write(buf[:])
		}
	}
}

// Coverage is the set of items seen so far for one measure.
type Coverage struct {
	items map[uint64]struct{}
}

// NewCoverage returns an empty set.
func NewCoverage() *Coverage { return &Coverage{items: make(map[uint64]struct{})} }

// New returns the items of xs not in the set, without recording them.
// Duplicates within xs are reported once.
func (c *Coverage) New(xs []uint64) []uint64 {
	var out []uint64
	var seen map[uint64]struct{}
	for _, x := range xs {
		if _, ok := c.items[x]; ok {
			continue
		}
		if seen == nil {
			seen = make(map[uint64]struct{})
		}
		if _, ok := seen[x]; ok {
			continue
		}
		seen[x] = struct{}{}
		out = append(out, x)
	}
	return out
}

// Add records items.
func (c *Coverage) Add(xs []uint64) {
	for _, x := range xs {
		c.items[x] = struct{}{}
	}
}

// Len is the number of items seen.
func (c *Coverage) Len() int { return len(c.items) }
