// Package filter is the language of filter tests, after Netrix (chapter 3 of
// the ModelFuzz thesis): a test is a list of filters, "on CONDITION do
// ACTIONS", tried in order on every event an execution produces (the first
// whose condition holds acts, as in a switch), a scenario (states moved by
// conditions on the same events) and an expectation. The filters constrain
// what the underlying random search may schedule: a matched message is
// dropped, held, delayed, duplicated or released in a chosen order, a
// process is crashed, the network partitioned; every other choice is left
// to the search.
//
// The package parses test files (Parse, with errors "FILE:LINE:COL: ...")
// and runs the monitor of one execution (Monitor): it is told each event
// of the trace and answers what becomes of each message and which steps
// the filters ask for. It runs nothing itself and knows no adapter; the
// driver that turns its answers into schedule steps lives with the online
// strategies. docs/filters.md is the language's reference.
package filter
