// Package repro turns a stored bug into files that reproduce it without
// modelfuzz: for the etcdraft adapter, a self-contained Go test (the
// standard library and go.etcd.io/raft/v3 only) that runs the adapter's own
// code, flattened into one file, over the bug's minimized schedule and
// fails with the bug's signature. It must not print or open a corpus.
package repro
