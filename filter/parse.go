package filter

import (
	"fmt"
	"slices"
	"strings"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// Test is a parsed filter test (docs/filters.md).
type Test struct {
	File     string
	Name     string
	Counters []string // declared counters, all 0 at the start
	Sets     []string // declared message sets, all empty at the start
	// States are the scenario's states; the first is the initial one.
	// Accept is the state that satisfies the scenario.
	States []string
	Accept string
	// Reject is the state that fails the execution: the scenario's
	// property is violated ("" when none).
	Reject  string
	Filters []Filter
	Moves   []Move
	Expect  Expect
	// Models are the TLA+ predicates the conditions name, in the order
	// they appear; a Cond of op "model" refers to one by index.
	Models []Model
	// The bounds of the search the test asks for (0: the command's).
	Steps, Executions, Requests, Crashes, Timeouts int
}

// Filter is "on COND do ACTION, ...".
type Filter struct {
	Pos     Pos
	Cond    *Cond
	Actions []Action
}

// Move is a transition of the scenario: "scenario FROM -> TO when COND".
type Move struct {
	Pos      Pos
	From, To string
	Cond     *Cond
}

// Expect says what the satisfying executions must show: no oracle failure
// (Failure false), or a failure whose signature contains Signature.
type Expect struct {
	Pos       Pos
	Failure   bool
	Signature string
}

// Model is a TLA+ predicate over the model's variables, written in a
// condition as model "EXPR".
type Model struct {
	Pos  Pos
	Expr string
}

// Cond is a condition over an event and the monitor's context.
type Cond struct {
	Pos Pos
	Op  string // "and", "or", "not", "true", "kind", "cmp", "in", "model"
	L   *Cond
	R   *Cond
	// kind: the event kind; cmp and in: the left side (a field, "count",
	// "size", "state", "step"), its argument (a counter's or set's name),
	// the operator and the values.
	Kind   string
	Field  string
	Arg    string
	Cmp    string
	Values []Value
	Model  int // model: index into Test.Models
}

// Value is an integer or a name (a message type, a string field's value,
// a state).
type Value struct {
	Int   int64
	Str   string
	IsStr bool
}

func (v Value) String() string {
	if v.IsStr {
		return v.Str
	}
	return fmt.Sprint(v.Int)
}

// Action is one thing a filter does.
type Action struct {
	Pos Pos
	// Op is drop, deliver, duplicate, delay, hold, release, reorder (message
	// and set actions); crash, restart, timeout, partition, heal (steps);
	// read, transfer (client operations); incr, reset (counters).
	Op   string
	Name string           // hold, release, reorder: the set; incr, reset: the counter
	N    int              // delay: steps
	Proc int              // crash, restart, timeout, read, transfer: the process; -1: the event's node
	To   int              // transfer: the process leadership goes to
	Set  schedule.ProcSet // partition: the processes cut from the others; 0: the event's node
}

// messageOps act on the message of a send event.
var messageOps = []string{"drop", "deliver", "duplicate", "delay", "hold"}

// IsMessage reports whether the action decides the fate of the event's message.
func (a Action) IsMessage() bool { return slices.Contains(messageOps, a.Op) }

// Parse reads a test file. Every problem is reported as one error
// "FILE:LINE:COL: what".
func Parse(file, src string) (*Test, error) {
	toks, err := lex(file, src)
	if err != nil {
		return nil, err
	}
	p := &parser{file: file, toks: toks, t: &Test{File: file}}
	if err := p.parseFile(); err != nil {
		return nil, err
	}
	return p.t, nil
}

type parser struct {
	file string
	toks []token
	i    int
	t    *Test
	// where each name was declared, to refuse a second declaration
	declared map[string]Pos
	seen     map[string]Pos // statements allowed once
}

// bail carries a parse error up through the recursive descent.
type bail struct{ err *Error }

func (p *parser) fail(pos Pos, format string, args ...any) {
	panic(bail{&Error{p.file, pos, fmt.Sprintf(format, args...)}})
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func (p *parser) isWord(w string) bool {
	t := p.peek()
	return t.kind == tIdent && t.text == w
}

func (p *parser) isPunct(s string) bool {
	t := p.peek()
	return t.kind == tPunct && t.text == s
}

func (p *parser) expectWord(w string) token {
	t := p.next()
	if t.kind != tIdent || t.text != w {
		p.fail(t.pos, "expected %q, found %s", w, t.describe())
	}
	return t
}

func (p *parser) expectPunct(s string) token {
	t := p.next()
	if t.kind != tPunct || t.text != s {
		p.fail(t.pos, "expected %q, found %s", s, t.describe())
	}
	return t
}

func (p *parser) ident(what string) token {
	t := p.next()
	if t.kind != tIdent {
		p.fail(t.pos, "expected %s, found %s", what, t.describe())
	}
	return t
}

func (p *parser) integer(what string) token {
	t := p.next()
	if t.kind != tInt {
		p.fail(t.pos, "expected %s (a number), found %s", what, t.describe())
	}
	return t
}

func (p *parser) parseFile() (err error) {
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bail)
			if !ok {
				panic(r)
			}
			err = b.err
		}
	}()
	p.declared = map[string]Pos{}
	p.seen = map[string]Pos{}
	for p.peek().kind != tEOF {
		p.statement()
	}
	p.check()
	return nil
}

