package etcd

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

// The peer-transport proxy. Every member advertises the proxy's address
// for it as its peer URL (--initial-advertise-peer-urls and
// --initial-cluster) and listens for real on another port, so every
// connection between two members goes through the proxy, which speaks
// rafthttp:
//
//   - GET /raft/stream/{message,msgappv2}/<id>: member <id> opens a stream
//     on which the member behind this address sends it messages. The proxy
//     opens the same stream to the real member, decodes every message on
//     it and hands it to the execution; to the member that asked it
//     writes only link heartbeats, once a second, so that the stream
//     stays up (rafthttp drops a stream silent for 5 s).
//   - POST /raft (pipeline: one protobuf message) is decoded and handed
//     over; the sender gets 204 at once, as from the network.
//   - POST /raft/snapshot (a MsgSnap and the database after it) is read
//     whole and handed over; the sender's request stays open until the
//     execution delivers it (the real member's answer is relayed) or drops
//     it (500), as a snapshot transfer over a link that fails.
//   - anything else (/raft/probing, /version, /members, /leases, ...) is
//     passed through unless a partition cuts the two members.
//
// A message is delivered as a pipeline POST to the real receiver (or, for
// a MsgSnap, as the snapshot POST it came in): etcd's receiver hands a
// pipeline message to raft exactly as one read from a stream (the same
// Raft.Process), and each delivery is answered only once raft has taken
// the message, so deliveries at one member keep their order.
type proxy struct {
	n    int
	ids  []uint64
	idx  map[uint64]int
	real []string // the members' real peer addresses, host:port
	w    wire

	lns   []net.Listener
	srvs  []*http.Server
	fwd   *http.Client // streams and pass-through: no overall timeout
	post  *http.Client // deliveries
	passR []*httputil.ReverseProxy

	mu  sync.Mutex
	hdr []http.Header // each member's rafthttp headers, from its own requests
}

// wire is what the proxy hands messages to: the execution.
type wire interface {
	// arrived: member from sent m to member to; snap holds a MsgSnap's
	// whole body. It may deliver at once (the proxy's caller decides).
	arrived(from, to int, m *raftpb.Message, snap *snapBody)
	// cut reports whether a partition separates members a and b.
	cut(a, b int) bool
}

// snapBody is a snapshot POST held by the proxy: its headers and body,
// and where its sender waits for the status to answer.
type snapBody struct {
	header http.Header
	body   []byte
	done   chan int
}

// memberID is the ID etcd gives a member of a new cluster: the first 8
// bytes of the SHA-1 of its peer URLs (sorted, joined) and the cluster
// token (etcd's membership.computeMemberID, unchanged since 3.0).
func memberID(peerURL, token string) uint64 {
	h := sha1.Sum([]byte(peerURL + token))
	return binary.BigEndian.Uint64(h[:8])
}

// newProxy listens on the proxy address of every member (lns, already
// open) and forwards to their real peer addresses.
func newProxy(lns []net.Listener, real []string, token string, w wire) *proxy {
	n := len(lns)
	p := &proxy{n: n, ids: make([]uint64, n), idx: map[uint64]int{}, real: real, w: w, lns: lns,
		hdr: make([]http.Header, n)}
	for i, ln := range lns {
		p.ids[i] = memberID("http://"+ln.Addr().String(), token)
		p.idx[p.ids[i]] = i
	}
	tr := &http.Transport{DialContext: (&net.Dialer{Timeout: 2 * time.Second}).DialContext, MaxIdleConnsPerHost: 8,
		ResponseHeaderTimeout: 10 * time.Second}
	p.fwd = &http.Client{Transport: tr}
	p.post = &http.Client{Transport: tr, Timeout: 10 * time.Second}
	for i, ln := range lns {
		target := &url.URL{Scheme: "http", Host: real[i]}
		rp := httputil.NewSingleHostReverseProxy(target)
		rp.Transport = tr
		rp.FlushInterval = -1
		rp.ErrorLog = nil
		rp.ErrorHandler = func(w http.ResponseWriter, _ *http.Request, err error) {
			http.Error(w, "modelfuzz proxy: "+err.Error(), http.StatusBadGateway)
		}
		p.passR = append(p.passR, rp)
		srv := &http.Server{Handler: p.handler(i), ReadHeaderTimeout: 10 * time.Second, ErrorLog: nil}
		p.srvs = append(p.srvs, srv)
		go func() { _ = srv.Serve(ln) }()
	}
	return p
}

// close stops serving and breaks every connection.
func (p *proxy) close() {
	for _, s := range p.srvs {
		_ = s.Close()
	}
	p.fwd.CloseIdleConnections()
}

// member is the process of a member ID in hex (rafthttp's spelling), or -1.
func (p *proxy) member(hexID string) int {
	id, err := strconv.ParseUint(hexID, 16, 64)
	if err != nil {
		return -1
	}
	if i, ok := p.idx[id]; ok {
		return i
	}
	return -1
}

func (p *proxy) handler(i int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		from := p.member(r.Header.Get("X-Server-From"))
		if from >= 0 {
			p.mu.Lock()
			p.hdr[from] = r.Header.Clone()
			p.mu.Unlock()
		}
		switch {
		case strings.HasPrefix(r.URL.Path, "/raft/stream/") && r.Method == http.MethodGet:
			p.stream(i, w, r)
		case r.URL.Path == "/raft" && r.Method == http.MethodPost:
			p.pipeline(i, from, w, r)
		case r.URL.Path == "/raft/snapshot" && r.Method == http.MethodPost:
			p.snapshot(i, from, w, r)
		default:
			if from >= 0 && p.w.cut(from, i) {
				http.Error(w, "modelfuzz proxy: partitioned", http.StatusServiceUnavailable)
				return
			}
			p.passR[i].ServeHTTP(w, r)
		}
	})
}

