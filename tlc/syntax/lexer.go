package syntax

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

type tokKind uint8

const (
	tEOF     tokKind = iota
	tIdent           // identifier
	tKeyword         // reserved word, including WF_ and SF_
	tNumber          // integer literal; token.num holds the value
	tDecimal         // decimal literal such as 1.5
	tString          // string literal; token.text holds the unescaped value
	tSym             // operator or punctuation, ASCII spelling
	tSep             // ---- (four or more dashes)
	tEnd             // ==== (four or more equal signs)
	tStep            // proof step token: <1>, <1>a., <*>, <+>
)

// token is one lexeme. Unicode symbols are already mapped to their ASCII
// spelling in text.
type token struct {
	text string
	num  int64 // value of a tNumber
	line int32
	col  int32
	// eline and ecol locate the token's last character.
	eline, ecol int32
	kind        tokKind
	overflow    bool // a tNumber too large for int64
}

func (t token) is(kind tokKind, text string) bool { return t.kind == kind && t.text == text }

// describe renders the token for "found X" in error messages.
func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "end of file"
	case tString:
		return strconv.Quote(t.text)
	case tIdent:
		return "identifier " + t.text
	case tEnd:
		return "===="
	}
	return strconv.Quote(t.text)
}

// lpos is a compact line and column.
type lpos struct{ l, c int32 }

// lexer turns the text of one module (and its submodules) into tokens.
type lexer struct {
	file string
	src  string
	off  int
	line int
	col  int
	toks []token
}

// symbolsByFirst indexes symbols by their first byte, keeping their order.
var symbolsByFirst = func() (t [256][]string) {
	for _, s := range symbols {
		t[s[0]] = append(t[s[0]], s)
	}
	return t
}()

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isNameChar(c byte) bool {
	return isLetter(c) || isDigit(c) || c == '_'
}

func (lx *lexer) errorf(line, col int, format string, args ...any) *Error {
	return newError(Pos{File: lx.file, Line: line, Col: col}, format, args...)
}

// peekByte returns the byte i positions ahead, or 0 past the end.
func (lx *lexer) peekByte(i int) byte {
	if lx.off+i < len(lx.src) {
		return lx.src[lx.off+i]
	}
	return 0
}

// advance moves over n bytes that contain no newline and only ASCII.
func (lx *lexer) advance(n int) {
	lx.off += n
	lx.col += n
}

// advanceText moves over arbitrary text, keeping line and column right.
func (lx *lexer) advanceText(n int) {
	end := lx.off + n
	for lx.off < end {
		c := lx.src[lx.off]
		switch {
		case c == '\n':
			lx.line++
			lx.col = 1
			lx.off++
		case c < utf8.RuneSelf:
			lx.col++
			lx.off++
		default:
			_, size := utf8.DecodeRuneInString(lx.src[lx.off:])
			lx.off += size
			lx.col++
		}
	}
}

// lexModule lexes from the current offset (a module header) through the
// matching end-of-module line, counting nested submodules. It returns the
// tokens, terminated by tEOF.
func (lx *lexer) lexModule() ([]token, error) {
	depth := 0
	if lx.toks == nil {
		// Dense TLA+ has about one token per three bytes.
		lx.toks = make([]token, 0, (len(lx.src)-lx.off)/3+16)
	}
	for {
		t, err := lx.next()
		if err != nil {
			return nil, err
		}
		t.eline, t.ecol = int32(lx.line), int32(lx.col-1)
		lx.toks = append(lx.toks, t)
		switch t.kind {
		case tEOF:
			return lx.toks, nil
		case tKeyword:
			if t.text == "MODULE" && len(lx.toks) >= 2 && lx.toks[len(lx.toks)-2].kind == tSep {
				depth++
			}
		case tEnd:
			depth--
			if depth <= 0 {
				lx.toks = append(lx.toks, token{kind: tEOF, line: int32(lx.line), col: int32(lx.col)})
				return lx.toks, nil
			}
		}
	}
}

// skipSpace skips white space and comments.
func (lx *lexer) skipSpace() error {
	for lx.off < len(lx.src) {
		c := lx.src[lx.off]
		switch {
		case c == '\n':
			lx.line++
			lx.col = 1
			lx.off++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			lx.advance(1)
		case c == '\\' && lx.peekByte(1) == '*':
			for lx.off < len(lx.src) && lx.src[lx.off] != '\n' {
				lx.advanceText(1)
			}
		case c == '(' && lx.peekByte(1) == '*':
			if err := lx.skipBlockComment(); err != nil {
				return err
			}
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(lx.src[lx.off:])
			if r == '\u00a0' || r == '\u2028' || r == '\u2029' || r == '\ufeff' {
				lx.off += size
				lx.col++
				continue
			}
			return nil
		default:
			return nil
		}
	}
	return nil
}

