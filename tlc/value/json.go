package value

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
)

// JSON conversion, for the fuzzer's model simulation.
//
//	TLA+                           JSON
//	integer                        number (decoding rejects fractions)
//	string                         string
//	model value                    string (its name); a string decodes to a
//	                               model value when its name is given
//	TRUE, FALSE                    true, false
//	tuple / sequence (incl. <<>>)  array
//	record                         object
//	other function                 array of [key, value] pairs (encoding only)
//	finite set                     array, in canonical order (encoding only)
//
// An array always decodes to a tuple and an object to a record; {} and []
// both decode to the empty function. Encoding an infinite set is an error.

// ToJSON encodes v.
func ToJSON(v Value) ([]byte, error) {
	x, err := ToJSONValue(v)
	if err != nil {
		return nil, err
	}
	return json.Marshal(x)
}

// ToJSONValue converts v to the Go value encoding/json would produce when
// decoding ToJSON(v) with UseNumber: int64, string, bool, []any and
// map[string]any.
func ToJSONValue(v Value) (any, error) {
	switch x := v.(type) {
	case Int:
		return int64(x), nil
	case Str:
		return string(x), nil
	case Bool:
		return bool(x), nil
	case ModelValue:
		return x.info.name, nil
	case *Func:
		switch {
		case x.IsSeq():
			return jsonList(x.vals)
		case x.kind == fkRecord:
			obj := make(map[string]any, len(x.vals))
			for i, k := range x.dom {
				e, err := ToJSONValue(x.vals[i])
				if err != nil {
					return nil, err
				}
				obj[string(k.(Str))] = e
			}
			return obj, nil
		}
		pairs := make([]any, len(x.vals))
		for i, v := range x.vals {
			k, err := ToJSONValue(x.Key(i))
			if err != nil {
				return nil, err
			}
			e, err := ToJSONValue(v)
			if err != nil {
				return nil, err
			}
			pairs[i] = []any{k, e}
		}
		return pairs, nil
	}
	if v.Kind() == KindSet {
		elems, err := Enumerate(v)
		if err != nil {
			return nil, fmt.Errorf("cannot encode %s as JSON: %w", short(v), err)
		}
		return jsonList(elems)
	}
	return nil, fmt.Errorf("cannot encode %s as JSON", short(v))
}

func jsonList(vals []Value) ([]any, error) {
	out := make([]any, len(vals))
	for i, v := range vals {
		e, err := ToJSONValue(v)
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	return out, nil
}

// FromJSON decodes a JSON document. A string that names one of
// modelValues decodes to that model value; modelValues may be nil.
func FromJSON(data []byte, modelValues map[string]ModelValue) (Value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return nil, fmt.Errorf("decoding JSON value: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("decoding JSON value: trailing data after the value")
	}
	return FromJSONValue(x, modelValues)
}

// FromJSONValue converts a value decoded by encoding/json (preferably with
// UseNumber, so that large integers stay exact).
func FromJSONValue(x any, modelValues map[string]ModelValue) (Value, error) {
	switch t := x.(type) {
	case json.Number:
		i, err := strconv.ParseInt(string(t), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("JSON number %s is not a 64-bit integer", t)
		}
		return IntOf(i), nil
	case float64:
		if t != float64(int64(t)) {
			return nil, fmt.Errorf("JSON number %v is not an integer", t)
		}
		return IntOf(int64(t)), nil
	case int64:
		return IntOf(t), nil
	case int:
		return IntOf(int64(t)), nil
	case string:
		if m, ok := modelValues[t]; ok {
			return m, nil
		}
		return Str(t), nil
	case bool:
		return Bool(t), nil
	case []any:
		vals := make([]Value, len(t))
		for i, e := range t {
			v, err := FromJSONValue(e, modelValues)
			if err != nil {
				return nil, err
			}
			vals[i] = v
		}
		return Tuple(vals...), nil
	case map[string]any:
		names := make([]string, 0, len(t))
		for k := range t {
			names = append(names, k)
		}
		sort.Strings(names)
		vals := make([]Value, len(names))
		for i, k := range names {
			v, err := FromJSONValue(t[k], modelValues)
			if err != nil {
				return nil, fmt.Errorf("field %q: %w", k, err)
			}
			vals[i] = v
		}
		r, err := Record(names, vals)
		if err != nil {
			return nil, err
		}
		return r, nil
	case nil:
		return nil, fmt.Errorf("JSON null has no TLA+ value")
	}
	return nil, fmt.Errorf("cannot convert %T to a TLA+ value", x)
}
