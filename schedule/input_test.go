package schedule

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func sampleInput() *Input {
	return &Input{Steps: []Step{
		{Process: 0, Action: Request, Value: 7},
		{Process: 2, Action: Deliver, Messages: 3},
		{Process: 1, Action: Crash},
		{Process: 1, Action: Restart},
		{Process: 0, Action: Timeout},
	}}
}

func TestInputRoundTrip(t *testing.T) {
	in := sampleInput()
	b := EncodeInput(in)
	require.Equal(t, `{
  "version": 1,
  "steps": [
    {"process":0,"action":"request","value":7},
    {"process":2,"action":"deliver","messages":3},
    {"process":1,"action":"crash"},
    {"process":1,"action":"restart"},
    {"process":0,"action":"timeout"}
  ]
}
`, string(b))
	out, err := DecodeInput(b)
	require.NoError(t, err)
	require.Equal(t, in, out)
	// The compact storage form decodes to the same input.
	out, err = DecodeInput(in.AppendJSON(nil, false))
	require.NoError(t, err)
	require.Equal(t, in, out)
	// An empty input round-trips too.
	out, err = DecodeInput(EncodeInput(&Input{Steps: []Step{}}))
	require.NoError(t, err)
	require.Empty(t, out.Steps)
}

func TestDecodeInputErrors(t *testing.T) {
	cases := map[string]string{
		``:                               "empty file, not an input",
		" \n\t":                          "empty file, not an input",
		`{"version":1,"steps":[`:         "1:23: the document ends early: cut short?",
		`{"version": 1, "steps": [}`:     "1:26: want a value (an object, an array, a string, a number, true, false or null), found '}'",
		`{"steps":[]}`:                   `missing "version"`,
		`{"version":2,"steps":[]}`:       "unsupported version 2",
		`{"version":"1","steps":[]}`:     `1:2: "version" is a string, want an integer`,
		`{"version":1}`:                  `missing "steps"`,
		`{"version":1,"steps":{}}`:       `1:22: "steps" is an object, want an array`,
		`{"version":1,"steps":[],"x":1}`: `1:25: unknown field "x"`,
		`[1,2]`:                          `1:1: want an object {"version": 1, "steps": [...]}, found an array`,
		"\xef\xbb\xbf{}":                 "1:1: the file starts with a byte order mark",
		"\xff\xfe{\x00}\x00":             "1:1: the file is UTF-16",
		"{\"version\":1,\"steps\":[{\"process\":0,\"action\":\"\xdcber\"}]}":       "1:46: byte 0xDC is not UTF-8",
		`{"version":1,"steps":[{"process":0,"action":"request","value":NaN}]}`:     "1:63: NaN and Infinity are not JSON numbers",
		`{"version":1,"steps":[{"process":0,"action":"jump"}]}`:                    `1:23: step 0: unknown action "jump"`,
		`{"version":1,"steps":[{"process":0,"action":"deliver"}]}`:                 `1:23: step 0 (deliver): deliver needs "messages" >= 1`,
		`{"version":1,"steps":[{"process":0,"action":"deliver","messages":1001}]}`: `"messages" 1001: at most 1000 messages a step (schedule.MaxMessages)`,
		`{"version":1,"steps":[{"process":0,"action":"tick","n":1001}]}`:           `"n" 1001: at most 1000 ticks a step (schedule.MaxTicks)`,
		`{"version":1,"steps":[{"process":0,"action":"drop","k":1001}]}`:           `"k" 1001: at most 1000 (schedule.MaxMessages)`,
		`{"version":1,"steps":[{"process":-1,"action":"crash"}]}`:                  "process -1 is negative",
		`{"version":1,"steps":[{"process":0,"action":"crash","value":3}]}`:         "crash takes no",
		`{"version":1,"steps":[{"process":"a","action":"crash"}]}`:                 `1:24: "process" is a string, want an integer`,
		`{"version":1,"steps":[{"process":1e30,"action":"crash"}]}`:                `1:24: "process" is the number 1e30, out of range for an integer`,
		`{"version":1,"steps":[{"process":1.5,"action":"crash"}]}`:                 `1:24: "process" is the number 1.5, want an integer`,
		`{"version":1,"system":{"config":{}},"steps":[]}`:                          `"system" names no "adapter"`,
		`{"version":1,"steps":[{"process":0,"action":"crash","colour":1}]}`:        `1:53: unknown field "colour"`,
		`{"version":1,"steps":[]} {}`:                                              "1:26: trailing data after the document",
		`{"version":1,"steps":[` + strings.Repeat("[", 10001):                      "nested too deeply",
	}
	for src, want := range cases {
		_, err := DecodeInput([]byte(src))
		require.Error(t, err, src)
		require.Contains(t, err.Error(), want, src)
		for _, goWords := range []string{"Go struct field", "invalid character", "unexpected EOF", "json: ", "exceeded max depth"} {
			require.NotContains(t, err.Error(), goWords, "JSON's words, not Go's")
		}
		require.NotContains(t, err.Error(), "\n", "errors are one line")
	}
	many := `{"version":1,"steps":[` + strings.Repeat(`{"process":0,"action":"timeout"},`, MaxSteps) + `{"process":0,"action":"timeout"}]}`
	_, err := DecodeInput([]byte(many))
	require.EqualError(t, err, "10001 steps: at most 10000 steps an input (schedule.MaxSteps)")
	_, err = DecodeInput(make([]byte, MaxInputBytes+1))
	require.ErrorContains(t, err, "an input holds at most 16 MiB (schedule.MaxInputBytes)")
}

