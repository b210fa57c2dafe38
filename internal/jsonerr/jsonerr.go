// Package jsonerr is the one place that words the problems of JSON
// documents people write (inputs, cluster files, action lists): where
// (line and column) and what, in JSON's terms, never in Go's ("invalid
// character 'Ü' looking for beginning of value", "unexpected EOF", "Go
// struct field Step.process of type int", "exceeded max depth"). It also
// reads the files people write, within a size limit (ReadFile), so that
// /dev/zero or a file of gigabytes is refused, not read forever.
//
// It must not import anything of modelfuzz.
package jsonerr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Error is a problem of a JSON document: where it is (Line 0: the
// document as a whole) and what it is.
type Error struct {
	Line, Col int
	Msg       string
}

// Error is "LINE:COL: MSG", or "MSG" without a position.
func (e *Error) Error() string {
	if e.Line == 0 {
		return e.Msg
	}
	return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg)
}

// In names the file the error of a document is in: "FILE:LINE:COL: MSG"
// for an *Error with a position, "FILE: MSG" for any other error.
func In(file string, err error) error {
	var e *Error
	if errors.As(err, &e) && e.Line > 0 {
		return fmt.Errorf("%s:%d:%d: %s", file, e.Line, e.Col, e.Msg)
	}
	return fmt.Errorf("%s: %v", file, err)
}

// At is an error at byte offset off of data (0-based: the offending byte).
func At(data []byte, off int64, format string, args ...any) *Error {
	line, col := position(data, off)
	return &Error{Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// position is the 1-based line and column of byte off of data.
func position(data []byte, off int64) (int, int) {
	line, col := 1, 1
	for i := int64(0); i < off && i < int64(len(data)); i++ {
		if data[i] == '\n' {
			line, col = line+1, 1
		} else if data[i]&0xc0 != 0x80 { // a character, not a continuation byte
			col++
		}
	}
	return line, col
}

// LineColumn converts an offset encoding/json reports (just past the
// offending byte) to a 1-based line and column.
func LineColumn(data []byte, off int64) (int, int) {
	return position(data, max(off-1, 0))
}

// Check looks at a document before it is decoded: text that is no JSON
// document at all (empty, a byte order mark, UTF-16, binary, not UTF-8)
// is said as such, where encoding/json would say "invalid character".
func Check(data []byte) *Error {
	switch {
	case len(bytes.TrimSpace(data)) == 0:
		return &Error{Msg: "empty document"}
	case bytes.HasPrefix(data, []byte{0xef, 0xbb, 0xbf}):
		return &Error{Line: 1, Col: 1, Msg: "the file starts with a byte order mark (EF BB BF); save it as UTF-8 without one"}
	case bytes.HasPrefix(data, []byte{0xff, 0xfe}), bytes.HasPrefix(data, []byte{0xfe, 0xff}):
		return &Error{Line: 1, Col: 1, Msg: "the file is UTF-16 (it starts with a byte order mark); JSON files are UTF-8"}
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return At(data, int64(i), "not JSON: the file holds a NUL byte (binary data?)")
	}
	if !utf8.Valid(data) {
		i := 0
		for i < len(data) {
			r, n := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			i += n
		}
		if i < 4 {
			return At(data, int64(i), "not JSON: byte 0x%02X is not text (a binary file?)", data[i])
		}
		return At(data, int64(i), "byte 0x%02X is not UTF-8; JSON files are UTF-8", data[i])
	}
	return nil
}

// Decode decodes the JSON document data into v, strictly: a field v does
// not have, or anything after the document, is an error. Its errors are
// *Error.
func Decode(data []byte, v any) error {
	if e := Check(data); e != nil {
		return e
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return Describe(data, err)
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		return At(data, skipSpace(data, end), "trailing data after the document")
	}
	return nil
}

// Compact is data on one line, for a message (data itself when not JSON),
// cut to 200 bytes.
func Compact(data []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, data) != nil {
		b.Reset()
		b.Write(data)
	}
	s := b.String()
	if len(s) > 200 {
		s = s[:197] + "..."
	}
	return s
}

// skipSpace is the offset of the first byte at or after off that is not
// white space (nor a comma).
func skipSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) && strings.IndexByte(" \t\r\n,", data[off]) >= 0 {
		off++
	}
	return off
}

// Describe words err, an error of encoding/json decoding data (the whole
// document: offsets count from its start).
func Describe(data []byte, err error) *Error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return syntax(data, se)
	case errors.As(err, &te):
		// At the key of the value when there is one: encoding/json's
		// offset is the end of the value.
		off := max(te.Offset-1, 0)
		if te.Field != "" {
			name := te.Field[strings.LastIndexByte(te.Field, '.')+1:]
			if i := lastKeyBefore(data, name, te.Offset); i >= 0 {
				off = i
			}
		}
		return At(data, off, "%s", typeMsg(te))
	case errors.Is(err, io.EOF):
		return &Error{Msg: "empty document"}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return At(data, int64(len(data)), "the document ends early: cut short?")
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if f, ok := strings.CutPrefix(msg, "unknown field "); ok {
		if name, err := strconv.Unquote(f); err == nil {
			if i := keyOffset(data, name); i >= 0 {
				return At(data, i, "unknown field %q", name)
			}
			return &Error{Msg: fmt.Sprintf("unknown field %q", name)}
		}
	}
	return &Error{Msg: msg}
}

// keyOffset is the offset of the key name in data, -1 if none.
func keyOffset(data []byte, name string) int64 {
	q, _ := json.Marshal(name)
	for from := 0; ; {
		i := bytes.Index(data[from:], q)
		if i < 0 {
			return -1
		}
		at := from + i
		rest := bytes.TrimLeft(data[at+len(q):], " \t\r\n")
		if len(rest) > 0 && rest[0] == ':' {
			return int64(at)
		}
		from = at + len(q)
	}
}

