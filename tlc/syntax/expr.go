package syntax

// Expressions: precedence climbing over the operator table of ops.go, with
// the junction-list fence (see parser.tok) for bulleted /\ and \/ lists.

// enter and leave count the recursion depth of expression parsing.
func (p *parser) enter() {
	p.depth++
	if p.depth > maxDepth {
		p.fail(p.at(p.raw()), "expression nested too deeply")
	}
}

func (p *parser) leave() { p.depth-- }

// infixAt returns the canonical infix operator at the current token.
func (p *parser) infixAt() (string, opInfo, bool) {
	t := p.tok()
	if t.kind != tSym {
		return "", opInfo{}, false
	}
	name := CanonicalOp(t.text)
	if name == "<-" {
		// "a<-1" is "a < -1".
		return "<-", infixOps["<"], true
	}
	info, ok := infixOps[name]
	return name, info, ok
}

// parseExpr parses an expression whose infix operators all have a
// precedence range starting at or above minPrec.
func (p *parser) parseExpr(minPrec int) Expr {
	p.enter()
	defer p.leave()
	start := p.raw()
	x := p.parseUnary()
	p.span(x, start)
	return p.parseInfixFrom(x, minPrec, start)
}

// parseInfix continues an expression whose first operand is left.
func (p *parser) parseInfix(left Expr, minPrec int) Expr {
	return p.parseInfixFrom(left, minPrec, token{})
}

// parseInfixFrom is parseInfix for an expression that began at token start
// (a zero token: unknown), whose extent it records.
func (p *parser) parseInfixFrom(left Expr, minPrec int, start token) Expr {
	for {
		if start.line > 0 {
			p.span(left, start)
		}
		name, info, ok := p.infixAt()
		if !ok || info.lo < minPrec {
			return left
		}
		opTok := p.next()
		switch name {
		case `\X`:
			sets := []Expr{left, p.parseExpr(info.hi + 1)}
			for {
				if n, _, ok := p.infixAt(); !ok || n != `\X` {
					break
				}
				p.next()
				sets = append(sets, p.parseExpr(info.hi+1))
			}
			left = &CrossProduct{Pos: left.Position(), Sets: sets}
		case "~>":
			left = &LeadsTo{Pos: p.at(opTok), L: left, R: p.parseExpr(info.hi + 1)}
		case "<-":
			neg := &OpApp{Pos: p.at(opTok), Name: "-.", Args: []Expr{p.parseExpr(13)}}
			left = &OpApp{Pos: p.at(opTok), Name: "<", Args: []Expr{left, neg}}
		default:
			right := p.parseExpr(info.hi + 1)
			left = &OpApp{Pos: p.at(opTok), Name: name, Args: []Expr{left, right}}
		}
	}
}

// parseUnary parses prefix operator applications and primaries.
func (p *parser) parseUnary() Expr {
	t := p.tok()
	var name string
	switch t.kind {
	case tSym:
		name = CanonicalOp(t.text)
		if name == "-" {
			name = "-."
		}
	case tKeyword:
		name = t.text
	}
	info, ok := prefixOps[name]
	if !ok {
		start := p.raw()
		return p.parsePostfixFrom(p.parsePrimary(), start)
	}
	p.next()
	// Operands of prefix operators whose range reaches 15 still take
	// postfix operators (x' in ENABLED x', []x').
	minPrec := info.hi + 1
	if minPrec > 15 {
		minPrec = 15
	}
	p.enter()
	x := p.parseExpr(minPrec)
	p.leave()
	switch name {
	case "[]":
		return &Always{Pos: p.at(t), X: x}
	case "<>":
		return &Eventually{Pos: p.at(t), X: x}
	case "ENABLED":
		return &Enabled{Pos: p.at(t), X: x}
	case "UNCHANGED":
		return &Unchanged{Pos: p.at(t), X: x}
	}
	return &OpApp{Pos: p.at(t), Name: name, Args: []Expr{x}}
}

// parsePostfix applies function application, record fields, primes and the
// postfix operators ^+ ^* ^#, left to right.
func (p *parser) parsePostfix(x Expr) Expr {
	return p.parsePostfixFrom(x, token{})
}

