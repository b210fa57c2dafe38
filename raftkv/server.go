package raftkv

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	pb "go.etcd.io/raft/v3/raftpb"
)

// The seeded bugs (Config.Inject).
const (
	// InjectSendBeforePersist hands a Ready's messages over before its
	// snapshot, entries and HardState are on disk; they reach the disk when
	// the next Ready is processed, so a crash in between loses them while
	// peers already acted on them.
	InjectSendBeforePersist = "send-before-persist"
	// InjectStaleRead answers GET from the local state machine, without the
	// read-index protocol.
	InjectStaleRead = "stale-read"
)

var injections = []string{InjectSendBeforePersist, InjectStaleRead}

// Defaults of the command line.
const (
	DefaultTick          = 100 * time.Millisecond
	DefaultSnapshotEvery = 100
)

// Election timing in standalone mode, in ticks. Under the fuzzer the
// election tick is so large that timers never fire: elections happen only at
// /timeout.
const (
	standaloneElectionTick = 10
	fuzzerElectionTick     = 1 << 30
	// readRetryTicks is how often, standalone, reads without an answer are
	// asked for again (their messages may have been lost).
	readRetryTicks = standaloneElectionTick
)

const (
	maxValueBytes   = 1 << 20
	maxMessageBytes = 64 << 20
)

// Config configures one replica.
type Config struct {
	ID uint64 // 1-based
	// Cluster maps every replica's id to its peer address: where it serves
	// peer messages and the fuzzer's requests.
	Cluster       map[uint64]string
	ClientAddr    string
	DataDir       string
	FuzzerURL     string // interception mode; empty: standalone
	Inject        string
	Tick          time.Duration // standalone only
	SnapshotEvery int
	Logger        hclog.Logger // nil: no logging
	// PeerListener and ClientListener, when set, are used instead of
	// listening on the configured addresses (tests).
	PeerListener, ClientListener net.Listener
}

// ParseCluster reads "1=127.0.0.1:7101,2=127.0.0.1:7102,...": ids 1..N,
// each once.
func ParseCluster(s string) (map[uint64]string, error) {
	out := map[uint64]string{}
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		ids, addr, ok := strings.Cut(part, "=")
		id, err := strconv.ParseUint(strings.TrimSpace(ids), 10, 64)
		if !ok || err != nil || id == 0 || strings.TrimSpace(addr) == "" {
			return nil, fmt.Errorf("raftkv: --cluster: %q is not id=host:port with an id from 1", part)
		}
		if _, dup := out[id]; dup {
			return nil, fmt.Errorf("raftkv: --cluster: id %d appears twice", id)
		}
		out[id] = strings.TrimSpace(addr)
	}
	if len(out) == 0 {
		return nil, errors.New("raftkv: --cluster is empty")
	}
	for id := uint64(1); id <= uint64(len(out)); id++ {
		if _, ok := out[id]; !ok {
			return nil, fmt.Errorf("raftkv: --cluster: ids must be 1..%d, %d is missing", len(out), id)
		}
	}
	return out, nil
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	if _, ok := c.Cluster[c.ID]; !ok {
		ids := make([]int, 0, len(c.Cluster))
		for id := range c.Cluster {
			ids = append(ids, int(id))
		}
		sort.Ints(ids)
		return fmt.Errorf("raftkv: --id %d is not in --cluster (ids %v)", c.ID, ids)
	}
	if c.ClientAddr == "" && c.ClientListener == nil {
		return errors.New("raftkv: --client is required")
	}
	if c.DataDir == "" {
		return errors.New("raftkv: --data is required")
	}
	if c.Inject != "" && !slices.Contains(injections, c.Inject) {
		return fmt.Errorf("raftkv: unknown --inject %q (known: %s)", c.Inject, strings.Join(injections, ", "))
	}
	if c.FuzzerURL == "" && c.Tick <= 0 {
		return fmt.Errorf("raftkv: --tick must be positive, got %v", c.Tick)
	}
	if c.SnapshotEvery < 1 {
		return fmt.Errorf("raftkv: --snapshot-every must be at least 1, got %d", c.SnapshotEvery)
	}
	return nil
}

