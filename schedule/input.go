package schedule

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
)

// Action is what a step asks of a process.
type Action string

// The actions of a schedule (ARCHITECTURE.md, "The input").
const (
	// Deliver delivers up to Messages messages from the process's inbox, in
	// arrival order (which preserves the order of every sender-receiver pair).
	Deliver Action = "deliver"
	// Crash stops the process: its volatile state and inbox are lost.
	Crash Action = "crash"
	// Restart starts a crashed process again from its durable state.
	Restart Action = "restart"
	// Timeout fires the process's election (or protocol) timer.
	Timeout Action = "timeout"
	// Request makes a client request with Value arrive at the process.
	Request Action = "request"
)

// AllActions lists the actions in a fixed order.
var AllActions = []Action{Deliver, Crash, Restart, Timeout, Request}

// Valid reports whether a is one of the known actions.
func (a Action) Valid() bool {
	switch a {
	case Deliver, Crash, Restart, Timeout, Request:
		return true
	}
	return false
}

// Step is one (process, action) pair of a schedule.
type Step struct {
	Process  int    `json:"process"`
	Action   Action `json:"action"`
	Messages int    `json:"messages,omitempty"` // deliver: how many messages at most
	Value    int    `json:"value,omitempty"`    // request: the client's value
}

// String renders a step compactly, e.g. "p2 deliver(3)", "p0 request(7)".
func (s Step) String() string {
	switch s.Action {
	case Deliver:
		return "p" + strconv.Itoa(s.Process) + " deliver(" + strconv.Itoa(s.Messages) + ")"
	case Request:
		return "p" + strconv.Itoa(s.Process) + " request(" + strconv.Itoa(s.Value) + ")"
	}
	return "p" + strconv.Itoa(s.Process) + " " + string(s.Action)
}

// Input is a schedule: the sequence of steps the fuzzer asks a system to run.
type Input struct {
	Steps []Step `json:"steps"`
}

// InputVersion is the version of the JSON encoding of inputs.
const InputVersion = 1

// Clone returns a deep copy of the input.
func (in *Input) Clone() *Input {
	return &Input{Steps: append([]Step(nil), in.Steps...)}
}

// Len is the number of steps.
func (in *Input) Len() int { return len(in.Steps) }

// Validate checks the input against its own rules (known actions, positive
// message counts) and, when spec is non-nil, against a system: process
// numbers in range and actions the system supports. Steps that are valid but
// cannot run in a given state (restarting a live process) are not errors;
// systems skip them deterministically.
func (in *Input) Validate(spec *SystemSpec) error {
	if in == nil {
		return fmt.Errorf("input is empty")
	}
	for i, s := range in.Steps {
		if err := s.validate(spec); err != nil {
			return fmt.Errorf("step %d (%s): %w", i, s.Action, err)
		}
	}
	return nil
}

func (s Step) validate(spec *SystemSpec) error {
	if !s.Action.Valid() {
		return fmt.Errorf("unknown action %q (want one of deliver, crash, restart, timeout, request)", string(s.Action))
	}
	if s.Process < 0 {
		return fmt.Errorf("process %d is negative", s.Process)
	}
	switch s.Action {
	case Deliver:
		if s.Messages < 1 {
			return fmt.Errorf("deliver needs \"messages\" >= 1, got %d", s.Messages)
		}
		if s.Value != 0 {
			return fmt.Errorf("deliver takes no \"value\"")
		}
	case Request:
		if s.Messages != 0 {
			return fmt.Errorf("request takes no \"messages\"")
		}
	default:
		if s.Messages != 0 || s.Value != 0 {
			return fmt.Errorf("%s takes no \"messages\" or \"value\"", s.Action)
		}
	}
	if spec == nil {
		return nil
	}
	if s.Process >= spec.Processes {
		return fmt.Errorf("process %d out of range: the system has processes 0..%d", s.Process, spec.Processes-1)
	}
	if !spec.Supports(s.Action) {
		return fmt.Errorf("system %s does not support %s", spec.Name, s.Action)
	}
	return nil
}

