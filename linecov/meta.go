package linecov

import "fmt"

// The meta-data file, as runtime/coverage.WriteMeta writes it (format
// version 1, all integers little-endian):
//
//	header (56 bytes): magic "\x00cvm", version u32, total length u64,
//	  package count u64, hash [16]byte, string table offset u32,
//	  string table length u32, counter mode u8, granularity u8, 6 padding
//	package offsets: u64 per package (from the start of the file)
//	package lengths: u64 per package
//	string table (file level; unused by the runtime today)
//	package blobs, each as the compiler emitted it:
//	  header (44 bytes): length u32, package name u32, package path u32,
//	    module path u32 (indices into the blob's string table),
//	    hash [16]byte, 4 unused, string count u32, function count u32
//	  function offsets: u32 per function (from the start of the blob)
//	  string table: ULEB128 count, then per string a ULEB128 length and
//	    the bytes
//	  functions, each: ULEB128 unit count, name index, file index, then
//	    per unit start line, start column, end line, end column and
//	    statement count, then a literal flag (1 for a function literal)

const (
	metaVersion        = 1
	metaHeaderSize     = 56
	metaBlobHeaderSize = 44
)

var (
	metaMagic    = [4]byte{0x00, 'c', 'v', 'm'}
	counterMagic = [4]byte{0x00, 'c', 'w', 'm'}
)

// Counter modes and granularities, as the formats number them.
const (
	modeSet     = 1
	modeCount   = 2
	modeAtomic  = 3
	modeRegOnly = 4

	granularityPerBlock = 1
	granularityPerFunc  = 2
)

func modeName(m uint8) string {
	switch m {
	case modeSet:
		return "set"
	case modeCount:
		return "count"
	case modeAtomic:
		return "atomic"
	case modeRegOnly:
		return "regonly"
	}
	return fmt.Sprintf("invalid mode %d", m)
}

// metaFile is a decoded meta-data file.
type metaFile struct {
	hash        [16]byte
	mode        uint8
	granularity uint8
	pkgs        []metaPackage // in the order counter records number them
}

type metaPackage struct {
	path, name, module string
	funcs              []metaFunc
}

type metaFunc struct {
	name  string // "(*raft).Step", "Step.func1"
	file  string // import path of the package and file name: "go.etcd.io/raft/v3/raft.go"
	lit   bool   // a function literal
	units []metaUnit
}

// metaUnit is one coverable unit (basic block): its source span and
// statement count.
type metaUnit struct {
	startLine, startCol, endLine, endCol uint32
	stmts                                uint32
}

