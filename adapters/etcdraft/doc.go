// Package etcdraft is the system under test of modelfuzz's main use: a
// cluster of go.etcd.io/raft/v3 RawNodes in one process, each an
// application of the library as its README prescribes, driven only by the
// schedule (work in progress: see issue "The etcd raft system").
package etcdraft

// The library is a dependency of the module from this commit on.
import _ "go.etcd.io/raft/v3"