// skipBlockComment skips a (possibly nested) (* ... *) comment.
func (lx *lexer) skipBlockComment() error {
	line, col := lx.line, lx.col
	depth := 0
	for lx.off < len(lx.src) {
		switch {
		case lx.src[lx.off] == '(' && lx.peekByte(1) == '*':
			depth++
			lx.advance(2)
		case lx.src[lx.off] == '*' && lx.peekByte(1) == ')':
			depth--
			lx.advance(2)
			if depth == 0 {
				return nil
			}
		default:
			lx.advanceText(1)
		}
	}
	return lx.errorf(line, col, "unterminated comment")
}

// next returns the next token.
func (lx *lexer) next() (token, error) {
	if err := lx.skipSpace(); err != nil {
		return token{}, err
	}
	pos := lpos{int32(lx.line), int32(lx.col)}
	if lx.off >= len(lx.src) {
		return token{kind: tEOF, line: pos.l, col: pos.c}, nil
	}
	c := lx.src[lx.off]
	switch {
	case isNameChar(c):
		return lx.lexWord(pos)
	case c == '"':
		return lx.lexString(pos)
	case c == '\\':
		return lx.lexBackslash(pos)
	case c == '-' && strings.HasPrefix(lx.src[lx.off:], "----"):
		n := 0
		for lx.off+n < len(lx.src) && lx.src[lx.off+n] == '-' {
			n++
		}
		lx.advance(n)
		return token{kind: tSep, text: "----", line: pos.l, col: pos.c}, nil
	case c == '=' && strings.HasPrefix(lx.src[lx.off:], "===="):
		n := 0
		for lx.off+n < len(lx.src) && lx.src[lx.off+n] == '=' {
			n++
		}
		lx.advance(n)
		return token{kind: tEnd, text: "====", line: pos.l, col: pos.c}, nil
	case c == '<':
		if t, ok := lx.lexStep(pos); ok {
			return t, nil
		}
	case c == '-' && lx.peekByte(1) == '.' && !isDigit(lx.peekByte(2)) && lx.peekByte(2) != '.':
		lx.advance(2)
		return token{kind: tSym, text: "-.", line: pos.l, col: pos.c}, nil
	case c >= utf8.RuneSelf:
		r, size := utf8.DecodeRuneInString(lx.src[lx.off:])
		if s, ok := unicodeSymbols[r]; ok {
			lx.off += size
			lx.col++
			return token{kind: tSym, text: s, line: pos.l, col: pos.c}, nil
		}
		switch r {
		case 'ℕ', 'ℤ', 'ℝ':
			lx.off += size
			lx.col++
			return token{kind: tIdent, text: map[rune]string{'ℕ': "Nat", 'ℤ': "Int", 'ℝ': "Real"}[r], line: pos.l, col: pos.c}, nil
		case '─', '━':
			n := 0
			for lx.off < len(lx.src) {
				r2, s2 := utf8.DecodeRuneInString(lx.src[lx.off:])
				if r2 != r && r2 != '-' {
					break
				}
				lx.off += s2
				lx.col++
				n++
			}
			return token{kind: tSep, text: "----", line: pos.l, col: pos.c}, nil
		case '═':
			for lx.off < len(lx.src) {
				r2, s2 := utf8.DecodeRuneInString(lx.src[lx.off:])
				if r2 != r && r2 != '=' {
					break
				}
				lx.off += s2
				lx.col++
			}
			return token{kind: tEnd, text: "====", line: pos.l, col: pos.c}, nil
		}
		return token{}, lx.errorf(int(pos.l), int(pos.c), "unexpected character %q", r)
	}
	for _, s := range symbolsByFirst[c] {
		if strings.HasPrefix(lx.src[lx.off:], s) {
			lx.advance(len(s))
			return token{kind: tSym, text: s, line: pos.l, col: pos.c}, nil
		}
	}
	return token{}, lx.errorf(int(pos.l), int(pos.c), "unexpected character %q", c)
}

// lexStep recognizes proof step tokens <n>label, <*> and <+>, with an
// optional trailing dot.
func (lx *lexer) lexStep(pos lpos) (token, bool) {
	s := lx.src[lx.off:]
	i := 1
	switch {
	case len(s) > 2 && (s[1] == '*' || s[1] == '+') && s[2] == '>':
		i = 3
	default:
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == 1 || i >= len(s) || s[i] != '>' {
			return token{}, false
		}
		i++
		for i < len(s) && isNameChar(s[i]) {
			i++
		}
	}
	for i < len(s) && s[i] == '.' {
		i++
	}
	lx.advance(i)
	return token{kind: tStep, text: s[:i], line: pos.l, col: pos.c}, true
}

