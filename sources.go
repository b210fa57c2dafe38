// Package modelfuzz holds the source of the packages that a reproducer
// exported from a bug carries with it (repro.GoTest): the etcdraft adapter
// and the parts of schedule and linearize it uses, so that the exported Go
// test runs the very code the fuzzer ran, without modelfuzz.
package modelfuzz

import "embed"

// Sources are the adapter's, the schedule's and the linearizability
// checker's Go files.
//
//go:embed adapters/etcdraft/*.go schedule/*.go linearize/*.go internal/jsonerr/*.go
var Sources embed.FS
