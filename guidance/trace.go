package guidance

import (
	"encoding/binary"

	"github.com/cespare/xxhash/v2"

	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// TraceMeasure covers classes of the happens-before partial order of an
// execution, i.e. Mazurkiewicz traces: two executions that differ only in the
// order of independent events (on different nodes, not linked by a message)
// have the same item.
type TraceMeasure struct{}

// Name implements fuzzer.Measure.
func (TraceMeasure) Name() string { return MeasureTraces }

// Measure implements fuzzer.Measure.
func (TraceMeasure) Measure(_ *schedule.Input, ex *schedule.Execution) (fuzzer.Observation, error) {
	return fuzzer.Observation{Items: []uint64{TraceHash(ex.Trace)}}, nil
}

// TraceHash fingerprints the happens-before partial order of a trace.
//
// Every event gets a hash of its label (kind, type, args; never its step or
// message id, which depend on the interleaving), its node's previous event
// and, for a recv, the hash of the matching send (for a duplicate's copy, of
// the duplicate; a duplicate, of the send of the message it copies). The hash of a node's last
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
		// A recv follows its send; a duplicate, the send of the message
		// it copies.
		from, linked := e.Msg, e.Kind == schedule.EvRecv
		if e.Kind == schedule.EvDuplicate {
			for _, a := range e.Args {
				if a.Key == schedule.ArgCopyOf && !a.IsStr {
					from, linked = int(a.Int), true
				}
			}
		}
		if linked {
			var sh uint64
			if from >= 0 && from < len(sendSlice) {
				sh = sendSlice[from]
			} else {
				sh = sendMap[from]
			}
			binary.LittleEndian.PutUint64(buf[:], sh)
			d.Write(buf[:])
		}
		hashLabel(&d, e)
		h := d.Sum64()
		// A duplicate's copy is received after the duplicate, which the
		// network did at the receiver's side.
		if (e.Kind == schedule.EvSend || e.Kind == schedule.EvDuplicate) && e.Msg != 0 {
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
		if e.Kind == schedule.EvDuplicate && a.Key == schedule.ArgCopyOf {
			continue // an id: the partial order holds the link
		}
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