var settingNames = []string{"steps", "executions", "requests", "crashes", "timeouts"}

func (p *parser) once(t token) {
	if at, ok := p.seen[t.text]; ok {
		p.fail(t.pos, "%s is given twice (first at %s)", t.text, at)
	}
	p.seen[t.text] = t.pos
}

func (p *parser) statement() {
	t := p.next()
	if t.kind != tIdent {
		p.fail(t.pos, "expected a statement (test, counter, set, states, accept, reject, on, scenario, expect, steps, executions, requests, crashes, timeouts), found %s", t.describe())
	}
	switch t.text {
	case "test":
		p.once(t)
		s := p.next()
		if s.kind != tString {
			p.fail(s.pos, "expected the test's name as a string, found %s", s.describe())
		}
		p.t.Name = s.text
	case "counter", "set":
		for {
			n := p.ident("a " + t.text + " name")
			p.declare(n)
			if t.text == "counter" {
				p.t.Counters = append(p.t.Counters, n.text)
			} else {
				p.t.Sets = append(p.t.Sets, n.text)
			}
			if !p.isPunct(",") {
				break
			}
			p.next()
		}
	case "states":
		p.once(t)
		for {
			n := p.ident("a state name")
			p.declare(n)
			p.t.States = append(p.t.States, n.text)
			if !p.isPunct(",") {
				break
			}
			p.next()
		}
	case "accept", "reject":
		p.once(t)
		n := p.ident("the " + t.text + "ing state")
		p.needState(n)
		if t.text == "accept" {
			p.t.Accept = n.text
		} else {
			p.t.Reject = n.text
		}
	case "on":
		c := p.cond()
		p.expectWord("do")
		f := Filter{Pos: t.pos, Cond: c}
		for {
			f.Actions = append(f.Actions, p.action())
			if !p.isPunct(",") {
				break
			}
			p.next()
		}
		p.checkFilter(&f)
		p.t.Filters = append(p.t.Filters, f)
	case "scenario":
		from := p.ident("the state the move leaves")
		p.needState(from)
		p.expectPunct("->")
		to := p.ident("the state the move enters")
		p.needState(to)
		p.expectWord("when")
		p.t.Moves = append(p.t.Moves, Move{Pos: t.pos, From: from.text, To: to.text, Cond: p.cond()})
	case "expect":
		p.once(t)
		w := p.ident("ok or failure")
		e := Expect{Pos: t.pos}
		switch w.text {
		case "ok":
		case "failure":
			e.Failure = true
			if p.peek().kind == tString {
				e.Signature = p.next().text
			}
		default:
			p.fail(w.pos, "expect takes ok or failure [\"SIGNATURE\"], not %q", w.text)
		}
		p.t.Expect = e
	case "steps", "executions", "requests", "crashes", "timeouts":
		p.once(t)
		n := p.integer("the " + t.text + " bound")
		if n.num > 1_000_000 {
			p.fail(n.pos, "%s %d is more than 1000000", t.text, n.num)
		}
		v := int(n.num)
		switch t.text {
		case "steps":
			p.t.Steps = v
		case "executions":
			p.t.Executions = v
		case "requests":
			p.t.Requests = v
		case "crashes":
			p.t.Crashes = v
		case "timeouts":
			p.t.Timeouts = v
		}
	default:
		p.fail(t.pos, "unknown statement %q (expected test, counter, set, states, accept, reject, on, scenario, expect, %s)", t.text, strings.Join(settingNames, ", "))
	}
}

func (p *parser) declare(n token) {
	if at, ok := p.declared[n.text]; ok {
		p.fail(n.pos, "%q is already declared at %s", n.text, at)
	}
	p.declared[n.text] = n.pos
}

func (p *parser) needState(n token) {
	if !slices.Contains(p.t.States, n.text) {
		p.fail(n.pos, "unknown state %q (declare it with states first)", n.text)
	}
}

func (p *parser) needCounter(n token) {
	if !slices.Contains(p.t.Counters, n.text) {
		p.fail(n.pos, "unknown counter %q (declare it with counter first)", n.text)
	}
}

