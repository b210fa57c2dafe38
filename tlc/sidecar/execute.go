package sidecar

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/modelfuzz/modelfuzz/tlc/sim"
)

// PathExecute is the one request of the reference ModelFuzz
// implementation's TLC server, which this server answers too, so that
// the reference fuzzer's clients can use this engine: the body is a JSON
// array of events {"Name": ACTION, "Params": {...}} ending with
// {"Reset": true} (field names in any case); the answer is
// {"States": [...], "Keys": [...]}, each state visited from the initial
// one (consecutive states with one view once, as /v1/simulate gives
// them) printed as TLC prints a state, and its key. The keys are this
// engine's (the fingerprints of the cfg's VIEW), not TLC's: a client
// uses them as names of abstract states. The protocol has no place for
// a divergence: the states end where the events leave the model.
const PathExecute = "/execute"

// Event is one event of an /execute request.
type Event struct {
	Name   string         `json:"Name,omitempty"`
	Params map[string]any `json:"Params,omitempty"`
	Reset  bool           `json:"Reset,omitempty"`
}

// ExecuteAnswer is the answer to /execute.
type ExecuteAnswer struct {
	States []string
	Keys   []int64
}

// Events is a request's actions as /execute events, ending with the
// reset.
func Events(req *sim.Request) []Event {
	out := make([]Event, 0, len(req.Actions)+1)
	for _, a := range req.Actions {
		out = append(out, Event{Name: a.Name, Params: a.Params})
	}
	return append(out, Event{Reset: true})
}

// decodeEvents reads an /execute body: the events up to the first reset.
func decodeEvents(body []byte) ([]sim.Action, error) {
	var events []struct {
		Name   string
		Params json.RawMessage
		Reset  bool
	}
	if err := json.Unmarshal(body, &events); err != nil {
		return nil, fmt.Errorf("invalid request: /execute takes a JSON array of events ending with {\"reset\": true}: %v", err)
	}
	var out []sim.Action
	for i, e := range events {
		if e.Reset {
			break
		}
		if e.Name == "" {
			return nil, fmt.Errorf("invalid request: event %d has no Name", i)
		}
		a := sim.Action{Name: e.Name}
		if len(e.Params) > 0 && string(e.Params) != "null" {
			var err error
			if a.Params, err = decodeParams(e.Params); err != nil {
				return nil, fmt.Errorf("invalid request: event %d (%s): %v", i, e.Name, err)
			}
		}
		out = append(out, a)
	}
	return out, nil
}

// decodeParams reads an event's parameters with numbers kept exact, as
// /v1/simulate reads them.
func decodeParams(raw json.RawMessage) (map[string]any, error) {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	var p map[string]any
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("Params: %v", err)
	}
	return p, nil
}

// PrintState prints a state's variables as TLC prints a state: one
// conjunct "/\ name = value" a variable, in the model's order (a lone
// variable without the conjunction).
func PrintState(vars []string, text map[string]string) string {
	var b strings.Builder
	for i, v := range vars {
		if i > 0 {
			b.WriteByte('\n')
		}
		if len(vars) > 1 {
			b.WriteString("/\\ ")
		}
		b.WriteString(v)
		b.WriteString(" = ")
		b.WriteString(text[v])
	}
	return b.String()
}

// execute answers POST /execute.
func (s *Server) execute(w http.ResponseWriter, r *http.Request) {
	body, ok := s.readBody(w, r)
	if !ok {
		return
	}
	acts, err := decodeEvents(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	no := false
	res, err := s.sim.Simulate(&sim.Request{Actions: acts, States: &no, Text: true})
	if err != nil {
		s.log.Warn("simulation failed", "error", err)
		writeError(w, http.StatusInternalServerError, "simulation: "+err.Error())
		return
	}
	out := ExecuteAnswer{States: make([]string, len(res.States)), Keys: make([]int64, len(res.Keys))}
	vars := s.sim.Model().Vars
	for i, st := range res.States {
		out.States[i] = PrintState(vars, st.Text)
		out.Keys[i] = int64(res.Keys[i])
	}
	writeJSON(w, http.StatusOK, &out)
}
