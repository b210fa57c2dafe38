package linecov

import (
	"encoding/binary"
	"fmt"
)

// reader reads little-endian integers, ULEB128 values and strings from a
// byte slice with bounds checks. The first failure sticks: later reads
// return zero values, so a decoder checks err once after a group of reads.
type reader struct {
	what string // "meta-data", "counter data": names the input in errors
	b    []byte
	off  int
	base int // offset of b within the whole input, for error messages
	err  error
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("linecov: %s: offset %d: %s", r.what, r.base+r.off, fmt.Sprintf(format, args...))
	}
}

// need reports whether n more bytes are available, failing when not.
func (r *reader) need(n int) bool {
	if r.err != nil {
		return false
	}
	if n < 0 || n > len(r.b)-r.off {
		r.fail("truncated: need %d bytes, have %d", n, len(r.b)-r.off)
		return false
	}
	return true
}

func (r *reader) bytes(n int) []byte {
	if !r.need(n) {
		return nil
	}
	p := r.b[r.off : r.off+n]
	r.off += n
	return p
}

func (r *reader) u8() uint8 {
	if !r.need(1) {
		return 0
	}
	v := r.b[r.off]
	r.off++
	return v
}

func (r *reader) u32() uint32 {
	if !r.need(4) {
		return 0
	}
	v := binary.LittleEndian.Uint32(r.b[r.off:])
	r.off += 4
	return v
}

func (r *reader) u32be() uint32 {
	if !r.need(4) {
		return 0
	}
	v := binary.BigEndian.Uint32(r.b[r.off:])
	r.off += 4
	return v
}

func (r *reader) u64() uint64 {
	if !r.need(8) {
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b[r.off:])
	r.off += 8
	return v
}

// uleb reads an unsigned LEB128 value that must fit in 32 bits (every
// value in both formats does: counts, indices, lines, counters).
func (r *reader) uleb() uint32 {
	if r.err != nil {
		return 0
	}
	// Fast path: most values (counters, small indices) take one byte.
	if r.off < len(r.b) && r.b[r.off] < 0x80 {
		v := uint32(r.b[r.off])
		r.off++
		return v
	}
	var v uint64
	for i := 0; ; i++ {
		if r.off >= len(r.b) {
			r.fail("truncated ULEB128 value")
			return 0
		}
		c := r.b[r.off]
		r.off++
		v |= uint64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			break
		}
		if i == 4 {
			r.fail("ULEB128 value longer than 5 bytes")
			return 0
		}
	}
	if v > 1<<32-1 {
		r.fail("ULEB128 value %d overflows 32 bits", v)
		return 0
	}
	return uint32(v)
}

// sub returns a reader over the n bytes at offset off of r's slice,
// without moving r.
func (r *reader) sub(off, n uint64) reader {
	s := reader{what: r.what, base: r.base}
	if r.err != nil {
		s.err = r.err
		return s
	}
	if off > uint64(len(r.b)) || n > uint64(len(r.b))-off {
		r.fail("section [%d, +%d) outside the %d-byte input", off, n, len(r.b))
		s.err = r.err
		return s
	}
	s.b = r.b[off : off+n]
	s.base = r.base + int(off)
	return s
}

// stringTable reads a string table: a ULEB128 count, then for each string
// its ULEB128 length and bytes. With keep false it only validates the
// table (no allocation) and returns nil with the count in n.
func (r *reader) stringTable(keep bool) (strs []string, n int) {
	count := r.uleb()
	if r.err != nil {
		return nil, 0
	}
	// Every entry takes at least one byte: bound the count before
	// allocating for it.
	if int64(count) > int64(len(r.b)-r.off) {
		r.fail("string table of %d entries in %d bytes", count, len(r.b)-r.off)
		return nil, 0
	}
	if keep {
		strs = make([]string, 0, count)
	}
	for i := uint32(0); i < count; i++ {
		l := r.uleb()
		p := r.bytes(int(l))
		if r.err != nil {
			return nil, 0
		}
		if keep {
			strs = append(strs, string(p))
		}
	}
	return strs, int(count)
}
