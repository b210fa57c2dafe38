package stdlib

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// The community module Json, with the encoding of TLC's implementation:
//
//	integer, boolean, string       number, true/false, string
//	model value                    string (its name)
//	sequence (domain 1..n, <<>>)   array
//	record, other function         object; a key that is not a string is
//	                               printed as TLC prints the value
//	finite set                     array, in canonical order
//
// Output is compact (no spaces), with the string escapes of TLC's JSON
// library (control characters, ", \, U+2028 and U+2029). ToJsonArray(v) and ToJsonObject(v) force the
// outer shape (a tuple as an object has the keys "0", "1", ...).
//
// JsonSerialize(file, seq) writes the elements of the sequence seq to the
// file as one JSON array, one element per line; ndJsonSerialize writes one
// element per line (newline-delimited JSON). Both create missing parent
// directories and return TRUE. The file name is used as given (relative
// names are relative to the working directory of the checker): writing it
// is what the spec asks for. JsonDeserialize(file) reads one JSON value and
// ndJsonDeserialize(file) the sequence of the values of the non-empty
// lines; arrays become tuples, objects records.

func registerJSON() {
	def("Json",
		&Builtin{Name: "ToJson", Arity: 1, Fn: op1(func(v value.Value) (value.Value, error) {
			return jsonString("ToJson", v, writeJSON)
		})},
		&Builtin{Name: "ToJsonArray", Arity: 1, Fn: op1(func(v value.Value) (value.Value, error) {
			return jsonString("ToJsonArray", v, writeJSONArray)
		})},
		&Builtin{Name: "ToJsonObject", Arity: 1, Fn: op1(func(v value.Value) (value.Value, error) {
			return jsonString("ToJsonObject", v, writeJSONObject)
		})},
		&Builtin{Name: "JsonSerialize", Arity: 2, SideEffect: true, Fn: op2(func(p, v value.Value) (value.Value, error) {
			return serialize("JsonSerialize", p, v, false)
		})},
		&Builtin{Name: "ndJsonSerialize", Arity: 2, SideEffect: true, Fn: op2(func(p, v value.Value) (value.Value, error) {
			return serialize("ndJsonSerialize", p, v, true)
		})},
		&Builtin{Name: "JsonDeserialize", Arity: 1, Input: true, Fn: op1(func(p value.Value) (value.Value, error) {
			path, err := strArg("JsonDeserialize", 0, 1, p)
			if err != nil {
				return nil, err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return nil, wrap("JsonDeserialize", err)
			}
			v, err := DecodeJSON(data)
			return v, wrap("JsonDeserialize", err)
		})},
		&Builtin{Name: "ndJsonDeserialize", Arity: 1, Input: true, Fn: func(ctx Context, args []Arg) (value.Value, error) {
			if fc, ok := ctx.(FileContext); ok {
				if path, ok := args[0].V.(value.Str); ok {
					if vals, ok := fc.NDJSONFile(string(path)); ok {
						return tuple(slices.Clone(vals)), nil
					}
				}
			}
			return ndDeserialize(args[0].V)
		}},
	)
}

// FileContext is implemented by a Context that holds files in memory:
// trace validation gives each trace to the spec without writing it to a
// file. NDJSONFile returns what ndJsonDeserialize(path) is, the values of
// the file's non-empty lines, when the context holds that file.
type FileContext interface {
	NDJSONFile(path string) ([]value.Value, bool)
}

func jsonString(op string, v value.Value, w func(*bytes.Buffer, value.Value) error) (value.Value, error) {
	var buf bytes.Buffer
	if err := w(&buf, v); err != nil {
		return nil, wrap(op, err)
	}
	return value.Str(buf.String()), nil
}

func writeJSON(buf *bytes.Buffer, v value.Value) error {
	switch x := v.(type) {
	case value.Int:
		buf.WriteString(strconv.FormatInt(int64(x), 10))
		return nil
	case value.Bool:
		buf.WriteString(strconv.FormatBool(bool(x)))
		return nil
	case value.Str:
		writeJSONString(buf, string(x))
		return nil
	case value.ModelValue:
		writeJSONString(buf, x.Name())
		return nil
	case *value.Func:
		if x.IsSeq() {
			return writeJSONList(buf, x.Values())
		}
		return writeJSONObject(buf, x)
	}
	if v.Kind() == value.KindSet {
		elems, err := value.Enumerate(v)
		if err != nil {
			return err
		}
		return writeJSONList(buf, elems)
	}
	return fmt.Errorf("cannot convert %s to JSON", show(v))
}

func writeJSONList(buf *bytes.Buffer, vs []value.Value) error {
	buf.WriteByte('[')
	for i, e := range vs {
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := writeJSON(buf, e); err != nil {
			return err
		}
	}
	buf.WriteByte(']')
	return nil
}

func writeJSONArray(buf *bytes.Buffer, v value.Value) error {
	if f, ok := v.(*value.Func); ok && !f.IsSeq() {
		return writeJSONObject(buf, f)
	}
	if v.Kind() != value.KindSet && v.Kind() != value.KindFunc {
		return fmt.Errorf("cannot convert %s to a JSON array", show(v))
	}
	return writeJSON(buf, v)
}

