// Package syntax parses TLA+ modules into an abstract syntax tree shaped for
// evaluation (see ast.go).
//
// It implements the TLA+2 grammar of Specifying Systems: the operator
// precedence ranges, the alignment rule of bulleted /\ and \/ lists, all
// module units, and it skips proofs. Several modules may live in one file;
// text outside modules is ignored. Loader finds modules by name on a search
// path and reports the standard modules (Naturals, Sequences, TLC, ...) as
// built-in instead of loading them, so that an evaluator can implement them
// natively.
//
// The package only parses: it resolves no names and checks no levels or
// arities. It never panics on any input; malformed input yields an *Error
// with a file:line:col position.
package syntax
