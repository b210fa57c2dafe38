package value

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Binary encoding
//
// The model checker keeps its queue of unexplored states on disk: a state
// is encoded with AppendBinary and read back with a Decoder, in the same
// process. The encoding is structural and exact: a value decodes to a value
// equal to it in every respect (same representation, same fingerprint; a
// lazy set stays lazy). Model values are written by rank, which is only
// meaningful within the process that interned them, so an encoding is not a
// file format to keep between runs (a checkpoint would write the names).

const (
	encFalse byte = iota
	encTrue
	encInt
	encStr
	encModel
	encFuncInterval
	encFuncRecord
	encFuncGeneral
	encSet
	encInterval
	encInfinite
	encPowerSet
	encFuncSet
	encRecordSet
	encProductSet
	encSeqSet
	encUnionSet
	encIntersectSet
	encDiffSet
)

// AppendBinary appends the encoding of v to buf.
func AppendBinary(buf []byte, v Value) []byte {
	switch x := v.(type) {
	case Bool:
		if x {
			return append(buf, encTrue)
		}
		return append(buf, encFalse)
	case Int:
		return binary.AppendVarint(append(buf, encInt), int64(x))
	case Str:
		return appendString(append(buf, encStr), string(x))
	case ModelValue:
		return binary.AppendUvarint(append(buf, encModel), uint64(x.info.rank))
	case *Func:
		switch x.kind {
		case fkInterval:
			buf = binary.AppendVarint(append(buf, encFuncInterval), x.lo)
			buf = binary.AppendUvarint(buf, uint64(len(x.vals)))
		case fkRecord:
			buf = binary.AppendUvarint(append(buf, encFuncRecord), uint64(len(x.vals)))
			for _, k := range x.dom {
				buf = appendString(buf, string(k.(Str)))
			}
		default:
			buf = binary.AppendUvarint(append(buf, encFuncGeneral), uint64(len(x.vals)))
			for _, k := range x.dom {
				buf = AppendBinary(buf, k)
			}
		}
		for _, e := range x.vals {
			buf = AppendBinary(buf, e)
		}
		return buf
	case *Set:
		buf = binary.AppendUvarint(append(buf, encSet), uint64(len(x.elems)))
		for _, e := range x.elems {
			buf = AppendBinary(buf, e)
		}
		return buf
	case *Interval:
		buf = binary.AppendVarint(append(buf, encInterval), x.lo)
		return binary.AppendVarint(buf, x.hi)
	case InfiniteSet:
		return append(buf, encInfinite, byte(x))
	case *PowerSet:
		return AppendBinary(append(buf, encPowerSet), x.Base)
	case *FuncSet:
		return AppendBinary(AppendBinary(append(buf, encFuncSet), x.Dom), x.Rng)
	case *RecordSet:
		buf = binary.AppendUvarint(append(buf, encRecordSet), uint64(len(x.Names)))
		for i, n := range x.Names {
			buf = AppendBinary(appendString(buf, n), x.Sets[i])
		}
		return buf
	case *ProductSet:
		buf = binary.AppendUvarint(append(buf, encProductSet), uint64(len(x.Sets)))
		for _, s := range x.Sets {
			buf = AppendBinary(buf, s)
		}
		return buf
	case *SeqSet:
		return AppendBinary(append(buf, encSeqSet), x.Base)
	case *UnionSet:
		return AppendBinary(AppendBinary(append(buf, encUnionSet), x.A), x.B)
	case *IntersectSet:
		return AppendBinary(AppendBinary(append(buf, encIntersectSet), x.A), x.B)
	case *DiffSet:
		return AppendBinary(AppendBinary(append(buf, encDiffSet), x.A), x.B)
	}
	// A *FilterSet cannot be the value of a variable (the evaluator
	// refuses to assign one), so it is never encoded.
	panic(fmt.Sprintf("value: cannot encode %T", v))
}

func appendString(buf []byte, s string) []byte {
	return append(binary.AppendUvarint(buf, uint64(len(s))), s...)
}

// A Decoder reads values written by AppendBinary. It shares what it can
// between the values it decodes (short strings, the domains of records of
// one shape), as the evaluator shares them between states. One Decoder is
// used by one goroutine.
type Decoder struct {
	strs    map[string]Str
	domains map[string][]Value
	models  []*mvInfo
}

// NewDecoder returns a decoder.
func NewDecoder() *Decoder {
	return &Decoder{strs: map[string]Str{}, domains: map[string][]Value{}}
}

var errShort = errors.New("value: truncated encoding")

