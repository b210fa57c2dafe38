package stdlib

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// decodedAs is the outcome of a decoding, for comparing two decoders.
func decodedAs(v fmt.Stringer, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return v.String()
}

var jsonSamples = []string{
	`{"level":"debug","ts":1712329729.6024537,"tag":"trace","event":{"name":"InitState","nid":"1","state":{"term":0,"vote":"0","commit":0},"role":"StateFollower","log":0,"conf":[[],[]]}}`,
	`{"a":1,"b":[1,2,{"c":"d"}],"e":true,"f":false}`,
	`{"b":1,"a":2}`, `{"a":1,"a":2}`, `{}`, `[]`, `[{}]`, `{"a":{}}`,
	` {"a" : [ 1 , -2 ] } `, "\t[1]\r\n", `"x"`, `0`, `-0`, `17`, `-17`,
	`01`, `1.`, `.5`, `-`, `1e3`, `1E3`, `1.5e2`, `-0.5`, `1.9`, `-1.9`,
	`0.99999999999999999999`, `4611686018427387904.9`, `9223372036854775807`, `9223372036854775808`,
	`9223372036854775807.9`, `-9223372036854775808`, `-9223372036854775809`, `-9223372036854775808.5`,
	`"a\"b\\c\/d\be\ff\ng\rh\ti"`, `"\u00e9"`, `"\ud83d\ude00"`, `"\x"`, "\"\xff\"", "\"\xe2\x82\"", "\"tab\there\"",
	"\"é\"", `null`, `[null]`, `{"a":null}`, `nul`, `tru`, `true`, `false`, `truex`, `{"a":1}x`,
	`{"a":1} {"b":2}`, `{"a":1,}`, `[1,]`, `[1 2]`, `{"a" 1}`, `{a:1}`, `{"a":1`, `[`, ``, `   `,
	`{"a\u0000b":1,"c":2}`, `{"a":1,"b\u0000c":2}`, `[[[[[[[[[[1]]]]]]]]]]`, `1e700000000`, `[1.5e700000000]`,
}

// The direct decoder gives what encoding/json gives, value or error, for
// JSON of every kind, valid or not, alone or after other lines.
func TestJSONDecoderMatchesEncodingJSON(t *testing.T) {
	shared := NewJSONDecoder()
	for _, s := range jsonSamples {
		want := decodedAs(decodeJSONStd([]byte(s)))
		assert.Equal(t, want, decodedAs(NewJSONDecoder().Decode([]byte(s))), "%q", s)
		assert.Equal(t, want, decodedAs(shared.Decode([]byte(s))), "%q after other lines", s)
	}
}

// Lines whose field names would run together share no record shape.
func TestJSONDecoderShapes(t *testing.T) {
	d := NewJSONDecoder()
	a := decodedAs(d.Decode([]byte(`{"ab":1,"c":2}`)))
	b := decodedAs(d.Decode([]byte(`{"a":1,"bc":2}`)))
	assert.Equal(t, `[ab |-> 1, c |-> 2]`, a)
	assert.Equal(t, `[a |-> 1, bc |-> 2]`, b)
}

func FuzzJSONDecoder(f *testing.F) {
	for _, s := range jsonSamples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := decodedAs(decodeJSONStd([]byte(s)))
		if got := decodedAs(NewJSONDecoder().Decode([]byte(s))); got != want {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	})
}
