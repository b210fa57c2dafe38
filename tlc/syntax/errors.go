package syntax

import "fmt"

// Error is a syntax error at a source position. Error() renders it on one
// line as "file.tla:LINE:COL: message".
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

func newError(pos Pos, format string, args ...any) *Error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// bailout carries a syntax error up the recursive descent to parse entry
// points, which turn it back into an error (the go/parser technique). Only
// this type is recovered during tests; any other panic is a bug.
type bailout struct{ err *Error }

// recoverPanics makes the entry points convert unexpected panics into errors
// as a last guard. Tests switch it off so that bugs surface.
var recoverPanics = true

// catch converts a bailout (and, as a last guard, any other panic) into *err.
func catch(file string, err *error) {
	r := recover()
	if r == nil {
		return
	}
	if b, ok := r.(bailout); ok {
		*err = b.err
		return
	}
	if !recoverPanics {
		panic(r)
	}
	*err = &Error{Pos: Pos{File: file, Line: 1, Col: 1}, Msg: fmt.Sprintf("internal parser error: %v", r)}
}
