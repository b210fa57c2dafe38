package filter

import (
	"fmt"
	"strconv"
	"strings"
)

// Pos is a place in a test file, 1-based.
type Pos struct {
	Line, Col int
}

func (p Pos) String() string { return strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Col) }

// Error is a problem of a test file at a position.
type Error struct {
	File string
	Pos  Pos
	Msg  string
}

func (e *Error) Error() string { return e.File + ":" + e.Pos.String() + ": " + e.Msg }

type tokKind int

const (
	tEOF tokKind = iota
	tIdent
	tInt
	tString
	tPunct // ( ) { } , and the comparison operators
)

type token struct {
	kind tokKind
	text string // the identifier, the punctuation, the string's value
	num  int64
	pos  Pos
}

func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "end of file"
	case tString:
		return strconv.Quote(t.text)
	}
	return "\"" + t.text + "\""
}

// lex splits src into tokens. Comments run from # to the end of the line;
// identifiers are letters, digits, '_', '-' and '.', starting with a letter
// or '_' (message types, event kinds and TLA+-free names).
func lex(file, src string) ([]token, error) {
	var out []token
	line, col := 1, 1
	i := 0
	adv := func(n int) {
		for k := 0; k < n; k++ {
			if src[i] == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
			i++
		}
	}
	for i < len(src) {
		c := src[i]
		pos := Pos{line, col}
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			adv(1)
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				adv(1)
			}
		case isLetter(c):
			j := i
			for j < len(src) && (isLetter(src[j]) || isDigit(src[j]) || src[j] == '-' || src[j] == '.') {
				j++
			}
			out = append(out, token{kind: tIdent, text: src[i:j], pos: pos})
			adv(j - i)
		case isDigit(c):
			j := i
			for j < len(src) && isDigit(src[j]) {
				j++
			}
			n, err := strconv.ParseInt(src[i:j], 10, 64)
			if err != nil {
				return nil, &Error{file, pos, fmt.Sprintf("number %s is too large", src[i:j])}
			}
			out = append(out, token{kind: tInt, text: src[i:j], num: n, pos: pos})
			adv(j - i)
		case c == '"':
			j := i + 1
			var b strings.Builder
			for ; j < len(src) && src[j] != '"'; j++ {
				if src[j] == '\n' {
					return nil, &Error{file, pos, "string not closed before the end of the line"}
				}
				if src[j] == '\\' && j+1 < len(src) && (src[j+1] == '"' || src[j+1] == '\\') {
					j++
				}
				b.WriteByte(src[j])
			}
			if j >= len(src) {
				return nil, &Error{file, pos, "string not closed before the end of the file"}
			}
			out = append(out, token{kind: tString, text: b.String(), pos: pos})
			adv(j + 1 - i)
		default:
			two := ""
			if i+1 < len(src) {
				two = src[i : i+2]
			}
			switch {
			case two == "==" || two == "!=" || two == "<=" || two == ">=" || two == "->":
				out = append(out, token{kind: tPunct, text: two, pos: pos})
				adv(2)
			case strings.IndexByte("(){},<>", c) >= 0:
				out = append(out, token{kind: tPunct, text: string(c), pos: pos})
				adv(1)
			default:
				return nil, &Error{file, pos, fmt.Sprintf("unexpected character %q", c)}
			}
		}
	}
	out = append(out, token{kind: tEOF, pos: Pos{line, col}})
	return out, nil
}

func isLetter(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