// bootstrapSnapshot is every replica's initial state: index 1, term 1,
// voters 1..n, an empty state machine.
func bootstrapSnapshot(n int) *pb.Snapshot {
	voters := make([]uint64, n)
	for i := range voters {
		voters[i] = uint64(i + 1)
	}
	return &pb.Snapshot{Metadata: &pb.SnapshotMetadata{
		ConfState: &pb.ConfState{Voters: voters}, Index: new(uint64(bootstrapIndex)), Term: new(uint64(bootstrapIndex)),
	}}
}

// Server is a running replica: its node, its peer endpoint and its client
// endpoint.
type Server struct {
	cfg       Config
	log       hclog.Logger
	node      *node
	peers     *peerOutbox // standalone only
	peerLn    net.Listener
	clientLn  net.Listener
	peerSrv   *http.Server
	clientSrv *http.Server
	ctx       context.Context
	cancel    context.CancelFunc
	wg        sync.WaitGroup
	fatal     chan error
	closed    chan struct{}
	closeOnce sync.Once
}

// Start opens the data directory, builds the node from it and serves. In
// interception mode it registers with the fuzzer, reports a restart if the
// directory held state, and processes the first Ready (the re-application
// of the committed entries) before it serves anything.
func Start(cfg Config) (_ *Server, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = hclog.NewNullLogger()
	}
	s := &Server{cfg: cfg, log: log, fatal: make(chan error, 1), closed: make(chan struct{})}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	if s.peerLn = cfg.PeerListener; s.peerLn == nil {
		if s.peerLn, err = net.Listen("tcp", cfg.Cluster[cfg.ID]); err != nil {
			return nil, fmt.Errorf("raftkv: peer address: %w", err)
		}
	}
	if s.clientLn = cfg.ClientListener; s.clientLn == nil {
		if s.clientLn, err = net.Listen("tcp", cfg.ClientAddr); err != nil {
			return nil, fmt.Errorf("raftkv: --client: %w", err)
		}
	}
	disk, st, err := OpenDisk(cfg.DataDir, bootstrapSnapshot(len(cfg.Cluster)))
	if err != nil {
		return nil, err
	}
	if st.TornBytes > 0 {
		log.Warn("cut a torn tail from the log", "bytes", st.TornBytes)
	}

	nc := nodeConfig{
		id: cfg.ID, inject: cfg.Inject, snapshotEvery: cfg.SnapshotEvery,
		electionTick: standaloneElectionTick, log: log, fatal: s.onFatal,
	}
	var fz *fuzzerOutbox
	var peers *peerOutbox
	if cfg.FuzzerURL != "" {
		fz = &fuzzerOutbox{ctx: s.ctx, hc: &http.Client{Timeout: 30 * time.Second},
			url: strings.TrimRight(cfg.FuzzerURL, "/"), log: log}
		nc.out, nc.electionTick = fz, fuzzerElectionTick
	} else {
		peers = newPeerOutbox(s.ctx, cfg.ID, cfg.Cluster, log)
		nc.out, s.peers = peers, peers
	}
	n, err := newNode(nc, disk, st)
	if err != nil {
		_ = disk.Close()
		return nil, err
	}
	s.node = n

	// Nothing is processed before the registration and the restart event:
	// the handlers wait for the node's lock.
	n.mu.Lock()
	locked := true
	defer func() {
		if locked {
			n.mu.Unlock()
		}
	}()
	s.serve()
	if fz != nil {
		reg := &Registration{ID: strconv.FormatUint(cfg.ID, 10), Addr: cfg.Cluster[cfg.ID], Ready: true,
			Info: map[string]any{"pid": os.Getpid()}}
		if err := fz.register(reg); err != nil {
			return nil, err
		}
	}
	if !st.Fresh {
		n.restartEvent()
	}
	n.drain()
	n.mu.Unlock()
	locked = false

	if peers != nil {
		peers.start(cfg.Cluster, n.reportSend)
		s.wg.Go(s.ticker)
	}
	log.Info("started", "id", cfg.ID, "peer", s.PeerAddr(), "client", s.ClientAddr(), "fuzzer", cfg.FuzzerURL, "restart", !st.Fresh)
	return s, nil
}

