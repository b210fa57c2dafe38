package process

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// The interception server: the replicas' side of docs/process-api.md.

const maxBody = 16 << 20

// The kinds the adapter records itself; a replica's event may not claim
// them.
var reservedKinds = []string{schedule.EvSend, schedule.EvRecv, schedule.EvCrash, schedule.EvSkip, schedule.EvResponse, schedule.EvDrop, schedule.EvExit, schedule.EvDropped}

func (e *execution) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /replica", e.handleReplica)
	mux.HandleFunc("POST /message", e.handleMessage)
	mux.HandleFunc("POST /event", e.handleEvent)
	return mux
}

// replicaID is a replica id in the API: a string ("1"), or a number.
type replicaID string

func (id *replicaID) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*id = replicaID(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("replica id %s: want a string such as \"1\"", b)
	}
	*id = replicaID(n.String())
	return nil
}

// lookupLocked finds a replica by id; what is wrong otherwise.
func (e *execution) lookupLocked(field string, id replicaID) (*replica, string) {
	if id == "" {
		return nil, fmt.Sprintf("missing %q", field)
	}
	n, err := strconv.Atoi(string(id))
	if err != nil || n < 1 || n > len(e.reps) {
		return nil, fmt.Sprintf("%s: unknown replica %q (known: 1..%d)", field, id, len(e.reps))
	}
	return e.reps[n-1], ""
}

// readJSON reads a request body into v; what is wrong otherwise.
func readJSON(r *http.Request, v any) ([]byte, string) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return nil, "reading the body: " + err.Error()
	}
	if len(body) > maxBody {
		return nil, fmt.Sprintf("body larger than %d bytes", maxBody)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return nil, "malformed JSON: " + jsonError(body, err).Error()
	}
	return body, ""
}

func (e *execution) reply(w http.ResponseWriter, r *http.Request, problem string) {
	w.Header().Set("Content-Type", "application/json")
	if problem == "" {
		_, _ = w.Write([]byte(`{"ok":true}` + "\n"))
		return
	}
	if strings.Contains(problem, " is crashed") {
		// A message sent to a replica that crashed in this schedule is
		// normal (the trace has a drop event); logged for debugging only.
		e.s.log.Debug("interception server: refused", "path", r.URL.Path, "remote", r.RemoteAddr, "error", problem)
	} else {
		e.s.log.Warn("interception server: bad request", "path", r.URL.Path, "remote", r.RemoteAddr, "error", problem)
	}
	w.WriteHeader(http.StatusBadRequest)
	b, _ := json.Marshal(map[string]string{"error": problem})
	_, _ = w.Write(append(b, '\n'))
}

func (e *execution) handleReplica(w http.ResponseWriter, r *http.Request) {
	var reg struct {
		ID    replicaID       `json:"id"`
		Addr  string          `json:"addr"`
		Ready bool            `json:"ready"`
		Info  json.RawMessage `json:"info"`
	}
	if _, problem := readJSON(r, &reg); problem != "" {
		e.reply(w, r, problem)
		return
	}
	e.reply(w, r, e.register(reg.ID, reg.Addr, reg.Ready, reg.Info))
}

func (e *execution) register(id replicaID, addr string, ready bool, info json.RawMessage) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.over {
		return "the execution is over"
	}
	rep, problem := e.lookupLocked("id", id)
	if problem != "" {
		return problem
	}
	if !rep.up() {
		return fmt.Sprintf("replica %s is crashed", id)
	}
	if addr == "" && e.cl.register() {
		return `missing "addr": where the replica listens for deliveries`
	}
	rep.addr, rep.info = addr, info
	e.activity = time.Now()
	if ready && !rep.isReady {
		rep.isReady = true
		close(rep.ready)
	}
	return ""
}

func (e *execution) handleMessage(w http.ResponseWriter, r *http.Request) {
	var m struct {
		From   replicaID       `json:"from"`
		To     replicaID       `json:"to"`
		Type   string          `json:"type"`
		Params json.RawMessage `json:"params"`
	}
	body, problem := readJSON(r, &m)
	if problem != "" {
		e.reply(w, r, problem)
		return
	}
	// A message's params in the etcdraft adapter's order (mapper/etcdraft.go
	// reads them by name); other params follow, sorted.
	args, problem := paramArgs(m.Params, schedule.RaftMessageArgs(), nil)
	if problem != "" {
		e.reply(w, r, problem)
		return
	}
	e.reply(w, r, e.message(m.From, m.To, m.Type, args, body))
}

// message records a message handed over and puts it in its receiver's
// inbox; a message to a crashed replica is dropped.
func (e *execution) message(fromID, toID replicaID, typ string, args []schedule.Arg, body []byte) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.over {
		return "the execution is over"
	}
	from, problem := e.lookupLocked("from", fromID)
	if problem != "" {
		return problem
	}
	to, problem := e.lookupLocked("to", toID)
	if problem != "" {
		return problem
	}
	if !from.up() {
		return fmt.Sprintf("from: replica %s is crashed", fromID)
	}
	e.activity = time.Now()
	e.nextMsg++
	id := e.nextMsg
	e.record(schedule.EvSend, from.index, to.index, id, typ, args)
	if !to.up() {
		e.record(schedule.EvDrop, to.index, from.index, id, typ, nil)
		return fmt.Sprintf("to: replica %s is crashed; message dropped", toID)
	}
	to.inbox = append(to.inbox, envelope{id: id, from: from.index, typ: typ, args: args, body: body})
	return ""
}

