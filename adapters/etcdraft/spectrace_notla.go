//go:build !with_tla

package etcdraft

import "go.etcd.io/raft/v3"

// SpecTraceBuilt says whether this build has the library's trace points
// (the with_tla build tag), which Config.SpecTrace needs.
const SpecTraceBuilt = false

// logger is never called in this build (Config.Validate refuses SpecTrace).
func (t *specTrace) logger() raft.TraceLogger { return nil }

// restarted is never called in this build.
func (t *specTrace) restarted(raftNode, uint64, uint64) {}