func (s *Server) serve() {
	pm := http.NewServeMux()
	pm.HandleFunc("POST /message", s.handleMessage)
	pm.HandleFunc("POST /timeout", s.handleTimeout)
	pm.HandleFunc("POST /directive", s.handleDirective)
	pm.HandleFunc("POST /idle", s.handleIdle)
	cm := http.NewServeMux()
	cm.HandleFunc("PUT /kv/{key...}", s.handlePut)
	cm.HandleFunc("GET /kv/{key...}", s.handleGet)
	cm.HandleFunc("GET /status", s.handleStatus)
	s.peerSrv = &http.Server{Handler: pm, ReadHeaderTimeout: 10 * time.Second}
	s.clientSrv = &http.Server{Handler: cm, ReadHeaderTimeout: 10 * time.Second}
	for _, x := range []struct {
		srv *http.Server
		ln  net.Listener
	}{{s.peerSrv, s.peerLn}, {s.clientSrv, s.clientLn}} {
		s.wg.Go(func() {
			if err := x.srv.Serve(x.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				s.onFatal(fmt.Errorf("raftkv: serve %s: %w", x.ln.Addr(), err))
			}
		})
	}
}

// ticker drives the logical clock in standalone mode.
func (s *Server) ticker() {
	t := time.NewTicker(s.cfg.Tick)
	defer t.Stop()
	for k := 1; ; k++ {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
			s.node.tick(k%readRetryTicks == 0)
		}
	}
}

func (s *Server) onFatal(err error) {
	select {
	case s.fatal <- err:
	default:
	}
}

// Fatal delivers the error that stopped the replica (a disk error).
func (s *Server) Fatal() <-chan error { return s.fatal }

// PeerAddr is the address the replica serves peers and the fuzzer on.
func (s *Server) PeerAddr() string { return s.peerLn.Addr().String() }

// ClientAddr is the address of the client API.
func (s *Server) ClientAddr() string { return s.clientLn.Addr().String() }

// Status returns the node's volatile state.
func (s *Server) Status() Status { return s.node.status() }

// Close stops the replica as a crash would, except that it releases its
// addresses and files: nothing more reaches the disk, waiting clients get
// 503.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.closed)
		s.cancel()
		for _, srv := range []*http.Server{s.peerSrv, s.clientSrv} {
			if srv != nil {
				_ = srv.Close()
			}
		}
		for _, ln := range []net.Listener{s.peerLn, s.clientLn} {
			if ln != nil {
				_ = ln.Close()
			}
		}
		if s.node != nil {
			s.node.stop()
		}
		s.wg.Wait()
		if s.peers != nil {
			s.peers.wg.Wait()
		}
	})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, code int, err error) {
	writeJSON(w, code, map[string]string{"error": err.Error()})
}

var errStopped = errors.New("replica stopped")

type okResponse struct {
	OK bool `json:"ok"`
}

func (s *Server) handleMessage(w http.ResponseWriter, r *http.Request) {
	m, err := decodeEnvelope(http.MaxBytesReader(w, r.Body, maxMessageBytes), s.cfg.ID)
	if err != nil {
		s.log.Warn("bad message", "error", err)
		writeError(w, http.StatusBadRequest, err)
		return
	}
	if !s.node.step(m) {
		writeError(w, http.StatusServiceUnavailable, errStopped)
		return
	}
	writeJSON(w, http.StatusOK, okResponse{true})
}

func (s *Server) handleTimeout(w http.ResponseWriter, _ *http.Request) {
	if !s.node.timeout() {
		writeError(w, http.StatusServiceUnavailable, errStopped)
		return
	}
	writeJSON(w, http.StatusOK, okResponse{true})
}