// An input file is read within MaxInputBytes, and its errors name it with
// the line and column.
func TestReadInputFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte("{\"version\": 1, \"steps\": [\n  {\"process\": 0, \"action\": \"tick\", \"n\": 5000}\n]}"), 0o644))
	_, _, err := ReadInputFile(bad)
	require.EqualError(t, err, "input "+bad+":2:3: step 0 (tick): \"n\" 5000: at most 1000 ticks a step (schedule.MaxTicks)")
	_, _, err = ReadInputFile(filepath.Join(dir, "missing.json"))
	require.EqualError(t, err, "input "+filepath.Join(dir, "missing.json")+": no such file")
	_, _, err = ReadInputFile(dir)
	require.EqualError(t, err, "input "+dir+": is a directory, not an input file")
	_, _, err = ReadInputFile("/dev/zero")
	require.EqualError(t, err, "input /dev/zero: larger than 16 MiB: an input file holds at most 16 MiB (schedule.MaxInputBytes)")
}

func TestValidateAgainstSpec(t *testing.T) {
	spec := &SystemSpec{Name: "toy", Processes: 2, Actions: []Action{Deliver, Request}}
	in := &Input{Steps: []Step{{Process: 2, Action: Deliver, Messages: 1}}}
	require.ErrorContains(t, in.Validate(spec), "process 2 out of range: the system has processes 0..1")
	in = &Input{Steps: []Step{{Process: 1, Action: Crash}}}
	require.ErrorContains(t, in.Validate(spec), "does not support crash")
	require.NoError(t, (&Input{Steps: []Step{{Process: 1, Action: Request, Value: 1}}}).Validate(spec))
}

func TestEventJSONRoundTrip(t *testing.T) {
	tr := Trace{
		{Step: 0, Kind: EvSend, Node: 0, Peer: 2, Msg: 1, Type: "execute", Args: []Arg{I("req", 1), I("task", 2)}},
		{Step: 1, Kind: EvRecv, Node: 2, Peer: 0, Msg: 1, Type: "execute", Args: []Arg{I("req", 1), I("task", 2)}},
		{Step: 2, Kind: "role", Node: 1, Peer: -1, Type: "leader", Args: []Arg{S("note", "a \"quoted\" word"), I("term", -3)}},
	}
	b := EncodeTrace(tr)
	back, err := DecodeTrace(b)
	require.NoError(t, err)
	require.Equal(t, tr, back)
	require.Equal(t, b, EncodeTrace(back))
	require.True(t, strings.HasPrefix(string(b), "[\n  {\"step\":0,\"kind\":\"send\",\"node\":0,\"peer\":2,\"msg\":1,\"type\":\"execute\",\"args\":{\"req\":1,\"task\":2}}"))
}