// MarshalJSON writes the stable, human-editable form: a version, then one
// step per line.
func (in *Input) MarshalJSON() ([]byte, error) {
	return in.AppendJSON(nil, true), nil
}

// AppendJSON appends the JSON form of the input to dst: with pretty, one
// step per line (the file format); without, on one line (a compact key, as
// minimization's cache of tried inputs uses).
func (in *Input) AppendJSON(dst []byte, pretty bool) []byte {
	nl, ind := "", ""
	if pretty {
		nl, ind = "\n", "  "
	}
	dst = append(dst, '{')
	dst = append(dst, nl+ind+`"version": `...)
	dst = strconv.AppendInt(dst, InputVersion, 10)
	dst = append(dst, ","+nl+ind+`"steps": [`...)
	for i, s := range in.Steps {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, nl+ind+ind+`{"process":`...)
		dst = strconv.AppendInt(dst, int64(s.Process), 10)
		dst = append(dst, `,"action":"`...)
		dst = append(dst, s.Action...) // validated actions need no escaping
		dst = append(dst, '"')
		if s.Messages != 0 {
			dst = append(dst, `,"messages":`...)
			dst = strconv.AppendInt(dst, int64(s.Messages), 10)
		}
		if s.Value != 0 {
			dst = append(dst, `,"value":`...)
			dst = strconv.AppendInt(dst, int64(s.Value), 10)
		}
		dst = append(dst, '}')
	}
	if len(in.Steps) > 0 {
		dst = append(dst, nl+ind...)
	}
	dst = append(dst, "]"+nl+"}"...)
	return dst
}

// EncodeInput returns the stable JSON encoding of in, ending in a newline.
func EncodeInput(in *Input) []byte {
	return append(in.AppendJSON(nil, true), '\n')
}

// DecodeInput parses and validates an input file. Unknown fields, a wrong
// version and invalid steps are errors naming the problem.
func DecodeInput(data []byte) (*Input, error) {
	var raw struct {
		Version *int            `json:"version"`
		Steps   json.RawMessage `json:"steps"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("input: %s", jsonErr(data, err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("input: trailing data after the JSON object")
	}
	if raw.Version == nil {
		return nil, fmt.Errorf("input: missing \"version\" (want %d)", InputVersion)
	}
	if *raw.Version != InputVersion {
		return nil, fmt.Errorf("input: unsupported version %d (want %d)", *raw.Version, InputVersion)
	}
	if raw.Steps == nil {
		return nil, fmt.Errorf("input: missing \"steps\"")
	}
	in := &Input{}
	sd := json.NewDecoder(bytes.NewReader(raw.Steps))
	sd.DisallowUnknownFields()
	if err := sd.Decode(&in.Steps); err != nil {
		return nil, fmt.Errorf("input: steps: %s", jsonErr(raw.Steps, err))
	}
	if err := in.Validate(nil); err != nil {
		return nil, fmt.Errorf("input: %w", err)
	}
	return in, nil
}

// jsonErr adds a line:column position to encoding/json's errors.
func jsonErr(data []byte, err error) string {
	var off int64 = -1
	switch e := err.(type) {
	case *json.SyntaxError:
		off = e.Offset
	case *json.UnmarshalTypeError:
		off = e.Offset
	}
	if err == io.EOF {
		return "empty document"
	}
	if off < 0 {
		return err.Error()
	}
	line, col := LineColumn(data, off)
	return fmt.Sprintf("line %d, column %d: %v", line, col, err)
}

// LineColumn is the position of the byte encoding/json's errors point at:
// their Offset counts the bytes read, the offending one included.
func LineColumn(data []byte, offset int64) (line, col int) {
	line, col = 1, 1
	for i := int64(0); i < offset-1 && i < int64(len(data)); i++ {
		if data[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}
