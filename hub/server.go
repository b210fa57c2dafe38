package hub

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// ServerOptions say where a hub's NATS runs.
type ServerOptions struct {
	// Dir is the campaign directory of an embedded server: its JetStream
	// file store is Dir/jetstream.
	Dir string
	// Listen is the embedded server's client address, host:port.
	Listen string
	// URL, when set, is an existing NATS cluster with JetStream: nothing
	// is embedded and Dir is not used.
	URL string
	// Replicas of the stream and bucket in a cluster (1 embedded).
	Replicas int
}

// maxPayload is the largest message the embedded server takes: an input
// or a bug with its reproducers.
const maxPayload = 8 << 20

// Hub is a campaign's shared state, served.
type Hub struct {
	ns  *server.Server // nil on an existing cluster
	url string
	nc  *nats.Conn
}

// Start starts the hub: an embedded NATS server with its file store in
// opt.Dir, or a connection to the cluster at opt.URL; the stream and the
// bucket are made if missing.
func Start(opt ServerOptions) (*Hub, error) {
	h := &Hub{url: opt.URL}
	if opt.URL == "" {
		ns, err := embedded(opt)
		if err != nil {
			return nil, err
		}
		h.ns, h.url = ns, ns.ClientURL()
	}
	nc, err := connect(h.url, "modelfuzz-hub")
	if err != nil {
		h.Close()
		return nil, err
	}
	h.nc = nc
	if err := ensure(nc, max(1, opt.Replicas)); err != nil {
		h.Close()
		return nil, err
	}
	return h, nil
}

func embedded(opt ServerOptions) (*server.Server, error) {
	host, port, err := net.SplitHostPort(opt.Listen)
	if err != nil {
		return nil, fmt.Errorf("--listen %q: %v (host:port)", opt.Listen, err)
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 0 || p > 65535 {
		return nil, fmt.Errorf("--listen %q: the port is not a number from 0 to 65535", opt.Listen)
	}
	if opt.Dir == "" {
		return nil, errors.New("a hub needs --dir, its campaign directory, or --nats, an existing cluster")
	}
	if p == 0 {
		p = server.RANDOM_PORT // NATS reads 0 as its default port
	}
	store := filepath.Join(opt.Dir, "jetstream")
	if err := os.MkdirAll(store, 0o755); err != nil {
		return nil, fmt.Errorf("hub directory: %v", err)
	}
	ns, err := server.NewServer(&server.Options{ServerName: "modelfuzz-hub", Host: host, Port: p,
		JetStream: true, StoreDir: store, NoSigs: true, NoLog: true, MaxPayload: maxPayload})
	if err != nil {
		return nil, fmt.Errorf("hub: %v", err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(30 * time.Second) {
		ns.Shutdown()
		return nil, fmt.Errorf("hub: the NATS server did not listen on %s within 30s (is the port taken?)", opt.Listen)
	}
	return ns, nil
}

// URL is where workers join.
func (h *Hub) URL() string { return h.url }

// Client reads the campaign the hub holds.
func (h *Hub) Client() (*Client, error) { return newClient(h.nc, h.url, false) }

// Close stops the embedded server, if any.
func (h *Hub) Close() {
	if h.nc != nil {
		h.nc.Close()
	}
	if h.ns != nil {
		h.ns.Shutdown()
		h.ns.WaitForShutdown()
	}
}

// connect connects to NATS, reconnecting for ever after a connection is
// made: a hub that restarts is found again.
func connect(url, name string) (*nats.Conn, error) {
	nc, err := nats.Connect(url, nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(500*time.Millisecond),
		nats.Timeout(5*time.Second), nats.RetryOnFailedConnect(false))
	if err != nil {
		return nil, fmt.Errorf("hub %s: %v", url, err)
	}
	return nc, nil
}

// ensure makes the campaign's stream and bucket when they are missing.
func ensure(nc *nats.Conn, replicas int) error {
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: StreamName, Subjects: []string{subjectRoot + ".>"},
		Storage: jetstream.FileStorage, Replicas: replicas, Duplicates: 10 * time.Minute,
		Description: "a modelfuzz campaign: inputs, coverage and stats of its workers"}); err != nil {
		return fmt.Errorf("hub: making the stream %s: %v (is JetStream enabled on the server?)", StreamName, err)
	}
	if _, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: Bucket, Storage: jetstream.FileStorage,
		Replicas: replicas, History: 1, Description: "a modelfuzz campaign: settings, bugs, workers"}); err != nil {
		return fmt.Errorf("hub: making the bucket %s: %v", Bucket, err)
	}
	return nil
}
