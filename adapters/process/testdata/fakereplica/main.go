// Fakereplica is a tiny replica for the process adapter's tests: it speaks
// the interception API (docs/process-api.md) without any real protocol.
//
//   - It registers at start; restarted on a data dir it used before, it
//     first reports a "restart" event.
//   - POST /timeout: reports "timeout" (term) and "role" (candidate, term+1),
//     then hands over a MsgVote to every peer.
//   - POST /message: reports "commit" (index = messages received so far);
//     a message whose type does not end in "Resp" is answered to its sender
//     with a message of type <type>Resp.
//   - Client API: PUT /kv/<key> (body: the value), GET /kv/<key> (answer
//     {"value": ..., "found": ...}, as raftkv's), linearizable (one store
//     file shared by all replicas, -store); with -stale a
//     get returns the value before the key's last put. A put reports a
//     "request" event (value), as raftkv does.
//   - POST /idle {"requests": k}: answered once k client requests have been
//     handled (and answered) since the start, with {"answered": n}
//     (-idle=false: 404, as a replica without the endpoint).
//
// Everything it posts is posted before it answers the fuzzer's call.
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

var (
	id         = flag.Int("id", 0, "replica id (1..n)")
	n          = flag.Int("n", 3, "number of replicas")
	api        = flag.String("api", "", "address for the fuzzer's calls")
	client     = flag.String("client", "", "address of the client API")
	data       = flag.String("data", "", "data directory")
	stale      = flag.Bool("stale", false, "answer gets with the value before the last put")
	misbehave  = flag.Bool("misbehave", false, "on timeout, also post malformed JSON and an event of an unknown replica")
	grandchild = flag.Bool("grandchild", false, "start a child process (sleep) in the group and report its pid")
	exitAfter  = flag.Int("panic-after", 0, "panic when receiving this many messages (0: never)")
	storeFile  = flag.String("store", "", "the key-value store, a file shared by the replicas")
	hang       = flag.Duration("hang", 0, "on timeout, wait this long before answering")
	idle       = flag.Bool("idle", true, "serve POST /idle")
	slowReq    = flag.Duration("slow-request", 0, "wait this long before handling a client request")
)

// store is the replicas' shared key-value state: one file, locked with
// flock, so that every operation is atomic across replicas (and survives
// their crashes).
type store struct {
	KV   map[string]string `json:"kv"`
	Prev map[string]string `json:"prev"` // value before the last put, for -stale
}

func withStore(f func(*store)) {
	lock, err := os.OpenFile(*storeFile+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		log.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		log.Fatal(err)
	}
	st := &store{KV: map[string]string{}, Prev: map[string]string{}}
	if b, err := os.ReadFile(*storeFile); err == nil {
		if err := json.Unmarshal(b, st); err != nil {
			log.Fatal(err)
		}
	}
	f(st)
	b, _ := json.Marshal(st)
	if err := os.WriteFile(*storeFile+".tmp", b, 0o644); err != nil {
		log.Fatal(err)
	}
	if err := os.Rename(*storeFile+".tmp", *storeFile); err != nil {
		log.Fatal(err)
	}
}

type state struct {
	Term int `json:"term"`
}

var (
	mu       sync.Mutex
	st       state
	received int
	seq      int
	handled  int // client requests handled
	handledC = sync.NewCond(&mu)
	fuzzer   = os.Getenv("MODELFUZZ_URL")
	hc       = &http.Client{}
)

