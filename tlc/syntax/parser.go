package syntax

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// maxDepth bounds expression nesting so that hostile input cannot exhaust
// the stack.
const maxDepth = 1000

// ParseFile reads and parses a .tla file. See ParseSource.
func ParseFile(path string) ([]*Module, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseSource(path, src)
}

// ParseSource parses every module of a file: all top-level modules in source
// order, each followed by the submodules nested inside it. Text outside
// modules is ignored. A file without any module is an error.
func ParseSource(filename string, src []byte) (mods []*Module, err error) {
	defer catch(filename, &err)
	text := string(src)
	off, line, col := 0, 1, 1
	for {
		start := findModuleStart(text, off)
		if start < 0 {
			break
		}
		line, col = advancePos(text[off:start], line, col)
		lx := &lexer{file: filename, src: text, off: start, line: line, col: col}
		toks, lerr := lx.lexModule()
		if lerr != nil {
			return nil, lerr
		}
		p := &parser{file: filename, toks: toks, spans: map[LineCol]Span{}}
		found := p.parseModuleFile()
		for _, m := range found {
			m.Spans = p.spans
		}
		mods = append(mods, found...)
		off, line, col = lx.off, lx.line, lx.col
	}
	if len(mods) == 0 {
		return nil, &Error{Pos: Pos{File: filename, Line: line, Col: col}, Msg: "expected ---- MODULE Name ----, found no module"}
	}
	return mods, nil
}

// MainModule returns the module of mods named like the file (base name
// without .tla), or the first module when none matches.
func MainModule(filename string, mods []*Module) *Module {
	name := strings.TrimSuffix(filepath.Base(filename), ".tla")
	for _, m := range mods {
		if m.Name == name {
			return m
		}
	}
	if len(mods) > 0 {
		return mods[0]
	}
	return nil
}

// findModuleStart returns the offset of the next "----...MODULE" header at
// or after off, or -1.
func findModuleStart(text string, off int) int {
	for off < len(text) {
		i := strings.Index(text[off:], "----")
		if i < 0 {
			return -1
		}
		start := off + i
		j := start
		for j < len(text) && text[j] == '-' {
			j++
		}
		for j < len(text) && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r' || text[j] == '\n') {
			j++
		}
		if strings.HasPrefix(text[j:], "MODULE") && (j+6 == len(text) || !isNameChar(text[j+6])) {
			return start
		}
		off = j
		if off == start {
			off++
		}
	}
	return -1
}

