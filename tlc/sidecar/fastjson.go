package sidecar

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/modelfuzz/modelfuzz/tlc/sim"
)

// The fuzzer sends one simulate request per execution, so the request and
// the answer are encoded and decoded here by hand (appending, and reading
// by path with gjson) rather than with reflection: encoding/json was most
// of the sidecar's cost. Anything unusual falls back to the strict decoder,
// whose errors say what is wrong.

// appendRequest encodes a simulate request.
func appendRequest(dst []byte, req *sim.Request) ([]byte, error) {
	dst = append(dst, `{"actions":[`...)
	for i, a := range req.Actions {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"name":`...)
		dst = strconv.AppendQuote(dst, a.Name)
		if len(a.Params) > 0 {
			dst = append(dst, `,"params":`...)
			var err error
			if dst, err = appendAny(dst, a.Params); err != nil {
				return nil, fmt.Errorf("action %d (%s): %w", i, a.Name, err)
			}
		}
		dst = append(dst, '}')
	}
	dst = append(dst, ']')
	if len(req.Init) > 0 {
		dst = append(dst, `,"init":`...)
		var err error
		if dst, err = appendAny(dst, req.Init); err != nil {
			return nil, fmt.Errorf("init: %w", err)
		}
	}
	if req.States != nil {
		dst = append(dst, `,"include_states":`...)
		dst = strconv.AppendBool(dst, *req.States)
	}
	if req.Resync {
		dst = append(dst, `,"resync":true`...)
	}
	return append(dst, '}'), nil
}

// appendAny encodes a JSON-shaped parameter value.
func appendAny(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case int:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case int32:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case uint64:
		return strconv.AppendUint(dst, x, 10), nil
	case string:
		return appendString(dst, x), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case json.Number:
		return append(dst, x...), nil
	case []any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendAny(dst, e); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, k)
			dst = append(dst, ':')
			var err error
			if dst, err = appendAny(dst, x[k]); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	}
	b, err := json.Marshal(v) // floats and other rare shapes
	if err != nil {
		return nil, err
	}
	return append(dst, b...), nil
}

// appendString writes a JSON string; plain ASCII goes through as is.
func appendString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x7f {
			b, _ := json.Marshal(s)
			return append(dst, b...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// decodeRequestFast reads a well-formed request. ok is false when the body
// is anything but a plain, valid request; the caller then uses the strict
// decoder for its error.
func decodeRequestFast(body []byte) (req *sim.Request, ok bool) {
	if !gjson.ValidBytes(body) {
		return nil, false
	}
	return requestFrom(gjson.ParseBytes(body))
}

// requestFrom reads a request from parsed, valid JSON.
func requestFrom(root gjson.Result) (req *sim.Request, ok bool) {
	if !root.IsObject() {
		return nil, false
	}
	req = &sim.Request{}
	good := true
	root.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "actions":
			if !v.IsArray() {
				good = false
				return false
			}
			v.ForEach(func(_, a gjson.Result) bool {
				act, ok := decodeAction(a)
				if !ok {
					good = false
					return false
				}
				req.Actions = append(req.Actions, act)
				return true
			})
		case "init":
			m, ok := decodeValue(v)
			if mm, isMap := m.(map[string]any); ok && isMap {
				req.Init = mm
			} else {
				good = false
			}
		case "include_states":
			if v.Type != gjson.True && v.Type != gjson.False {
				good = false
				return false
			}
			b := v.Type == gjson.True
			req.States = &b
		case "resync":
			if v.Type != gjson.True && v.Type != gjson.False {
				good = false
				return false
			}
			req.Resync = v.Type == gjson.True
		default:
			good = false
		}
		return good
	})
	return req, good
}

func decodeAction(a gjson.Result) (sim.Action, bool) {
	var act sim.Action
	if !a.IsObject() {
		return act, false
	}
	good := true
	a.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "name":
			if v.Type != gjson.String {
				good = false
			}
			act.Name = v.Str
		case "params":
			if !v.IsObject() {
				good = false
				return false
			}
			act.Params = make(map[string]any, 4)
			v.ForEach(func(pk, pv gjson.Result) bool {
				x, ok := decodeValue(pv)
				if !ok {
					good = false
					return false
				}
				act.Params[pk.Str] = x
				return true
			})
		default:
			good = false
		}
		return good
	})
	return act, good
}

// decodeValue turns JSON into the shapes sim expects: int64, string, bool,
// []any, map[string]any. Non-integral numbers and null are left to the
// strict decoder.
func decodeValue(v gjson.Result) (any, bool) {
	switch v.Type {
	case gjson.Number:
		if strings.ContainsAny(v.Raw, ".eE") {
			return nil, false
		}
		n, err := strconv.ParseInt(v.Raw, 10, 64)
		if err != nil {
			return nil, false
		}
		return n, true
	case gjson.String:
		return v.Str, true
	case gjson.True:
		return true, true
	case gjson.False:
		return false, true
	}
	if v.IsArray() {
		out := []any{}
		good := true
		v.ForEach(func(_, e gjson.Result) bool {
			x, ok := decodeValue(e)
			if !ok {
				good = false
				return false
			}
			out = append(out, x)
			return true
		})
		return out, good
	}
	if v.IsObject() {
		out := map[string]any{}
		good := true
		v.ForEach(func(k, e gjson.Result) bool {
			x, ok := decodeValue(e)
			if !ok {
				good = false
				return false
			}
			out[k.Str] = x
			return true
		})
		return out, good
	}
	return nil, false
}

// appendResult encodes a simulation answer.
func appendResult(dst []byte, res *sim.Result) []byte {
	dst = append(dst, `{"states":[`...)
	for i, st := range res.States {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"key":"`...)
		dst = append(dst, st.Key...)
		dst = append(dst, '"')
		if st.State != nil {
			names := make([]string, 0, len(st.State))
			for n := range st.State {
				names = append(names, n)
			}
			sort.Strings(names)
			dst = append(dst, `,"state":{`...)
			for j, n := range names {
				if j > 0 {
					dst = append(dst, ',')
				}
				dst = appendString(dst, n)
				dst = append(dst, ':')
				dst = append(dst, st.State[n]...)
			}
			dst = append(dst, '}')
		}
		dst = append(dst, `,"index":`...)
		dst = strconv.AppendInt(dst, int64(st.Index), 10)
		dst = append(dst, '}')
	}
	dst = append(dst, `],"divergence":`...)
	if d := res.Divergence; d != nil {
		dst = append(dst, `{"index":`...)
		dst = strconv.AppendInt(dst, int64(d.Index), 10)
		dst = append(dst, `,"action":`...)
		dst = appendString(dst, d.Action)
		dst = append(dst, `,"reason":`...)
		dst = appendString(dst, d.Reason)
		if d.Conjunct != "" || d.At != "" {
			dst = append(dst, `,"conjunct":`...)
			dst = appendString(dst, d.Conjunct)
			dst = append(dst, `,"at":`...)
			dst = appendString(dst, d.At)
		}
		if d.Context != "" || d.ContextAt != "" {
			dst = append(dst, `,"context":`...)
			dst = appendString(dst, d.Context)
			dst = append(dst, `,"context_at":`...)
			dst = appendString(dst, d.ContextAt)
		}
		if d.Call != "" {
			dst = append(dst, `,"call":`...)
			dst = appendString(dst, d.Call)
		}
		dst = append(dst, '}')
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"violations":[`...)
	for i, v := range res.Violations {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"invariant":`...)
		dst = appendString(dst, v.Invariant)
		dst = append(dst, `,"index":`...)
		dst = strconv.AppendInt(dst, int64(v.Index), 10)
		dst = append(dst, '}')
	}
	dst = append(dst, ']')
	if len(res.Choices) > 0 {
		dst = append(dst, `,"choices":[`...)
		for i, c := range res.Choices {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"index":`...)
			dst = strconv.AppendInt(dst, int64(c.Index), 10)
			dst = append(dst, `,"successors":`...)
			dst = strconv.AppendInt(dst, int64(c.Successors), 10)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	if res.Skipped > 0 {
		dst = append(dst, `,"skipped":`...)
		dst = strconv.AppendInt(dst, int64(res.Skipped), 10)
	}
	return append(dst, '}')
}

// decodeResultFast reads an answer that carries no state bodies (what the
// fuzzer asks for); ok is false otherwise, and the caller decodes it
// with encoding/json.
func decodeResultFast(body []byte) (*sim.Result, bool) {
	if !gjson.ValidBytes(body) {
		return nil, false
	}
	return resultFrom(gjson.ParseBytes(body))
}

// resultFrom reads an answer from parsed, valid JSON in one pass over its
// fields (gjson's Get scans the object each time).
func resultFrom(r gjson.Result) (*sim.Result, bool) {
	res := &sim.Result{States: []sim.State{}, Violations: []sim.Violation{}}
	good := true
	r.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "states":
			v.ForEach(func(_, st gjson.Result) bool {
				var s sim.State
				st.ForEach(func(f, x gjson.Result) bool {
					switch f.Str {
					case "key":
						s.Key = x.Str
					case "index":
						s.Index = int(x.Int())
					default: // "state": bodies are for the slow path
						good = false
					}
					return good
				})
				key, err := strconv.ParseUint(s.Key, 16, 64)
				if err != nil {
					good = false
				}
				res.States = append(res.States, s)
				res.Keys = append(res.Keys, key)
				return good
			})
		case "divergence":
			if v.IsObject() {
				d := &sim.Divergence{}
				v.ForEach(func(f, x gjson.Result) bool {
					switch f.Str {
					case "index":
						d.Index = int(x.Int())
					case "action":
						d.Action = x.Str
					case "reason":
						d.Reason = x.Str
					case "conjunct":
						d.Conjunct = x.Str
					case "at":
						d.At = x.Str
					case "context":
						d.Context = x.Str
					case "context_at":
						d.ContextAt = x.Str
					case "call":
						d.Call = x.Str
					}
					return true
				})
				res.Divergence = d
			}
		case "violations":
			v.ForEach(func(_, x gjson.Result) bool {
				res.Violations = append(res.Violations, sim.Violation{Invariant: x.Get("invariant").Str, Index: int(x.Get("index").Int())})
				return true
			})
		case "choices":
			v.ForEach(func(_, x gjson.Result) bool {
				res.Choices = append(res.Choices, sim.Choice{Index: int(x.Get("index").Int()), Successors: int(x.Get("successors").Int())})
				return true
			})
		case "skipped":
			res.Skipped = int(v.Int())
		default: // "error" and anything else: the slow path
			good = false
		}
		return good
	})
	return res, good
}

// decodeBatch reads {"requests":[request, ...]}; each request is read as
// DecodeRequest reads one, and an error names the request.
func decodeBatch(body []byte) ([]*sim.Request, error) {
	if !gjson.ValidBytes(body) {
		return nil, fmt.Errorf("invalid JSON: want {\"requests\":[...]}")
	}
	root := gjson.ParseBytes(body)
	if !root.IsObject() {
		return nil, fmt.Errorf("invalid request: want a JSON object {\"requests\":[...]}")
	}
	var reqs []*sim.Request
	var bad error
	root.ForEach(func(k, v gjson.Result) bool {
		if k.Str != "requests" || !v.IsArray() {
			bad = fmt.Errorf("invalid request: a batch has one field, \"requests\", an array (found %q)", k.Str)
			return false
		}
		v.ForEach(func(_, e gjson.Result) bool {
			req, ok := requestFrom(e)
			if !ok {
				var err error
				if req, err = DecodeRequest([]byte(e.Raw)); err != nil {
					bad = fmt.Errorf("request %d: %v", len(reqs), err)
					return false
				}
			}
			reqs = append(reqs, req)
			return true
		})
		return bad == nil
	})
	return reqs, bad
}

// appendBatch encodes a batch of requests.
func appendBatch(dst []byte, reqs []*sim.Request) ([]byte, error) {
	dst = append(dst, `{"requests":[`...)
	for i, r := range reqs {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = appendRequest(dst, r); err != nil {
			return nil, fmt.Errorf("request %d: %w", i, err)
		}
	}
	return append(dst, "]}"...), nil
}

// decodeBatchResults reads {"results":[...]}.
func decodeBatchResults(body []byte, n int) ([]*sim.Result, error) {
	if !gjson.ValidBytes(body) {
		return nil, fmt.Errorf("sidecar: the batch answer is not valid JSON")
	}
	var out []*sim.Result
	var bad error
	gjson.GetBytes(body, "results").ForEach(func(_, e gjson.Result) bool {
		res, ok := resultFrom(e)
		if !ok {
			res = &sim.Result{}
			if err := json.Unmarshal([]byte(e.Raw), res); err != nil {
				bad = fmt.Errorf("sidecar: result %d: %v", len(out), err)
				return false
			}
			if err := setKeys(res); err != nil {
				bad = err
				return false
			}
		}
		out = append(out, res)
		return true
	})
	if bad == nil && len(out) != n {
		bad = fmt.Errorf("sidecar: %d results for %d requests", len(out), n)
	}
	return out, bad
}
