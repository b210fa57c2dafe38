//go:build with_tla

package etcdraft

import "go.etcd.io/raft/v3"

// SpecTraceBuilt says whether this build has the library's trace points
// (the with_tla build tag), which Config.SpecTrace needs.
const SpecTraceBuilt = true

type tlaLogger struct{ t *specTrace }

func (l tlaLogger) TraceEvent(ev *raft.TracingEvent) {
	from := ""
	if ev.Message != nil {
		from = ev.Message.From
	}
	l.t.add(ev, from)
}

func (t *specTrace) logger() raft.TraceLogger { return tlaLogger{t} }
