package etcdraft

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// specTrace records the library's own trace events (its TLA+ trace points,
// compiled in with the with_tla build tag) for the library maintainers'
// trace spec, Traceetcdraft.tla, as the NDJSON lines that spec reads:
// {"tag":"trace","event":{...}}, each with the step it happened in.
type specTrace struct {
	mu     sync.Mutex
	step   *int
	events []schedule.SpecEvent
}

// noSuchPeerID is how the trace names goNode's synchronizing peer.
var noSuchPeerID = strconv.FormatUint(noSuchPeer, 10)

// add records one event (a *raft.TracingEvent). The Node driver's
// synchronizing message (a MsgHeartbeatResp from noSuchPeer, which the
// library traces as a received response) is not part of the protocol and
// is left out.
func (t *specTrace) add(ev any, from string) {
	if from == noSuchPeerID {
		return
	}
	var b bytes.Buffer
	b.WriteString(`{"tag":"trace","event":`)
	enc := json.NewEncoder(&b)
	if err := enc.Encode(ev); err != nil {
		panic("etcdraft: encoding a trace event: " + err.Error())
	}
	b.Truncate(b.Len() - 1) // Encode's newline
	b.WriteByte('}')
	t.mu.Lock()
	t.events = append(t.events, schedule.SpecEvent{Step: *t.step, JSON: b.Bytes()})
	t.mu.Unlock()
}

// take returns the events recorded since the last take.
func (t *specTrace) take() []schedule.SpecEvent {
	t.mu.Lock()
	defer t.mu.Unlock()
	ev := t.events
	t.events = nil
	return ev
}
