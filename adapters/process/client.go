package process

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelfuzz/modelfuzz/linearize"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// op is one client request of an execution.
type op struct {
	Op
	// Filled in by the request's goroutine, under the execution's mutex.
	done   bool // an answer arrived (of any status)
	status int
	known  bool // the outcome is known (success, or a read's value)
}

// Op is one client operation of a history (linearize.Op).
type Op = linearize.Op

// History is the client history of an execution (linearize.History).
type History = linearize.History

func (o *op) opName() string {
	if o.Put {
		return "put"
	}
	return "get"
}

// newOp makes the client operation of request(v): on key
// "k" + (v/2 mod keys), a put of v when v is even, else a get. Request
// values count up (1, 2, 3, ...), so each put is followed by a get of the
// same key and both keys see both operations.
func (e *execution) newOp(r *replica, v int) *op {
	keys := e.cl.Request.Keys
	k := (v / 2) % keys
	if k < 0 {
		k += keys
	}
	o := &op{Op: Op{Process: r.index, Value: v, Step: e.step, Put: v%2 == 0, Key: "k" + strconv.Itoa(k)}}
	if o.Put {
		o.Arg = strconv.Itoa(v)
	}
	e.ops = append(e.ops, o)
	return o
}

func (e *execution) now() int64 { return time.Since(e.t0).Nanoseconds() }

// issue sends o to r's client endpoint in the background. The channel
// returned receives true when the request has been written, false when
// it failed before that.
func (e *execution) issue(r *replica, o *op) <-chan bool {
	written := make(chan bool, 1)
	var once sync.Once
	send := func(ok bool) { once.Do(func() { written <- ok }) }
	signal := func() { send(false) }
	ctx, cancel := context.WithTimeout(e.opsCtx, e.cl.reqTimeout)
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteRequest: func(w httptrace.WroteRequestInfo) { send(w.Err == nil) }})
	url := strings.TrimSuffix(r.client, "/") + "/kv/" + o.Key
	method, body := http.MethodGet, io.Reader(nil)
	if o.Put {
		method, body = http.MethodPut, strings.NewReader(o.Arg)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		cancel()
		signal()
		e.s.log.Warn("bad client URL", "url", url, "error", err)
		return written
	}
	e.mu.Lock()
	o.Call = e.now()
	boot := r.boot
	e.mu.Unlock()
	e.opsWG.Add(1)
	go func() {
		defer e.opsWG.Done()
		defer cancel()
		defer signal()
		resp, err := e.reqHTTP.Do(req)
		if err != nil {
			return // outcome unknown
		}
		b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		_ = resp.Body.Close()
		if err != nil {
			return
		}
		e.mu.Lock()
		defer e.mu.Unlock()
		if r.boot == boot {
			r.answers++
		}
		close(e.answered)
		e.answered = make(chan struct{})
		o.Return = e.now()
		o.RetStep = e.step
		o.done, o.status = true, resp.StatusCode
		switch {
		case resp.StatusCode/100 == 2:
			o.known = true
			if !o.Put {
				o.Out = readValue(b)
			}
		case resp.StatusCode == http.StatusNotFound && !o.Put:
			o.known = true // no value
		}
	}()
	return written
}

// readValue reads the answer of a get: {"value": ..., "found": ...}
// (raftkv's form; not found reads as "") or else the value itself.
func readValue(b []byte) string {
	var v struct {
		Value json.RawMessage `json:"value"`
		Found *bool           `json:"found"`
	}
	if len(b) > 0 && b[0] == '{' && json.Unmarshal(b, &v) == nil && (v.Found != nil || v.Value != nil) {
		if v.Found != nil && !*v.Found {
			return ""
		}
		var s string
		if json.Unmarshal(v.Value, &s) == nil {
			return s
		}
		return string(v.Value)
	}
	return strings.TrimSuffix(string(b), "\n")
}

// The args of the adapter's own events, beside the Raft vocabulary's
// (package schedule).
const (
	argKey    = "key"    // the key of a client request (request, read, response)
	argStatus = "status" // a client answer's HTTP status; how a replica exited
	argOut    = "out"    // the value a get returned
)

// recordResponses records the client answers, in the order of the
// requests, after the last step: when an answer arrives depends on the
// scheduling of the replica's goroutines and of the fuzzer's, so its place
// among the steps would make the trace differ from run to run (History
// has the times and steps).
func (e *execution) recordResponses(step int) {
	e.step = step
	for _, o := range e.ops {
		if !o.done {
			continue
		}
		args := []schedule.Arg{schedule.I(schedule.ArgValue, int64(o.Value)), schedule.S(argKey, o.Key), schedule.I(argStatus, int64(o.status))}
		if !o.Put && o.known {
			args = append(args, schedule.S(argOut, o.Out))
		}
		e.record(schedule.EvResponse, o.Process, -1, 0, o.opName(), args)
	}
}

// history is the client history of the execution, once every request has
// ended.
func (e *execution) history() History {
	var h History
	for _, o := range e.ops {
		switch {
		case o.known:
			h = append(h, o.Op)
		case o.Put:
			p := o.Op
			p.Return, p.Pending, p.RetStep = math.MaxInt64, true, -1
			h = append(h, p)
		}
	}
	return h
}