func (e *execution) handleEvent(w http.ResponseWriter, r *http.Request) {
	var ev struct {
		Replica replicaID       `json:"replica"`
		Type    string          `json:"type"`
		Params  json.RawMessage `json:"params"`
	}
	if _, problem := readJSON(r, &ev); problem != "" {
		e.reply(w, r, problem)
		return
	}
	if ev.Type == "" {
		e.reply(w, r, `missing "type"`)
		return
	}
	if slices.Contains(reservedKinds, ev.Type) {
		e.reply(w, r, fmt.Sprintf("type %q is reserved for the fuzzer's own events", ev.Type))
		return
	}
	kind, typ := ev.Type, ev.Type
	var role string
	// The params of the Raft events raftkv reports in the etcdraft
	// adapter's order; other params follow, sorted.
	order, _ := schedule.RaftEventArgs(ev.Type)
	args, problem := paramArgs(ev.Params, order, func(k string, v json.RawMessage) bool {
		if ev.Type == schedule.EvRole && k == schedule.ArgRole {
			_ = json.Unmarshal(v, &role)
			return false
		}
		return true
	})
	if problem != "" {
		e.reply(w, r, problem)
		return
	}
	switch ev.Type {
	case schedule.EvRole:
		typ = schedule.EvRole
		if role != "" {
			typ = role
		}
	case schedule.TypeProposal: // a dropped proposal, as the etcdraft adapter names it
		kind = schedule.EvDropped
	}
	e.reply(w, r, e.event(ev.Replica, kind, typ, args))
}

// event records a replica's event. The step's own event (timeout, restart,
// request) takes the args of the first report of its kind by its replica.
func (e *execution) event(id replicaID, kind, typ string, args []schedule.Arg) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.over {
		return "the execution is over"
	}
	rep, problem := e.lookupLocked("replica", id)
	if problem != "" {
		return problem
	}
	if !rep.up() {
		return fmt.Sprintf("replica %s is crashed", id)
	}
	e.activity = time.Now()
	if e.startup && kind == schedule.EvRestart {
		return "" // the first start is not a restart
	}
	if e.merge >= 0 {
		if own := &e.trace[e.merge]; own.Kind == kind && own.Node == rep.index {
			own.Args = mergeArgs(own.Args, args)
			e.merge = -1
			return ""
		}
	}
	e.record(kind, rep.index, -1, 0, typ, args)
	return ""
}

// mergeArgs overwrites the args of base with those of add of the same key
// and appends the others.
func mergeArgs(base, add []schedule.Arg) []schedule.Arg {
	out := append([]schedule.Arg(nil), base...)
next:
	for _, a := range add {
		for i := range out {
			if out[i].Key == a.Key {
				out[i] = a
				continue next
			}
		}
		out = append(out, a)
	}
	return out
}

// paramArgs turns a params object into args: the keys of order first, in
// that order, then the others sorted. Numbers become integers (a number
// with a fraction is kept as a string), booleans 0/1, strings strings,
// objects and arrays their compact JSON; null is left out. keep, when set,
// filters keys.
func paramArgs(raw json.RawMessage, order []string, keep func(string, json.RawMessage) bool) ([]schedule.Arg, string) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, ""
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, `"params" must be an object`
	}
	keys := make([]string, 0, len(m))
	for _, k := range order {
		if _, ok := m[k]; ok {
			keys = append(keys, k)
		}
	}
	rest := make([]string, 0, len(m))
	for k := range m {
		if !slices.Contains(order, k) {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	keys = append(keys, rest...)
	args := make([]schedule.Arg, 0, len(keys))
	for _, k := range keys {
		v := m[k]
		if keep != nil && !keep(k, v) {
			continue
		}
		a, ok := paramArg(k, v)
		if ok {
			args = append(args, a)
		}
	}
	return args, ""
}

func paramArg(k string, v json.RawMessage) (schedule.Arg, bool) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return schedule.Arg{}, false
	}
	switch v[0] {
	case '"':
		var s string
		_ = json.Unmarshal(v, &s)
		return schedule.S(k, s), true
	case 't':
		return schedule.I(k, 1), true
	case 'f':
		return schedule.I(k, 0), true
	case 'n':
		return schedule.Arg{}, false
	case '{', '[':
		var b bytes.Buffer
		if err := json.Compact(&b, v); err != nil {
			return schedule.S(k, string(v)), true
		}
		return schedule.S(k, b.String()), true
	}
	if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
		return schedule.I(k, n), true
	}
	if f, err := strconv.ParseFloat(string(v), 64); err == nil && f == float64(int64(f)) && strings.ContainsAny(string(v), ".eE") {
		return schedule.I(k, int64(f)), true
	}
	return schedule.S(k, string(v)), true
}
