package raftkv

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	pb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

// Envelope is a raft message as a replica hands it to the fuzzer, and as the
// fuzzer (or, standalone, the sending peer) posts it to the receiver's
// /message. Data is the protobuf encoding of the message (base64 in JSON).
type Envelope struct {
	From   string         `json:"from"`
	To     string         `json:"to"`
	Type   string         `json:"type"`
	ID     string         `json:"id"`
	Data   []byte         `json:"data"`
	Params map[string]any `json:"params"`
}

// Event is a protocol event as a replica posts it to the fuzzer's /event.
type Event struct {
	Replica   string         `json:"replica"`
	Type      string         `json:"type"`
	Params    map[string]any `json:"params"`
	Timestamp int64          `json:"timestamp"` // unix nanoseconds
}

// Registration is the body of the fuzzer's /replica.
type Registration struct {
	ID    string         `json:"id"`
	Addr  string         `json:"addr"`
	Ready bool           `json:"ready"`
	Info  map[string]any `json:"info"`
}

func newEvent(id uint64, typ string, params map[string]any) *Event {
	return &Event{Replica: strconv.FormatUint(id, 10), Type: typ, Params: params, Timestamp: time.Now().UnixNano()}
}

func marshalMessage(m *pb.Message) ([]byte, error) { return proto.Marshal(m) }

// decodeEnvelope reads a message posted to /message and checks that it is
// for replica id.
func decodeEnvelope(body io.Reader, id uint64) (*pb.Message, error) {
	var env Envelope
	if err := json.NewDecoder(body).Decode(&env); err != nil {
		return nil, fmt.Errorf("bad message body: %v", err)
	}
	m := &pb.Message{}
	if err := proto.Unmarshal(env.Data, m); err != nil {
		return nil, fmt.Errorf("message %s: bad data: %v", env.ID, err)
	}
	if m.GetTo() != id {
		return nil, fmt.Errorf("message %s is for replica %d, this is replica %d", env.ID, m.GetTo(), id)
	}
	return m, nil
}

// postJSON posts body as JSON to url and expects 200.
func postJSON(ctx context.Context, hc *http.Client, url string, body any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("encode %s: %v", url, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s: %s: %s", url, resp.Status, bytes.TrimSpace(msg))
	}
	return nil
}

// fuzzerOutbox hands everything to the fuzzer, synchronously: when a
// delivery's processing returns, the fuzzer has all that followed from it.
type fuzzerOutbox struct {
	ctx context.Context
	hc  *http.Client
	url string
	log hclog.Logger
}

func (o *fuzzerOutbox) register(r *Registration) error {
	if err := postJSON(o.ctx, o.hc, o.url+"/replica", r); err != nil {
		return fmt.Errorf("raftkv: register with the fuzzer: %w", err)
	}
	return nil
}

func (o *fuzzerOutbox) send(_ *pb.Message, env *Envelope) {
	if err := postJSON(o.ctx, o.hc, o.url+"/message", env); err != nil {
		// The fuzzer refuses messages to crashed replicas: no warning.
		o.log.Debug("message not handed to the fuzzer", "id", env.ID, "type", env.Type, "error", err)
	}
}

func (o *fuzzerOutbox) event(ev *Event) {
	if err := postJSON(o.ctx, o.hc, o.url+"/event", ev); err != nil {
		o.log.Warn("event not posted to the fuzzer", "type", ev.Type, "error", err)
	}
}

// peerQueue bounds the messages waiting for one peer; more are dropped, as
// a network would.
const peerQueue = 1024

type outMsg struct {
	m   *pb.Message
	env *Envelope
}

// peerOutbox sends messages straight to the peers (standalone mode), one
// goroutine and FIFO queue per peer, so that the node never waits for the
// network under its lock. Events only go to the log.
type peerOutbox struct {
	ctx    context.Context
	hc     *http.Client
	log    hclog.Logger
	queues map[uint64]chan outMsg
	wg     sync.WaitGroup
}

func newPeerOutbox(ctx context.Context, self uint64, cluster map[uint64]string, log hclog.Logger) *peerOutbox {
	o := &peerOutbox{ctx: ctx, log: log, queues: map[uint64]chan outMsg{},
		hc: &http.Client{Timeout: 2 * time.Second}}
	for id := range cluster {
		if id != self {
			o.queues[id] = make(chan outMsg, peerQueue)
		}
	}
	return o
}

// start runs the senders; report tells the node how each send went.
func (o *peerOutbox) start(cluster map[uint64]string, report func(*pb.Message, error)) {
	for id, q := range o.queues {
		url := "http://" + cluster[id] + "/message"
		o.wg.Go(func() {
			for {
				select {
				case <-o.ctx.Done():
					return
				case om := <-q:
					err := postJSON(o.ctx, o.hc, url, om.env)
					if o.ctx.Err() != nil {
						return
					}
					if err != nil {
						o.log.Debug("send failed", "to", id, "type", om.env.Type, "error", err)
					}
					if err != nil || om.m.GetType() == pb.MsgSnap {
						report(om.m, err)
					}
				}
			}
		})
	}
}

func (o *peerOutbox) send(m *pb.Message, env *Envelope) {
	q := o.queues[m.GetTo()]
	if q == nil {
		o.log.Warn("message to an unknown peer", "to", m.GetTo(), "type", env.Type)
		return
	}
	select {
	case q <- outMsg{m, env}:
	default:
		o.log.Debug("peer queue full: message dropped", "to", m.GetTo(), "type", env.Type)
	}
}

func (o *peerOutbox) event(ev *Event) {
	if o.log.IsDebug() {
		o.log.Debug("event", "type", ev.Type, "params", ev.Params)
	}
}
