package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Client reads the shared state of the campaign a hub holds: for the
// hub's page and for bugs, report and corpus export run against a hub.
type Client struct {
	url  string
	nc   *nats.Conn
	own  bool // the connection is the client's
	js   jetstream.JetStream
	kv   jetstream.KeyValue
	tall *tally
}

// Open connects to the hub at url.
func Open(url string) (*Client, error) {
	nc, err := connect(url, "modelfuzz-reader")
	if err != nil {
		return nil, err
	}
	c, err := newClient(nc, url, true)
	if err != nil {
		nc.Close()
		return nil, err
	}
	return c, nil
}

func newClient(nc *nats.Conn, url string, own bool) (*Client, error) {
	c := &Client{url: url, nc: nc, own: own, tall: newTally()}
	var err error
	if c.js, err = jetstream.New(nc); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	if c.kv, err = c.js.KeyValue(ctx, Bucket); err != nil {
		return nil, fmt.Errorf("hub %s holds no modelfuzz campaign (%v)", url, err)
	}
	return c, nil
}

// Close closes the client's connection.
func (c *Client) Close() {
	if c.own {
		c.nc.Close()
	}
}

// URL is the hub's address.
func (c *Client) URL() string { return c.url }

// Settings are the campaign's stored settings (JSON); nil before the
// first worker joined.
func (c *Client) Settings() ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	e, err := c.kv.Get(ctx, settingsKey)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("hub %s: %v", c.url, err)
	}
	return e.Value(), nil
}

// Bugs are the campaign's bugs and known disagreements, by id.
func (c *Client) Bugs() ([]*Bug, error) {
	var bugs []*Bug
	err := c.each("bug.*", func(data []byte) error {
		var b Bug
		if err := json.Unmarshal(data, &b); err != nil {
			return err
		}
		if b.Kind != "" && b.ID != "" { // not a claim waiting for its worker's record
			bugs = append(bugs, &b)
		}
		return nil
	})
	slices.SortFunc(bugs, func(a, b *Bug) int {
		if a.ID[0] != b.ID[0] {
			return int(a.ID[0]) - int(b.ID[0])
		}
		x, _ := strconv.Atoi(a.ID[1:])
		y, _ := strconv.Atoi(b.ID[1:])
		return x - y
	})
	return bugs, err
}

// Workers are the workers' statuses, by name.
func (c *Client) Workers() ([]*WorkerStatus, error) {
	var ws []*WorkerStatus
	err := c.each("worker.*", func(data []byte) error {
		var w WorkerStatus
		if err := json.Unmarshal(data, &w); err != nil {
			return err
		}
		ws = append(ws, &w)
		return nil
	})
	slices.SortFunc(ws, func(a, b *WorkerStatus) int { return strings.Compare(a.Name, b.Name) })
	return ws, err
}

func (c *Client) each(filter string, fn func([]byte) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	kl, err := c.kv.ListKeysFiltered(ctx, filter)
	if err != nil {
		return fmt.Errorf("hub %s: %v", c.url, err)
	}
	var keys []string
	for k := range kl.Keys() {
		keys = append(keys, k)
	}
	for _, k := range keys {
		e, err := c.kv.Get(ctx, k)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("hub %s: %v", c.url, err)
		}
		if err := fn(e.Value()); err != nil {
			return fmt.Errorf("hub %s: %s: %v", c.url, k, err)
		}
	}
	return nil
}

// Scan reads the stream's messages on the subjects of kind ("input",
// "cov", "stats"), oldest first, up to the last one there when it was
// called.
func (c *Client) Scan(kind string, fn func(data []byte, at time.Time) error) error {
	return c.ScanFrom(kind, 0, func(data []byte, at time.Time, _ uint64) error { return fn(data, at) })
}

// ScanFrom is Scan of the messages after the stream sequence number after
// (0: all), with each message's sequence number: a reader that polls the
// hub reads only what is new since its last call.
func (c *Client) ScanFrom(kind string, after uint64, fn func(data []byte, at time.Time, seq uint64) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cfg := jetstream.OrderedConsumerConfig{FilterSubjects: []string{subjectRoot + "." + kind + ".>"}}
	if after > 0 {
		cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, after+1
	}
	cons, err := c.js.OrderedConsumer(ctx, StreamName, cfg)
	if err != nil {
		return fmt.Errorf("hub %s: %v", c.url, err)
	}
	info, err := cons.Info(ctx)
	if err != nil {
		return fmt.Errorf("hub %s: %v", c.url, err)
	}
	for pending := info.NumPending; pending > 0; {
		batch, err := cons.Fetch(int(min(pending, 1000)), jetstream.FetchMaxWait(10*time.Second))
		if err != nil {
			return fmt.Errorf("hub %s: %v", c.url, err)
		}
		n := 0
		for m := range batch.Messages() {
			n++
			md, err := m.Metadata()
			if err != nil {
				return err
			}
			if err := fn(m.Data(), md.Timestamp, md.Sequence.Stream); err != nil {
				return err
			}
			pending = md.NumPending
		}
		if batch.Error() != nil {
			return fmt.Errorf("hub %s: %v", c.url, batch.Error())
		}
		if n == 0 {
			break
		}
	}
	return nil
}
