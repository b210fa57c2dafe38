package corpus

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sort"

	"github.com/modelfuzz/modelfuzz/record"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// Input records are stored in a compact binary form: a campaign keeps an
// input for every execution that reaches new coverage (a third of them
// under model guidance on etcd raft), so a week-long campaign stores
// millions. As JSON a 100-step input takes about 3.9 KB; this form about 430
// bytes, before badger's compression. Records written by earlier versions are JSON (they start with
// '{'); both are read.
//
// Layout (integers are varints, unsigned unless marked):
//
//	0x01                      format version
//	id, iteration (signed), parent
//	source: length-prefixed string
//	new items: count, then (length-prefixed measure name, count) pairs, sorted by name
//	steps: count, then per step: process, action index (schedule.AllActions), messages, value (signed)
//
// Version 0x02, written when a step has a parameter of the newer actions,
// adds to every step: k, n, to, crash point (0 none, else 1 + its index in
// schedule.CrashPoints), set, and conf (length-prefixed).
//
// Either version may end with the guide's items (InputRecord.GuideItems):
// a count, then each item as 8 bytes, little-endian. Records written
// before it end after the steps. The items may be followed by the
// genome of the input (InputRecord.Genome), length-prefixed; a record
// with a genome and no items has a count of 0.
const (
	recordV1 = 0x01
	recordV2 = 0x02
)

