package schedule

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/modelfuzz/modelfuzz/internal/jsonerr"
)

// Action is what a step asks of a process.
type Action string

// The actions of a schedule (ARCHITECTURE.md, "The input"). The first five
// are every adapter's; the others are declared by the adapters that
// implement them (SystemSpec.Actions).
const (
	// Deliver delivers up to Messages messages from the process's inbox, in
	// arrival order (which preserves the order of every sender-receiver pair).
	Deliver Action = "deliver"
	// Crash stops the process: its volatile state and inbox are lost. With
	// a Point, the crash is armed instead and happens the next time the
	// process reaches that point of its own work (SystemSpec.CrashPoints).
	Crash Action = "crash"
	// Restart starts a crashed process again from its durable state.
	Restart Action = "restart"
	// Timeout fires the process's election (or protocol) timer.
	Timeout Action = "timeout"
	// Request makes a client request with Value arrive at the process.
	Request Action = "request"
	// Drop loses the K-th pending message of the process's inbox (1-based,
	// counted modulo the inbox's length).
	Drop Action = "drop"
	// Duplicate puts a second copy of the K-th pending message at the end of
	// the inbox: the message is received twice.
	Duplicate Action = "duplicate"
	// DeliverOne delivers the K-th deliverable message of the inbox, out of
	// arrival order.
	DeliverOne Action = "deliver-one"
	// Partition cuts the processes of Set from the others: messages across
	// the cut are held (not deliverable) until Heal. The step's process is
	// not used.
	Partition Action = "partition"
	// Heal ends the partition; held messages become deliverable.
	Heal Action = "heal"
	// ConfChange proposes a configuration change (Conf, see ParseConf) at
	// the process.
	ConfChange Action = "conf-change"
	// TransferLeader asks the process (a leader) to hand leadership to To.
	TransferLeader Action = "transfer-leader"
	// Read makes a client read arrive at the process.
	Read Action = "read"
	// Tick advances the process's logical clock by N ticks.
	Tick Action = "tick"
	// HoldWrites makes the process's storage hold its writes (they wait,
	// in order, not durable, their acknowledgements with them) until a
	// Persist step at the process, or until N more steps have run.
	HoldWrites Action = "hold-writes"
	// Persist makes the writes the process's storage holds durable, in
	// order, and hands their acknowledgements on.
	Persist Action = "persist"
)

// AllActions lists the actions in a fixed order (the stored inputs' action
// numbers: new actions go at the end).
var AllActions = []Action{Deliver, Crash, Restart, Timeout, Request,
	Drop, Duplicate, DeliverOne, Partition, Heal, ConfChange, TransferLeader, Read, Tick, HoldWrites, Persist}

// BaseActions are the actions of every adapter.
var BaseActions = AllActions[:5]

// Valid reports whether a is one of the known actions.
func (a Action) Valid() bool {
	for _, b := range AllActions {
		if a == b {
			return true
		}
	}
	return false
}

// ParseActions reads a comma-separated list of action names.
func ParseActions(list string) ([]Action, error) {
	var out []Action
	for _, f := range strings.Split(list, ",") {
		a := Action(strings.TrimSpace(f))
		if a == "" {
			continue
		}
		if !a.Valid() {
			return nil, fmt.Errorf("unknown action %q (known: %s)", string(a), actionList(AllActions))
		}
		out = append(out, a)
	}
	return out, nil
}

func actionList(as []Action) string {
	s := make([]string, len(as))
	for i, a := range as {
		s[i] = string(a)
	}
	return strings.Join(s, ", ")
}

// The crash points of a crash step (SystemSpec.CrashPoints says which a
// system has): a Raft application's Ready handling, where the durable
// writes and the sends of one Ready can be torn apart.
const (
	AfterPersist = "after-persist" // the Ready's writes are durable, its messages not sent
	AfterSend    = "after-send"    // its messages are sent, its committed entries not applied
	MidApply     = "mid-apply"     // after the first of its committed entries is applied
)

