package cfg

import (
	"fmt"
	"strings"
)

type tokKind uint8

const (
	tokEOF    tokKind = iota
	tokIdent          // letters, digits and _, with at least one letter
	tokNumber         // digits
	tokString         // "...", with the quotes removed and escapes decoded
	tokOp             // \name, an operator written with a backslash
	tokPunct          // = <- ( ) [ ] { } , ! - << >>
)

type token struct {
	kind tokKind
	text string
	pos  Pos
}

func (t token) String() string {
	if t.kind == tokEOF {
		return "end of file"
	}
	return fmt.Sprintf("%q", t.text)
}

type lexer struct {
	file string
	src  string
	off  int
	line int
	col  int
}

func (l *lexer) errorf(p Pos, format string, args ...any) error {
	return &Error{File: l.file, Pos: p, Msg: fmt.Sprintf(format, args...)}
}

func (l *lexer) pos() Pos { return Pos{Line: l.line, Col: l.col} }

func (l *lexer) advance(n int) {
	for range n {
		if l.src[l.off] == '\n' {
			l.line++
			l.col = 1
		} else {
			l.col++
		}
		l.off++
	}
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isWordChar(c byte) bool {
	return isLetter(c) || isDigit(c) || c == '_'
}

// skip skips white space and comments: \* to the end of the line and
// (* ... *), which nest.
func (l *lexer) skip() error {
	for l.off < len(l.src) {
		c := l.src[l.off]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f':
			l.advance(1)
		case strings.HasPrefix(l.src[l.off:], `\*`):
			for l.off < len(l.src) && l.src[l.off] != '\n' {
				l.advance(1)
			}
		case strings.HasPrefix(l.src[l.off:], "(*"):
			start := l.pos()
			depth := 0
			for {
				if l.off >= len(l.src) {
					return l.errorf(start, "comment not closed")
				}
				if strings.HasPrefix(l.src[l.off:], "(*") {
					depth++
					l.advance(2)
				} else if strings.HasPrefix(l.src[l.off:], "*)") {
					depth--
					l.advance(2)
					if depth == 0 {
						break
					}
				} else {
					l.advance(1)
				}
			}
		default:
			return nil
		}
	}
	return nil
}

func (l *lexer) next() (token, error) {
	if err := l.skip(); err != nil {
		return token{}, err
	}
	p := l.pos()
	if l.off >= len(l.src) {
		return token{kind: tokEOF, pos: p}, nil
	}
	rest := l.src[l.off:]
	c := rest[0]
	switch {
	case isWordChar(c):
		n, letter := 0, false
		for n < len(rest) && isWordChar(rest[n]) {
			letter = letter || isLetter(rest[n])
			n++
		}
		l.advance(n)
		if letter {
			return token{kind: tokIdent, text: rest[:n], pos: p}, nil
		}
		return token{kind: tokNumber, text: rest[:n], pos: p}, nil
	case c == '"':
		return l.string(p)
	case c == '\\' && len(rest) > 1 && isLetter(rest[1]):
		n := 1
		for n < len(rest) && isWordChar(rest[n]) {
			n++
		}
		l.advance(n)
		return token{kind: tokOp, text: rest[:n], pos: p}, nil
	}
	for _, punct := range []string{"<-", "<<", ">>", "=", "(", ")", "[", "]", "{", "}", ",", "!", "-"} {
		if strings.HasPrefix(rest, punct) {
			l.advance(len(punct))
			return token{kind: tokPunct, text: punct, pos: p}, nil
		}
	}
	return token{}, l.errorf(p, "unexpected character %q", rune(c))
}

func (l *lexer) string(p Pos) (token, error) {
	var b strings.Builder
	l.advance(1)
	for {
		if l.off >= len(l.src) || l.src[l.off] == '\n' {
			return token{}, l.errorf(p, "string not closed")
		}
		c := l.src[l.off]
		if c == '"' {
			l.advance(1)
			return token{kind: tokString, text: b.String(), pos: p}, nil
		}
		if c == '\\' {
			if l.off+1 >= len(l.src) {
				return token{}, l.errorf(p, "string not closed")
			}
			switch e := l.src[l.off+1]; e {
			case '"', '\\':
				b.WriteByte(e)
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'f':
				b.WriteByte('\f')
			default:
				return token{}, l.errorf(l.pos(), "unknown escape %q in a string", "\\"+string(e))
			}
			l.advance(2)
			continue
		}
		b.WriteByte(c)
		l.advance(1)
	}
}