// encodeRecord appends the binary form of r to dst.
func encodeRecord(dst []byte, r *record.InputRecord) []byte {
	v2 := false
	for _, st := range r.Input.Steps {
		if st.K != 0 || st.N != 0 || st.To != 0 || st.Point != "" || st.Set != 0 || st.Conf != "" {
			v2 = true
			break
		}
	}
	if v2 {
		dst = append(dst, recordV2)
	} else {
		dst = append(dst, recordV1)
	}
	dst = binary.AppendUvarint(dst, r.ID)
	dst = binary.AppendVarint(dst, r.Iteration)
	dst = binary.AppendUvarint(dst, r.Parent)
	dst = appendString(dst, r.Source)
	keys := make([]string, 0, len(r.NewItems))
	for k := range r.NewItems {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	dst = binary.AppendUvarint(dst, uint64(len(keys)))
	for _, k := range keys {
		dst = appendString(dst, k)
		dst = binary.AppendUvarint(dst, uint64(r.NewItems[k]))
	}
	dst = binary.AppendUvarint(dst, uint64(len(r.Input.Steps)))
	for _, st := range r.Input.Steps {
		dst = binary.AppendUvarint(dst, uint64(st.Process))
		dst = append(dst, actionIndex(st.Action))
		dst = binary.AppendUvarint(dst, uint64(st.Messages))
		dst = binary.AppendVarint(dst, int64(st.Value))
		if v2 {
			dst = binary.AppendUvarint(dst, uint64(st.K))
			dst = binary.AppendUvarint(dst, uint64(st.N))
			dst = binary.AppendUvarint(dst, uint64(st.To))
			dst = append(dst, pointIndex(st.Point))
			dst = binary.AppendUvarint(dst, uint64(st.Set))
			dst = appendString(dst, st.Conf)
		}
	}
	if len(r.GuideItems) > 0 || len(r.Genome) > 0 {
		dst = binary.AppendUvarint(dst, uint64(len(r.GuideItems)))
		for _, x := range r.GuideItems {
			dst = binary.LittleEndian.AppendUint64(dst, x)
		}
	}
	if len(r.Genome) > 0 {
		dst = appendString(dst, string(r.Genome))
	}
	return dst
}

func pointIndex(p string) byte {
	if p == "" {
		return 0
	}
	for i, q := range schedule.CrashPoints {
		if p == q {
			return byte(i + 1)
		}
	}
	return 0xff // invalid; Validate refuses such inputs before they are stored
}

func appendString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

func actionIndex(a schedule.Action) byte {
	for i, b := range schedule.AllActions {
		if a == b {
			return byte(i)
		}
	}
	return 0xff // invalid; Validate refuses such inputs before they are stored
}

var errTruncated = errors.New("record is truncated")

// recordReader reads the binary form, remembering the first error.
type recordReader struct {
	b   []byte
	err error
}

func (r *recordReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errTruncated
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *recordReader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = errTruncated
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *recordReader) byte() byte {
	if r.err != nil || len(r.b) == 0 {
		r.err = errTruncated
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *recordReader) string() string {
	n := r.uvarint()
	if r.err == nil && n > uint64(len(r.b)) {
		r.err = errTruncated
	}
	if r.err != nil {
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

// decodeRecord reads the binary form into rec.
func decodeRecord(b []byte, rec *record.InputRecord) error {
	if len(b) == 0 || (b[0] != recordV1 && b[0] != recordV2) {
		return fmt.Errorf("unknown record format")
	}
	v2 := b[0] == recordV2
	r := &recordReader{b: b[1:]}
	*rec = record.InputRecord{ID: r.uvarint(), Iteration: r.varint(), Parent: r.uvarint(), Source: r.string()}
	nItems := r.uvarint()
	if r.err == nil && nItems > uint64(len(r.b)) {
		return errTruncated
	}
	for i := uint64(0); i < nItems && r.err == nil; i++ {
		if rec.NewItems == nil {
			rec.NewItems = map[string]int{}
		}
		k := r.string()
		rec.NewItems[k] = int(r.uvarint())
	}
	nSteps := r.uvarint()
	if r.err == nil && nSteps > uint64(len(r.b)) {
		return errTruncated
	}
	rec.Input = &schedule.Input{Steps: make([]schedule.Step, 0, nSteps)}
	for i := uint64(0); i < nSteps && r.err == nil; i++ {
		p := r.uvarint()
		a := r.byte()
		m := r.uvarint()
		v := r.varint()
		if r.err != nil {
			break
		}
		if int(a) >= len(schedule.AllActions) {
			return fmt.Errorf("step %d has an unknown action %d", i, a)
		}
		st := schedule.Step{Process: int(p), Action: schedule.AllActions[a], Messages: int(m), Value: int(v)}
		if v2 {
			st.K, st.N, st.To = int(r.uvarint()), int(r.uvarint()), int(r.uvarint())
			pt := r.byte()
			set := r.uvarint()
			st.Conf = r.string()
			if r.err != nil {
				break
			}
			if int(pt) > len(schedule.CrashPoints) {
				return fmt.Errorf("step %d has an unknown crash point %d", i, pt)
			}
			if pt > 0 {
				st.Point = schedule.CrashPoints[pt-1]
			}
			if set >= 1<<16 {
				return fmt.Errorf("step %d has a set out of range", i)
			}
			st.Set = schedule.ProcSet(set)
		}
		rec.Input.Steps = append(rec.Input.Steps, st)
	}
	if r.err == nil && len(r.b) > 0 {
		n := r.uvarint()
		genome := r.err == nil && n*8 < uint64(len(r.b)) && n < uint64(len(r.b))
		if r.err == nil && (n == 0 && !genome || n*8 > uint64(len(r.b)) || n > uint64(len(r.b))) {
			return fmt.Errorf("record has %d guide items in %d bytes", n, len(r.b))
		}
		for ; n > 0 && r.err == nil; n-- {
			rec.GuideItems = append(rec.GuideItems, binary.LittleEndian.Uint64(r.b))
			r.b = r.b[8:]
		}
		if genome {
			g := r.string()
			if r.err == nil && (len(g) == 0 || len(r.b) > 0) {
				return fmt.Errorf("record has %d bytes after its genome", len(r.b))
			}
			rec.Genome = []byte(g)
		}
	}
	if r.err != nil {
		return r.err
	}
	if rec.Source == "" {
		return fmt.Errorf("record lacks a source")
	}
	return rec.Input.Validate(nil)
}
