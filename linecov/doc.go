// Package linecov reads which code units (basic blocks) of the system under
// test one execution covered, from Go's own coverage counters, in process.
//
// The system under test (the etcd raft library) runs inside the fuzzer's
// process, so a coverage build of the fuzzer (make cover) carries counters
// for its packages. Before an execution the fuzzer clears them
// (Tracker.Reset); after it, Tracker.Covered lists the units whose counters
// moved. Units are named by items: 64-bit hashes that depend only on the
// unit's package path, function name and source span, so items are stable
// across runs and across builds of the same source and can be stored in a
// corpus.
//
// The package decodes the two binary formats of package runtime/coverage
// itself: the meta-data file (WriteMeta: the instrumented packages, their
// functions and units) and the counter-data file (WriteCounters: one record
// per function with a non-zero counter). It validates every length and
// offset it reads and returns errors on malformed bytes; it never panics on
// them.
//
// A coverage build (make cover) instruments the fuzzer's main package too:
// go build starts the coverage runtime only from an instrumented main
// package, and without it runtime/coverage has no data (Go 1.26). The
// Tracker ignores units of main packages. Such a binary prints "warning:
// GOCOVERDIR not set, no coverage data emitted" when it starts, unless
// GOCOVERDIR names a directory, where it writes a coverage profile at exit
// (go tool covdata reads it).
//
// The counters are global to the process: executions measured with a
// Tracker must not overlap, and code running concurrently (goroutines left
// over from an earlier execution) is counted too. runtime/coverage only
// serves binaries built with go build -cover -covermode=atomic; test
// binaries (go test -cover) write their meta-data at exit and cannot be
// measured this way (Available says so).
package linecov
