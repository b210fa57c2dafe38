package cfg

import (
	"fmt"
	"strconv"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// The keywords TLC knows. A plural form is the same option as its singular.
var keywords = map[string]string{
	"CONSTANT":           "CONSTANT",
	"CONSTANTS":          "CONSTANT",
	"INIT":               "INIT",
	"NEXT":               "NEXT",
	"SPECIFICATION":      "SPECIFICATION",
	"INVARIANT":          "INVARIANT",
	"INVARIANTS":         "INVARIANT",
	"PROPERTY":           "PROPERTY",
	"PROPERTIES":         "PROPERTY",
	"CONSTRAINT":         "CONSTRAINT",
	"CONSTRAINTS":        "CONSTRAINT",
	"ACTION_CONSTRAINT":  "ACTION_CONSTRAINT",
	"ACTION_CONSTRAINTS": "ACTION_CONSTRAINT",
	"SYMMETRY":           "SYMMETRY",
	"VIEW":               "VIEW",
	"ALIAS":              "ALIAS",
	"POSTCONDITION":      "POSTCONDITION",
	"TYPE_CONSTRAINT":    "TYPE_CONSTRAINT",
	"CHECK_DEADLOCK":     "CHECK_DEADLOCK",
}

func isKeyword(t token) bool {
	_, ok := keywords[t.text]
	return t.kind == tokIdent && ok
}

// looksLikeKeyword tells whether an unknown word is probably a misspelled
// keyword rather than a name: upper case letters and underscores only, at
// least four of them. TLC would take such a word for a name in a list
// (INVARIANT Inv INVARIANTZ Foo checks invariants Inv, INVARIANTZ and Foo);
// we report it, when it starts a line, as an unknown keyword.
func looksLikeKeyword(t token) bool {
	if t.kind != tokIdent || len(t.text) < 4 || isKeyword(t) {
		return false
	}
	for i := 0; i < len(t.text); i++ {
		if c := t.text[i]; !(c >= 'A' && c <= 'Z' || c == '_') {
			return false
		}
	}
	return true
}

type parser struct {
	lex  lexer
	tok  token
	cfg  *Config
	seen map[string]Pos // singular options already given
}

// Parse parses the cfg text src; file names it in error messages, which
// have the form "file:line:col: message". An unknown keyword is an error
// that names it. Giving a singular option (INIT, SPECIFICATION, ...) twice
// is an error, as in TLC.
func Parse(file string, src []byte) (*Config, error) {
	p := &parser{
		lex:  lexer{file: file, src: string(src), line: 1, col: 1},
		cfg:  &Config{File: file},
		seen: map[string]Pos{},
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	for p.tok.kind != tokEOF {
		if err := p.statement(); err != nil {
			return nil, err
		}
	}
	return p.cfg, nil
}

func (p *parser) advance() error {
	t, err := p.lex.next()
	if err != nil {
		return err
	}
	p.tok = t
	return nil
}

func (p *parser) errorf(pos Pos, format string, args ...any) error {
	return &Error{File: p.lex.file, Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// atSectionEnd tells whether the current token ends a list or CONSTANT
// section, and fails on what is probably a misspelled keyword.
func (p *parser) atSectionEnd() (bool, error) {
	if p.tok.kind == tokEOF || isKeyword(p.tok) {
		return true, nil
	}
	if p.tok.pos.Col == 1 && looksLikeKeyword(p.tok) {
		return false, p.unknownKeyword()
	}
	return false, nil
}

func (p *parser) unknownKeyword() error {
	return p.errorf(p.tok.pos, "unknown keyword %q", p.tok.text)
}

func (p *parser) statement() error {
	if p.tok.kind != tokIdent {
		return p.errorf(p.tok.pos, "expected a keyword such as SPECIFICATION or CONSTANT, found %s", p.tok)
	}
	kw, ok := keywords[p.tok.text]
	if !ok {
		return p.unknownKeyword()
	}
	kwTok := p.tok
	if err := p.advance(); err != nil {
		return err
	}
	switch kw {
	case "CONSTANT":
		return p.constants()
	case "INVARIANT":
		return p.list(&p.cfg.Invariants, kwTok)
	case "PROPERTY":
		return p.list(&p.cfg.Properties, kwTok)
	case "CONSTRAINT":
		return p.list(&p.cfg.Constraints, kwTok)
	case "ACTION_CONSTRAINT":
		return p.list(&p.cfg.ActionConstraints, kwTok)
	case "INIT":
		return p.single(&p.cfg.Init, kwTok)
	case "NEXT":
		return p.single(&p.cfg.Next, kwTok)
	case "SPECIFICATION":
		return p.single(&p.cfg.Specification, kwTok)
	case "SYMMETRY":
		return p.single(&p.cfg.Symmetry, kwTok)
	case "VIEW":
		return p.single(&p.cfg.View, kwTok)
	case "ALIAS":
		return p.single(&p.cfg.Alias, kwTok)
	case "POSTCONDITION":
		return p.single(&p.cfg.Postcondition, kwTok)
	case "TYPE_CONSTRAINT":
		return p.single(&p.cfg.TypeConstraint, kwTok)
	case "CHECK_DEADLOCK":
		return p.checkDeadlock(kwTok)
	}
	return p.unknownKeyword()
}

func (p *parser) once(kw token) error {
	name := keywords[kw.text]
	if prev, ok := p.seen[name]; ok {
		return p.errorf(kw.pos, "%s given twice (first at line %d)", name, prev.Line)
	}
	p.seen[name] = kw.pos
	return nil
}

func (p *parser) single(dst *Ident, kw token) error {
	if err := p.once(kw); err != nil {
		return err
	}
	if p.tok.kind != tokIdent || isKeyword(p.tok) {
		return p.errorf(p.tok.pos, "%s needs a name, found %s", kw.text, p.tok)
	}
	*dst = Ident{Name: p.tok.text, Pos: p.tok.pos}
	return p.advance()
}

func (p *parser) list(dst *[]Ident, kw token) error {
	for {
		end, err := p.atSectionEnd()
		if err != nil || end {
			return err
		}
		if p.tok.kind != tokIdent {
			return p.errorf(p.tok.pos, "%s lists names separated by spaces, found %s", kw.text, p.tok)
		}
		*dst = append(*dst, Ident{Name: p.tok.text, Pos: p.tok.pos})
		if err := p.advance(); err != nil {
			return err
		}
	}
}

func (p *parser) checkDeadlock(kw token) error {
	if err := p.once(kw); err != nil {
		return err
	}
	var b bool
	switch {
	case p.tok.kind == tokIdent && p.tok.text == "TRUE":
		b = true
	case p.tok.kind == tokIdent && p.tok.text == "FALSE":
		b = false
	default:
		return p.errorf(p.tok.pos, "CHECK_DEADLOCK needs TRUE or FALSE, found %s", p.tok)
	}
	p.cfg.CheckDeadlock = &b
	return p.advance()
}

func (p *parser) constants() error {
	for {
		end, err := p.atSectionEnd()
		if err != nil || end {
			return err
		}
		if err := p.constant(); err != nil {
			return err
		}
	}
}

func (p *parser) punct(s string) bool { return p.tok.kind == tokPunct && p.tok.text == s }

func (p *parser) constant() error {
	k := Constant{Pos: p.tok.pos}
	if p.tok.kind != tokIdent && p.tok.kind != tokOp {
		return p.errorf(p.tok.pos, "expected the name of a constant, found %s", p.tok)
	}
	nameTok := p.tok
	k.Name = p.tok.text
	if err := p.advance(); err != nil {
		return err
	}
	for p.punct("!") {
		if err := p.advance(); err != nil {
			return err
		}
		if p.tok.kind != tokIdent && p.tok.kind != tokOp {
			return p.errorf(p.tok.pos, "expected a name after \"!\", found %s", p.tok)
		}
		k.Name += "!" + p.tok.text
		if err := p.advance(); err != nil {
			return err
		}
	}
	switch {
	case p.punct("<-"):
		if err := p.advance(); err != nil {
			return err
		}
		k.Kind = Substitute
		if err := p.moduleScope(&k); err != nil {
			return err
		}
		if p.tok.kind != tokIdent && p.tok.kind != tokOp || isKeyword(p.tok) {
			return p.errorf(p.tok.pos, "expected the name of a definition after \"<-\", found %s", p.tok)
		}
		k.Subst = p.tok.text
		if err := p.advance(); err != nil {
			return err
		}
	case p.punct("("), p.punct("="):
		if p.punct("(") {
			if err := p.args(&k); err != nil {
				return err
			}
			if !p.punct("=") {
				return p.errorf(p.tok.pos, "expected \"=\" after the arguments of %s, found %s", k.Name, p.tok)
			}
		}
		if err := p.advance(); err != nil {
			return err
		}
		k.Kind = Assign
		if err := p.moduleScope(&k); err != nil {
			return err
		}
		v, err := p.value()
		if err != nil {
			return err
		}
		k.Value = v
	default:
		if nameTok.pos.Col == 1 && looksLikeKeyword(nameTok) {
			return p.errorf(nameTok.pos, "unknown keyword %q", nameTok.text)
		}
		return p.errorf(p.tok.pos, "expected \"=\" or \"<-\" after %s, found %s", k.Name, p.tok)
	}
	p.cfg.Constants = append(p.cfg.Constants, k)
	return nil
}

// moduleScope parses an optional [M].
func (p *parser) moduleScope(k *Constant) error {
	if !p.punct("[") {
		return nil
	}
	if err := p.advance(); err != nil {
		return err
	}
	if p.tok.kind != tokIdent {
		return p.errorf(p.tok.pos, "expected a module name after \"[\", found %s", p.tok)
	}
	k.Module = p.tok.text
	if err := p.advance(); err != nil {
		return err
	}
	if !p.punct("]") {
		return p.errorf(p.tok.pos, "expected \"]\" after the module name %s, found %s", k.Module, p.tok)
	}
	return p.advance()
}

func (p *parser) args(k *Constant) error {
	for {
		if err := p.advance(); err != nil {
			return err
		}
		v, err := p.value()
		if err != nil {
			return err
		}
		k.Args = append(k.Args, v)
		if p.punct(")") {
			return p.advance()
		}
		if !p.punct(",") {
			return p.errorf(p.tok.pos, "expected \",\" or \")\" in the arguments of %s, found %s", k.Name, p.tok)
		}
	}
}

// value parses an integer, a string, TRUE, FALSE, a model value or a set
// of values.
func (p *parser) value() (value.Value, error) {
	t := p.tok
	switch {
	case t.kind == tokNumber:
		return p.number(t, false)
	case t.kind == tokPunct && t.text == "-":
		if err := p.advance(); err != nil {
			return nil, err
		}
		if p.tok.kind != tokNumber {
			return nil, p.errorf(p.tok.pos, "expected a number after \"-\", found %s", p.tok)
		}
		return p.number(p.tok, true)
	case t.kind == tokString:
		return value.Str(t.text), p.advance()
	case t.kind == tokIdent && t.text == "TRUE":
		return value.True, p.advance()
	case t.kind == tokIdent && t.text == "FALSE":
		return value.False, p.advance()
	case t.kind == tokIdent && !isKeyword(t):
		return value.NewModelValue(t.text), p.advance()
	case t.kind == tokPunct && t.text == "{":
		return p.set()
	case t.kind == tokPunct && t.text == "<<":
		return nil, p.errorf(t.pos, "TLC does not accept tuples in a cfg file; define the value in a module and substitute it with <-")
	}
	return nil, p.errorf(t.pos, "expected a value (a number, a string, TRUE, FALSE, a model value or a set), found %s", t)
}

func (p *parser) number(t token, neg bool) (value.Value, error) {
	text := t.text
	if neg {
		text = "-" + text
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return nil, p.errorf(t.pos, "number %s out of range", text)
	}
	return value.IntOf(n), p.advance()
}

func (p *parser) set() (value.Value, error) {
	open := p.tok.pos
	if err := p.advance(); err != nil {
		return nil, err
	}
	var elems []value.Value
	if p.punct("}") {
		return value.EmptySet, p.advance()
	}
	for {
		if p.tok.kind == tokEOF {
			return nil, p.errorf(open, "set not closed")
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		elems = append(elems, v)
		if p.punct("}") {
			return value.NewSet(elems...), p.advance()
		}
		if p.tok.kind == tokEOF {
			return nil, p.errorf(open, "set not closed")
		}
		if !p.punct(",") {
			return nil, p.errorf(p.tok.pos, "expected \",\" or \"}\" in a set, found %s", p.tok)
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
	}
}
