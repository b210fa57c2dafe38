package stdlib

import (
	"encoding/binary"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// A direct decoder for the JSON of trace lines.
//
// encoding/json decodes into maps and interfaces that are then converted;
// a trace of five thousand events took a tenth of a second that way, twice
// (modelfuzz tlc validate reads the trace, then the spec does). The
// decoder here builds the values directly and shares the record shapes of
// the lines it decodes. It handles the JSON that traces are made of and
// declines everything else (a \u escape, invalid UTF-8, null, a number
// with an exponent or outside 64 bits, a repeated key, malformed input),
// which DecodeJSON then decodes with encoding/json: the values, and the
// errors, are those of encoding/json in every case.

// maxFastDepth is the nesting beyond which the direct decoder declines.
const maxFastDepth = 1000

// JSONDecoder decodes lines one after another as DecodeJSON does, sharing
// record shapes and field names between them. It is used by one goroutine.
type JSONDecoder struct {
	shapes map[string]*value.RecordShape // by field names in the order read, each after its length
	names  map[string]string
	buf    []byte
	// scratch for one object's names, reused
	key []byte
}

func NewJSONDecoder() *JSONDecoder {
	return &JSONDecoder{shapes: map[string]*value.RecordShape{}, names: map[string]string{}}
}

// Decode reads one JSON value as DecodeJSON does.
func (d *JSONDecoder) Decode(data []byte) (value.Value, error) {
	if v, ok := d.fast(data); ok {
		return v, nil
	}
	return decodeJSONStd(data)
}

// fast decodes data directly; ok is false when it leaves data to
// encoding/json.
func (d *JSONDecoder) fast(data []byte) (value.Value, bool) {
	d.buf = data
	i := skipSpace(data, 0)
	v, i, ok := d.value(i, 0)
	if !ok || skipSpace(data, i) != len(data) {
		return nil, false
	}
	return v, true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

func (d *JSONDecoder) value(i, depth int) (value.Value, int, bool) {
	b := d.buf
	if i >= len(b) || depth > maxFastDepth {
		return nil, i, false
	}
	switch c := b[i]; {
	case c == '{':
		return d.object(i+1, depth+1)
	case c == '[':
		return d.array(i+1, depth+1)
	case c == '"':
		s, i, ok := d.str(i + 1)
		if !ok {
			return nil, i, false
		}
		return value.Str(s), i, true
	case c == 't' && hasWord(b, i, "true"):
		return value.True, i + 4, true
	case c == 'f' && hasWord(b, i, "false"):
		return value.False, i + 5, true
	case c == '-' || c >= '0' && c <= '9':
		return d.number(i)
	}
	return nil, i, false
}

func hasWord(b []byte, i int, w string) bool {
	return len(b)-i >= len(w) && string(b[i:i+len(w)]) == w
}

func (d *JSONDecoder) object(i, depth int) (value.Value, int, bool) {
	b := d.buf
	var names []string
	var vals []value.Value
	i = skipSpace(b, i)
	if i < len(b) && b[i] == '}' {
		return nil, i, false // {} is left to encoding/json
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return nil, i, false
		}
		var name string
		var ok bool
		if name, i, ok = d.str(i + 1); !ok {
			return nil, i, false
		}
		if n, ok := d.names[name]; ok {
			name = n
		} else {
			d.names[name] = name
		}
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != ':' {
			return nil, i, false
		}
		var v value.Value
		if v, i, ok = d.value(skipSpace(b, i+1), depth); !ok {
			return nil, i, false
		}
		names, vals = append(names, name), append(vals, v)
		i = skipSpace(b, i)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
			continue
		}
		if i < len(b) && b[i] == '}' {
			break
		}
		return nil, i, false
	}
	d.key = d.key[:0]
	for _, n := range names {
		d.key = binary.AppendUvarint(d.key, uint64(len(n)))
		d.key = append(d.key, n...)
	}
	shape, ok := d.shapes[string(d.key)]
	if !ok {
		var err error
		if shape, err = value.NewRecordShape(names...); err != nil {
			return nil, i, false // a repeated key: encoding/json keeps the last
		}
		d.shapes[string(d.key)] = shape
	}
	r, err := shape.Make(vals)
	if err != nil {
		return nil, i, false
	}
	return r, i + 1, true
}

func (d *JSONDecoder) array(i, depth int) (value.Value, int, bool) {
	b := d.buf
	var vals []value.Value
	i = skipSpace(b, i)
	if i < len(b) && b[i] == ']' {
		return value.Tuple(), i + 1, true
	}
	for {
		v, j, ok := d.value(i, depth)
		if !ok {
			return nil, j, false
		}
		vals = append(vals, v)
		i = skipSpace(b, j)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
			continue
		}
		if i < len(b) && b[i] == ']' {
			return value.Tuple(vals...), i + 1, true
		}
		return nil, i, false
	}
}

// str reads a string whose opening quote is before i.
func (d *JSONDecoder) str(i int) (string, int, bool) {
	b := d.buf
	start := i
	for i < len(b) && b[i] != '"' && b[i] != '\\' && b[i] >= 0x20 {
		i++
	}
	if i < len(b) && b[i] == '"' {
		if !utf8.Valid(b[start:i]) {
			return "", i, false
		}
		return string(b[start:i]), i + 1, true
	}
	var sb strings.Builder
	sb.Write(b[start:i])
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			s := sb.String()
			if !utf8.ValidString(s) {
				return "", i, false
			}
			return s, i + 1, true
		case c < 0x20:
			return "", i, false
		case c != '\\':
			sb.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(b) {
			return "", i, false
		}
		switch b[i+1] {
		case '"', '\\', '/':
			sb.WriteByte(b[i+1])
		case 'b':
			sb.WriteByte('\b')
		case 'f':
			sb.WriteByte('\f')
		case 'n':
			sb.WriteByte('\n')
		case 'r':
			sb.WriteByte('\r')
		case 't':
			sb.WriteByte('\t')
		default: // \u and invalid escapes
			return "", i, false
		}
		i += 2
	}
	return "", i, false
}

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)? as DecodeJSON does; it
// declines exponents and integers beyond 64 bits.
func (d *JSONDecoder) number(i int) (value.Value, int, bool) {
	b := d.buf
	start := i
	if b[i] == '-' {
		i++
	}
	digits := i
	if i < len(b) && b[i] == '0' {
		i++
	} else {
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i == digits {
		return nil, i, false
	}
	intEnd := i
	if i < len(b) && b[i] == '.' {
		i++
		frac := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == frac {
			return nil, i, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E' || b[i] >= '0' && b[i] <= '9') {
		return nil, i, false
	}
	if i == intEnd {
		n, err := strconv.ParseInt(string(b[start:i]), 10, 64)
		return value.IntOf(n), i, err == nil
	}
	// A fraction: truncated as truncateNumbers does (its rounding to 64
	// bits of precision can carry into the integer part).
	n, ok := truncateFraction(string(b[start:i]))
	return value.IntOf(n), i, ok
}

// truncateFraction is the integer a JSON number with a fraction truncates
// to, as truncateNumbers computes it; ok is false when it does not fit in
// 64 bits.
func truncateFraction(s string) (int64, bool) {
	d, ok := new(big.Float).SetString(s)
	if !ok {
		return 0, false
	}
	i, _ := d.Int(nil) // truncates toward zero
	if i == nil || !i.IsInt64() {
		return 0, false
	}
	return i.Int64(), true
}
