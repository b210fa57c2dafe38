package raftkv

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// cluster runs n in-process replicas on loopback with temporary data
// directories. stop is a crash: nothing more reaches the disk.
type cluster struct {
	t      *testing.T
	base   Config // ID, Cluster, ClientAddr and listeners are filled per replica
	peer   []string
	client []string
	dirs   []string
	srvs   []*Server
	lns    [][2]net.Listener // listeners reserved for the first start
}

func newCluster(t *testing.T, n int, base Config) *cluster {
	c := &cluster{t: t, base: base, srvs: make([]*Server, n+1), lns: make([][2]net.Listener, n+1),
		peer: make([]string, n+1), client: make([]string, n+1), dirs: make([]string, n+1)}
	c.base.Cluster = map[uint64]string{}
	for i := 1; i <= n; i++ {
		for k := range 2 {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			c.lns[i][k] = ln
		}
		c.peer[i], c.client[i] = c.lns[i][0].Addr().String(), c.lns[i][1].Addr().String()
		c.base.Cluster[uint64(i)] = c.peer[i]
		c.dirs[i] = t.TempDir()
	}
	t.Cleanup(func() {
		for i := range c.srvs {
			c.stop(i)
			for _, ln := range c.lns[i] {
				if ln != nil {
					_ = ln.Close()
				}
			}
		}
	})
	return c
}

func (c *cluster) start(i int) *Server {
	c.t.Helper()
	cfg := c.base
	cfg.ID, cfg.ClientAddr, cfg.DataDir = uint64(i), c.client[i], c.dirs[i]
	cfg.PeerListener, cfg.ClientListener = c.lns[i][0], c.lns[i][1]
	c.lns[i] = [2]net.Listener{}
	s, err := Start(cfg)
	require.NoError(c.t, err)
	c.srvs[i] = s
	return s
}

func (c *cluster) stop(i int) {
	if s := c.srvs[i]; s != nil {
		s.Close()
		c.srvs[i] = nil
	}
}

// leader waits until the live replicas agree on a leader and returns it.
func (c *cluster) leader() int {
	c.t.Helper()
	var lead int
	require.Eventually(c.t, func() bool {
		lead = 0
		for _, s := range c.srvs {
			if s == nil {
				continue
			}
			st := s.Status()
			if st.Lead == 0 || (lead != 0 && int(st.Lead) != lead) {
				return false
			}
			lead = int(st.Lead)
		}
		return lead != 0 && c.srvs[lead] != nil && c.srvs[lead].Status().Role == "leader"
	}, 10*time.Second, 10*time.Millisecond)
	return lead
}

func httpDo(ctx context.Context, method, url, body string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

func put(t *testing.T, addr, key, value string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	code, body, err := httpDo(ctx, http.MethodPut, "http://"+addr+"/kv/"+key, value)
	require.NoError(t, err, "PUT %s=%s at %s", key, value, addr)
	require.Equal(t, http.StatusOK, code, string(body))
	require.JSONEq(t, `{"ok":true}`, string(body))
}

func get(t *testing.T, addr, key string) GetResponse {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	code, body, err := httpDo(ctx, http.MethodGet, "http://"+addr+"/kv/"+key, "")
	require.NoError(t, err, "GET %s at %s", key, addr)
	require.Equal(t, http.StatusOK, code, string(body))
	var r GetResponse
	require.NoError(t, json.Unmarshal(body, &r))
	return r
}

// async runs a client request in the background; its answer is on the
// returned channel, the request ends with the test.
type answer struct {
	code int
	body string
	err  error
}

func async(t *testing.T, method, url, body string) <-chan answer {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ch := make(chan answer, 1)
	go func() {
		code, b, err := httpDo(ctx, method, url, body)
		ch <- answer{code, string(b), err}
	}()
	return ch
}

// fakeFuzzer is a minimal interception server: it records registrations,
// messages and events, and delivers messages when the test says so.
type fakeFuzzer struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	addrs    map[string]string // replica id → address
	regs     []Registration
	inflight []Envelope // handed over, not yet delivered, in arrival order
	sent     []Envelope
	events   []Event
	// log is everything in arrival order, by step: a step starts at each
	// delivery, timeout and crash, and when the test says so.
	log  []logItem
	step int
	down map[string]bool // crashed replicas: messages to them are dropped
}

// logItem is a send (env set, recv false), a delivery (env set, recv
// true), an event (ev set) or a crash (crash set).
type logItem struct {
	step  int
	env   *Envelope
	recv  bool
	ev    *Event
	crash string
}

// nextStep starts a step.
func (f *fakeFuzzer) nextStep() {
	f.mu.Lock()
	f.step++
	f.mu.Unlock()
}

// crashed records a crash of replica id as a step of its own; messages to
// it are dropped until it registers again.
func (f *fakeFuzzer) crashed(id int) {
	f.mu.Lock()
	f.step++
	f.log = append(f.log, logItem{step: f.step, crash: strconv.Itoa(id)})
	f.down[strconv.Itoa(id)] = true
	f.mu.Unlock()
}