// lexWord lexes identifiers, keywords and numbers.
func (lx *lexer) lexWord(pos lpos) (token, error) {
	s := lx.src[lx.off:]
	n := 0
	letter := false
	for n < len(s) && isNameChar(s[n]) {
		if isLetter(s[n]) {
			letter = true
		}
		n++
	}
	word := s[:n]
	if (strings.HasPrefix(word, "WF_") || strings.HasPrefix(word, "SF_")) && letter {
		lx.advance(3)
		return token{kind: tKeyword, text: word[:3], line: pos.l, col: pos.c}, nil
	}
	if letter {
		lx.advance(n)
		if keywords[word] {
			return token{kind: tKeyword, text: word, line: pos.l, col: pos.c}, nil
		}
		return token{kind: tIdent, text: word, line: pos.l, col: pos.c}, nil
	}
	if word == "_" || strings.Trim(word, "_") == "" {
		lx.advance(1)
		return token{kind: tSym, text: "_", line: pos.l, col: pos.c}, nil
	}
	if strings.Contains(word, "_") {
		return token{}, lx.errorf(int(pos.l), int(pos.c), "malformed number %q", word)
	}
	// Digits only: an integer, or a decimal when followed by .digit.
	if n+1 < len(s) && s[n] == '.' && isDigit(s[n+1]) {
		m := n + 1
		for m < len(s) && isDigit(s[m]) {
			m++
		}
		lx.advance(m)
		return token{kind: tDecimal, text: s[:m], line: pos.l, col: pos.c}, nil
	}
	lx.advance(n)
	return numberToken(pos, word, word, 10), nil
}

// numberToken builds a tNumber token, recording overflow.
func numberToken(pos lpos, text, digits string, base int) token {
	t := token{kind: tNumber, text: text, line: pos.l, col: pos.c}
	v, err := strconv.ParseInt(digits, base, 64)
	t.overflow = err != nil
	t.num = v
	return t
}

// lexBackslash lexes \word operators, \b \o \h numbers and \ (set minus).
func (lx *lexer) lexBackslash(pos lpos) (token, error) {
	s := lx.src[lx.off:]
	if len(s) >= 2 {
		switch s[1] {
		case '/':
			lx.advance(2)
			return token{kind: tSym, text: `\/`, line: pos.l, col: pos.c}, nil
		case 'b', 'B', 'o', 'O', 'h', 'H':
			base, ok := 2, func(c byte) bool { return c == '0' || c == '1' }
			switch s[1] {
			case 'o', 'O':
				base, ok = 8, func(c byte) bool { return c >= '0' && c <= '7' }
			case 'h', 'H':
				base, ok = 16, func(c byte) bool {
					return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
				}
			}
			n := 2
			for n < len(s) && ok(s[n]) {
				n++
			}
			if n > 2 && (n == len(s) || !isNameChar(s[n])) {
				lx.advance(n)
				return numberToken(pos, s[:n], s[2:n], base), nil
			}
		}
	}
	n := 1
	for n < len(s) && isLetter(s[n]) {
		n++
	}
	if word := s[1:n]; backslashWords[word] && (n == len(s) || !isNameChar(s[n])) {
		lx.advance(n)
		return token{kind: tSym, text: s[:n], line: pos.l, col: pos.c}, nil
	}
	lx.advance(1)
	return token{kind: tSym, text: `\`, line: pos.l, col: pos.c}, nil
}

// lexString lexes a string literal with \" \\ \n \t \r \f escapes.
func (lx *lexer) lexString(pos lpos) (token, error) {
	var b strings.Builder
	lx.advance(1)
	for lx.off < len(lx.src) {
		c := lx.src[lx.off]
		switch c {
		case '"':
			lx.advance(1)
			return token{kind: tString, text: b.String(), line: pos.l, col: pos.c}, nil
		case '\n':
			return token{}, lx.errorf(int(pos.l), int(pos.c), "unterminated string")
		case '\\':
			e := lx.peekByte(1)
			switch e {
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
				return token{}, lx.errorf(lx.line, lx.col, "invalid escape sequence in string")
			}
			lx.advance(2)
		default:
			start := lx.off
			lx.advanceText(1)
			b.WriteString(lx.src[start:lx.off])
		}
	}
	return token{}, lx.errorf(int(pos.l), int(pos.c), "unterminated string")
}