// Decode reads one value from buf and returns it with the rest of buf.
func (d *Decoder) Decode(buf []byte) (Value, []byte, error) {
	if len(buf) == 0 {
		return nil, nil, errShort
	}
	tag, buf := buf[0], buf[1:]
	switch tag {
	case encFalse:
		return False, buf, nil
	case encTrue:
		return True, buf, nil
	case encInt:
		i, n := binary.Varint(buf)
		if n <= 0 {
			return nil, nil, errShort
		}
		return IntOf(i), buf[n:], nil
	case encStr:
		s, rest, err := d.str(buf)
		return s, rest, err
	case encModel:
		r, n := binary.Uvarint(buf)
		if n <= 0 {
			return nil, nil, errShort
		}
		if int(r) >= len(d.models) {
			modelValues.Lock()
			d.models = append([]*mvInfo(nil), modelValues.all...)
			modelValues.Unlock()
			if int(r) >= len(d.models) {
				return nil, nil, fmt.Errorf("value: model value of rank %d not interned", r)
			}
		}
		return ModelValue{d.models[r]}, buf[n:], nil
	case encFuncInterval:
		lo, n := binary.Varint(buf)
		if n <= 0 {
			return nil, nil, errShort
		}
		buf = buf[n:]
		vals, rest, err := d.list(buf)
		if err != nil {
			return nil, nil, err
		}
		if len(vals) == 0 {
			return EmptyFunc, rest, nil
		}
		return funcShape{kind: fkInterval, lo: lo, n: len(vals)}.make(vals), rest, nil
	case encFuncRecord:
		cnt, n := binary.Uvarint(buf)
		if n <= 0 || cnt > uint64(len(buf)) {
			return nil, nil, errShort
		}
		buf = buf[n:]
		start := buf
		for i := uint64(0); i < cnt; i++ {
			l, n := binary.Uvarint(buf)
			if n <= 0 || uint64(len(buf)-n) < l {
				return nil, nil, errShort
			}
			buf = buf[n+int(l):]
		}
		keyBytes := start[:len(start)-len(buf)]
		dom, ok := d.domains[string(keyBytes)]
		if !ok {
			dom = make([]Value, 0, cnt)
			p := keyBytes
			for range cnt {
				s, rest, err := d.str(p)
				if err != nil {
					return nil, nil, err
				}
				dom, p = append(dom, s), rest
			}
			if len(d.domains) > 1<<12 {
				clear(d.domains)
			}
			d.domains[string(keyBytes)] = dom
		}
		vals := make([]Value, cnt)
		for i := range vals {
			v, rest, err := d.Decode(buf)
			if err != nil {
				return nil, nil, err
			}
			vals[i], buf = v, rest
		}
		return funcShape{kind: fkRecord, dom: dom, n: len(vals)}.make(vals), buf, nil
	case encFuncGeneral:
		keys, rest, err := d.list(buf)
		if err != nil {
			return nil, nil, err
		}
		vals := make([]Value, len(keys))
		for i := range vals {
			v, r, err := d.Decode(rest)
			if err != nil {
				return nil, nil, err
			}
			vals[i], rest = v, r
		}
		return funcShape{kind: fkGeneral, dom: keys, n: len(vals)}.make(vals), rest, nil
	case encSet:
		elems, rest, err := d.list(buf)
		if err != nil {
			return nil, nil, err
		}
		return setFromSorted(elems), rest, nil
	case encInterval:
		lo, n := binary.Varint(buf)
		if n <= 0 {
			return nil, nil, errShort
		}
		hi, m := binary.Varint(buf[n:])
		if m <= 0 {
			return nil, nil, errShort
		}
		return &Interval{lo: lo, hi: hi}, buf[n+m:], nil
	case encInfinite:
		if len(buf) == 0 {
			return nil, nil, errShort
		}
		return InfiniteSet(buf[0]), buf[1:], nil
	case encPowerSet, encSeqSet:
		b, rest, err := d.Decode(buf)
		if err != nil {
			return nil, nil, err
		}
		if tag == encPowerSet {
			return &PowerSet{Base: b}, rest, nil
		}
		return &SeqSet{Base: b}, rest, nil
	case encFuncSet, encUnionSet, encIntersectSet, encDiffSet:
		a, rest, err := d.Decode(buf)
		if err != nil {
			return nil, nil, err
		}
		b, rest, err := d.Decode(rest)
		if err != nil {
			return nil, nil, err
		}
		switch tag {
		case encFuncSet:
			return &FuncSet{Dom: a, Rng: b}, rest, nil
		case encUnionSet:
			return &UnionSet{A: a, B: b}, rest, nil
		case encIntersectSet:
			return &IntersectSet{A: a, B: b}, rest, nil
		}
		return &DiffSet{A: a, B: b}, rest, nil
	case encRecordSet:
		cnt, n := binary.Uvarint(buf)
		if n <= 0 || cnt > uint64(len(buf)) {
			return nil, nil, errShort
		}
		buf = buf[n:]
		rs := &RecordSet{Names: make([]string, cnt), Sets: make([]Value, cnt)}
		for i := range rs.Names {
			s, rest, err := d.str(buf)
			if err != nil {
				return nil, nil, err
			}
			v, rest, err := d.Decode(rest)
			if err != nil {
				return nil, nil, err
			}
			rs.Names[i], rs.Sets[i], buf = string(s), v, rest
		}
		return rs, buf, nil
	case encProductSet:
		sets, rest, err := d.list(buf)
		if err != nil {
			return nil, nil, err
		}
		return &ProductSet{Sets: sets}, rest, nil
	}
	return nil, nil, fmt.Errorf("value: unknown encoding tag %d", tag)
}

// list reads a count and that many values.
func (d *Decoder) list(buf []byte) ([]Value, []byte, error) {
	cnt, n := binary.Uvarint(buf)
	if n <= 0 || cnt > uint64(len(buf)) {
		return nil, nil, errShort
	}
	buf = buf[n:]
	out := make([]Value, cnt)
	for i := range out {
		v, rest, err := d.Decode(buf)
		if err != nil {
			return nil, nil, err
		}
		out[i], buf = v, rest
	}
	return out, buf, nil
}

// str reads a string, shared with earlier equal short strings.
func (d *Decoder) str(buf []byte) (Str, []byte, error) {
	l, n := binary.Uvarint(buf)
	if n <= 0 || uint64(len(buf)-n) < l {
		return "", nil, errShort
	}
	b := buf[n : n+int(l)]
	rest := buf[n+int(l):]
	if l > 64 {
		return Str(b), rest, nil
	}
	if s, ok := d.strs[string(b)]; ok {
		return s, rest, nil
	}
	if len(d.strs) > 1<<16 {
		clear(d.strs)
	}
	s := Str(b)
	d.strs[string(s)] = s
	return s, rest, nil
}