// decodeMeta decodes and validates a meta-data file.
func decodeMeta(b []byte) (*metaFile, error) {
	r := &reader{what: "meta-data", b: b}
	if !r.need(metaHeaderSize) {
		return nil, r.err
	}
	if [4]byte(r.bytes(4)) != metaMagic {
		r.off = 0
		r.fail("not a coverage meta-data file (bad magic %q)", b[:4])
		return nil, r.err
	}
	if v := r.u32(); v != metaVersion {
		r.fail("meta-data format version %d, want %d", v, metaVersion)
		return nil, r.err
	}
	total := r.u64()
	npkgs := r.u64()
	m := &metaFile{}
	copy(m.hash[:], r.bytes(16))
	strOff := r.u32()
	strLen := r.u32()
	m.mode = r.u8()
	m.granularity = r.u8()
	r.bytes(6)
	if total != uint64(len(b)) {
		r.fail("header says %d bytes, have %d", total, len(b))
		return nil, r.err
	}
	// Two u64 table entries a package: bound the count before allocating.
	if npkgs > uint64(len(b)-r.off)/16 {
		r.fail("%d packages cannot fit in %d bytes", npkgs, len(b))
		return nil, r.err
	}
	offs := make([]uint64, npkgs)
	for i := range offs {
		offs[i] = r.u64()
	}
	lens := make([]uint64, npkgs)
	for i := range lens {
		lens[i] = r.u64()
	}
	if r.err != nil {
		return nil, r.err
	}
	preamble := uint64(r.off)
	st := r.sub(uint64(strOff), uint64(strLen))
	if r.err != nil {
		return nil, r.err
	}
	if uint64(strOff) < preamble {
		r.fail("string table at %d overlaps the package tables (end %d)", strOff, preamble)
		return nil, r.err
	}
	if st.stringTable(false); st.err != nil {
		return nil, st.err
	}
	if st.off != len(st.b) {
		st.fail("%d bytes after the string table", len(st.b)-st.off)
		return nil, st.err
	}
	m.pkgs = make([]metaPackage, npkgs)
	for i := range m.pkgs {
		if offs[i] < preamble {
			r.fail("package %d at offset %d overlaps the package tables (end %d)", i, offs[i], preamble)
			return nil, r.err
		}
		blob := r.sub(offs[i], lens[i])
		if r.err != nil {
			return nil, r.err
		}
		if err := decodeBlob(&blob, &m.pkgs[i]); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// decodeBlob decodes one package's meta-data blob.
func decodeBlob(r *reader, p *metaPackage) error {
	if !r.need(metaBlobHeaderSize) {
		return r.err
	}
	length := r.u32()
	nameIdx := r.u32()
	pathIdx := r.u32()
	modIdx := r.u32()
	r.bytes(16 + 4) // hash, unused
	r.u32()         // string count, repeated by the string table
	nfuncs := r.u32()
	if uint64(length) != uint64(len(r.b)) {
		r.fail("package blob says %d bytes, has %d", length, len(r.b))
		return r.err
	}
	if uint64(nfuncs) > uint64(len(r.b)-r.off)/4 {
		r.fail("%d functions cannot fit in a %d-byte package blob", nfuncs, len(r.b))
		return r.err
	}
	foffs := make([]uint32, nfuncs)
	for i := range foffs {
		foffs[i] = r.u32()
	}
	strs, _ := r.stringTable(true)
	if r.err != nil {
		return r.err
	}
	funcsStart := r.off
	str := func(idx uint32, what string) string {
		if uint64(idx) >= uint64(len(strs)) {
			r.fail("%s: string index %d out of range (%d strings)", what, idx, len(strs))
			return ""
		}
		return strs[idx]
	}
	p.name = str(nameIdx, "package name")
	p.path = str(pathIdx, "package path")
	p.module = str(modIdx, "module path")
	if r.err != nil {
		return r.err
	}
	if p.path == "" {
		r.fail("empty package path")
		return r.err
	}
	p.funcs = make([]metaFunc, nfuncs)
	for i, off := range foffs {
		if int64(off) < int64(funcsStart) || int64(off) >= int64(len(r.b)) {
			r.fail("package %s: function %d at offset %d outside [%d, %d)", p.path, i, off, funcsStart, len(r.b))
			return r.err
		}
		r.off = int(off)
		f := &p.funcs[i]
		nunits := r.uleb()
		f.name = str(r.uleb(), "function name")
		f.file = str(r.uleb(), "file name")
		if r.err != nil {
			return r.err
		}
		// Five ULEB128 values (at least five bytes) a unit: bound the
		// count before allocating.
		if uint64(nunits) > uint64(len(r.b)-r.off)/5 {
			r.fail("package %s: function %s: %d units cannot fit in %d bytes", p.path, f.name, nunits, len(r.b)-r.off)
			return r.err
		}
		f.units = make([]metaUnit, nunits)
		for j := range f.units {
			u := &f.units[j]
			u.startLine = r.uleb()
			u.startCol = r.uleb()
			u.endLine = r.uleb()
			u.endCol = r.uleb()
			u.stmts = r.uleb()
		}
		switch lit := r.uleb(); lit {
		case 0, 1:
			f.lit = lit == 1
		default:
			r.fail("package %s: function %s: literal flag %d", p.path, f.name, lit)
		}
		if r.err != nil {
			return r.err
		}
	}
	return nil
}
