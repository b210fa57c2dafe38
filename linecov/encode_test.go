package linecov

import (
	"encoding/binary"
	"reflect"
	"testing"
)

// Encoders of both formats, written from the layouts in meta.go and
// counters.go, for round trips and for bytes the runtime never writes
// (raw counters, several segments).

func appendULEB(b []byte, v uint32) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

type stringTable struct {
	strs []string
	idx  map[string]uint32
}

func (st *stringTable) lookup(s string) uint32 {
	if st.idx == nil {
		st.idx = map[string]uint32{}
	}
	if i, ok := st.idx[s]; ok {
		return i
	}
	st.idx[s] = uint32(len(st.strs))
	st.strs = append(st.strs, s)
	return st.idx[s]
}

func (st *stringTable) append(b []byte) []byte {
	b = appendULEB(b, uint32(len(st.strs)))
	for _, s := range st.strs {
		b = appendULEB(b, uint32(len(s)))
		b = append(b, s...)
	}
	return b
}

func encodeBlob(p *metaPackage) []byte {
	var st stringTable
	st.lookup("")
	pathIdx, nameIdx, modIdx := st.lookup(p.path), st.lookup(p.name), st.lookup(p.module)
	var funcs [][]byte
	for _, f := range p.funcs {
		var e []byte
		e = appendULEB(e, uint32(len(f.units)))
		e = appendULEB(e, st.lookup(f.name))
		e = appendULEB(e, st.lookup(f.file))
		for _, u := range f.units {
			for _, v := range []uint32{u.startLine, u.startCol, u.endLine, u.endCol, u.stmts} {
				e = appendULEB(e, v)
			}
		}
		lit := uint32(0)
		if f.lit {
			lit = 1
		}
		funcs = append(funcs, appendULEB(e, lit))
	}
	strs := st.append(nil)
	b := make([]byte, metaBlobHeaderSize, 256)
	le := binary.LittleEndian
	le.PutUint32(b[4:], nameIdx)
	le.PutUint32(b[8:], pathIdx)
	le.PutUint32(b[12:], modIdx)
	b[16] = 0xaa // hash: any bytes
	le.PutUint32(b[36:], uint32(len(st.strs)))
	le.PutUint32(b[40:], uint32(len(funcs)))
	off := uint32(metaBlobHeaderSize + 4*len(funcs) + len(strs))
	for _, f := range funcs {
		b = le.AppendUint32(b, off)
		off += uint32(len(f))
	}
	b = append(b, strs...)
	for _, f := range funcs {
		b = append(b, f...)
	}
	le.PutUint32(b, uint32(len(b)))
	return b
}

func encodeMeta(m *metaFile) []byte {
	le := binary.LittleEndian
	var blobs [][]byte
	for i := range m.pkgs {
		blobs = append(blobs, encodeBlob(&m.pkgs[i]))
	}
	var st stringTable
	st.lookup("")
	strs := st.append(nil)
	b := make([]byte, metaHeaderSize, 1024)
	copy(b, metaMagic[:])
	le.PutUint32(b[4:], metaVersion)
	le.PutUint64(b[16:], uint64(len(blobs)))
	copy(b[24:40], m.hash[:])
	strOff := metaHeaderSize + 16*len(blobs)
	le.PutUint32(b[40:], uint32(strOff))
	le.PutUint32(b[44:], uint32(len(strs)))
	b[48], b[49] = m.mode, m.granularity
	off := uint64(strOff + len(strs))
	for _, blob := range blobs {
		b = le.AppendUint64(b, off)
		off += uint64(len(blob))
	}
	for _, blob := range blobs {
		b = le.AppendUint64(b, uint64(len(blob)))
	}
	b = append(b, strs...)
	for _, blob := range blobs {
		b = append(b, blob...)
	}
	le.PutUint64(b[8:], uint64(len(b)))
	return b
}

type counterEncoding struct {
	hash      [16]byte
	flavor    uint8
	bigEndian bool
	args      [][2]string // per segment
}