func newFakeFuzzer(t *testing.T) *fakeFuzzer {
	f := &fakeFuzzer{t: t, addrs: map[string]string{}, down: map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /replica", func(w http.ResponseWriter, r *http.Request) {
		var reg Registration
		if err := json.NewDecoder(r.Body).Decode(&reg); err != nil {
			writeError(w, http.StatusBadRequest, err)
			return
		}
		f.mu.Lock()
		f.regs = append(f.regs, reg)
		f.addrs[reg.ID] = reg.Addr
		delete(f.down, reg.ID)
		f.mu.Unlock()
		writeJSON(w, http.StatusOK, okResponse{true})
	})
	mux.HandleFunc("POST /message", func(w http.ResponseWriter, r *http.Request) {
		var env Envelope
		if err := json.NewDecoder(r.Body).Decode(&env); err != nil {
			writeError(w, http.StatusBadRequest, err)
			return
		}
		f.mu.Lock()
		f.inflight = append(f.inflight, env)
		f.sent = append(f.sent, env)
		f.log = append(f.log, logItem{step: f.step, env: &env})
		f.mu.Unlock()
		writeJSON(w, http.StatusOK, okResponse{true})
	})
	mux.HandleFunc("POST /event", func(w http.ResponseWriter, r *http.Request) {
		var ev Event
		if err := json.NewDecoder(r.Body).Decode(&ev); err != nil {
			writeError(w, http.StatusBadRequest, err)
			return
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		if _, ok := f.addrs[ev.Replica]; !ok {
			writeError(w, http.StatusBadRequest, fmt.Errorf("unknown replica %q", ev.Replica))
			return
		}
		f.events = append(f.events, ev)
		f.log = append(f.log, logItem{step: f.step, ev: &ev})
		writeJSON(w, http.StatusOK, okResponse{true})
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

// deliverOne delivers the first in-flight message that ok accepts; false
// when there is none.
func (f *fakeFuzzer) deliverOne(ok func(Envelope) bool) bool {
	f.t.Helper()
	f.mu.Lock()
	keep := f.inflight[:0]
	for _, e := range f.inflight {
		if !f.down[e.To] {
			keep = append(keep, e)
		}
	}
	f.inflight = keep
	k := -1
	for i, e := range f.inflight {
		if ok == nil || ok(e) {
			k = i
			break
		}
	}
	if k < 0 {
		f.mu.Unlock()
		return false
	}
	env := f.inflight[k]
	f.inflight = append(f.inflight[:k], f.inflight[k+1:]...)
	addr := f.addrs[env.To]
	f.step++
	f.log = append(f.log, logItem{step: f.step, env: &env, recv: true})
	f.mu.Unlock()
	b, err := json.Marshal(env)
	require.NoError(f.t, err)
	resp, err := http.Post("http://"+addr+"/message", "application/json", bytes.NewReader(b))
	require.NoError(f.t, err)
	_ = resp.Body.Close()
	require.Equal(f.t, http.StatusOK, resp.StatusCode, "deliver %s %s", env.Type, env.ID)
	return true
}

// deliverAll delivers the accepted in-flight messages, FIFO, until none is
// left, and returns how many it delivered.
func (f *fakeFuzzer) deliverAll(ok func(Envelope) bool) int {
	f.t.Helper()
	n := 0
	for f.deliverOne(ok) {
		n++
		require.Less(f.t, n, 10000, "messages do not stop")
	}
	return n
}

// deliverUntil delivers accepted messages until the answer arrives.
func (f *fakeFuzzer) deliverUntil(ch <-chan answer, ok func(Envelope) bool) answer {
	f.t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case a := <-ch:
			return a
		case <-deadline:
			f.t.Fatal("no answer while delivering messages")
		default:
		}
		if f.deliverAll(ok) == 0 {
			time.Sleep(2 * time.Millisecond) // the request's own messages may still be on their way
		}
	}
}

func (f *fakeFuzzer) timeout(addr string) {
	f.t.Helper()
	f.nextStep()
	resp, err := http.Post("http://"+addr+"/timeout", "application/json", strings.NewReader("{}"))
	require.NoError(f.t, err)
	_ = resp.Body.Close()
	require.Equal(f.t, http.StatusOK, resp.StatusCode)
}

// eventsOf returns the events of replica id as "type k=v k=v" (keys
// sorted), in arrival order, leaving out the types not in types (all if
// none given).
func (f *fakeFuzzer) eventsOf(id int, types ...string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, ev := range f.events {
		if ev.Replica != strconv.Itoa(id) || (len(types) > 0 && !slices.Contains(types, ev.Type)) {
			continue
		}
		out = append(out, ev.Type+" "+showParams(ev.Params))
	}
	return out
}

func (f *fakeFuzzer) sentMessages() []Envelope {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Envelope(nil), f.sent...)
}

func showParams(p map[string]any) string {
	b, _ := json.Marshal(p) // keys sorted
	return string(b)
}

// between accepts the messages among the given replicas only.
func between(ids ...int) func(Envelope) bool {
	return func(e Envelope) bool {
		in := func(s string) bool {
			for _, id := range ids {
				if s == strconv.Itoa(id) {
					return true
				}
			}
			return false
		}
		return in(e.From) && in(e.To)
	}
}

// newFuzzedCluster starts n replicas under f.
func newFuzzedCluster(t *testing.T, f *fakeFuzzer, n int, inject string) *cluster {
	return newFuzzedClusterConfig(t, f, n, Config{Inject: inject, SnapshotEvery: DefaultSnapshotEvery})
}

func newFuzzedClusterConfig(t *testing.T, f *fakeFuzzer, n int, cfg Config) *cluster {
	cfg.FuzzerURL = f.srv.URL
	c := newCluster(t, n, cfg)
	for i := 1; i <= n; i++ {
		c.start(i)
	}
	return c
}

// elect makes replica i leader: timeout, then every message delivered.
func (c *cluster) elect(f *fakeFuzzer, i int) {
	c.t.Helper()
	f.timeout(c.peer[i])
	f.deliverAll(nil)
	require.Equal(c.t, "leader", c.srvs[i].Status().Role)
}