// handleDirective acknowledges: the fuzzer crashes and restarts replicas
// with signals.
func (s *Server) handleDirective(w http.ResponseWriter, r *http.Request) {
	var d struct {
		Action string `json:"action"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 4096)).Decode(&d); err != nil && !errors.Is(err, io.EOF) {
		writeError(w, http.StatusBadRequest, fmt.Errorf("bad directive: %v", err))
		return
	}
	s.log.Debug("directive", "action", d.Action)
	writeJSON(w, http.StatusOK, okResponse{true})
}

// handleIdle answers once the node has handled the number of client
// requests the fuzzer wrote to it since its start, and everything they
// caused has been handed over: the fuzzer's acknowledgement that the
// replica is idle, so that no step ends on a timer.
func (s *Server) handleIdle(w http.ResponseWriter, r *http.Request) {
	var q struct {
		Requests uint64 `json:"requests"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 4096)).Decode(&q); err != nil {
		writeError(w, http.StatusBadRequest, fmt.Errorf("bad idle request: %v", err))
		return
	}
	answered, ok := s.node.waitIdle(r.Context(), q.Requests)
	if !ok {
		writeError(w, http.StatusServiceUnavailable, errStopped)
		return
	}
	writeJSON(w, http.StatusOK, idleResponse{OK: true, Answered: answered})
}

// idleResponse is the answer of POST /idle: the number of client requests
// answered since the start, which the fuzzer waits to have read.
type idleResponse struct {
	OK       bool   `json:"ok"`
	Answered uint64 `json:"answered"`
}

// answered flushes a client answer and counts it (now: decided by the
// handler itself).
func (s *Server) answered(w http.ResponseWriter, now bool) {
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	s.node.answer(now)
}

// handledOnce returns a function that counts the request as handled, once.
func (s *Server) handledOnce() func() {
	var once sync.Once
	return func() { once.Do(s.node.requestHandled) }
}

func (s *Server) handlePut(w http.ResponseWriter, r *http.Request) {
	// Deferred first, run last: an answer given at once is counted before
	// the request is.
	handled := s.handledOnce()
	defer handled()
	key := r.PathValue("key")
	if key == "" {
		writeError(w, http.StatusBadRequest, errors.New("PUT /kv/<key>: empty key"))
		s.answered(w, true)
		return
	}
	value, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxValueBytes))
	if err != nil {
		writeError(w, http.StatusBadRequest, fmt.Errorf("PUT /kv/%s: %v", key, err))
		s.answered(w, true)
		return
	}
	p := s.node.put(key, string(value))
	if p == nil {
		writeError(w, http.StatusServiceUnavailable, errStopped)
		s.answered(w, true)
		return
	}
	handled()
	select {
	case <-p.done:
		writeJSON(w, http.StatusOK, okResponse{true})
		s.answered(w, false)
	case <-r.Context().Done():
		s.node.forgetProposal(p)
		select {
		case <-p.done: // decided meanwhile: the count must balance
			s.node.answer(false)
		default:
		}
	case <-s.closed:
		writeError(w, http.StatusServiceUnavailable, errStopped)
	}
}

// GetResponse is the answer of GET /kv/<key>.
type GetResponse struct {
	Value string `json:"value"`
	Found bool   `json:"found"`
}

func (s *Server) handleGet(w http.ResponseWriter, r *http.Request) {
	handled := s.handledOnce()
	defer handled()
	key := r.PathValue("key")
	if key == "" {
		writeError(w, http.StatusBadRequest, errors.New("GET /kv/<key>: empty key"))
		s.answered(w, true)
		return
	}
	if s.cfg.Inject == InjectStaleRead {
		res, ok := s.node.localGet(key)
		if !ok {
			writeError(w, http.StatusServiceUnavailable, errStopped)
		} else {
			writeJSON(w, http.StatusOK, GetResponse{res.value, res.found})
		}
		s.answered(w, true)
		return
	}
	rd := s.node.readIndex(key)
	if rd == nil {
		writeError(w, http.StatusServiceUnavailable, errStopped)
		s.answered(w, true)
		return
	}
	handled()
	select {
	case res := <-rd.done:
		writeJSON(w, http.StatusOK, GetResponse{res.value, res.found})
		s.answered(w, false)
	case <-r.Context().Done():
		s.node.forgetRead(rd)
		if len(rd.done) > 0 { // decided meanwhile: the count must balance
			s.node.answer(false)
		}
	case <-s.closed:
		writeError(w, http.StatusServiceUnavailable, errStopped)
	}
}

func (s *Server) handleStatus(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, s.Status())
}