// The newer actions' parameters survive the JSON form, and each action
// takes only its own.
func TestNewActionsJSON(t *testing.T) {
	in := &Input{Steps: []Step{
		{Process: 2, Action: DeliverOne, K: 2}, {Process: 1, Action: Duplicate, K: 1},
		{Process: 0, Action: Tick, N: 4}, {Process: 1, Action: TransferLeader, To: 0},
		{Process: 0, Action: Crash, Point: AfterPersist}, {Process: 0, Action: Partition, Set: 0b110},
		{Process: 0, Action: Heal}, {Process: 2, Action: ConfChange, Conf: "leave"},
		{Process: 2, Action: ConfChange, Conf: "add-learner 3"}, {Process: 1, Action: Read},
		{Process: 1, Action: HoldWrites, N: 7}, {Process: 1, Action: Persist},
	}}
	b := EncodeInput(in)
	require.Contains(t, string(b), `{"process":1,"action":"transfer-leader","to":0}`)
	require.Contains(t, string(b), `"set":[1,2]`)
	got, err := DecodeInput(b)
	require.NoError(t, err)
	require.Equal(t, in, got)
	require.Equal(t, "p0 partition{1,2}", in.Steps[5].String())
	require.Equal(t, "p1 transfer-leader(p0)", in.Steps[3].String())
	require.Equal(t, "p1 hold-writes(7)", in.Steps[10].String())
	require.Contains(t, string(b), `{"process":1,"action":"hold-writes","n":7}`)

	for _, bad := range []Step{
		{Action: Drop}, {Action: Tick, N: 1, K: 1}, {Action: Crash, Point: "soon"},
		{Action: Partition}, {Action: ConfChange, Conf: "add-voter 1, remove 1"}, {Action: Read, Value: 1},
		{Action: HoldWrites}, {Action: Persist, N: 1},
	} {
		require.Error(t, (&Input{Steps: []Step{bad}}).Validate(nil), "%+v", bad)
	}
	spec := &SystemSpec{Name: "x", Processes: 3, Actions: AllActions}
	require.ErrorContains(t, (&Input{Steps: []Step{{Action: Partition, Set: 0b111}}}).Validate(spec), "nothing is cut")
	require.ErrorContains(t, (&Input{Steps: []Step{{Action: Crash, Point: MidApply}}}).Validate(spec), "no crash point")
	require.ErrorContains(t, (&Input{Steps: []Step{{Action: ConfChange, Conf: "remove 5"}}}).Validate(spec), "out of range")
}

// Random inputs use only the actions --actions lists (that mutants use
// every action the system supports is mutate's TestMutantsUseEveryAction).
func TestGeneratorUsesActions(t *testing.T) {
	spec := &SystemSpec{Name: "x", Processes: 4, Actions: AllActions, CrashPoints: CrashPoints}
	r := rand.New(rand.NewPCG(3, 3))
	g, err := NewGenerator(spec, Shape{Steps: 50, MaxMessages: 4, CrashQuota: 5, Requests: 2, Actions: "deliver,request,drop"})
	require.NoError(t, err)
	for i := 0; i < 50; i++ {
		for _, s := range g.Random(r).Steps {
			require.Contains(t, []Action{Deliver, Request, Drop}, s.Action)
		}
	}
	_, err = NewGenerator(&SystemSpec{Name: "y", Processes: 2, Actions: BaseActions}, Shape{Steps: 5, MaxMessages: 1, Actions: "deliver,tick"})
	require.ErrorContains(t, err, "does not support tick")
}

// An input file may name the system it was written from; it round-trips.
func TestInputFileNamesItsSystem(t *testing.T) {
	in := &Input{Steps: []Step{{Process: 1, Action: Timeout}}}
	sys := &InputSystem{Adapter: "etcdraft", Config: json.RawMessage(`{"nodes":3}`)}
	got, gotSys, err := DecodeInputFile(EncodeInputFor(in, sys))
	require.NoError(t, err)
	require.Equal(t, in, got)
	require.Equal(t, sys.Adapter, gotSys.Adapter)
	require.JSONEq(t, string(sys.Config), string(gotSys.Config))
	_, gotSys, err = DecodeInputFile(EncodeInput(in))
	require.NoError(t, err)
	require.Nil(t, gotSys)
}