// parsePostfixFrom is parsePostfix for an expression that began at token
// start (a zero token: unknown): the extent of each application is
// recorded, f[x] in f[x].a as well as the whole.
func (p *parser) parsePostfixFrom(x Expr, start token) Expr {
	for {
		if start.line > 0 {
			p.span(x, start)
		}
		t := p.tok()
		if t.kind != tSym {
			return x
		}
		switch t.text {
		case "[":
			p.next()
			var args []Expr
			p.withFence(0, func() { args = p.parseExprList("]") })
			p.expectClose("]")
			x = &FuncApp{Pos: p.at(t), Func: x, Args: args}
		case ".":
			n := p.peekRaw(1)
			if n.kind != tIdent && n.kind != tKeyword {
				return x
			}
			p.next()
			p.next()
			x = &Field{Pos: p.at(t), Rec: x, Name: n.text}
		case "'":
			p.next()
			x = &Prime{Pos: p.at(t), X: x}
		case "^+", "^*", "^#":
			p.next()
			x = &OpApp{Pos: p.at(t), Name: t.text, Args: []Expr{x}}
		default:
			return x
		}
	}
}

// parseExprList parses comma-separated expressions up to (not including)
// the closing symbol.
func (p *parser) parseExprList(closing string) []Expr {
	var es []Expr
	if p.isSym(closing) {
		return nil
	}
	for {
		es = append(es, p.parseExpr(0))
		if !p.isSym(",") {
			return es
		}
		p.next()
	}
}

// parseArg parses an operator argument: an expression, or an operator
// symbol passed to a higher-order operator.
func (p *parser) parseArg() Expr {
	t := p.tok()
	if t.kind == tSym {
		n := p.peekRaw(1)
		if n.kind == tSym && (n.text == "," || n.text == ")") || n.kind == tEOF || n.kind == tEnd {
			name := CanonicalOp(t.text)
			if IsInfixOp(name) || IsPostfixOp(name) || IsPrefixOp(name) || name == "-." {
				p.next()
				return &Ident{Pos: p.at(t), Name: name}
			}
		}
	}
	return p.parseExpr(0)
}

// parseArgs parses "(a, b, ...)" at the current "(".
func (p *parser) parseArgs() []Expr {
	p.expectSym("(")
	var args []Expr
	p.withFence(0, func() {
		for {
			args = append(args, p.parseArg())
			if !p.isSym(",") {
				break
			}
			p.next()
		}
	})
	p.expectClose(")")
	return args
}

// parsePrimary parses an expression that starts with an operand.
func (p *parser) parsePrimary() Expr {
	p.enter()
	defer p.leave()
	t := p.tok()
	switch t.kind {
	case tNumber:
		p.next()
		if t.overflow {
			p.fail(p.at(t), "integer literal %s is out of range", t.text)
		}
		return &Number{Pos: p.at(t), Text: t.text, Value: t.num}
	case tDecimal:
		p.next()
		return &Decimal{Pos: p.at(t), Text: t.text}
	case tString:
		p.next()
		return &StringLit{Pos: p.at(t), Value: t.text}
	case tIdent:
		return p.parseName()
	case tKeyword:
		return p.parseKeywordExpr(t)
	case tSym:
		return p.parseSymExpr(t)
	}
	p.failExpected("expression")
	return nil
}

