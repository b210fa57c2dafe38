package linecov

import "slices"

// The counter-data file, as runtime/coverage.WriteCounters writes it
// (format version 1):
//
//	header (32 bytes): magic "\x00cwm", version u32, meta-data hash
//	  [16]byte, flavor u8 (1 raw, 2 ULEB128), big-endian flag u8,
//	  6 padding
//	segments, each:
//	  header (16 bytes): function record count u64, string table length
//	    u32, args length u32
//	  string table (as in the meta-data), args: ULEB128 pair count, then
//	    pairs of string indices (key, value), then zero padding that
//	    brings the segment's preamble to a multiple of 4 bytes (counted
//	    in the args length)
//	  function records, each: counter count, package index, function
//	    index, counters; as u32 (raw flavor, in the header's byte order)
//	    or ULEB128 values. There is a record only for functions with a
//	    non-zero counter.
//	  footer (16 bytes): magic, 4 padding, segments so far u32, 4 padding
//
// Integers outside the records are little-endian. WriteCounters writes one
// segment, in the ULEB128 flavor.

const (
	counterVersion    = 1
	counterHeaderSize = 32
	segmentHeaderSize = 16
	footerSize        = 16

	flavorRaw  = 1
	flavorULEB = 2
)

// funcRecord is one function's counters from a counter-data file.
type funcRecord struct {
	pkg, fn  uint32 // indices into the meta-data's packages and their functions
	counters []uint32
}

// counterReader walks the function records of a counter-data file. It
// allocates nothing once its record's counter slice has grown.
type counterReader struct {
	r         reader
	hash      [16]byte // of the meta-data the counters belong to
	flavor    uint8
	bigEndian bool
	nsegs     uint32 // segments, from the last footer
	seg       uint32 // segments begun
	inSeg     bool
	left      uint64 // records left in the current segment
}

// init reads the header and the last footer of the file in b.
func (c *counterReader) init(b []byte) error {
	*c = counterReader{r: reader{what: "counter data", b: b}}
	r := &c.r
	if !r.need(counterHeaderSize + footerSize) {
		return r.err
	}
	if [4]byte(r.bytes(4)) != counterMagic {
		r.off = 0
		r.fail("not a coverage counter-data file (bad magic %q)", b[:4])
		return r.err
	}
	if v := r.u32(); v != counterVersion {
		r.fail("counter-data format version %d, want %d", v, counterVersion)
		return r.err
	}
	copy(c.hash[:], r.bytes(16))
	c.flavor = r.u8()
	switch big := r.u8(); {
	case c.flavor != flavorRaw && c.flavor != flavorULEB:
		r.off--
		r.fail("unknown counter flavor %d", c.flavor)
	case big > 1:
		r.fail("big-endian flag %d", big)
	default:
		c.bigEndian = big == 1
	}
	r.bytes(6)
	if r.err != nil {
		return r.err
	}
	// The last footer holds the number of segments.
	end := reader{what: r.what, b: b[len(b)-footerSize:], base: len(b) - footerSize}
	if [4]byte(end.bytes(4)) != counterMagic {
		end.off = 0
		end.fail("bad footer magic")
		return end.err
	}
	end.u32()
	c.nsegs = end.u32()
	if c.nsegs == 0 {
		end.fail("no segments")
		return end.err
	}
	return nil
}

// next reads the next function record into rec, reusing rec.counters. It
// returns false at the end of the file.
func (c *counterReader) next(rec *funcRecord) (bool, error) {
	r := &c.r
	for {
		if c.inSeg {
			if c.left > 0 {
				break
			}
			c.footer()
			c.inSeg = false
		} else {
			if r.err == nil && r.off == len(r.b) {
				if c.seg != c.nsegs {
					r.fail("%d segments, the footer says %d", c.seg, c.nsegs)
					return false, r.err
				}
				return false, nil
			}
			c.segment()
		}
		if r.err != nil {
			return false, r.err
		}
	}
	c.left--
	n := c.value()
	rec.pkg = c.value()
	rec.fn = c.value()
	if r.err != nil {
		return false, r.err
	}
	// Every counter takes at least one byte (four when raw): bound the
	// count before growing the slice.
	size := 1
	if c.flavor == flavorRaw {
		size = 4
	}
	if uint64(n) > uint64(len(r.b)-r.off)/uint64(size) {
		r.fail("record of %d counters in %d bytes", n, len(r.b)-r.off)
		return false, r.err
	}
	rec.counters = slices.Grow(rec.counters[:0], int(n))[:n]
	if c.flavor == flavorULEB {
		// The hot loop of Covered: counters are mostly one byte.
		b, off, cs := r.b, r.off, rec.counters
		for i := range cs {
			if off < len(b) && b[off] < 0x80 {
				cs[i] = uint32(b[off])
				off++
				continue
			}
			r.off = off
			cs[i] = r.uleb()
			off = r.off
		}
		r.off = off
	} else {
		for i := range rec.counters {
			rec.counters[i] = c.value()
		}
	}
	if r.err != nil {
		return false, r.err
	}
	return true, nil
}

func (c *counterReader) value() uint32 {
	switch {
	case c.flavor == flavorULEB:
		return c.r.uleb()
	case c.bigEndian:
		return c.r.u32be()
	default:
		return c.r.u32()
	}
}

// segment reads a segment's header, string table and args.
func (c *counterReader) segment() {
	r := &c.r
	c.seg++
	if c.seg > c.nsegs {
		r.fail("more than the %d segments the footer announces", c.nsegs)
		return
	}
	start := r.off
	c.left = r.u64()
	strLen := r.u32()
	argsLen := r.u32()
	if r.err != nil {
		return
	}
	st := r.sub(uint64(r.off), uint64(strLen))
	if r.err != nil {
		return
	}
	_, nstrs := st.stringTable(false)
	if st.err == nil && st.off != len(st.b) {
		st.fail("%d bytes after the string table", len(st.b)-st.off)
	}
	if st.err != nil {
		r.err = st.err
		return
	}
	r.off += int(strLen)
	args := r.sub(uint64(r.off), uint64(argsLen))
	if r.err != nil {
		return
	}
	npairs := args.uleb()
	for i := uint64(0); i < 2*uint64(npairs) && args.err == nil; i++ {
		if idx := args.uleb(); args.err == nil && int64(idx) >= int64(nstrs) {
			args.fail("args: string index %d out of range (%d strings)", idx, nstrs)
		}
	}
	if pad := args.b[args.off:]; args.err == nil && (len(pad) > 3 || !isZero(pad)) {
		args.fail("args: %d bytes after the args, want at most 3 bytes of zero padding", len(pad))
	}
	if args.err != nil {
		r.err = args.err
		return
	}
	r.off += int(argsLen)
	if (r.off-start)%4 != 0 {
		r.fail("segment preamble of %d bytes is not padded to 4 bytes", r.off-start)
		return
	}
	c.inSeg = true
}

// footer reads the footer that ends a segment.
func (c *counterReader) footer() {
	r := &c.r
	if !r.need(footerSize) {
		return
	}
	if [4]byte(r.bytes(4)) != counterMagic {
		r.off -= 4
		r.fail("segment %d: bad footer magic (more records than the header counts?)", c.seg)
		return
	}
	r.u32()
	if n := r.u32(); n != c.seg {
		r.off -= 4
		r.fail("segment %d: footer counts %d segments", c.seg, n)
		return
	}
	r.u32()
}

func isZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}