// CrashPoints lists the crash points in a fixed order.
var CrashPoints = []string{AfterPersist, AfterSend, MidApply}

// ProcSet is a set of processes (0..15), written in JSON as a sorted list.
type ProcSet uint16

// Has reports whether p is in the set.
func (s ProcSet) Has(p int) bool { return p >= 0 && p < 16 && s&(1<<p) != 0 }

// Procs lists the set's processes in increasing order.
func (s ProcSet) Procs() []int {
	var out []int
	for p := 0; p < 16; p++ {
		if s.Has(p) {
			out = append(out, p)
		}
	}
	return out
}

// String renders the set as "{0,2}".
func (s ProcSet) String() string {
	b := []byte{'{'}
	for i, p := range s.Procs() {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(p), 10)
	}
	return string(append(b, '}'))
}

// MarshalJSON writes the set as a list of processes.
func (s ProcSet) MarshalJSON() ([]byte, error) {
	return []byte("[" + strings.Trim(s.String(), "{}") + "]"), nil
}

// UnmarshalJSON reads a list of processes.
func (s *ProcSet) UnmarshalJSON(b []byte) error {
	var ps []int
	if err := json.Unmarshal(b, &ps); err != nil {
		return fmt.Errorf("\"set\" must be a list of process numbers")
	}
	*s = 0
	for _, p := range ps {
		if p < 0 || p >= 16 {
			return fmt.Errorf("\"set\": process %d out of range 0..15", p)
		}
		*s |= 1 << p
	}
	return nil
}

// Step is one (process, action) pair of a schedule, with the action's
// parameters; the parameters an action does not take are zero.
type Step struct {
	Process  int     `json:"process"`
	Action   Action  `json:"action"`
	Messages int     `json:"messages,omitempty"` // deliver: how many messages at most
	Value    int     `json:"value,omitempty"`    // request: the client's value
	K        int     `json:"k,omitempty"`        // drop, duplicate, deliver-one: which pending message (1-based)
	N        int     `json:"n,omitempty"`        // tick: how many ticks
	To       int     `json:"to,omitempty"`       // transfer-leader: the process to hand leadership to
	Point    string  `json:"point,omitempty"`    // crash: the crash point, "" for at once
	Set      ProcSet `json:"set,omitempty"`      // partition: the processes cut from the others
	Conf     string  `json:"conf,omitempty"`     // conf-change: the changes (ParseConf)
}

// String renders a step compactly, e.g. "p2 deliver(3)", "p0 request(7)".
func (s Step) String() string {
	return "p" + strconv.Itoa(s.Process) + " " + s.Call()
}

// Call renders the action with its parameters, e.g. "deliver(3)",
// "crash(after-send)", "partition{0,2}".
func (s Step) Call() string {
	arg := func(x string) string { return string(s.Action) + "(" + x + ")" }
	switch s.Action {
	case Deliver:
		return arg(strconv.Itoa(s.Messages))
	case Request:
		return arg(strconv.Itoa(s.Value))
	case Drop, Duplicate, DeliverOne:
		return arg(strconv.Itoa(s.K))
	case Tick, HoldWrites:
		return arg(strconv.Itoa(s.N))
	case TransferLeader:
		return arg("p" + strconv.Itoa(s.To))
	case Crash:
		if s.Point != "" {
			return arg(s.Point)
		}
	case Partition:
		return string(s.Action) + s.Set.String()
	case ConfChange:
		return arg(s.Conf)
	}
	return string(s.Action)
}

// Global reports whether the action concerns the whole system rather than
// its step's process (partition, heal).
func (a Action) Global() bool { return a == Partition || a == Heal }

// ConfOp is one change of a conf-change step.
type ConfOp struct {
	Op      string // "add-voter", "add-learner", "remove"
	Process int
}

// Conf is a conf-change step's request.
type Conf struct {
	Ops   []ConfOp
	Leave bool // leave a joint configuration
	Auto  bool // several changes: leave the joint configuration by itself
}

