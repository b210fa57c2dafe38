package schedule

import (
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
		``:                               "empty document",
		`{"version":1,"steps":[`:         "unexpected EOF",
		`{"version": 1, "steps": [}`:     "line 1, column 26",
		`{"steps":[]}`:                   `missing "version"`,
		`{"version":2,"steps":[]}`:       "unsupported version 2",
		`{"version":1}`:                  `missing "steps"`,
		`{"version":1,"steps":[],"x":1}`: `unknown field "x"`,
		`{"version":1,"steps":[{"process":0,"action":"jump"}]}`:             `step 0 (jump): unknown action "jump"`,
		`{"version":1,"steps":[{"process":0,"action":"deliver"}]}`:          `deliver needs "messages" >= 1`,
		`{"version":1,"steps":[{"process":-1,"action":"crash"}]}`:           "process -1 is negative",
		`{"version":1,"steps":[{"process":0,"action":"crash","value":3}]}`:  "crash takes no",
		`{"version":1,"steps":[{"process":"a","action":"crash"}]}`:          "cannot unmarshal string",
		`{"version":1,"steps":[{"process":0,"action":"crash","colour":1}]}`: `unknown field "colour"`,
		`{"version":1,"steps":[]} {}`:                                       "trailing data",
	}
	for src, want := range cases {
		_, err := DecodeInput([]byte(src))
		require.Error(t, err, src)
		require.Contains(t, err.Error(), want, src)
		require.NotContains(t, err.Error(), "\n", "errors are one line")
	}
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
