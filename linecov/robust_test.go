package linecov

import (
	"reflect"
	"testing"
)

// The decoders on malformed bytes: errors, never a panic, never a huge
// allocation.

func sampleCounterFiles(m *metaFile) [][]byte {
	recs := []funcRecord{
		{pkg: 0, fn: 0, counters: []uint32{1, 0, 130}},
		{pkg: 0, fn: 1, counters: []uint32{1 << 30}},
		{pkg: 1, fn: 0, counters: []uint32{2}},
		{pkg: 2, fn: 1, counters: []uint32{1}},
	}
	args := [][2]string{{"argc", "2"}, {"argv0", "./modelfuzz-cover"}, {"argv1", "fuzz"}}
	return [][]byte{
		counterEncoding{hash: m.hash, flavor: flavorULEB, args: args}.encode(recs),
		counterEncoding{hash: m.hash, flavor: flavorRaw}.encode(recs, recs[1:]),
		counterEncoding{hash: m.hash, flavor: flavorRaw, bigEndian: true, args: args[:1]}.encode(recs[:2]),
	}
}

// mutations calls f with every strict prefix of b (truncated: true) and
// with b with each byte changed in a few ways.
func mutations(b []byte, f func(mutant []byte, truncated bool)) {
	for n := 0; n < len(b); n++ {
		f(b[:n:n], true)
	}
	m := make([]byte, len(b))
	for i := range b {
		for _, x := range []byte{b[i] ^ 0xff, b[i] + 1, b[i] - 1, 0x80, 0} {
			if x == b[i] {
				continue
			}
			copy(m, b)
			m[i] = x
			f(m, false)
		}
	}
}

func checkMetaMutants(t *testing.T, b []byte) {
	t.Helper()
	mutations(b, func(mut []byte, truncated bool) {
		m, err := decodeMeta(mut)
		if truncated && err == nil {
			t.Fatalf("decodeMeta of the first %d of %d bytes succeeded", len(mut), len(b))
		}
		if err == nil {
			newProgram(m) // must not panic either
		}
	})
}

func checkCounterMutants(t *testing.T, tr *Tracker, b []byte) {
	t.Helper()
	var c counterReader
	if err := c.init(b); err != nil {
		t.Fatal(err)
	}
	mutations(b, func(mut []byte, truncated bool) {
		items, err := tr.covered(nil, mut)
		// A file of several segments cut after a segment's footer is a
		// valid file of fewer segments.
		if truncated && err == nil && c.nsegs == 1 {
			t.Fatalf("counter data: the first %d of %d bytes decoded to %x", len(mut), len(b), items)
		}
		if err != nil && len(items) != 0 {
			t.Fatalf("error %v with items %x", err, items)
		}
		for _, it := range items {
			if _, ok := tr.p.index[it]; !ok {
				t.Fatalf("counter data decoded to unknown item %x", it)
			}
		}
	})
}

func TestMetaMalformed(t *testing.T) {
	checkMetaMutants(t, encodeMeta(testMeta()))
}

func TestCountersMalformed(t *testing.T) {
	m := testMeta()
	p, err := newProgram(m)
	if err != nil {
		t.Fatal(err)
	}
	tr := newTracker(p, nil, nil)
	for _, b := range sampleCounterFiles(m) {
		if _, err := tr.covered(nil, b); err != nil {
			t.Fatalf("unmutated counters: %v", err)
		}
		checkCounterMutants(t, tr, b)
	}
}

// The runtime's own bytes, mutated.
func TestRuntimeBytesMalformed(t *testing.T) {
	rep := runCheck(t)
	checkMetaMutants(t, rep.Meta)
	m, err := decodeMeta(rep.Meta)
	if err != nil {
		t.Fatal(err)
	}
	p, err := newProgram(m)
	if err != nil {
		t.Fatal(err)
	}
	checkCounterMutants(t, newTracker(p, nil, nil), rep.CountersA)
}

func FuzzDecodeMeta(f *testing.F) {
	f.Add(encodeMeta(testMeta()))
	f.Add(encodeMeta(&metaFile{mode: modeAtomic, granularity: granularityPerBlock}))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decodeMeta(b)
		if err != nil {
			return
		}
		newProgram(m)
		// What decodes re-encodes to the same meta-data.
		again, err := decodeMeta(encodeMeta(m))
		if err != nil {
			t.Fatalf("re-encoded meta-data: %v", err)
		}
		again.hash = m.hash
		if !reflect.DeepEqual(again, m) {
			t.Fatalf("decoded %+v, re-encoded and decoded %+v", m, again)
		}
	})
}

func FuzzCovered(f *testing.F) {
	m := testMeta()
	for _, b := range sampleCounterFiles(m) {
		f.Add(b)
	}
	p, err := newProgram(m)
	if err != nil {
		f.Fatal(err)
	}
	tr := newTracker(p, nil, nil)
	f.Fuzz(func(t *testing.T, b []byte) {
		items, err := tr.covered(nil, b)
		if err != nil {
			return
		}
		seen := map[uint64]bool{}
		for _, it := range items {
			if _, ok := p.index[it]; !ok || seen[it] {
				t.Fatalf("covered %x: unknown or repeated item %x", items, it)
			}
			seen[it] = true
		}
	})
}