// ParseConf reads a conf-change's changes: "leave" (leave a joint
// configuration), or a comma-separated list of "add-voter P",
// "add-learner P" and "remove P" (P a process number), optionally after
// "auto " . One change is a simple change; several enter a joint
// configuration that a later "leave" ends, or, with "auto", that the
// leader leaves by itself.
func ParseConf(conf string) (Conf, error) {
	conf = strings.TrimSpace(conf)
	if conf == "leave" {
		return Conf{Leave: true}, nil
	}
	var c Conf
	if rest, ok := strings.CutPrefix(conf, "auto "); ok {
		c.Auto, conf = true, rest
	}
	for _, f := range strings.Split(conf, ",") {
		op, num, ok := strings.Cut(strings.TrimSpace(f), " ")
		p, perr := strconv.Atoi(strings.TrimSpace(num))
		if !ok || perr != nil || p < 0 || (op != "add-voter" && op != "add-learner" && op != "remove") {
			return Conf{}, fmt.Errorf("bad conf-change %q: want \"leave\" or a list of \"add-voter P\", \"add-learner P\", \"remove P\" (after \"auto \" for a joint change left by itself)", f)
		}
		for _, o := range c.Ops {
			if o.Process == p {
				return Conf{}, fmt.Errorf("bad conf-change %q: process %d changed twice", conf, p)
			}
		}
		c.Ops = append(c.Ops, ConfOp{Op: op, Process: p})
	}
	if c.Auto && len(c.Ops) < 2 {
		return Conf{}, fmt.Errorf("bad conf-change %q: \"auto\" is for joint changes (two or more)", conf)
	}
	return c, nil
}

// Input is a schedule: the sequence of steps the fuzzer asks a system to run.
type Input struct {
	Steps []Step `json:"steps"`
}

// InputVersion is the version of the JSON encoding of inputs.
const InputVersion = 1

// The limits of an input and of its execution: each is checked where the
// input is read or validated, and named in the error that refuses it, so
// that no input (a mistyped flag, an edited file, a mutant) can make an
// execution run for hours or take the machine's memory.
const (
	// MaxSteps is the most steps an input has (--steps is at most it).
	MaxSteps = 10000
	// MaxTicks is the most ticks one tick step advances a clock by.
	MaxTicks = 1000
	// MaxMessages is the most messages one deliver step asks for, and the
	// highest position ("k") of a pending message a step names.
	MaxMessages = 1000
	// MaxInputBytes is the largest input file read (and imported).
	MaxInputBytes = 16 << 20
	// MaxEvents is the most events one execution records: an execution
	// that reaches it is stopped there (ErrTooManyEvents).
	MaxEvents = 200000
)

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
	if len(in.Steps) > MaxSteps {
		return tooManySteps(len(in.Steps))
	}
	for i, s := range in.Steps {
		if err := s.validate(spec); err != nil {
			return stepError(i, s, err)
		}
	}
	return nil
}

// stepError says which step err is about: "step 3 (tick): ...".
func stepError(i int, s Step, err error) error {
	if !s.Action.Valid() {
		return fmt.Errorf("step %d: %w", i, err)
	}
	return fmt.Errorf("step %d (%s): %w", i, s.Action, err)
}