// parseName parses an identifier, operator application, instance path
// (M!Op, M(x)!Op(y)) or label (lbl:: e).
func (p *parser) parseName() Expr {
	t := p.next()
	var args []Expr
	hasArgs := false
	if p.isSym("(") {
		args = p.parseArgs()
		hasArgs = true
	}
	if p.isSym("::") {
		l := &Label{Pos: p.at(t), Name: t.text}
		for _, a := range args {
			id, ok := a.(*Ident)
			if !ok {
				p.fail(a.Position(), "expected label parameter name, found %s", a.String())
			}
			l.Params = append(l.Params, id.Name)
		}
		p.next()
		l.Body = p.parseExpr(0)
		return l
	}
	if !p.isSym("!") {
		if !hasArgs {
			return &Ident{Pos: p.at(t), Name: t.text}
		}
		return &OpApp{Pos: p.at(t), Name: t.text, Args: args}
	}
	app := &OpApp{Pos: p.at(t)}
	name, namePos := t.text, p.at(t)
	for p.isSym("!") {
		if isSelector(p.peekRaw(1)) {
			app.Name, app.Args = name, args
			var base Expr = app
			if len(app.Path) == 0 && !hasArgs {
				base = &Ident{Pos: p.at(t), Name: name}
			}
			return p.parseSelectors(base)
		}
		app.Path = append(app.Path, PathStep{Pos: namePos, Name: name, Args: args})
		p.next()
		n := p.tok()
		switch {
		case n.kind == tIdent:
			name = n.text
		case n.kind == tSym && (IsInfixOp(CanonicalOp(n.text)) || IsPrefixOp(CanonicalOp(n.text)) || IsPostfixOp(n.text) || n.text == "-."):
			name = CanonicalOp(n.text)
		default:
			p.failExpected("operator name after !")
		}
		namePos = p.at(n)
		p.next()
		args = nil
		if p.isSym("(") {
			args = p.parseArgs()
		}
	}
	app.Name = name
	app.Args = args
	return app
}

// isSelector reports whether t is a subexpression selector after "!".
func isSelector(t token) bool {
	return t.kind == tNumber || t.kind == tSym && (t.text == ":" || t.text == "<<" || t.text == ">>" || t.text == "@")
}

// parseSelectors parses "!sel!sel..." after base.
func (p *parser) parseSelectors(base Expr) Expr {
	s := &SubExpr{Pos: base.Position(), Base: base}
	for p.isSym("!") && isSelector(p.peekRaw(1)) {
		p.next()
		s.Sels = append(s.Sels, p.next().text)
	}
	if p.isSym("!") {
		p.failExpected("subexpression selector")
	}
	return s
}

func (p *parser) parseKeywordExpr(t token) Expr {
	switch t.text {
	case "TRUE", "FALSE":
		p.next()
		return &Bool{Pos: p.at(t), Value: t.text == "TRUE"}
	case "BOOLEAN", "STRING":
		p.next()
		return &Ident{Pos: p.at(t), Name: t.text}
	case "IF":
		p.next()
		c := p.parseExpr(0)
		p.expectKw("THEN")
		a := p.parseExpr(0)
		p.expectKw("ELSE")
		b := p.parseExpr(0)
		return &If{Pos: p.at(t), Cond: c, Then: a, Else: b}
	case "CASE":
		return p.parseCase()
	case "LET":
		return p.parseLet()
	case "CHOOSE":
		p.next()
		bs := p.parseBound(true)
		p.expectSym(":")
		return &Choose{Pos: p.at(t), Bound: bs, Body: p.parseExpr(0)}
	case "LAMBDA":
		p.next()
		l := &Lambda{Pos: p.at(t)}
		for {
			n := p.expectIdent()
			l.Params = append(l.Params, Param{Pos: p.at(n), Name: n.text})
			if !p.isSym(",") {
				break
			}
			p.next()
		}
		p.expectSym(":")
		l.Body = p.parseExpr(0)
		return l
	case "WF_", "SF_":
		p.next()
		f := &Fairness{Pos: p.at(t), Strong: t.text == "SF_"}
		f.Sub = p.parseSubscript(false)
		args := p.parseArgs()
		if len(args) != 1 {
			p.fail(p.at(t), "expected one action argument of %s, found %d", t.text, len(args))
		}
		f.Action = args[0]
		return f
	}
	p.failExpected("expression")
	return nil
}

