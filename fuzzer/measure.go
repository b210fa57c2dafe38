package fuzzer

import (
	"encoding/binary"

	"github.com/cespare/xxhash/v2"

	"github.com/modelfuzz/modelfuzz/schedule"
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
	Measure(in *schedule.Input, ex *schedule.Execution) (Observation, error)
}

// BatchMeasure is a Measure that is cheaper over several executions at
// once (a model engine in another process: one round trip). The loop uses
// it for the inputs it executes ahead.
type BatchMeasure interface {
	Measure
	MeasureBatch(ins []*schedule.Input, exs []*schedule.Execution) ([]Observation, []error)
}

// Observation is what a measure saw in one execution.
type Observation struct {
	Items    []uint64
	Failures []schedule.Failure
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
func (TraceMeasure) Measure(_ *schedule.Input, ex *schedule.Execution) (Observation, error) {
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
func TraceHash(t schedule.Trace) uint64 {
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
		if e.Kind == schedule.EvRecv {
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
		if e.Kind == schedule.EvSend && e.Msg != 0 {
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

func hashLabel(d *xxhash.Digest, e *schedule.Event) {
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

// UnitsMeasure covers the code units (basic blocks) of the system under
// test: line coverage, from Go's coverage counters (Options.Units).
type UnitsMeasure struct{}

// Name implements Measure.
func (UnitsMeasure) Name() string { return MeasureLines }

// Measure implements Measure.
func (UnitsMeasure) Measure(_ *schedule.Input, ex *schedule.Execution) (Observation, error) {
	return Observation{Items: ex.Units}, nil
}

// Coverage is the set of items seen so far for one measure. It is an
// open-addressing hash set of the 64-bit items themselves (items are
// already hashes): 8 bytes a slot, at most 3/4 full, so a campaign's
// coverage costs 11-21 bytes an item in RAM, a third of a Go map's.
type Coverage struct {
	slots   []uint64 // 0 marks an empty slot; item 0 is kept in hasZero
	n       int
	hasZero bool
}

// NewCoverage returns an empty set.
func NewCoverage() *Coverage { return &Coverage{slots: make([]uint64, 1024)} }

// Has reports whether x is in the set.
func (c *Coverage) Has(x uint64) bool {
	if x == 0 {
		return c.hasZero
	}
	mask := uint64(len(c.slots) - 1)
	for i := mix(x) & mask; ; i = (i + 1) & mask {
		switch c.slots[i] {
		case x:
			return true
		case 0:
			return false
		}
	}
}

// New returns the items of xs not in the set, without recording them.
// Duplicates within xs are reported once.
func (c *Coverage) New(xs []uint64) []uint64 {
	var out []uint64
	for _, x := range xs {
		if c.Has(x) || slicesContains(out, x) {
			continue
		}
		out = append(out, x)
	}
	return out
}

func slicesContains(xs []uint64, x uint64) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// Add records items.
func (c *Coverage) Add(xs []uint64) {
	for _, x := range xs {
		c.add(x)
	}
}

func (c *Coverage) add(x uint64) {
	if x == 0 {
		if !c.hasZero {
			c.hasZero = true
			c.n++
		}
		return
	}
	if (c.n+1)*4 > len(c.slots)*3 {
		c.grow()
	}
	mask := uint64(len(c.slots) - 1)
	for i := mix(x) & mask; ; i = (i + 1) & mask {
		switch c.slots[i] {
		case x:
			return
		case 0:
			c.slots[i] = x
			c.n++
			return
		}
	}
}

func (c *Coverage) grow() {
	old := c.slots
	c.slots = make([]uint64, 2*len(old))
	mask := uint64(len(c.slots) - 1)
	for _, x := range old {
		if x == 0 {
			continue
		}
		i := mix(x) & mask
		for c.slots[i] != 0 {
			i = (i + 1) & mask
		}
		c.slots[i] = x
	}
}

// mix spreads an item over the slots: items are hashes, but some
// measures' items (line numbers, small ids) are not.
func mix(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	return x
}

// Len is the number of items seen.
func (c *Coverage) Len() int { return c.n }

// Bytes is the memory the set holds.
func (c *Coverage) Bytes() int { return 8 * len(c.slots) }