// stream serves member rcv's stream from member i (see proxy).
func (p *proxy) stream(i int, w http.ResponseWriter, r *http.Request) {
	rcv := p.member(path.Base(r.URL.Path))
	typ := path.Base(path.Dir(r.URL.Path))
	if rcv < 0 || (typ != "message" && typ != "msgappv2") {
		http.Error(w, "modelfuzz proxy: unknown stream "+r.URL.Path, http.StatusNotFound)
		return
	}
	req, err := http.NewRequestWithContext(r.Context(), http.MethodGet, "http://"+p.real[i]+r.URL.Path, nil)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req.Header = r.Header.Clone()
	resp, err := p.fwd.Do(req)
	if err != nil {
		http.Error(w, "modelfuzz proxy: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	if resp.StatusCode != http.StatusOK {
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, io.LimitReader(resp.Body, 1<<16))
		return
	}
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	if fl != nil {
		fl.Flush()
	}
	var dec decoder
	frame := messageLinkHeartbeatFrame
	if typ == "msgappv2" {
		dec = &appV2Decoder{r: resp.Body, local: p.ids[rcv], remote: p.ids[i]}
		frame = appV2LinkHeartbeatFrame
	} else {
		dec = &messageDecoder{r: resp.Body}
	}
	ctx, cancel := context.WithCancel(r.Context())
	hbDone := make(chan struct{})
	// The link heartbeats' writer must be gone before the handler returns
	// (the server then finishes the response).
	defer func() {
		cancel()
		<-hbDone
	}()
	go func() {
		defer close(hbDone)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if _, err := w.Write(frame); err != nil {
					cancel()
					return
				}
				if fl != nil {
					fl.Flush()
				}
			}
		}
	}()
	for {
		m, err := dec.decode()
		if errors.Is(err, errLinkHeartbeat) {
			continue
		}
		if err != nil {
			return
		}
		p.w.arrived(i, rcv, m, nil)
		if ctx.Err() != nil {
			return
		}
	}
}

func (p *proxy) pipeline(i, from int, w http.ResponseWriter, r *http.Request) {
	b, err := io.ReadAll(io.LimitReader(r.Body, maxMessage))
	if err != nil {
		http.Error(w, "modelfuzz proxy: "+err.Error(), http.StatusBadRequest)
		return
	}
	m := &raftpb.Message{}
	if err := proto.Unmarshal(b, m); err != nil {
		http.Error(w, "modelfuzz proxy: "+err.Error(), http.StatusBadRequest)
		return
	}
	if from < 0 {
		from = p.idx[m.GetFrom()]
	}
	w.WriteHeader(http.StatusNoContent)
	p.w.arrived(from, i, m, nil)
}

func (p *proxy) snapshot(i, from int, w http.ResponseWriter, r *http.Request) {
	b, err := io.ReadAll(io.LimitReader(r.Body, 1<<30))
	if err != nil {
		http.Error(w, "modelfuzz proxy: "+err.Error(), http.StatusBadRequest)
		return
	}
	m, err := (&messageDecoder{r: bytes.NewReader(b)}).decode()
	if err != nil {
		http.Error(w, "modelfuzz proxy: "+err.Error(), http.StatusBadRequest)
		return
	}
	if from < 0 {
		from = p.idx[m.GetFrom()]
	}
	sb := &snapBody{header: r.Header.Clone(), body: b, done: make(chan int, 1)}
	p.w.arrived(from, i, m, sb)
	select {
	case st := <-sb.done:
		if st == http.StatusNoContent {
			w.WriteHeader(st)
		} else {
			http.Error(w, "modelfuzz proxy: snapshot not delivered", st)
		}
	case <-r.Context().Done():
	}
}

// deliver hands m, sent by member from, to the real member to.
func (p *proxy) deliver(from, to int, m *raftpb.Message, sb *snapBody) error {
	if sb != nil {
		st, err := p.postTo(to, "/raft/snapshot", sb.header, sb.body, "")
		if err != nil {
			st = http.StatusInternalServerError
		}
		sb.done <- st
		return err
	}
	b, err := proto.Marshal(m)
	if err != nil {
		return err
	}
	p.mu.Lock()
	h := p.hdr[from]
	p.mu.Unlock()
	if h == nil {
		return fmt.Errorf("no rafthttp request seen from member n%d yet", from+1)
	}
	_, err = p.postTo(to, "/raft", h, b, "application/protobuf")
	return err
}

// drop tells the sender of a held snapshot that it was lost.
func (sb *snapBody) drop() {
	select {
	case sb.done <- http.StatusServiceUnavailable:
	default:
	}
}

func (p *proxy) postTo(to int, pth string, h http.Header, body []byte, ct string) (int, error) {
	req, err := http.NewRequest(http.MethodPost, "http://"+p.real[to]+pth, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	for _, k := range []string{"X-Server-From", "X-Server-Version", "X-Min-Cluster-Version", "X-Etcd-Cluster-ID", "X-PeerURLs", "Content-Type"} {
		if v := h.Get(k); v != "" {
			req.Header.Set(k, v)
		}
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	resp, err := p.post.Do(req)
	if err != nil {
		return 0, err
	}
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<12))
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		return resp.StatusCode, fmt.Errorf("member n%d answered %d: %s", to+1, resp.StatusCode, strings.TrimSpace(string(msg)))
	}
	return resp.StatusCode, nil
}
