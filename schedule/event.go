package schedule

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Event kinds shared by adapters. Adapters may add their own kinds (a Raft
// adapter reports role changes, commits, snapshots); the ones here have a
// meaning the fuzzer relies on.
const (
	EvSend     = "send"     // Node sent message Msg to Peer
	EvRecv     = "recv"     // Node received message Msg from Peer
	EvCrash    = "crash"    // Node crashed
	EvRestart  = "restart"  // Node restarted from its durable state
	EvTimeout  = "timeout"  // Node's timer fired
	EvRequest  = "request"  // a client request arrived at Node
	EvResponse = "response" // Node answered a client request
	EvSkip     = "skip"     // the step could not run in this state
	// EvDuplicate: a second copy of a message pending at Node (sent by
	// Peer) was put in its inbox; Msg is the copy's id, a new message, and
	// the arg ArgCopyOf (when the adapter gives it) the id of the message
	// copied.
	EvDuplicate = "duplicate"
	// EvDrop: the network lost message Msg on its way to Node (sent by
	// Peer); Type is the message's.
	EvDrop = "drop"
	// EvExit: Node's process exited by itself (a system of real
	// processes); it is crashed from then on.
	EvExit = "exit"
)

// ArgCopyOf is the arg of a duplicate event naming the message copied. It
// is an id, like Msg: labels leave it out, and the trace's partial order
// links the duplicate to that message's send.
const ArgCopyOf = "of"

// ArgCopy is 1 on the recv of a copy that a duplicate event made.
const ArgCopy = "copy"

// Arg is one named field of an event, an integer or a string.
type Arg struct {
	Key   string
	Int   int64
	Str   string
	IsStr bool
}

// I makes an integer argument.
func I(key string, v int64) Arg { return Arg{Key: key, Int: v} }

// S makes a string argument.
func S(key, v string) Arg { return Arg{Key: key, Str: v, IsStr: true} }

// Event is one observable thing that happened during an execution.
// Events of one node are in program order; a recv names the Msg id of its
// send, which gives the happens-before partial order of the execution.
type Event struct {
	Step int    // index of the input step during which it happened
	Kind string // EvSend, EvRecv, ... or an adapter's own kind
	Node int    // the process where it happened
	Peer int    // send: receiver, recv: sender; -1 when none
	Msg  int    // message id linking a send to its recv; 0 when none
	Type string // message type or event detail, e.g. "execute", "MsgApp"
	Args []Arg  // fields in a fixed order chosen by the adapter
}

// Trace is the sequence of events of one execution, in execution order.
type Trace []Event

// Clone returns a deep copy of the trace that does not share memory with
// the system that produced it.
func (t Trace) Clone() Trace {
	out := make(Trace, len(t))
	n := 0
	for i := range t {
		n += len(t[i].Args)
	}
	args := make([]Arg, 0, n)
	for i := range t {
		out[i] = t[i]
		if t[i].Args != nil {
			start := len(args)
			args = append(args, t[i].Args...)
			out[i].Args = args[start:len(args):len(args)]
		}
	}
	return out
}

// Label renders the event's content without positions or ids, e.g.
// "execute req=1 k=3".
func (e *Event) Label() string { return e.labelWith(nil) }

// labelWith is Label with intArg rendering the integer args it knows (it
// reports false for the others, which are written as numbers).
func (e *Event) labelWith(intArg func(key string, v int64) (string, bool)) string {
	var b strings.Builder
	b.WriteString(e.Type)
	for _, a := range e.Args {
		if e.Kind == EvDuplicate && a.Key == ArgCopyOf {
			continue
		}
		b.WriteByte(' ')
		b.WriteString(a.Key)
		b.WriteByte('=')
		if a.IsStr {
			b.WriteString(a.Str)
			continue
		}
		if intArg != nil {
			if t, ok := intArg(a.Key, a.Int); ok {
				b.WriteString(t)
				continue
			}
		}
		b.WriteString(strconv.FormatInt(a.Int, 10))
	}
	return b.String()
}

// MarshalJSON writes an event as a flat object with its args in order.
func (e Event) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	e.appendJSON(&b)
	return b.Bytes(), nil
}

