package eval

import (
	"fmt"

	"github.com/modelfuzz/modelfuzz/tlc/syntax"
)

// Error is an evaluation or compilation error at a source position.
type Error struct {
	Pos syntax.Pos
	Msg string
	// Err is the error located, when there is one: a failed Assert
	// (stdlib.AssertionError) has its own exit code.
	Err error
}

func (e *Error) Unwrap() error { return e.Err }

func (e *Error) Error() string {
	if e.Pos.Line == 0 {
		return e.Msg
	}
	return e.Pos.String() + ": " + e.Msg
}

func errorf(pos syntax.Pos, format string, args ...any) error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// located gives err a position unless it already has one.
func located(pos syntax.Pos, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := err.(*Error); ok {
		return err
	}
	return &Error{Pos: pos, Msg: err.Error(), Err: err}
}
