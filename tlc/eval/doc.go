// Package eval evaluates TLA+ with TLC's semantics: it loads a module tree
// (EXTENDS, INSTANCE, LET), applies a TLC configuration (constants, model
// values, substitutions), compiles definitions to a tree of resolved nodes,
// evaluates expressions, and enumerates initial states and successor states
// the way TLC does (x' = e assigns an unassigned x' and tests an assigned
// one, x' \in S enumerates, \E and \/ branch, UNCHANGED, ENABLED).
//
// The checker (tlc/check) and trace simulation build on Model. This package
// must not know about the fuzzer.
//
// Compilation resolves every name once: bound variables become (depth,
// index) references into runtime frames, state variables become indexes,
// definitions become pointers. Zero-arity definitions whose value does not
// depend on the state are evaluated once and cached, as TLC does for
// constant-level expressions.
package eval