func main() {
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix(fmt.Sprintf("fake %d: ", *id))
	stateFile := filepath.Join(*data, "state.json")
	restarted := false
	if b, err := os.ReadFile(stateFile); err == nil {
		restarted = true
		if err := json.Unmarshal(b, &st); err != nil {
			log.Fatal(err)
		}
	}
	save := func() {
		b, _ := json.Marshal(st)
		if err := os.WriteFile(stateFile, b, 0o644); err != nil {
			log.Fatal(err)
		}
	}
	save()

	apiLn, err := net.Listen("tcp", *api)
	if err != nil {
		log.Fatal(err)
	}
	// The restart is reported before the client endpoint listens: a
	// replica that does not register is ready when that endpoint accepts.
	if restarted {
		post("/event", map[string]any{"replica": me(), "type": "restart", "params": map[string]any{
			"term": st.Term, "vote": -1, "commit": 0, "snapindex": 0, "lastindex": 0}})
	}
	clientLn, err := net.Listen("tcp", *client)
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /timeout", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if *misbehave {
			postRaw("/event", []byte("{not json"))
			post("/event", map[string]any{"replica": "9", "type": "commit", "params": map[string]any{"index": 1}})
		}
		post("/event", map[string]any{"replica": me(), "type": "timeout", "params": map[string]any{"term": st.Term}})
		time.Sleep(*hang)
		st.Term++
		save()
		post("/event", map[string]any{"replica": me(), "type": "role", "params": map[string]any{"role": "candidate", "term": st.Term}})
		for j := 1; j <= *n; j++ {
			if j != *id {
				send(j, "MsgVote", 0)
			}
		}
		ok(w)
	})
	mux.HandleFunc("POST /message", func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			From string `json:"from"`
			Type string `json:"type"`
		}
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		received++
		if *exitAfter > 0 && received >= *exitAfter {
			// Outside the handler: net/http recovers a handler's panics.
			msg := fmt.Sprintf("fake %d: received %d messages", *id, received)
			go func() { panic(msg) }()
			select {}
		}
		post("/event", map[string]any{"replica": me(), "type": "commit", "params": map[string]any{"index": received}})
		if !strings.HasSuffix(m.Type, "Resp") {
			from, _ := strconv.Atoi(m.From)
			send(from, m.Type+"Resp", 0)
		}
		ok(w)
	})
	mux.HandleFunc("POST /directive", func(w http.ResponseWriter, r *http.Request) { ok(w) })
	if *idle {
		mux.HandleFunc("POST /idle", func(w http.ResponseWriter, r *http.Request) {
			var q struct {
				Requests int `json:"requests"`
			}
			if err := json.NewDecoder(r.Body).Decode(&q); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for handled < q.Requests {
				handledC.Wait()
			}
			// Every request handled is answered.
			fmt.Fprintf(w, `{"ok":true,"answered":%d}`, handled)
		})
	}
	go func() { log.Fatal(http.Serve(apiLn, mux)) }()

	cmux := http.NewServeMux()
	cmux.HandleFunc("PUT /kv/{key}", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		time.Sleep(*slowReq)
		mu.Lock()
		defer mu.Unlock()
		defer countRequest(w)
		k := r.PathValue("key")
		var value any = string(b)
		if n, err := strconv.Atoi(string(b)); err == nil {
			value = n
		}
		post("/event", map[string]any{"replica": me(), "type": "request", "params": map[string]any{"value": value}})
		withStore(func(st *store) {
			st.Prev[k] = st.KV[k]
			st.KV[k] = string(b)
		})
		ok(w)
	})
	cmux.HandleFunc("GET /kv/{key}", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(*slowReq)
		mu.Lock()
		defer mu.Unlock()
		defer countRequest(w)
		k := r.PathValue("key")
		var v string
		var found bool
		withStore(func(st *store) {
			v, found = st.KV[k]
			if *stale {
				v, found = st.Prev[k], st.Prev[k] != ""
			}
		})
		json.NewEncoder(w).Encode(map[string]any{"value": v, "found": found})
	})
	go func() { log.Fatal(http.Serve(clientLn, cmux)) }()

	info := map[string]any{"pid": os.Getpid()}
	if *grandchild {
		c := exec.Command("sleep", "600")
		if err := c.Start(); err != nil {
			log.Fatal(err)
		}
		info["child"] = c.Process.Pid
	}
	post("/replica", map[string]any{"id": me(), "addr": apiLn.Addr().String(), "ready": true, "info": info})
	fmt.Println("ready")
	select {}
}

// countRequest sends a client request's answer and counts the request as
// handled and answered (mu held).
func countRequest(w http.ResponseWriter) {
	w.(http.Flusher).Flush()
	handled++
	handledC.Broadcast()
}

func me() string { return strconv.Itoa(*id) }

func ok(w http.ResponseWriter) { w.Write([]byte(`{"ok":true}`)) }

// send hands a message to the fuzzer.
func send(to int, typ string, reject int) {
	seq++
	post("/message", map[string]any{
		"from": me(), "to": strconv.Itoa(to), "type": typ, "id": fmt.Sprintf("%d-%d", *id, seq),
		"data": base64.StdEncoding.EncodeToString([]byte(typ)),
		"params": map[string]any{"term": st.Term, "logterm": 0, "index": 0, "commit": 0,
			"reject": reject, "rejecthint": 0, "entries": "", "vote": *id - 1},
	})
}

func post(path string, body any) {
	b, err := json.Marshal(body)
	if err != nil {
		log.Fatal(err)
	}
	postRaw(path, b)
}

// postRaw posts to the fuzzer; a refusal (a message to a crashed replica)
// is logged and ignored.
func postRaw(path string, b []byte) {
	resp, err := hc.Post(fuzzer+path, "application/json", bytes.NewReader(b))
	if err != nil {
		log.Printf("post %s: %v", path, err)
		return
	}
	msg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		log.Printf("post %s: %s: %s", path, resp.Status, bytes.TrimSpace(msg))
	}
}