func (e *Event) appendJSON(b *bytes.Buffer) {
	b.WriteString(`{"step":`)
	b.WriteString(strconv.Itoa(e.Step))
	b.WriteString(`,"kind":`)
	writeJSONString(b, e.Kind)
	b.WriteString(`,"node":`)
	b.WriteString(strconv.Itoa(e.Node))
	if e.Peer >= 0 {
		b.WriteString(`,"peer":`)
		b.WriteString(strconv.Itoa(e.Peer))
	}
	if e.Msg != 0 {
		b.WriteString(`,"msg":`)
		b.WriteString(strconv.Itoa(e.Msg))
	}
	if e.Type != "" {
		b.WriteString(`,"type":`)
		writeJSONString(b, e.Type)
	}
	if len(e.Args) > 0 {
		b.WriteString(`,"args":{`)
		for i, a := range e.Args {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, a.Key)
			b.WriteByte(':')
			if a.IsStr {
				writeJSONString(b, a.Str)
			} else {
				b.WriteString(strconv.FormatInt(a.Int, 10))
			}
		}
		b.WriteByte('}')
	}
	b.WriteByte('}')
}

// UnmarshalJSON reads the form MarshalJSON writes, keeping the args' order.
func (e *Event) UnmarshalJSON(data []byte) error {
	var raw struct {
		Step int             `json:"step"`
		Kind string          `json:"kind"`
		Node int             `json:"node"`
		Peer *int            `json:"peer"`
		Msg  int             `json:"msg"`
		Type string          `json:"type"`
		Args json.RawMessage `json:"args"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*e = Event{Step: raw.Step, Kind: raw.Kind, Node: raw.Node, Peer: -1, Msg: raw.Msg, Type: raw.Type}
	if raw.Peer != nil {
		e.Peer = *raw.Peer
	}
	if len(raw.Args) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw.Args))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("event args: want an object")
	}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := kt.(string)
		vt, err := dec.Token()
		if err != nil {
			return err
		}
		switch v := vt.(type) {
		case string:
			e.Args = append(e.Args, S(key, v))
		case json.Number:
			n, err := v.Int64()
			if err != nil {
				return fmt.Errorf("event arg %q: %v", key, err)
			}
			e.Args = append(e.Args, I(key, n))
		default:
			return fmt.Errorf("event arg %q: want a string or an integer", key)
		}
	}
	return nil
}

func writeJSONString(b *bytes.Buffer, s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == '"' || c == '\\' || c >= 0x7f {
			q, _ := json.Marshal(s)
			b.Write(q)
			return
		}
	}
	b.WriteByte('"')
	b.WriteString(s)
	b.WriteByte('"')
}

// EncodeTrace returns the stable JSON form of a trace: an array with one
// event per line. Equal traces give equal bytes.
func EncodeTrace(t Trace) []byte {
	var b bytes.Buffer
	b.WriteString("[")
	for i := range t {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n  ")
		t[i].appendJSON(&b)
	}
	if len(t) > 0 {
		b.WriteByte('\n')
	}
	b.WriteString("]\n")
	return b.Bytes()
}

// DecodeTrace parses the form EncodeTrace writes.
func DecodeTrace(data []byte) (Trace, error) {
	var t Trace
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("trace: %s", jsonErr(data, err))
	}
	return t, nil
}

// Timeline renders an input and its execution as text a person can read:
// each step, then the events it caused, indented.
func Timeline(spec *SystemSpec, in *Input, ex *Execution) string {
	var b strings.Builder
	name := spec.actorName
	width := 6
	for p := 0; p < spec.Processes; p++ {
		if n := len(name(p)); n > width {
			width = n
		}
	}
	ev := 0
	failAt := map[int][]Failure{}
	for _, f := range ex.Failures {
		failAt[f.Step] = append(failAt[f.Step], f)
	}
	crashedAt := -1 // a panic ends an in-process execution
	for _, f := range ex.Failures {
		if f.Kind == FailurePanic && (crashedAt < 0 || f.Step < crashedAt) {
			crashedAt = f.Step
		}
	}
	for i, s := range in.Steps {
		if crashedAt >= 0 && i > crashedAt {
			if i == len(in.Steps)-1 {
				fmt.Fprintf(&b, "step %3d  (not run: the system crashed at step %d)\n", i, crashedAt)
			} else {
				fmt.Fprintf(&b, "steps %d..%d  (not run: the system crashed at step %d)\n", i, len(in.Steps)-1, crashedAt)
			}
			break
		}
		fmt.Fprintf(&b, "step %3d  %-*s  %s\n", i, width, name(s.Process), stepText(s))
		n := 0
		for ; ev < len(ex.Trace) && ex.Trace[ev].Step == i; ev++ {
			e := &ex.Trace[ev]
			n++
			switch e.Kind {
			case EvSend:
				fmt.Fprintf(&b, "          %-*s  -> %-*s  %s\n", width, name(e.Node), width, name(e.Peer), spec.label(e))
			case EvRecv:
				fmt.Fprintf(&b, "          %-*s  <- %-*s  %s\n", width, name(e.Node), width, name(e.Peer), spec.label(e))
			case EvProgress:
				// What a leader believes of a follower: the follower too.
				fmt.Fprintf(&b, "          %-*s  PROGRESS %s %s\n", width, name(e.Node), name(e.Peer), spec.label(e))
			default:
				fmt.Fprintf(&b, "          %-*s  %s\n", width, name(e.Node), spec.eventText(e))
			}
		}
		if n == 0 {
			fmt.Fprintf(&b, "          (no effect)\n")
		}
		for _, f := range failAt[i] {
			fmt.Fprintf(&b, "          !! %s: %s\n", f.Kind, f.Message)
		}
	}
	for ; ev < len(ex.Trace); ev++ {
		e := &ex.Trace[ev]
		fmt.Fprintf(&b, "          %-*s  %s (after the last step)\n", width, name(e.Node), spec.eventText(e))
	}
	return b.String()
}

func stepText(s Step) string { return s.Call() }

// actorName names process p, or the client for -1.
func (spec *SystemSpec) actorName(p int) string {
	if p < 0 {
		return "client"
	}
	return spec.ProcessName(p)
}

// EventName names an event in a few words, as a message about it shows
// it: "n3 <- n1 MsgApp", "n1 -> n2 MsgVote", "n2 CRASH", "n1 ROLE leader".
func (spec *SystemSpec) EventName(e *Event) string {
	switch e.Kind {
	case EvSend:
		return spec.actorName(e.Node) + " -> " + spec.actorName(e.Peer) + " " + e.Type
	case EvRecv:
		return spec.actorName(e.Node) + " <- " + spec.actorName(e.Peer) + " " + e.Type
	}
	s := spec.actorName(e.Node) + " " + strings.ToUpper(e.Kind)
	if e.Type != "" && e.Type != e.Kind {
		s += " " + e.Type
	}
	return s
}

// StepName names step i of in (from 0, as timelines number them) as a
// message about it shows it, with the input's length so that a reader
// knows which input the number counts in (an input and its minimized form
// number the same step differently): "step 15 (n3 deliver(1)) of the
// 16-step input".
func (spec *SystemSpec) StepName(in *Input, i int) string {
	if in == nil || i < 0 || i >= len(in.Steps) {
		return "step " + strconv.Itoa(i)
	}
	s := in.Steps[i]
	return fmt.Sprintf("step %d (%s %s) of the %d-step input", i, spec.actorName(s.Process), s.Call(), len(in.Steps))
}

// label is e.Label with the args that name a process (ProcessArgs) shown
// by the process's name.
func (spec *SystemSpec) label(e *Event) string {
	if len(spec.ProcessArgs) == 0 {
		return e.Label()
	}
	return e.labelWith(func(key string, v int64) (string, bool) {
		switch {
		case !slices.Contains(spec.ProcessArgs, key):
			return "", false
		case v < 0:
			return "none", true
		case v < int64(spec.Processes):
			return spec.ProcessName(int(v)), true
		}
		return "", false
	})
}

// eventText renders an event that is not a send or a recv: its kind in
// capitals, then its label without repeating the kind.
func (spec *SystemSpec) eventText(e *Event) string {
	l := spec.label(e)
	if e.Type == e.Kind {
		l = strings.TrimPrefix(strings.TrimPrefix(l, e.Type), " ")
	}
	if l == "" {
		return strings.ToUpper(e.Kind)
	}
	return strings.ToUpper(e.Kind) + " " + l
}
