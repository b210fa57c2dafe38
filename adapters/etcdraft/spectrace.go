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
	// held are the restarted nodes (by the trace's node id) whose events
	// are left out until their restart is complete (restarted).
	held map[string]bool
	// roles and terms are each node's role and term in the last event it
	// traced (specTrace.logger).
	roles map[string]string
	terms map[string]uint64
	// redelivery is set while a node receives a message that the network
	// duplicated and whose other copy it already received: its receipt
	// says so ("duplicate":true).
	redelivery bool
	// prevote is set while a node handles a pre-vote message, which the
	// library does not trace: the events it causes (a higher term taken
	// from a rejection) say so ("prevote":true).
	prevote bool
}

// noSuchPeerID is how the trace names goNode's synchronizing peer.
var noSuchPeerID = strconv.FormatUint(noSuchPeer, 10)

// add records one event (a *raft.TracingEvent). The Node driver's
// synchronizing message (a MsgHeartbeatResp from noSuchPeer, which the
// library traces as a received response) is not part of the protocol and
// is left out. note, when set, are fields the line carries beside the
// event (`"duplicate":true`): facts the adapter knows and the trace spec
// does not read.
func (t *specTrace) add(ev any, from, note string) {
	if from == noSuchPeerID {
		return
	}
	var b bytes.Buffer
	b.WriteString(`{"tag":"trace",`)
	if note != "" {
		b.WriteString(note)
		b.WriteByte(',')
	}
	b.WriteString(`"event":`)
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

// hold leaves out node id's events from now on: it is being restarted.
//
// The library traces a node's start in newRaft: InitState before it loads
// the node's term, vote and configuration from storage, then the
// configuration it restored (ApplyConfChange) and its role
// (BecomeFollower). The configuration is the storage snapshot's: the
// configuration changes committed after it come back only when the
// application applies the committed entries again, in the node's first
// Readys. The spec's restart (RestartIfLogged) is one step that restores
// the node's durable term, vote, log, commit index and configuration, and
// validates them against InitState. So a restart is traced as one
// InitState with the state the node has once the application has applied
// again what was committed before the crash (restarted), and the events
// of getting there are left out: they change nothing the spec keeps.
func (t *specTrace) hold(id uint64) {
	if t.held == nil {
		t.held = map[string]bool{}
	}
	t.held[strconv.FormatUint(id, 10)] = true
}

// holds reports whether node id's events are left out.
func (t *specTrace) holds(id uint64) bool { return t.held[strconv.FormatUint(id, 10)] }

// release ends hold; a node that crashed again before its restart was
// complete is released without an InitState (its next restart traces one).
func (t *specTrace) release(id uint64) { delete(t.held, strconv.FormatUint(id, 10)) }

// mark is the number of events recorded so far.
func (t *specTrace) mark() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.events)
}

// ignored leaves out the receipt traced since mark when it is the only
// event since: the receiver disregarded the message.
func (t *specTrace) ignored(mark int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.events) == mark+1 && bytes.Contains(t.events[mark].JSON, []byte(`"name":"Receive`)) {
		t.events = t.events[:mark]
	}
}

// take returns the events recorded since the last take.
func (t *specTrace) take() []schedule.SpecEvent {
	t.mu.Lock()
	defer t.mu.Unlock()
	ev := t.events
	t.events = nil
	clear(t.held)
	clear(t.roles)
	clear(t.terms)
	return ev
}