// parseSubscript parses the subscript of [A]_v, <<A>>_v, WF_v(A), SF_v(A):
// an identifier (with an instance path), a tuple or a parenthesized
// expression. With full, an identifier may take arguments and postfix
// operators (only [A]_v and <<A>>_v, where nothing else can follow).
func (p *parser) parseSubscript(full bool) Expr {
	t := p.tok()
	switch {
	case t.kind == tIdent && full:
		return p.parsePostfix(p.parseName())
	case t.kind == tIdent:
		p.next()
		var x Expr = &Ident{Pos: p.at(t), Name: t.text}
		if p.isSym("!") {
			app := &OpApp{Pos: p.at(t)}
			name, pos := t.text, p.at(t)
			for p.isSym("!") {
				app.Path = append(app.Path, PathStep{Pos: pos, Name: name})
				p.next()
				n := p.expectIdent()
				name, pos = n.text, p.at(n)
			}
			app.Name = name
			x = app
		}
		return x
	case t.is(tSym, "<<"), t.is(tSym, "("):
		return p.parsePrimary()
	}
	p.failExpected("subscript")
	return nil
}

func (p *parser) parseCase() Expr {
	t := p.next()
	c := &Case{Pos: p.at(t)}
	for {
		armPos := p.at(p.tok())
		if p.isKw("OTHER") {
			p.next()
			p.expectSym("->")
			c.Other = p.parseExpr(0)
			return c
		}
		cond := p.parseExpr(0)
		p.expectSym("->")
		body := p.parseExpr(0)
		c.Arms = append(c.Arms, CaseArm{Pos: armPos, Cond: cond, Body: body})
		if !p.isSym("[]") {
			return c
		}
		p.next()
	}
}

func (p *parser) parseLet() Expr {
	t := p.next()
	l := &Let{Pos: p.at(t)}
	for !p.isKw("IN") {
		d := p.tok()
		switch {
		case d.is(tKeyword, "RECURSIVE"):
			p.next()
			l.Defs = append(l.Defs, &RecursiveDecl{Pos: p.at(d), Decls: p.parseDecls()})
		case d.kind == tIdent || d.kind == tSym:
			l.Defs = append(l.Defs, p.parseDefinition(false))
		default:
			p.failExpected("definition or IN")
		}
	}
	if len(l.Defs) == 0 {
		p.failExpected("definition")
	}
	p.next()
	markRecursive(l.Defs)
	l.Body = p.parseExpr(0)
	return l
}