// lastKeyBefore is the offset of the last key name in data before end,
// -1 if none.
func lastKeyBefore(data []byte, name string, end int64) int64 {
	q, _ := json.Marshal(name)
	for end = min(end, int64(len(data))); end > 0; {
		i := bytes.LastIndex(data[:end], q)
		if i < 0 {
			return -1
		}
		rest := bytes.TrimLeft(data[i+len(q):], " \t\r\n")
		if len(rest) > 0 && rest[0] == ':' {
			return int64(i)
		}
		end = int64(i)
	}
	return -1
}

// syntax words a syntax error of encoding/json's scanner.
func syntax(data []byte, se *json.SyntaxError) *Error {
	off := max(se.Offset-1, 0)
	msg := se.Error()
	switch {
	case strings.Contains(msg, "unexpected end of JSON input"):
		return At(data, int64(len(data)), "the document ends early: cut short?")
	case strings.Contains(msg, "exceeded max depth"):
		return At(data, off, "nested too deeply (JSON documents here nest at most 10000 levels)")
	}
	if off >= int64(len(data)) {
		return At(data, int64(len(data)), "the document ends early: cut short?")
	}
	found := charText(data[off:])
	rest := string(data[off:])
	switch {
	case off > 0 && data[off-1] == '-' && strings.HasPrefix(rest, "Infinity"):
		return At(data, off-1, "NaN and Infinity are not JSON numbers")
	case strings.HasPrefix(rest, "NaN"), strings.HasPrefix(rest, "Infinity"):
		return At(data, off, "NaN and Infinity are not JSON numbers")
	case strings.Contains(msg, "looking for beginning of value"):
		return At(data, off, "want a value (an object, an array, a string, a number, true, false or null), found %s", found)
	case strings.Contains(msg, "looking for beginning of object key string"):
		return At(data, off, "want a key in double quotes, found %s", found)
	case strings.HasSuffix(msg, "after object key"):
		return At(data, off, "want ':' after the key, found %s", found)
	case strings.Contains(msg, "after object key:value pair"):
		return At(data, off, "want ',' or '}' after the value, found %s", found)
	case strings.Contains(msg, "after array element"):
		return At(data, off, "want ',' or ']' after the element, found %s", found)
	case strings.Contains(msg, "in string literal"):
		return At(data, off, "a control character in a string (write it escaped, e.g. \\n)")
	case strings.Contains(msg, "escape"):
		return At(data, off, "a malformed escape in a string")
	case strings.Contains(msg, "numeric literal"):
		return At(data, off, "a malformed number")
	case strings.Contains(msg, "in literal"):
		return At(data, off, "a malformed true, false or null")
	case strings.Contains(msg, "after top-level value"):
		return At(data, off, "trailing data after the document")
	}
	return At(data, off, "malformed JSON at %s", found)
}

// charText names the character b starts with, for a message.
func charText(b []byte) string {
	r, n := utf8.DecodeRune(b)
	switch {
	case r == utf8.RuneError && n <= 1:
		return fmt.Sprintf("byte 0x%02X", b[0])
	case r < 0x20 || r == 0x7f:
		return fmt.Sprintf("control character 0x%02X", r)
	}
	return strconv.QuoteRune(r)
}

// typeMsg words a value of the wrong kind.
func typeMsg(e *json.UnmarshalTypeError) string {
	field := fieldName(e.Field)
	if num, ok := strings.CutPrefix(e.Value, "number "); ok && isInteger(e.Type) {
		if !strings.ContainsAny(num, ".") {
			if f, err := strconv.ParseFloat(num, 64); err != nil || f != float64(int64(f)) || f > 9e18 || f < -9e18 {
				return fmt.Sprintf("%s is the number %s, out of range for an integer", field, num)
			}
		}
		return fmt.Sprintf("%s is the number %s, want an integer", field, num)
	}
	return fmt.Sprintf("%s is %s, want %s", field, jsonKind(e.Value), wantKind(e.Type))
}

func isInteger(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

func fieldName(f string) string {
	if f == "" {
		return "the value"
	}
	return strconv.Quote(f)
}

// jsonKind names a JSON value kind as encoding/json reports it.
func jsonKind(v string) string {
	switch v {
	case "number", "string":
		return "a " + v
	case "array", "object":
		return "an " + v
	case "bool":
		return "a boolean"
	}
	if strings.HasPrefix(v, "number ") {
		return "the number " + strings.TrimPrefix(v, "number ")
	}
	return v
}

// wantKind names the JSON a Go type decodes from.
func wantKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct, reflect.Pointer:
		return "an object"
	}
	return "another kind of value"
}

// ReadFile reads the file at path, what it is (e.g. "an input file") of
// at most limit bytes, limitName naming the limit; a larger one (or
// /dev/zero) is refused once limit bytes are read. Its errors start with
// the path: "F: no such file".
func ReadFile(path string, limit int64, what, limitName string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, FileError(path, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("%s: is a directory, not %s", path, what)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, FileError(path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %s: %s holds at most %s (%s)", path, SizeText(limit), what, SizeText(limit), limitName)
	}
	return data, nil
}

// FileError words an error of the operating system about path: "F: no
// such file", "F: permission denied", "F: cannot read it: ...".
func FileError(path string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: no such file", path)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s: permission denied", path)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("%s: cannot read it: %v", path, err)
}

// SizeText is n bytes for people: 16 MiB, 512 KiB, 100 bytes.
func SizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}