func (p *parser) needSet(n token) {
	if !slices.Contains(p.t.Sets, n.text) {
		p.fail(n.pos, "unknown message set %q (declare it with set first)", n.text)
	}
}

// cond := and {"or" and}
func (p *parser) cond() *Cond {
	l := p.and()
	for p.isWord("or") {
		t := p.next()
		l = &Cond{Pos: t.pos, Op: "or", L: l, R: p.and()}
	}
	return l
}

// and := not {"and" not}
func (p *parser) and() *Cond {
	l := p.not()
	for p.isWord("and") {
		t := p.next()
		l = &Cond{Pos: t.pos, Op: "and", L: l, R: p.not()}
	}
	return l
}

// not := "not" not | "(" cond ")" | atom
func (p *parser) not() *Cond {
	t := p.peek()
	if p.isWord("not") {
		p.next()
		return &Cond{Pos: t.pos, Op: "not", L: p.not()}
	}
	if p.isPunct("(") {
		p.next()
		c := p.cond()
		p.expectPunct(")")
		return c
	}
	return p.atom()
}

var cmpOps = []string{"==", "!=", "<", "<=", ">", ">="}

// atom := "true" | "model" STRING | KIND | LHS CMP VALUE | LHS "in" "{" VALUE {"," VALUE} "}"
// LHS := FIELD | "count" "(" COUNTER ")" | "size" "(" SET ")"
func (p *parser) atom() *Cond {
	t := p.next()
	switch t.kind {
	case tIdent:
	case tEOF:
		p.fail(t.pos, "expected a condition, found end of file")
	default:
		p.fail(t.pos, "expected a condition (an event kind, a field comparison, count(C), size(S), state, model \"EXPR\" or true), found %s", t.describe())
	}
	switch t.text {
	case "true":
		return &Cond{Pos: t.pos, Op: "true"}
	case "model":
		s := p.next()
		if s.kind != tString {
			p.fail(s.pos, "model takes a TLA+ predicate as a string, e.g. model \"\\\\E i \\\\in Server : state[i] = Leader\", found %s", s.describe())
		}
		if strings.TrimSpace(s.text) == "" {
			p.fail(s.pos, "model predicate is empty")
		}
		p.t.Models = append(p.t.Models, Model{Pos: s.pos, Expr: s.text})
		return &Cond{Pos: t.pos, Op: "model", Model: len(p.t.Models) - 1}
	case "and", "or", "do", "when", "in":
		p.fail(t.pos, "expected a condition, found %q", t.text)
	}
	c := &Cond{Pos: t.pos, Field: t.text}
	switch t.text {
	case "count", "size":
		p.expectPunct("(")
		n := p.ident("a name")
		if t.text == "count" {
			p.needCounter(n)
		} else {
			p.needSet(n)
		}
		c.Arg = n.text
		p.expectPunct(")")
	}
	op := p.peek()
	switch {
	case op.kind == tPunct && slices.Contains(cmpOps, op.text):
		p.next()
		c.Op, c.Cmp = "cmp", op.text
		c.Values = []Value{p.value()}
		if c.Cmp != "==" && c.Cmp != "!=" && c.Values[0].IsStr {
			p.fail(op.pos, "%s compares numbers; %q is a name", c.Cmp, c.Values[0].Str)
		}
	case op.kind == tIdent && op.text == "in":
		p.next()
		c.Op = "in"
		p.expectPunct("{")
		for {
			c.Values = append(c.Values, p.value())
			if !p.isPunct(",") {
				break
			}
			p.next()
		}
		p.expectPunct("}")
	default:
		if c.Field == "count" || c.Field == "size" || c.Field == "state" || c.Field == "step" {
			p.fail(op.pos, "%s needs a comparison (==, !=, <, <=, >, >= or in {...}), found %s", c.Field, op.describe())
		}
		return &Cond{Pos: t.pos, Op: "kind", Kind: t.text}
	}
	if c.Field == "state" {
		for _, v := range c.Values {
			if !v.IsStr || !slices.Contains(p.t.States, v.Str) {
				p.fail(c.Pos, "state is compared with a declared state, not %q", v.String())
			}
		}
		if c.Cmp != "" && c.Cmp != "==" && c.Cmp != "!=" {
			p.fail(c.Pos, "state is compared with == or !=")
		}
	}
	if c.Field == "count" || c.Field == "size" || c.Field == "step" {
		for _, v := range c.Values {
			if v.IsStr {
				p.fail(c.Pos, "%s is a number, compared with %q", c.Field, v.Str)
			}
		}
	}
	return c
}

