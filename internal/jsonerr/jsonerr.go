// Package jsonerr words encoding/json's errors for people writing JSON
// files: where (line, column) and what, in JSON's terms, not Go's ("Go
// struct field Step.process of type int", "[]sim.Action").
package jsonerr

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
)

// Describe words err, an error decoding data.
func Describe(data []byte, err error) string {
	var off int64 = -1
	msg := strings.TrimPrefix(err.Error(), "json: ")
	switch e := err.(type) {
	case *json.SyntaxError:
		off = e.Offset
	case *json.UnmarshalTypeError:
		off = e.Offset
		msg = fmt.Sprintf("%s is %s, want %s", fieldName(e.Field), jsonKind(e.Value), wantKind(e.Type))
	}
	if err == io.EOF {
		return "empty document"
	}
	if off < 0 {
		return msg
	}
	line, col := LineColumn(data, off)
	return fmt.Sprintf("line %d, column %d: %s", line, col, msg)
}

// LineColumn converts an offset encoding/json reports (just past the
// offending byte) to a 1-based line and column.
func LineColumn(data []byte, off int64) (int, int) {
	line, col := 1, 1
	for i := int64(0); i < off-1 && i < int64(len(data)); i++ {
		if data[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
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
	case "number", "string", "array", "object":
		return "a " + v
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