func (s Step) validate(spec *SystemSpec) error {
	if !s.Action.Valid() {
		return fmt.Errorf("unknown action %q (want one of %s)", string(s.Action), actionList(AllActions))
	}
	if s.Process < 0 {
		return fmt.Errorf("process %d is negative", s.Process)
	}
	// The parameters each action takes; every other one must be zero.
	var takes string
	switch s.Action {
	case Deliver:
		takes = "messages"
		if s.Messages < 1 {
			return fmt.Errorf("deliver needs \"messages\" >= 1, got %d", s.Messages)
		}
		if s.Messages > MaxMessages {
			return fmt.Errorf("\"messages\" %d: at most %d messages a step (schedule.MaxMessages)", s.Messages, MaxMessages)
		}
	case Request:
		takes = "value"
	case Drop, Duplicate, DeliverOne:
		takes = "k"
		if s.K < 1 {
			return fmt.Errorf("%s needs \"k\" >= 1 (which pending message), got %d", s.Action, s.K)
		}
		if s.K > MaxMessages {
			return fmt.Errorf("\"k\" %d: at most %d (schedule.MaxMessages)", s.K, MaxMessages)
		}
	case Tick, HoldWrites:
		takes = "n"
		if s.N < 1 {
			return fmt.Errorf("%s needs \"n\" >= 1, got %d", s.Action, s.N)
		}
		if s.N > MaxTicks {
			return fmt.Errorf("\"n\" %d: at most %d ticks a step (schedule.MaxTicks)", s.N, MaxTicks)
		}
	case TransferLeader:
		takes = "to"
		if s.To < 0 {
			return fmt.Errorf("transfer-leader: \"to\" %d is negative", s.To)
		}
	case Crash:
		takes = "point"
		if s.Point != "" && !slices.Contains(CrashPoints, s.Point) {
			return fmt.Errorf("unknown crash point %q (want one of %s)", s.Point, strings.Join(CrashPoints, ", "))
		}
	case Partition:
		takes = "set"
		if s.Set == 0 {
			return fmt.Errorf("partition needs a non-empty \"set\"")
		}
	case ConfChange:
		takes = "conf"
		if _, err := ParseConf(s.Conf); err != nil {
			return err
		}
	}
	for _, f := range []struct {
		name string
		set  bool
	}{{"messages", s.Messages != 0}, {"value", s.Value != 0}, {"k", s.K != 0}, {"n", s.N != 0},
		{"to", s.To != 0}, {"point", s.Point != ""}, {"set", s.Set != 0}, {"conf", s.Conf != ""}} {
		if f.set && f.name != takes {
			return fmt.Errorf("%s takes no %q", s.Action, f.name)
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
	return s.validateFor(spec)
}

// validateFor checks the parameters that name processes or points against
// the system.
func (s Step) validateFor(spec *SystemSpec) error {
	inRange := func(what string, p int) error {
		if p >= spec.Processes {
			return fmt.Errorf("%s: process %d out of range: the system has processes 0..%d", what, p, spec.Processes-1)
		}
		return nil
	}
	switch s.Action {
	case TransferLeader:
		return inRange("transfer-leader", s.To)
	case Crash:
		if s.Point != "" && !slices.Contains(spec.CrashPoints, s.Point) {
			return fmt.Errorf("system %s has no crash point %q", spec.Name, s.Point)
		}
	case Partition:
		all := ProcSet(1<<spec.Processes - 1)
		if s.Set&^all != 0 {
			return inRange("partition", s.Set.Procs()[len(s.Set.Procs())-1])
		}
		if s.Set == all {
			return fmt.Errorf("partition: the set holds every process; nothing is cut")
		}
	case ConfChange:
		c, _ := ParseConf(s.Conf)
		for _, o := range c.Ops {
			if err := inRange("conf-change", o.Process); err != nil {
				return err
			}
		}
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
		dst = s.appendParams(dst)
		dst = append(dst, '}')
	}
	if len(in.Steps) > 0 {
		dst = append(dst, nl+ind...)
	}
	dst = append(dst, "]"+nl+"}"...)
	return dst
}

// appendParams appends the parameters of the newer actions. "to" is
// written even when 0 (process 0 is a target).
func (s Step) appendParams(dst []byte) []byte {
	num := func(key string, v int) {
		dst = append(dst, `,"`+key+`":`...)
		dst = strconv.AppendInt(dst, int64(v), 10)
	}
	if s.K != 0 {
		num("k", s.K)
	}
	if s.N != 0 {
		num("n", s.N)
	}
	if s.Action == TransferLeader || s.To != 0 {
		num("to", s.To)
	}
	if s.Point != "" {
		dst = append(dst, `,"point":`...)
		q, _ := json.Marshal(s.Point)
		dst = append(dst, q...)
	}
	if s.Set != 0 {
		b, _ := s.Set.MarshalJSON()
		dst = append(dst, `,"set":`...)
		dst = append(dst, b...)
	}
	if s.Conf != "" {
		dst = append(dst, `,"conf":`...)
		q, _ := json.Marshal(s.Conf)
		dst = append(dst, q...)
	}
	return dst
}

// EncodeInput returns the stable JSON encoding of in, ending in a newline.
func EncodeInput(in *Input) []byte {
	return append(in.AppendJSON(nil, true), '\n')
}

// InputSystem is the system an input file was written from (a campaign's
// adapter and its configuration), so that replaying the file runs it on
// that system rather than on the command line's default, and the model
// the campaign checked it against (its name or path, and its cfg when not
// the default), so that a divergence replays as a divergence.
type InputSystem struct {
	Adapter     string          `json:"adapter"`
	Config      json.RawMessage `json:"config,omitempty"`
	Model       string          `json:"model,omitempty"`
	ModelConfig string          `json:"model_config,omitempty"`
}

// EncodeInputFor is EncodeInput with the system it runs on.
func EncodeInputFor(in *Input, sys *InputSystem) []byte {
	if sys == nil {
		return EncodeInput(in)
	}
	b, _ := json.Marshal(sys)
	enc := in.AppendJSON(nil, true)
	// {"version":1,... -> {"version":1,"system":{...},...
	if i := bytes.IndexByte(enc, ','); i > 0 {
		enc = append(enc[:i:i], append(append([]byte(`,"system":`), b...), enc[i:]...)...)
	}
	return append(enc, '\n')
}

// DecodeInput parses and validates an input file. Unknown fields, a wrong
// version and invalid steps are errors naming the problem and, where it
// has one, its line and column (a *jsonerr.Error: jsonerr.In names the
// file).
func DecodeInput(data []byte) (*Input, error) {
	in, _, err := DecodeInputFile(data)
	return in, err
}

// DecodeInputFile is DecodeInput that also returns the system the file
// names (nil when it names none).
func DecodeInputFile(data []byte) (*Input, *InputSystem, error) {
	if len(data) > MaxInputBytes {
		return nil, nil, tooLarge(int64(len(data)))
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil, &jsonerr.Error{Msg: "empty file, not an input"}
	}
	if e := jsonerr.Check(data); e != nil {
		return nil, nil, e
	}
	// An input is an object: say so before encoding/json reads the rest
	// of whatever it is.
	if first := bytes.TrimLeft(data, " \t\r\n"); first[0] != '{' {
		return nil, nil, jsonerr.At(data, int64(len(data)-len(first)), "want an object {\"version\": %d, \"steps\": [...]}, found %s", InputVersion, kindOf(first[0]))
	}
	var raw struct {
		Version *int            `json:"version"`
		System  *InputSystem    `json:"system"`
		Steps   json.RawMessage `json:"steps"`
	}
	if err := jsonerr.Decode(data, &raw); err != nil {
		return nil, nil, err
	}
	if raw.Version == nil {
		return nil, nil, &jsonerr.Error{Msg: fmt.Sprintf("missing \"version\" (want %d)", InputVersion)}
	}
	if *raw.Version != InputVersion {
		return nil, nil, &jsonerr.Error{Msg: fmt.Sprintf("unsupported version %d (want %d)", *raw.Version, InputVersion)}
	}
	if raw.Steps == nil || string(raw.Steps) == "null" {
		return nil, nil, &jsonerr.Error{Msg: "missing \"steps\""}
	}
	if raw.System != nil && raw.System.Adapter == "" {
		return nil, nil, &jsonerr.Error{Msg: "\"system\" names no \"adapter\""}
	}
	// The steps one by one, each with its place in the file.
	base := int64(bytes.Index(data, raw.Steps))
	if raw.Steps[0] != '[' {
		return nil, nil, jsonerr.At(data, base, "\"steps\" is %s, want an array", kindOf(raw.Steps[0]))
	}
	in := &Input{}
	dec := json.NewDecoder(bytes.NewReader(raw.Steps))
	dec.Token() // the '[' seen above
	for dec.More() {
		if len(in.Steps) == MaxSteps {
			n := len(in.Steps)
			for dec.More() {
				var skip json.RawMessage
				if dec.Decode(&skip) != nil {
					break
				}
				n++
			}
			return nil, nil, tooManySteps(n)
		}
		at := skipSpace(raw.Steps, dec.InputOffset())
		var one json.RawMessage
		if err := dec.Decode(&one); err != nil {
			return nil, nil, jsonerr.Describe(data, offsetError(err, base))
		}
		var st Step
		sd := json.NewDecoder(bytes.NewReader(one))
		sd.DisallowUnknownFields()
		if err := sd.Decode(&st); err != nil {
			e := jsonerr.Describe(one, err)
			if e.Line > 0 { // placed in the step: place it in the file
				return nil, nil, jsonerr.At(data, base+at+offsetIn(one, e.Line, e.Col), "%s", e.Msg)
			}
			return nil, nil, jsonerr.At(data, base+at, "step %d: %s", len(in.Steps), e.Msg)
		}
		if err := st.validate(nil); err != nil {
			return nil, nil, jsonerr.At(data, base+at, "%v", stepError(len(in.Steps), st, err))
		}
		in.Steps = append(in.Steps, st)
	}
	return in, raw.System, nil
}

// ReadInputFile reads and decodes the input file at path. Its errors name
// the file: "input F:3:7: step 2 (tick): ...".
func ReadInputFile(path string) (*Input, *InputSystem, error) {
	data, err := jsonerr.ReadFile(path, MaxInputBytes, "an input file", "schedule.MaxInputBytes")
	if err != nil {
		return nil, nil, fmt.Errorf("input %w", err)
	}
	in, sys, err := DecodeInputFile(data)
	if err != nil {
		return nil, nil, fmt.Errorf("input %w", jsonerr.In(path, err))
	}
	return in, sys, nil
}

func tooLarge(n int64) error {
	return &jsonerr.Error{Msg: fmt.Sprintf("%s: an input holds at most %s (schedule.MaxInputBytes)", jsonerr.SizeText(n), jsonerr.SizeText(MaxInputBytes))}
}

func tooManySteps(n int) error {
	return fmt.Errorf("%d steps: at most %d steps an input (schedule.MaxSteps)", n, MaxSteps)
}

// kindOf names the JSON value that starts with c.
func kindOf(c byte) string {
	switch {
	case c == '[':
		return "an array"
	case c == '{':
		return "an object"
	case c == '"':
		return "a string"
	case c == 'n':
		return "null"
	case c == 't' || c == 'f':
		return "true or false"
	case c == '-' || (c >= '0' && c <= '9'):
		return "a number"
	}
	return fmt.Sprintf("%q", rune(c))
}

func skipSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) && strings.IndexByte(" \t\r\n,", data[off]) >= 0 {
		off++
	}
	return off
}

// offsetError moves the offset of a syntax or type error by base.
func offsetError(err error, base int64) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		se.Offset += base
	case errors.As(err, &te):
		te.Offset += base
	}
	return err
}

// offsetIn is the byte offset of line:col (1-based) in data.
func offsetIn(data []byte, line, col int) int64 {
	l, c := 1, 1
	for i := range data {
		if l == line && c == col {
			return int64(i)
		}
		if data[i] == '\n' {
			l, c = l+1, 1
		} else if data[i]&0xc0 != 0x80 {
			c++
		}
	}
	return int64(len(data))
}

// jsonErr words encoding/json's errors in JSON's terms, with a
// line:column position.
func jsonErr(data []byte, err error) string { return jsonerr.Describe(data, err).Error() }

// LineColumn is the position of the byte encoding/json's errors point at:
// their Offset counts the bytes read, the offending one included.
func LineColumn(data []byte, offset int64) (line, col int) {
	return jsonerr.LineColumn(data, offset)
}