func (p *parser) value() Value {
	t := p.next()
	switch t.kind {
	case tInt:
		return Value{Int: t.num}
	case tIdent, tString:
		return Value{Str: t.text, IsStr: true}
	}
	p.fail(t.pos, "expected a value (a number, a name or a string), found %s", t.describe())
	return Value{}
}

func (p *parser) process() int {
	t := p.integer("a process")
	if t.num > 15 {
		p.fail(t.pos, "process %d is out of range (0..15)", t.num)
	}
	return int(t.num)
}

func (p *parser) action() Action {
	t := p.ident("an action (drop, deliver, duplicate, delay N, hold S, release S, reorder S, crash, restart, timeout, read, transfer, partition, heal, incr C, reset C)")
	a := Action{Pos: t.pos, Op: t.text, Proc: -1}
	switch t.text {
	case "drop", "deliver", "duplicate", "heal":
	case "delay":
		n := p.integer("the steps to delay by")
		if n.num < 1 || n.num > 1_000_000 {
			p.fail(n.pos, "delay takes 1..1000000 steps, not %d", n.num)
		}
		a.N = int(n.num)
	case "hold", "release", "reorder":
		n := p.ident("a message set")
		p.needSet(n)
		a.Name = n.text
	case "incr", "reset":
		n := p.ident("a counter")
		p.needCounter(n)
		a.Name = n.text
	case "crash", "restart", "timeout", "read":
		if p.peek().kind == tInt {
			a.Proc = p.process()
		}
	case "transfer":
		if p.peek().kind == tInt {
			a.Proc = p.process()
		}
		p.expectWord("to")
		a.To = p.process()
	case "partition":
		if !p.isPunct("{") {
			break
		}
		p.expectPunct("{")
		for {
			a.Set |= 1 << p.process()
			if !p.isPunct(",") {
				break
			}
			p.next()
		}
		p.expectPunct("}")
	default:
		p.fail(t.pos, "unknown action %q (expected drop, deliver, duplicate, delay N, hold S, release S, reorder S, crash [P], restart [P], timeout [P], read [P], transfer [P] to Q, partition [{P,...}], heal, incr C, reset C)", t.text)
	}
	return a
}

// checkFilter refuses a filter whose message action has no message: the
// condition must require a send event (the message's fate is decided when
// it is sent) or a duplicate event (the copy a duplicate made, a message of
// its own), and a message is given one fate.
func (p *parser) checkFilter(f *Filter) {
	var fate *Action
	for i := range f.Actions {
		a := &f.Actions[i]
		if !a.IsMessage() {
			continue
		}
		if fate != nil {
			p.fail(a.Pos, "%s: the message already has a fate (%s at %s)", a.Op, fate.Op, fate.Pos)
		}
		fate = a
		if !requiresMessage(f.Cond) {
			p.fail(a.Pos, "%s acts on a message: the condition must require a send event (e.g. on send and type == MsgApp do %s) or a duplicate's copy (on duplicate and ...)", a.Op, a.Op)
		}
	}
}

// requiresMessage reports whether c holds only for events that make a
// message: it is the kind send or duplicate, or a conjunction with such a
// part, or a disjunction of such.
func requiresMessage(c *Cond) bool {
	switch c.Op {
	case "kind":
		return c.Kind == schedule.EvSend || c.Kind == schedule.EvDuplicate
	case "and":
		return requiresMessage(c.L) || requiresMessage(c.R)
	case "or":
		return requiresMessage(c.L) && requiresMessage(c.R)
	}
	return false
}

// check verifies the whole file: a scenario needs states and an accepting
// state, an accepting state needs a way in.
func (p *parser) check() {
	t := p.t
	if t.Name == "" {
		p.fail(Pos{1, 1}, "the test has no name (start it with test \"NAME\")")
	}
	if t.Reject != "" && t.Reject == t.Accept {
		p.fail(p.seen["reject"], "state %q cannot both accept and reject", t.Reject)
	}
	if t.Reject != "" && t.Reject == t.States[0] {
		p.fail(p.seen["reject"], "the rejecting state %q is the initial state: every execution would fail", t.Reject)
	}
	if len(t.States) > 0 && t.Accept == "" {
		p.fail(p.seen["states"], "the scenario has states but no accepting state (add accept STATE)")
	}
	if t.Accept != "" && t.Accept != t.States[0] {
		in := false
		for _, m := range t.Moves {
			in = in || m.To == t.Accept
		}
		if !in {
			p.fail(p.seen["accept"], "no scenario move enters the accepting state %q", t.Accept)
		}
	}
	if len(t.Moves) > 0 && len(t.States) == 0 {
		p.fail(t.Moves[0].Pos, "scenario moves need states")
	}
}
