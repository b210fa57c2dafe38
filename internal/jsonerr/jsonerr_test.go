package jsonerr

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every problem encoding/json finds is said in JSON's words, placed by line
// and column, never in Go's.
func TestDecodeSaysWhatAndWhere(t *testing.T) {
	type doc struct {
		N int      `json:"n"`
		S string   `json:"s"`
		L []string `json:"l"`
	}
	for src, want := range map[string]string{
		"":                           "empty document",
		"\xef\xbb\xbf{}":             "1:1: the file starts with a byte order mark",
		"\xff\xfe{\x00}\x00":         "1:1: the file is UTF-16",
		"\x00\x01\x02":               "1:1: not JSON: the file holds a NUL byte",
		"\xd4\xc3\xb2":               "1:1: not JSON: byte 0xD4 is not text",
		`{"s": "caf` + "\xe9" + `"}`: "1:11: byte 0xE9 is not UTF-8",
		`{"n": NaN}`:                 "1:7: NaN and Infinity are not JSON numbers",
		`{"n": -Infinity}`:           "1:7: NaN and Infinity are not JSON numbers",
		`{"n": 1,}`:                  "1:9: want a key in double quotes, found '}'",
		`{"n" 1}`:                    "1:6: want ':' after the key, found '1'",
		`{"n": 1 "s": ""}`:           "1:9: want ',' or '}' after the value, found '\"'",
		`{"l": ["a" "b"]}`:           "1:12: want ',' or ']' after the element, found '\"'",
		"{\"s\": \"a\tb\"}":          "1:9: a control character in a string",
		`{"n": 1.}`:                  "1:9: a malformed number",
		`{"n": tru}`:                 "a malformed true, false or null",
		`{"n": 1`:                    "1:8: the document ends early: cut short?",
		`{"n": "1"}`:                 `1:2: "n" is a string, want an integer`,
		`{"n": 1.5}`:                 `1:2: "n" is the number 1.5, want an integer`,
		`{"n": 1e99}`:                `1:2: "n" is the number 1e99, out of range for an integer`,
		`{"l": {}}`:                  `1:2: "l" is an object, want an array`,
		"{\n  \"x\": 1\n}":           `2:3: unknown field "x"`,
		`{} {}`:                      "1:4: trailing data after the document",
		strings.Repeat("[", 10001):   "nested too deeply",
	} {
		var d doc
		err := Decode([]byte(src), &d)
		if err == nil {
			t.Errorf("%q: no error", src)
			continue
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %q, want %q", src, err, want)
		}
		for _, goWords := range []string{"invalid character", "unexpected EOF", "json: ", "Go struct field", "exceeded max depth", "cannot unmarshal"} {
			if strings.Contains(err.Error(), goWords) {
				t.Errorf("%q: %q has Go's words %q", src, err, goWords)
			}
		}
	}
	if err := In("f.json", Decode([]byte(`{"n": 1,}`), new(doc))); err.Error() != "f.json:1:9: want a key in double quotes, found '}'" {
		t.Errorf("In: %v", err)
	}
}

// ReadFile refuses what is not a file of at most its limit, in one line
// that names the file and the limit; /dev/zero is refused, not read
// forever.
func TestReadFileLimits(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, make([]byte, 2048), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		big:                             big + ": larger than 1 KiB: an input file holds at most 1 KiB (x.Max)",
		"/dev/zero":                     "/dev/zero: larger than 1 KiB: an input file holds at most 1 KiB (x.Max)",
		dir:                             dir + ": is a directory, not an input file",
		filepath.Join(dir, "none.json"): filepath.Join(dir, "none.json") + ": no such file",
	} {
		_, err := ReadFile(path, 1024, "an input file", "x.Max")
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
	}
	if b, err := ReadFile(big, 2048, "an input file", "x.Max"); err != nil || len(b) != 2048 {
		t.Errorf("a file of the limit: %v", err)
	}
}