func (e counterEncoding) encode(segments ...[]funcRecord) []byte {
	le := binary.LittleEndian
	b := make([]byte, counterHeaderSize, 1024)
	copy(b, counterMagic[:])
	le.PutUint32(b[4:], counterVersion)
	copy(b[8:24], e.hash[:])
	b[24] = e.flavor
	if e.bigEndian {
		b[25] = 1
	}
	value := func(b []byte, v uint32) []byte {
		switch {
		case e.flavor == flavorULEB:
			return appendULEB(b, v)
		case e.bigEndian:
			return binary.BigEndian.AppendUint32(b, v)
		default:
			return le.AppendUint32(b, v)
		}
	}
	for k, recs := range segments {
		var st stringTable
		st.lookup("")
		for _, kv := range e.args {
			st.lookup(kv[0])
			st.lookup(kv[1])
		}
		seg := make([]byte, segmentHeaderSize)
		le.PutUint64(seg, uint64(len(recs)))
		seg = st.append(seg)
		strLen := len(seg) - segmentHeaderSize
		seg = appendULEB(seg, uint32(len(e.args)))
		for _, kv := range e.args {
			seg = appendULEB(seg, st.lookup(kv[0]))
			seg = appendULEB(seg, st.lookup(kv[1]))
		}
		for len(seg)%4 != 0 {
			seg = append(seg, 0)
		}
		le.PutUint32(seg[8:], uint32(strLen))
		le.PutUint32(seg[12:], uint32(len(seg)-segmentHeaderSize-strLen))
		for _, r := range recs {
			seg = value(seg, uint32(len(r.counters)))
			seg = value(seg, r.pkg)
			seg = value(seg, r.fn)
			for _, c := range r.counters {
				seg = value(seg, c)
			}
		}
		b = append(b, seg...)
		b = append(b, counterMagic[:]...)
		b = le.AppendUint32(b, 0)
		b = le.AppendUint32(b, uint32(k+1))
		b = le.AppendUint32(b, 0)
	}
	return b
}

// testMeta is a small program: a package with a method, a function with a
// unit that needs multi-byte ULEB128 values, and a main package.
func testMeta() *metaFile {
	return &metaFile{
		hash:        [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
		mode:        modeAtomic,
		granularity: granularityPerBlock,
		pkgs: []metaPackage{
			{path: "example.com/m/p", name: "p", module: "example.com/m", funcs: []metaFunc{
				{name: "*T.Step", file: "example.com/m/p/t.go", units: []metaUnit{
					{10, 2, 12, 3, 2}, {12, 3, 14, 4, 1}, {15, 2, 15, 20, 1},
				}},
				{name: "Big", file: "example.com/m/p/big.go", lit: true, units: []metaUnit{
					{300, 129, 70000, 1, 1 << 20},
				}},
			}},
			{path: "example.com/m/cmd", name: "main", module: "example.com/m", funcs: []metaFunc{
				{name: "main", file: "example.com/m/cmd/main.go", units: []metaUnit{{3, 13, 5, 2, 2}}},
			}},
			{path: "example.com/m/q", name: "q", module: "example.com/m", funcs: []metaFunc{
				{name: "Empty", file: "example.com/m/q/q.go"},
				{name: "F", file: "example.com/m/q/q.go", units: []metaUnit{{7, 1, 9, 2, 3}}},
			}},
		},
	}
}

func TestMetaRoundTrip(t *testing.T) {
	m := testMeta()
	got, err := decodeMeta(encodeMeta(m))
	if err != nil {
		t.Fatal(err)
	}
	for i := range m.pkgs { // decoding makes empty unit slices
		for j := range m.pkgs[i].funcs {
			if m.pkgs[i].funcs[j].units == nil {
				m.pkgs[i].funcs[j].units = []metaUnit{}
			}
		}
	}
	if !reflect.DeepEqual(got, m) {
		t.Errorf("decoded\n%+v\nwant\n%+v", got, m)
	}
}

func TestCounterRoundTrip(t *testing.T) {
	recs := []funcRecord{
		{pkg: 0, fn: 1, counters: []uint32{300}},
		{pkg: 2, fn: 1, counters: []uint32{1}},
		{pkg: 0, fn: 0, counters: []uint32{0, 1<<32 - 1, 5}},
	}
	for _, e := range []counterEncoding{
		{flavor: flavorULEB, args: [][2]string{{"argc", "1"}, {"argv0", "./prog"}}},
		{flavor: flavorRaw},
		{flavor: flavorRaw, bigEndian: true, args: [][2]string{{"GOOS", "linux"}}},
	} {
		var c counterReader
		if err := c.init(e.encode(recs, recs[:1], nil)); err != nil {
			t.Fatalf("flavor %d big-endian %v: %v", e.flavor, e.bigEndian, err)
		}
		var got []funcRecord
		for {
			var r funcRecord
			ok, err := c.next(&r)
			if err != nil {
				t.Fatalf("flavor %d big-endian %v: %v", e.flavor, e.bigEndian, err)
			}
			if !ok {
				break
			}
			got = append(got, r)
		}
		want := append(append([]funcRecord(nil), recs...), recs[0])
		if !reflect.DeepEqual(got, want) {
			t.Errorf("flavor %d big-endian %v: records\n%+v\nwant\n%+v", e.flavor, e.bigEndian, got, want)
		}
	}
}