func (p *parser) parseSymExpr(t token) Expr {
	switch CanonicalOp(t.text) {
	case "(":
		p.next()
		var x Expr
		p.withFence(0, func() { x = p.parseExpr(0) })
		p.expectClose(")")
		return x
	case "<<":
		p.next()
		var es []Expr
		p.withFence(0, func() { es = p.parseExprList(">>") })
		if p.isSym(">>_") {
			p.next()
			if len(es) != 1 {
				p.fail(p.at(t), "expected one action inside <<...>>_, found %d", len(es))
			}
			return &ActionAngle{Pos: p.at(t), Action: es[0], Sub: p.parseSubscript(true)}
		}
		p.expectClose(">>")
		return &Tuple{Pos: p.at(t), Elems: es}
	case "{":
		p.next()
		var x Expr
		p.withFence(0, func() { x = p.parseBraces(p.at(t)) })
		p.expectClose("}")
		return x
	case "[":
		p.next()
		var x Expr
		var box bool
		p.withFence(0, func() { x, box = p.parseBrackets(p.at(t)) })
		if box {
			p.expectClose("]_")
			return &ActionBox{Pos: p.at(t), Action: x, Sub: p.parseSubscript(true)}
		}
		p.expectClose("]")
		return x
	case `\A`, `\E`:
		p.next()
		q := &Quant{Pos: p.at(t), Forall: t.text == `\A`}
		q.Bounds = p.parseBounds(true)
		p.expectSym(":")
		q.Body = p.parseExpr(0)
		return q
	case `\AA`, `\EE`:
		p.next()
		q := &TemporalQuant{Pos: p.at(t), Forall: t.text == `\AA`}
		q.Names = p.parseNameList()
		p.expectSym(":")
		q.Body = p.parseExpr(0)
		return q
	case `/\`, `\/`:
		return p.parseBulletList()
	case "@":
		p.next()
		return &At{Pos: p.at(t)}
	}
	p.failExpected("expression")
	return nil
}

// parseBulletList parses an aligned junction list. Every item is parsed
// with the fence at the bullet column, so that any token at or left of it
// ends the item; the list goes on while the next token is the same bullet at
// exactly that column.
func (p *parser) parseBulletList() Expr {
	first := p.tok()
	col := int(first.col)
	bl := &BulletList{Pos: p.at(first), Kind: first.text}
	if bl.Kind == `\land` {
		bl.Kind = `/\`
	} else if bl.Kind == `\lor` {
		bl.Kind = `\/`
	}
	for {
		p.next()
		var item Expr
		p.withFence(col, func() { item = p.parseExpr(0) })
		bl.Items = append(bl.Items, item)
		n := p.tok()
		if n.kind != tSym || int(n.col) != col || CanonicalOp(n.text) != bl.Kind {
			return bl
		}
	}
}

// binderAhead reports whether the tokens at the current position start a
// binder "x, y \in" or "<<x, y>> \in".
func (p *parser) binderAhead() bool {
	k := 0
	if p.peekRaw(0).is(tSym, "<<") {
		k = 1
		for {
			if p.peekRaw(k).kind != tIdent {
				return false
			}
			k++
			if !p.peekRaw(k).is(tSym, ",") {
				break
			}
			k++
		}
		if !p.peekRaw(k).is(tSym, ">>") {
			return false
		}
		k++
	} else {
		for {
			if p.peekRaw(k).kind != tIdent {
				return false
			}
			k++
			if !p.peekRaw(k).is(tSym, ",") {
				break
			}
			k++
		}
	}
	return p.peekRaw(k).is(tSym, `\in`)
}

// parseBound parses one binder: x \in S, x, y \in S, <<x, y>> \in S, or (when
// unbounded is allowed) x or x, y.
func (p *parser) parseBound(unbounded bool) Bound {
	b := Bound{Pos: p.at(p.tok())}
	if p.isSym("<<") {
		p.next()
		b.Tuple = true
		b.Names = p.parseNameList()
		p.expectClose(">>")
	} else {
		b.Names = append(b.Names, p.expectIdent().text)
		// "x, y \in S" shares S; in "x \in S, y \in T" the comma after S
		// is consumed by parseBounds instead.
		for p.isSym(",") && p.peekRaw(1).kind == tIdent {
			p.next()
			b.Names = append(b.Names, p.next().text)
		}
	}
	if p.isSym(`\in`) {
		p.next()
		b.Set = p.parseExpr(0)
		return b
	}
	if !unbounded || b.Tuple {
		p.failExpected(`\in`)
	}
	return b
}

// parseBounds parses a comma-separated list of binders.
func (p *parser) parseBounds(unbounded bool) []Bound {
	var bs []Bound
	for {
		b := p.parseBound(unbounded)
		bs = append(bs, b)
		if b.Set == nil || !p.isSym(",") {
			return bs
		}
		p.next()
	}
}

// parseBraces parses the inside of { ... }: set enumeration, filter or map.
func (p *parser) parseBraces(pos Pos) Expr {
	if p.isSym("}") {
		return &SetEnum{Pos: pos}
	}
	var es []Expr
	var first Expr
	if p.binderAhead() {
		// "{x \in S : P}" is a filter, "{x \in S}" a one-element set. The
		// set is parsed as the right operand of \in (precedence 5-5), so
		// that no re-parse is needed when no ":" follows.
		b := Bound{Pos: p.at(p.tok())}
		var names []token
		if p.isSym("<<") {
			p.next()
			b.Tuple = true
			names = p.parseNameTokens()
			p.expectClose(">>")
		} else {
			names = p.parseNameTokens()
		}
		inTok := p.expectSym(`\in`)
		set := p.parseExpr(6)
		for _, n := range names {
			b.Names = append(b.Names, n.text)
		}
		if p.isSym(":") && (len(names) == 1 || b.Tuple) {
			b.Set = set
			p.next()
			return &SetFilter{Pos: pos, Bound: b, Pred: p.parseExpr(0)}
		}
		var elem Expr
		if b.Tuple {
			tup := &Tuple{Pos: b.Pos}
			for _, n := range names {
				tup.Elems = append(tup.Elems, &Ident{Pos: p.at(n), Name: n.text})
			}
			elem = tup
		} else {
			for _, n := range names[:len(names)-1] {
				es = append(es, &Ident{Pos: p.at(n), Name: n.text})
			}
			last := names[len(names)-1]
			elem = &Ident{Pos: p.at(last), Name: last.text}
		}
		first = p.parseInfix(&OpApp{Pos: p.at(inTok), Name: `\in`, Args: []Expr{elem, set}}, 0)
		if len(es) > 0 {
			es = append(es, first)
			for p.isSym(",") {
				p.next()
				es = append(es, p.parseExpr(0))
			}
			return &SetEnum{Pos: pos, Elems: es}
		}
	} else {
		first = p.parseExpr(0)
	}
	if p.isSym(":") {
		p.next()
		return &SetMap{Pos: pos, Elem: first, Bounds: p.parseBounds(false)}
	}
	es = []Expr{first}
	for p.isSym(",") {
		p.next()
		es = append(es, p.parseExpr(0))
	}
	return &SetEnum{Pos: pos, Elems: es}
}

// parseBrackets parses the inside of [ ... ]. box is true for [A]_v, where
// the caller consumes the "]_".
func (p *parser) parseBrackets(pos Pos) (x Expr, box bool) {
	t0, t1 := p.tok(), p.peekRaw(1)
	if (t0.kind == tIdent || t0.kind == tKeyword) && t1.is(tSym, "|->") {
		r := &RecordLit{Pos: pos}
		for {
			n := p.next()
			if n.kind != tIdent && n.kind != tKeyword {
				p.fail(p.at(n), "expected field name, found %s", n.describe())
			}
			p.expectSym("|->")
			r.Fields = append(r.Fields, FieldVal{Pos: p.at(n), Name: n.text, Val: p.parseExpr(0)})
			p.spanAt(p.at(n), n)
			if !p.isSym(",") {
				return r, false
			}
			p.next()
		}
	}
	if (t0.kind == tIdent || t0.kind == tKeyword) && t1.is(tSym, ":") {
		r := &RecordSet{Pos: pos}
		for {
			n := p.next()
			if n.kind != tIdent && n.kind != tKeyword {
				p.fail(p.at(n), "expected field name, found %s", n.describe())
			}
			p.expectSym(":")
			r.Fields = append(r.Fields, FieldVal{Pos: p.at(n), Name: n.text, Val: p.parseExpr(0)})
			if !p.isSym(",") {
				return r, false
			}
			p.next()
		}
	}
	if p.binderAhead() {
		f := &FuncLit{Pos: pos, Bounds: p.parseBounds(false)}
		p.expectSym("|->")
		f.Body = p.parseExpr(0)
		return f, false
	}
	e := p.parseExpr(0)
	switch {
	case p.isSym("->"):
		p.next()
		return &FuncSet{Pos: pos, Domain: e, Range: p.parseExpr(0)}, false
	case p.isKw("EXCEPT"):
		p.next()
		ex := &Except{Pos: pos, Func: e}
		for {
			bang := p.raw()
			u := ExceptUpdate{Pos: p.at(p.tok())}
			p.expectSym("!")
			for {
				st := p.tok()
				if p.isSym(".") {
					p.next()
					n := p.tok()
					if n.kind != tIdent && n.kind != tKeyword {
						p.failExpected("field name")
					}
					p.next()
					u.Path = append(u.Path, ExceptStep{Pos: p.at(st), Field: n.text})
				} else if p.isSym("[") {
					p.next()
					idx := p.parseExprList("]")
					if len(idx) == 0 {
						p.failExpected("index expression")
					}
					p.expectClose("]")
					u.Path = append(u.Path, ExceptStep{Pos: p.at(st), Index: idx})
				} else {
					break
				}
			}
			if len(u.Path) == 0 {
				p.failExpected(`"[" or "." after !`)
			}
			p.expectSym("=")
			u.Value = p.parseExpr(0)
			p.spanAt(u.Pos, bang)
			ex.Updates = append(ex.Updates, u)
			if !p.isSym(",") {
				return ex, false
			}
			p.next()
		}
	case p.isSym("]_"):
		return e, true
	}
	p.failExpected(`"->", EXCEPT or "]_"`)
	return nil, false
}