// advancePos returns the line and column after text, starting at line, col.
func advancePos(text string, line, col int) (int, int) {
	for _, r := range text {
		if r == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

// ParseExpr parses a single expression (for tests, tools and .cfg values).
func ParseExpr(filename, src string) (e Expr, err error) {
	defer catch(filename, &err)
	lx := &lexer{file: filename, src: src, line: 1, col: 1}
	for {
		t, lerr := lx.next()
		if lerr != nil {
			return nil, lerr
		}
		lx.toks = append(lx.toks, t)
		if t.kind == tEOF {
			break
		}
	}
	p := &parser{file: filename, toks: lx.toks}
	e = p.parseExpr(0)
	if t := p.raw(); t.kind != tEOF {
		p.failExpected("end of expression")
	}
	return e, nil
}

// parser is a recursive descent parser with precedence climbing for
// operators. fence is the column of the innermost enclosing bullet of a
// junction list (0 when none): a token at or left of it ends the expression.
type parser struct {
	file  string
	toks  []token
	i     int
	fence int
	depth int
	mods  []*Module // submodules found while parsing, in order
	// spans records the extent of expressions (see Module.Spans); nil when
	// not wanted.
	spans map[LineCol]Span
}

// span records the extent of x, which began at token start and ends with
// the last token consumed. The first span recorded for a position is kept:
// a parenthesized expression keeps the extent without its parentheses.
func (p *parser) span(x Expr, start token) {
	if x == nil {
		return
	}
	p.spanAt(x.Position(), start)
}

// spanAt records the extent of what is at pos (an expression, or a part
// of one that TLC locates: a record's field "a |-> e", an EXCEPT's
// "![i] = e"), which began at token start and ends with the last token
// consumed.
func (p *parser) spanAt(pos Pos, start token) {
	if p.spans == nil || p.i == 0 {
		return
	}
	k := LineCol{int32(pos.Line), int32(pos.Col)}
	if _, ok := p.spans[k]; ok {
		return
	}
	end := p.toks[p.i-1]
	p.spans[k] = Span{Begin: LineCol{start.line, start.col}, End: LineCol{end.eline, end.ecol}}
}

// at returns the position of a token.
func (p *parser) at(t token) Pos { return Pos{File: p.file, Line: int(t.line), Col: int(t.col)} }

// raw returns the current token ignoring the fence.
func (p *parser) raw() token { return p.toks[p.i] }

// peekRaw returns the token n positions ahead (the final EOF past the end).
func (p *parser) peekRaw(n int) token {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return p.toks[len(p.toks)-1]
}

// tok returns the current token, or an EOF token when it is fenced off by the
// enclosing junction list.
func (p *parser) tok() token {
	t := p.toks[p.i]
	if p.fence > 0 && int(t.col) <= p.fence && t.kind != tEOF {
		return token{kind: tEOF, line: t.line, col: t.col}
	}
	return t
}

func (p *parser) next() token {
	t := p.toks[p.i]
	if p.i < len(p.toks)-1 {
		p.i++
	}
	return t
}

func (p *parser) isSym(text string) bool {
	t := p.tok()
	return t.kind == tSym && t.text == text
}

func (p *parser) isKw(text string) bool {
	t := p.tok()
	return t.kind == tKeyword && t.text == text
}

func (p *parser) fail(pos Pos, format string, args ...any) {
	panic(bailout{newError(pos, format, args...)})
}

// failExpected reports "expected what, found <current token>".
func (p *parser) failExpected(what string) {
	t := p.raw()
	found := t.describe()
	if p.tok().kind == tEOF && t.kind != tEOF {
		found += " at or left of the junction list bullet column " + strconv.Itoa(p.fence)
	}
	p.fail(p.at(t), "expected %s, found %s", what, found)
}

func (p *parser) expectSym(text string) token {
	if !p.isSym(text) {
		p.failExpected(quoteSym(text))
	}
	return p.next()
}

func (p *parser) expectKw(text string) token {
	if !p.isKw(text) {
		p.failExpected(text)
	}
	return p.next()
}

func (p *parser) expectIdent() token {
	if p.tok().kind != tIdent {
		p.failExpected("identifier")
	}
	return p.next()
}

// expectClose consumes a closing bracket. Closing brackets are exempt from
// the junction-list fence: a ")" at the bullet column still closes its "(".
func (p *parser) expectClose(text string) token {
	if t := p.raw(); t.kind != tSym || t.text != text {
		p.failExpected(quoteSym(text))
	}
	return p.next()
}

func quoteSym(s string) string { return `"` + s + `"` }

// withFence runs f with the junction-list fence set to col.
func (p *parser) withFence(col int, f func()) {
	old := p.fence
	p.fence = col
	f()
	p.fence = old
}

// ---------------------------------------------------------------------------
// Modules and units

// parseModuleFile parses the module starting at the first token and returns
// it followed by its submodules.
func (p *parser) parseModuleFile() []*Module {
	m := p.parseModule()
	return append([]*Module{m}, p.mods...)
}

func (p *parser) parseModule() *Module {
	if p.raw().kind != tSep {
		p.failExpected("---- MODULE")
	}
	start := p.next()
	p.expectKw("MODULE")
	name := p.expectIdent()
	m := &Module{Pos: p.at(start), Name: name.text}
	for p.raw().kind == tSep && !p.peekRaw(1).is(tKeyword, "MODULE") {
		p.next()
	}
	if p.isKw("EXTENDS") {
		p.next()
		m.Extends = p.parseNameList()
	}
	for {
		t := p.raw()
		switch {
		case t.kind == tEnd:
			p.next()
			markRecursive(m.Units)
			return m
		case t.kind == tEOF:
			p.fail(p.at(t), "expected ==== at the end of module %s, found end of file", m.Name)
		case t.kind == tSep:
			if p.peekRaw(1).is(tKeyword, "MODULE") {
				sub := p.parseModule()
				m.Units = append(m.Units, sub)
				p.mods = append(p.mods, sub)
				continue
			}
			p.next()
		default:
			if u := p.parseUnit(); u != nil {
				m.Units = append(m.Units, u...)
			}
		}
	}
}

// parseNameTokens parses "a, b, c" and returns the name tokens.
func (p *parser) parseNameTokens() []token {
	var ts []token
	for {
		ts = append(ts, p.expectIdent())
		if !p.isSym(",") {
			return ts
		}
		p.next()
	}
}

// parseNameList parses "A, B, C".
func (p *parser) parseNameList() []string {
	var names []string
	for {
		names = append(names, p.expectIdent().text)
		if !p.isSym(",") {
			return names
		}
		p.next()
	}
}

// markRecursive sets OpDef.Recursive for names declared RECURSIVE in units.
func markRecursive(units []Unit) {
	var rec map[string]bool
	for _, u := range units {
		if r, ok := u.(*RecursiveDecl); ok {
			if rec == nil {
				rec = map[string]bool{}
			}
			for _, d := range r.Decls {
				rec[d.Name] = true
			}
		}
	}
	if rec == nil {
		return
	}
	for _, u := range units {
		if d, ok := u.(*OpDef); ok && rec[d.Name] {
			d.Recursive = true
		}
	}
}

var theoremKinds = map[string]bool{
	"THEOREM": true, "LEMMA": true, "COROLLARY": true, "PROPOSITION": true, "AXIOM": true,
}

// parseUnit parses one module-level unit. It returns nil for skipped units
// (proofs, USE/HIDE).
func (p *parser) parseUnit() []Unit {
	t := p.raw()
	if t.kind == tKeyword {
		switch t.text {
		case "CONSTANT", "CONSTANTS":
			p.next()
			return []Unit{&ConstantDecl{Pos: p.at(t), Decls: p.parseDecls()}}
		case "VARIABLE", "VARIABLES":
			p.next()
			v := &VariableDecl{Pos: p.at(t)}
			for {
				n := p.expectIdent()
				v.Names = append(v.Names, n.text)
				v.NamePos = append(v.NamePos, p.at(n))
				if !p.isSym(",") {
					break
				}
				p.next()
			}
			return []Unit{v}
		case "ASSUME", "ASSUMPTION":
			p.next()
			a := &Assume{Pos: p.at(t)}
			if p.tok().kind == tIdent && p.peekRaw(1).is(tSym, "==") {
				a.Name = p.next().text
				p.next()
			}
			a.Expr = p.parseExpr(0)
			return []Unit{a}
		case "THEOREM", "LEMMA", "COROLLARY", "PROPOSITION", "AXIOM":
			return []Unit{p.parseTheorem()}
		case "RECURSIVE":
			p.next()
			return []Unit{&RecursiveDecl{Pos: p.at(t), Decls: p.parseDecls()}}
		case "INSTANCE":
			return []Unit{p.parseInstance(p.at(t), "", nil, false)}
		case "LOCAL":
			p.next()
			if p.isKw("INSTANCE") {
				return []Unit{p.parseInstance(p.at(t), "", nil, true)}
			}
			u := p.parseDefinition(true)
			return []Unit{u}
		case "USE", "HIDE", "PROOF", "BY", "OBVIOUS", "OMITTED", "QED":
			p.next()
			p.skipProof(int(t.col))
			return nil
		case "EXTENDS":
			p.fail(p.at(t), "EXTENDS must directly follow the module header")
		}
	}
	if t.kind == tStep {
		p.skipProof(int(t.col))
		return nil
	}
	return []Unit{p.parseDefinition(false)}
}

// parseDecls parses CONSTANT or RECURSIVE declarations:
// c, F(_, _), _ + _, -. _, _ ^+.
func (p *parser) parseDecls() []Decl {
	var ds []Decl
	for {
		t := p.tok()
		switch {
		case t.kind == tIdent:
			p.next()
			d := Decl{Pos: p.at(t), Name: t.text}
			if p.isSym("(") {
				p.next()
				for {
					p.expectSym("_")
					d.Arity++
					if !p.isSym(",") {
						break
					}
					p.next()
				}
				p.expectClose(")")
			}
			ds = append(ds, d)
		case t.is(tSym, "_"):
			p.next()
			op := p.tok()
			name := CanonicalOp(op.text)
			switch {
			case op.kind == tSym && IsInfixOp(name):
				p.next()
				p.expectSym("_")
				ds = append(ds, Decl{Pos: p.at(t), Name: name, Arity: 2, Fix: Infix})
			case op.kind == tSym && IsPostfixOp(name):
				p.next()
				ds = append(ds, Decl{Pos: p.at(t), Name: name, Arity: 1, Fix: Postfix})
			default:
				p.failExpected("operator symbol")
			}
		case t.kind == tSym && (t.text == "-." || IsPrefixOp(CanonicalOp(t.text))):
			p.next()
			p.expectSym("_")
			name := CanonicalOp(t.text)
			if name == "-" {
				name = "-."
			}
			ds = append(ds, Decl{Pos: p.at(t), Name: name, Arity: 1, Fix: Prefix})
		default:
			p.failExpected("declaration")
		}
		if !p.isSym(",") {
			return ds
		}
		p.next()
	}
}

// parseTheorem parses THEOREM [Name ==] statement, then skips any proof.
func (p *parser) parseTheorem() Unit {
	t := p.next()
	th := &Theorem{Pos: p.at(t), Kind: t.text}
	if p.tok().kind == tIdent && p.peekRaw(1).is(tSym, "==") {
		th.Name = p.next().text
		p.next()
	}
	if p.isKw("ASSUME") {
		p.skipAssumptions()
		th.AssumeProve = true
	}
	th.Expr = p.parseExpr(0)
	if n := p.raw(); n.kind == tStep || n.kind == tKeyword && (n.text == "PROOF" || n.text == "BY" || n.text == "OBVIOUS" || n.text == "OMITTED") {
		p.skipProof(int(t.col))
	}
	return th
}

// skipAssumptions skips "ASSUME ... PROVE" (with nesting) up to and
// including the matching PROVE.
func (p *parser) skipAssumptions() {
	start := p.next()
	depth := 1
	for {
		t := p.raw()
		switch {
		case t.kind == tEOF || t.kind == tEnd:
			p.fail(p.at(start), "expected PROVE for this ASSUME, found %s", t.describe())
		case t.is(tKeyword, "ASSUME"):
			depth++
		case t.is(tKeyword, "PROVE"):
			depth--
			if depth == 0 {
				p.next()
				return
			}
		}
		p.next()
	}
}

// unitStartKeywords are keywords that begin a module-level unit and cannot
// begin a proof step.
var unitStartKeywords = map[string]bool{
	"THEOREM": true, "LEMMA": true, "COROLLARY": true, "PROPOSITION": true,
	"AXIOM": true, "ASSUMPTION": true, "VARIABLE": true, "VARIABLES": true,
	"CONSTANT": true, "CONSTANTS": true, "LOCAL": true, "RECURSIVE": true,
	"INSTANCE": true, "EXTENDS": true,
}

// skipProof skips a proof (or a USE/HIDE unit) until the next token that
// starts a module-level unit: a unit keyword or definition at the start of a
// line no further right than unitCol, a ---- separator, or the module end.
func (p *parser) skipProof(unitCol int) {
	for {
		t := p.raw()
		switch t.kind {
		case tEOF, tEnd, tSep:
			return
		}
		if p.i > 0 && int(t.col) <= unitCol && p.bol() {
			prev := p.toks[p.i-1]
			// A definition right after DEFINE (or a name after NEW) belongs
			// to the proof.
			if !prev.is(tKeyword, "DEFINE") && !prev.is(tKeyword, "NEW") {
				if t.kind == tKeyword && (unitStartKeywords[t.text] || t.text == "ASSUME" || t.text == "USE" || t.text == "HIDE") {
					return
				}
				if p.looksLikeDefinition() {
					return
				}
			}
		}
		p.next()
	}
}

// bol reports whether the current token is the first on its line.
func (p *parser) bol() bool {
	return p.i == 0 || p.toks[p.i-1].line != p.toks[p.i].line
}

// looksLikeDefinition reports whether the tokens at the current position
// form the head of a definition ("Id ==", "Id(..) ==", "Id[..] ==",
// "a op b ==", "op a ==", "a op ==").
func (p *parser) looksLikeDefinition() bool {
	t0, t1, t2, t3 := p.peekRaw(0), p.peekRaw(1), p.peekRaw(2), p.peekRaw(3)
	def := func(t token) bool { return t.is(tSym, "==") }
	switch {
	case t0.kind == tIdent && def(t1):
		return true
	case t0.kind == tIdent && (t1.is(tSym, "(") || t1.is(tSym, "[")):
		closer := ")"
		if t1.text == "[" {
			closer = "]"
		}
		depth := 0
		for k := 1; k < 256; k++ {
			t := p.peekRaw(k)
			switch {
			case t.kind == tEOF || t.kind == tEnd:
				return false
			case t.is(tSym, t1.text):
				depth++
			case t.is(tSym, closer):
				depth--
				if depth == 0 {
					return def(p.peekRaw(k + 1))
				}
			}
		}
		return false
	case t0.kind == tIdent && t1.kind == tSym && IsInfixOp(CanonicalOp(t1.text)) && t2.kind == tIdent && def(t3):
		return true
	case t0.kind == tIdent && t1.kind == tSym && IsPostfixOp(t1.text) && def(t2):
		return true
	case t0.kind == tSym && (t0.text == "-." || IsPrefixOp(CanonicalOp(t0.text))) && t1.kind == tIdent && def(t2):
		return true
	}
	return false
}

// parseDefinition parses an operator, function or instance definition.
func (p *parser) parseDefinition(local bool) Unit {
	t0 := p.tok()
	t1 := p.peekRaw(1)
	switch {
	case t0.kind == tIdent && t1.is(tSym, "=="):
		p.next()
		p.next()
		p.lhsSpan(t0)
		if p.isKw("INSTANCE") {
			return p.parseInstance(p.at(t0), t0.text, nil, local)
		}
		return &OpDef{Pos: p.at(t0), Name: t0.text, Body: p.parseExpr(0), Local: local}
	case t0.kind == tIdent && t1.is(tSym, "("):
		p.next()
		p.next()
		params := p.parseParams()
		p.expectClose(")")
		p.expectSym("==")
		p.lhsSpan(t0)
		if p.isKw("INSTANCE") {
			return p.parseInstance(p.at(t0), t0.text, params, local)
		}
		return &OpDef{Pos: p.at(t0), Name: t0.text, Params: params, Body: p.parseExpr(0), Local: local}
	case t0.kind == tIdent && t1.is(tSym, "["):
		p.next()
		p.next()
		bounds := p.parseBounds(false)
		p.expectClose("]")
		p.expectSym("==")
		return &FuncDef{Pos: p.at(t0), Name: t0.text, Bounds: bounds, Body: p.parseExpr(0), Local: local}
	case t0.kind == tIdent && t1.kind == tSym && IsInfixOp(CanonicalOp(t1.text)):
		p.next()
		p.next()
		b := p.expectIdent()
		p.expectSym("==")
		return &OpDef{Pos: p.at(t0), Name: CanonicalOp(t1.text), Fix: Infix, Local: local,
			Params: []Param{{Pos: p.at(t0), Name: t0.text}, {Pos: p.at(b), Name: b.text}},
			Body:   p.parseExpr(0)}
	case t0.kind == tIdent && t1.kind == tSym && IsPostfixOp(t1.text):
		p.next()
		p.next()
		p.expectSym("==")
		return &OpDef{Pos: p.at(t0), Name: t1.text, Fix: Postfix, Local: local,
			Params: []Param{{Pos: p.at(t0), Name: t0.text}}, Body: p.parseExpr(0)}
	case t0.kind == tSym && (t0.text == "-." || IsPrefixOp(CanonicalOp(t0.text))):
		p.next()
		a := p.expectIdent()
		p.expectSym("==")
		name := CanonicalOp(t0.text)
		if name == "-" {
			name = "-."
		}
		return &OpDef{Pos: p.at(t0), Name: name, Fix: Prefix, Local: local,
			Params: []Param{{Pos: p.at(a), Name: a.text}}, Body: p.parseExpr(0)}
	}
	p.failExpected("definition or declaration")
	return nil
}

// lhsSpan records the extent of a definition's left-hand side, from its
// first token t0 to the token before the "==" just consumed, by t0's
// position (where no expression starts): TLC locates an action's
// declaration so in its coverage report.
func (p *parser) lhsSpan(t0 token) {
	if p.spans == nil || p.i < 2 {
		return
	}
	end := p.toks[p.i-2]
	p.spans[LineCol{t0.line, t0.col}] = Span{Begin: LineCol{t0.line, t0.col}, End: LineCol{end.eline, end.ecol}}
}

// parseParams parses operator definition parameters: x, F(_, _), ...
func (p *parser) parseParams() []Param {
	var ps []Param
	for {
		n := p.expectIdent()
		prm := Param{Pos: p.at(n), Name: n.text}
		if p.isSym("(") {
			p.next()
			for {
				p.expectSym("_")
				prm.Arity++
				if !p.isSym(",") {
					break
				}
				p.next()
			}
			p.expectClose(")")
		}
		ps = append(ps, prm)
		if !p.isSym(",") {
			return ps
		}
		p.next()
	}
}

// parseInstance parses INSTANCE M [WITH a <- e, ...] at the current INSTANCE.
func (p *parser) parseInstance(pos Pos, name string, params []Param, local bool) *Instance {
	p.expectKw("INSTANCE")
	inst := &Instance{Pos: pos, Name: name, Params: params, Local: local}
	inst.Module = p.expectIdent().text
	if p.isKw("WITH") {
		p.next()
		for {
			t := p.tok()
			var subName string
			switch {
			case t.kind == tIdent:
				subName = t.text
			case t.kind == tSym && (IsInfixOp(CanonicalOp(t.text)) || IsPrefixOp(CanonicalOp(t.text)) || IsPostfixOp(t.text) || t.text == "-."):
				subName = CanonicalOp(t.text)
			default:
				p.failExpected("identifier")
			}
			p.next()
			p.expectSym("<-")
			inst.Subst = append(inst.Subst, Subst{Pos: p.at(t), Name: subName, Expr: p.parseArg()})
			if !p.isSym(",") {
				break
			}
			p.next()
		}
	}
	if p.spans != nil {
		// The statement's extent: TLC locates an action of an instance
		// with substitutions there.
		end := p.toks[p.i-1]
		p.spans[LineCol{int32(pos.Line), int32(pos.Col)}] = Span{Begin: LineCol{int32(pos.Line), int32(pos.Col)}, End: LineCol{end.eline, end.ecol}}
	}
	return inst
}