func writeJSONObject(buf *bytes.Buffer, v value.Value) error {
	f, ok := v.(*value.Func)
	if !ok {
		return fmt.Errorf("cannot convert %s to a JSON object", show(v))
	}
	buf.WriteByte('{')
	for i, e := range f.Values() {
		if i > 0 {
			buf.WriteByte(',')
		}
		var key string
		switch k := f.Key(i).(type) {
		case value.Str:
			key = string(k)
		default:
			if f.IsSeq() {
				// TLC numbers the elements of a tuple from 0.
				key = strconv.Itoa(i)
			} else {
				key = k.String()
			}
		}
		writeJSONString(buf, key)
		buf.WriteByte(':')
		if err := writeJSON(buf, e); err != nil {
			return err
		}
	}
	buf.WriteByte('}')
	return nil
}

// writeJSONString writes a JSON string literal with the escapes of TLC's
// JSON library.
func writeJSONString(buf *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	buf.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			buf.WriteString(`\"`)
		case '\\':
			buf.WriteString(`\\`)
		case '\n':
			buf.WriteString(`\n`)
		case '\r':
			buf.WriteString(`\r`)
		case '\t':
			buf.WriteString(`\t`)
		case '\b':
			buf.WriteString(`\b`)
		case '\f':
			buf.WriteString(`\f`)
		case '\u2028', '\u2029':
			fmt.Fprintf(buf, `\u%04x`, r)
		default:
			if r < 0x20 {
				buf.WriteString(`\u00`)
				buf.WriteByte(hex[r>>4])
				buf.WriteByte(hex[r&0xf])
			} else {
				buf.WriteRune(r)
			}
		}
	}
	buf.WriteByte('"')
}

func serialize(op string, p, v value.Value, nd bool) (value.Value, error) {
	path, err := strArg(op, 0, 2, p)
	if err != nil {
		return nil, err
	}
	elems, err := seqArg(op, 1, 2, v)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if !nd {
		buf.WriteString("[\n")
	}
	for i, e := range elems {
		if err := writeJSON(&buf, e); err != nil {
			return nil, wrap(op, err)
		}
		switch {
		case nd:
			buf.WriteByte('\n')
		case i < len(elems)-1:
			buf.WriteString(",\n")
		}
	}
	if !nd {
		buf.WriteString("\n]\n")
	}
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, wrap(op, err)
		}
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return nil, wrap(op, err)
	}
	return value.True, nil
}

func ndDeserialize(p value.Value) (value.Value, error) {
	const name = "ndJsonDeserialize"
	path, err := strArg(name, 0, 1, p)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, wrap(name, err)
	}
	defer f.Close()
	var out []value.Value
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<30)
	dec := NewJSONDecoder()
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		v, err := dec.Decode(line)
		if err != nil {
			return nil, fmt.Errorf("%s: %s:%d: %w", name, path, n, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		return nil, wrap(name, err)
	}
	return tuple(out), nil
}

// DecodeJSON reads one JSON value as TLC's Json module does: a number
// with a fraction or an exponent becomes the integer it truncates to (TLC
// reads every number with Gson's getAsInt; log lines carry timestamps such
// as "ts":1712329729.6024537). Unlike TLC, integers keep 64 bits instead of
// wrapping around at 32.
func DecodeJSON(data []byte) (value.Value, error) {
	return NewJSONDecoder().Decode(data)
}

// decodeJSONStd is DecodeJSON with encoding/json (see jsondecode.go).
func decodeJSONStd(data []byte) (value.Value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("more than one JSON value")
	}
	x, err := truncateNumbers(x)
	if err != nil {
		return nil, err
	}
	return value.FromJSONValue(x, nil)
}

func truncateNumbers(x any) (any, error) {
	switch t := x.(type) {
	case json.Number:
		if _, err := strconv.ParseInt(string(t), 10, 64); err == nil {
			return t, nil
		}
		d, ok := new(big.Float).SetString(string(t))
		if !ok {
			return nil, fmt.Errorf("JSON number %s is not a number", t)
		}
		i, _ := d.Int(nil) // truncates toward zero; nil when infinite (1e700000000)
		if i == nil || !i.IsInt64() {
			return nil, fmt.Errorf("JSON number %s does not fit in 64 bits", t)
		}
		return json.Number(i.String()), nil
	case []any:
		for i, e := range t {
			var err error
			if t[i], err = truncateNumbers(e); err != nil {
				return nil, err
			}
		}
	case map[string]any:
		for k, e := range t {
			var err error
			if t[k], err = truncateNumbers(e); err != nil {
				return nil, err
			}
		}
	}
	return x, nil
}

// ToJSON renders v in JSON as the Json module's ToJson does: numbers,
// booleans and strings as themselves, a model value as its name, a
// sequence or a set as an array, a record or another function as an
// object.
func ToJSON(v value.Value) ([]byte, error) {
	var buf bytes.Buffer
	if err := writeJSON(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
