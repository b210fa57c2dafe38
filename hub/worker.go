package hub

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/record"
)

// JoinOptions say how a campaign joins a hub.
type JoinOptions struct {
	URL    string // the hub's NATS
	Name   string // the worker's name, unique in the campaign
	Corpus string // the worker's own corpus directory (told apart from another worker of the same name)
	// Settings are the joining campaign's stored settings (JSON); the
	// first worker's become the campaign's.
	Settings []byte
	// Check compares the campaign's settings with the joining one's: an
	// error names the first difference.
	Check func(stored []byte) error
	Logf  func(format string, args ...any)
	// Warnf, when set, reports what the worker could not publish when it
	// left (Logf otherwise).
	Warnf func(format string, args ...any)
}

// joinWait is how long a worker waits for a hub it cannot reach when it
// joins (a hub being restarted).
const joinWait = time.Minute

// opTimeout bounds one request to the hub: past it, the worker goes on
// locally and tries again later.
const opTimeout = 5 * time.Second

// maxIncomingInputs is how many of the others' inputs wait at most to be
// taken by the loop (the oldest are dropped): as many as a continued
// campaign takes from its own corpus.
const maxIncomingInputs = 1000

// Worker is a campaign's membership of a hub: it publishes what the
// campaign commits (through Store) and brings in what the others found
// (fuzzer.Exchange).
type Worker struct {
	opt JoinOptions
	nc  *nats.Conn
	js  jetstream.JetStream
	kv  jetstream.KeyValue

	mu       sync.Mutex
	in       fuzzer.Shared
	hubCov   map[string]map[uint64]bool // what the hub held when the worker joined, until the store is loaded
	lastOwn  uint64                     // the highest id of the worker's own inputs at the hub when it joined
	out      []pub                      // what is still to be published, in order
	outBytes int                        // the stream messages' bytes in out
	dropped  int                        // records dropped from out past maxOutboxBytes
	wake     chan struct{}
	closing  bool
	sendDone chan struct{}
	iter     jetstream.MessagesContext // the stream, read in the background
	down     bool                      // the last send failed (logged once an outage)
	status   WorkerStatus              // as last published
}

// pub is one thing to publish: a stream message, a worker status or a bug.
type pub struct {
	subject, id string
	data        []byte
	status      []byte
	bug         *record.BugRecord
}

// Join joins the campaign held by the hub at opt.URL: it refuses a
// campaign with other settings (with the difference named) and a second
// running worker of the same name, and takes in what the hub holds so far.
func Join(opt JoinOptions) (*Worker, error) {
	if err := CheckWorkerName(opt.Name); err != nil {
		return nil, err
	}
	if opt.Logf == nil {
		opt.Logf = func(string, ...any) {}
	}
	if opt.Warnf == nil {
		opt.Warnf = opt.Logf
	}
	nc, err := connect(opt.URL, "modelfuzz-worker-"+opt.Name)
	// A hub restarting is waited for, a while.
	for deadline := time.Now().Add(joinWait); err != nil && time.Now().Before(deadline); {
		opt.Logf("hub %s: cannot connect (%v); trying again for %s", opt.URL, err, time.Until(deadline).Round(time.Second))
		time.Sleep(2 * time.Second)
		nc, err = connect(opt.URL, "modelfuzz-worker-"+opt.Name)
	}
	if err != nil {
		return nil, err
	}
	w := &Worker{opt: opt, nc: nc, wake: make(chan struct{}, 1), sendDone: make(chan struct{}),
		hubCov: map[string]map[uint64]bool{}}
	if err := w.join(); err != nil {
		nc.Close()
		return nil, err
	}
	go w.send()
	return w, nil
}

func (w *Worker) join() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var err error
	if w.js, err = jetstream.New(w.nc); err != nil {
		return err
	}
	if w.kv, err = w.js.KeyValue(ctx, Bucket); err != nil {
		return fmt.Errorf("hub %s holds no modelfuzz campaign (%v): start one with modelfuzz hub", w.opt.URL, err)
	}
	if _, err := w.kv.Create(ctx, settingsKey, w.opt.Settings); errors.Is(err, jetstream.ErrKeyExists) {
		e, err := w.kv.Get(ctx, settingsKey)
		if err != nil {
			return fmt.Errorf("hub %s: reading its settings: %v", w.opt.URL, err)
		}
		if err := w.opt.Check(e.Value()); err != nil {
			return fmt.Errorf("hub %s: %v", w.opt.URL, err)
		}
	} else if err != nil {
		return fmt.Errorf("hub %s: storing the campaign's settings: %v", w.opt.URL, err)
	}
	if err := w.register(ctx); err != nil {
		return err
	}
	if err := w.subscribeVisits(); err != nil {
		return fmt.Errorf("hub %s: %v", w.opt.URL, err)
	}
	return w.catchUp(ctx)
}

// register refuses a second running worker of the same name (any
// worker answers on its own subject while it runs: a worker killed answers
// no more, so that it can be restarted at once, here or elsewhere) and
// records this one.
func (w *Worker) register(ctx context.Context) error {
	subject := aliveSubject + w.opt.Name
	if m, err := w.nc.Request(subject, nil, time.Second); err == nil {
		var old WorkerStatus
		_ = json.Unmarshal(m.Data, &old)
		return fmt.Errorf("hub %s: a worker named %s is running (on %s, pid %d, corpus %s); give this one another --worker name",
			w.opt.URL, w.opt.Name, old.Host, old.PID, old.Corpus)
	}
	host, _ := os.Hostname()
	w.status = WorkerStatus{Name: w.opt.Name, Host: host, PID: os.Getpid(), Corpus: w.opt.Corpus, Joined: now(), Updated: now()}
	data, _ := json.Marshal(&w.status)
	if _, err := w.nc.Subscribe(subject, func(m *nats.Msg) { _ = m.Respond(data) }); err != nil {
		return fmt.Errorf("hub %s: %v", w.opt.URL, err)
	}
	if _, err := w.kv.Put(ctx, workerKey(w.opt.Name), data); err != nil {
		return fmt.Errorf("hub %s: %v", w.opt.URL, err)
	}
	return nil
}

// catchUp reads what the stream holds of inputs and coverage, then keeps
// reading in the background.
func (w *Worker) catchUp(ctx context.Context) error {
	cons, err := w.js.OrderedConsumer(ctx, StreamName, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{subjectInput + ">", subjectCov + ">"}})
	if err != nil {
		return fmt.Errorf("hub %s: %v", w.opt.URL, err)
	}
	info, err := cons.Info(ctx)
	if err != nil {
		return fmt.Errorf("hub %s: %v", w.opt.URL, err)
	}
	it, err := cons.Messages()
	if err != nil {
		return fmt.Errorf("hub %s: %v", w.opt.URL, err)
	}
	for pending := info.NumPending; pending > 0; {
		m, err := it.Next()
		if err != nil {
			it.Stop()
			return fmt.Errorf("hub %s: catching up: %v", w.opt.URL, err)
		}
		w.take(m.Subject(), m.Data(), true)
		md, err := m.Metadata()
		if err != nil || md.NumPending == 0 {
			break
		}
		pending = md.NumPending
	}
	w.iter = it
	go func() {
		for {
			m, err := it.Next()
			if err != nil {
				if errors.Is(err, jetstream.ErrMsgIteratorClosed) {
					return
				}
				time.Sleep(200 * time.Millisecond)
				continue
			}
			w.take(m.Subject(), m.Data(), false)
		}
	}()
	return nil
}

// take handles one message of the stream. The worker's own messages
// matter only until its store is loaded (what the hub holds of it); after
// that they are not even decoded. Decoding is done outside the lock, so
// that the loop's Incoming never waits for it.
func (w *Worker) take(subject string, data []byte, joining bool) {
	own := strings.HasSuffix(subject, "."+w.opt.Name)
	if own {
		w.mu.Lock()
		loaded := w.hubCov == nil
		w.mu.Unlock()
		if loaded {
			return
		}
	}
	switch {
	case strings.HasPrefix(subject, subjectInput):
		var in Input
		if json.Unmarshal(data, &in) != nil || in.Input == nil {
			return
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		if own {
			w.lastOwn = max(w.lastOwn, in.ID)
			return
		}
		w.in.Inputs = append(w.in.Inputs, &record.InputRecord{ID: in.ID, Iteration: in.Iteration, Source: "hub",
			NewItems: in.NewItems, GuideItems: in.GuideItems, GuideSteps: in.GuideSteps, Input: in.Input})
		if n := len(w.in.Inputs); n > maxIncomingInputs {
			w.in.Inputs = append(w.in.Inputs[:0], w.in.Inputs[n-maxIncomingInputs:]...)
		}
	case strings.HasPrefix(subject, subjectCov):
		var c Coverage
		if json.Unmarshal(data, &c) != nil {
			return
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		if joining && w.hubCov != nil {
			for _, ci := range c.Coverage {
				set := w.hubCov[ci.Measure]
				if set == nil {
					set = map[uint64]bool{}
					w.hubCov[ci.Measure] = set
				}
				for _, x := range ci.Items {
					set[x] = true
				}
			}
		}
		if !own {
			w.in.Coverage = append(w.in.Coverage, c.Coverage...)
		}
	}
}

// Incoming is what the others found since the last call (fuzzer.Exchange).
func (w *Worker) Incoming() fuzzer.Shared {
	w.mu.Lock()
	defer w.mu.Unlock()
	in := w.in
	w.in = fuzzer.Shared{}
	return in
}

// Claim reports whether this worker minimizes the bug of this signature
// (fuzzer.Exchange): the first worker to claim it does. A hub that cannot
// be reached leaves it to this worker: the campaign goes on locally.
func (w *Worker) Claim(signature string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	for range 10 {
		e, err := w.kv.Get(ctx, bugKey(signature))
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			// Numbered when the worker's record of it arrives (upsertBug).
			b := &Bug{Signature: signature, Owner: w.opt.Name, Found: now(), Hits: map[string]int64{}}
			data, _ := json.Marshal(b)
			if _, err = w.kv.Create(ctx, bugKey(signature), data); errors.Is(err, jetstream.ErrKeyExists) {
				continue
			} else if err != nil {
				break
			}
			return true
		}
		if err != nil {
			break
		}
		var b Bug
		if json.Unmarshal(e.Value(), &b) != nil {
			break
		}
		return b.Owner == w.opt.Name || b.Owner == ""
	}
	w.opt.Logf("hub %s unreachable: minimizing here a bug another worker may minimize too", w.opt.URL)
	return true
}

// nextID gives the next number of a bug (B) or known disagreement (K).
func (w *Worker) nextID(ctx context.Context, prefix string) (string, error) {
	key := "next." + prefix
	for {
		e, err := w.kv.Get(ctx, key)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			if _, err := w.kv.Create(ctx, key, []byte("1")); errors.Is(err, jetstream.ErrKeyExists) {
				continue
			} else if err != nil {
				return "", err
			}
			return prefix + "1", nil
		}
		if err != nil {
			return "", err
		}
		var n int
		fmt.Sscan(string(e.Value()), &n)
		n++
		if _, err := w.kv.Update(ctx, key, []byte(fmt.Sprint(n)), e.Revision()); err != nil {
			if ctx.Err() != nil {
				return "", err
			}
			continue
		}
		return fmt.Sprintf("%s%d", prefix, n), nil
	}
}

// upsertBug merges a worker's record of a bug into the hub's.
func (w *Worker) upsertBug(ctx context.Context, rec *record.BugRecord) error {
	key := bugKey(rec.Signature)
	id := ""
	for {
		e, err := w.kv.Get(ctx, key)
		var b Bug
		var rev uint64
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
			b = Bug{Owner: w.opt.Name, Found: now()}
		case err != nil:
			return err
		default:
			if err := json.Unmarshal(e.Value(), &b); err != nil {
				return fmt.Errorf("bug %s at the hub: %v", key, err)
			}
			rev = e.Revision()
		}
		if b.ID == "" {
			// The number is taken once and kept across retries: a
			// number is lost only when two workers number one bug at once.
			if id == "" {
				prefix := "B"
				if rec.Known != "" {
					prefix = "K"
				}
				if id, err = w.nextID(ctx, prefix); err != nil {
					return err
				}
			}
			b.ID = id
		}
		mergeBug(&b, rec, w.opt.Name)
		data, err := json.Marshal(&b)
		if err != nil {
			return err
		}
		if rev == 0 {
			_, err = w.kv.Create(ctx, key, data)
		} else {
			_, err = w.kv.Update(ctx, key, data, rev)
		}
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return err
		}
		// Another worker wrote it meanwhile: merge again.
	}
}

// mergeBug adds worker's record of the bug to the hub's.
func mergeBug(b *Bug, rec *record.BugRecord, worker string) {
	if b.Hits == nil {
		b.Hits = map[string]int64{}
	}
	b.Hits[worker] = max(b.Hits[worker], rec.Hits)
	if b.Kind == "" {
		b.Kind, b.Signature, b.Message, b.Detail, b.Known = rec.Kind, rec.Signature, rec.Message, rec.Detail, rec.Known
	}
	if b.Input == nil {
		b.Input, b.FirstWorker, b.FirstIteration = rec.Input, worker, rec.FirstIteration
	}
	if rec.Minimized != nil && (b.Minimized == nil || rec.Minimized.Len() < b.Minimized.Len() || b.MinimizedBy == worker) {
		b.Minimized, b.MinimizedBy, b.MinimizeDone = rec.Minimized, worker, rec.MinimizeDone
	}
	if rec.MinimizeNote != "" && b.Minimized == nil {
		b.MinimizeNote = rec.MinimizeNote
	}
}

// enqueue adds what is to be published.
func (w *Worker) enqueue(ps ...pub) {
	if len(ps) == 0 {
		return
	}
	w.mu.Lock()
	w.out = append(w.out, ps...)
	for _, p := range ps {
		w.outBytes += len(p.data)
	}
	w.shed()
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// maxOutboxBytes bounds what waits in memory for a hub that is out of
// reach or slower than the worker: past it the oldest stream messages are
// dropped from memory. Nothing is lost: they are in the corpus, and the
// next join publishes what the hub lacks.
const maxOutboxBytes = 64 << 20

// shed drops the oldest coverage and stats messages while out holds more
// than maxOutboxBytes. Inputs are kept (a join republishes only the inputs
// after the last one the hub has, so one dropped before a later one got
// through would never reach it), and so are bugs and statuses, which are
// few and merged at the hub; coverage is republished by difference, and
// stats are snapshots. The first message is kept: send may be publishing
// it. Called with mu held.
func (w *Worker) shed() {
	if w.outBytes <= maxOutboxBytes {
		return
	}
	kept := w.out[:1]
	for _, p := range w.out[1:] {
		if w.outBytes > maxOutboxBytes && (strings.HasPrefix(p.subject, subjectCov) || strings.HasPrefix(p.subject, subjectStats)) {
			w.outBytes -= len(p.data)
			w.dropped++
			continue
		}
		kept = append(kept, p)
	}
	clear(w.out[len(kept):])
	w.out = kept
}

// send publishes what is enqueued, in order; a hub out of reach is tried
// again every second, for as long as the worker runs.
func (w *Worker) send() {
	defer close(w.sendDone)
	for {
		w.mu.Lock()
		if len(w.out) == 0 {
			closing := w.closing
			w.mu.Unlock()
			if closing {
				return
			}
			<-w.wake
			continue
		}
		// A run of stream messages goes out at once, acknowledged
		// together; a bug or a status alone.
		n := 1
		for n < len(w.out) && n < maxBurst && w.out[0].subject != "" && w.out[n].subject != "" {
			n++
		}
		burst := append([]pub(nil), w.out[:n]...)
		w.mu.Unlock()
		acked, err := w.publish(burst)
		w.remove(burst[:acked])
		if err != nil {
			w.mu.Lock()
			closing := w.closing
			w.mu.Unlock()
			if closing {
				return
			}
			if !w.down {
				w.down = true
				w.opt.Logf("hub %s: cannot publish (%v); going on locally, retrying every second", w.opt.URL, err)
			}
			select {
			case <-time.After(time.Second):
			case <-w.wake:
			}
			continue
		}
		if w.down {
			w.down = false
			w.opt.Logf("hub %s reached again: publishing what was found meanwhile", w.opt.URL)
		}
	}
}

// remove takes the published records off the front of out (shed may have
// dropped some of them meanwhile, never the first).
func (w *Worker) remove(done []pub) {
	if len(done) == 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, p := range done {
		if n < len(w.out) && samePub(w.out[n], p) {
			w.outBytes -= len(p.data)
			n++
		}
	}
	clear(w.out[:n])
	w.out = w.out[n:]
}

func samePub(a, b pub) bool {
	return a.subject == b.subject && a.id == b.id && a.bug == b.bug && len(a.status) == len(b.status) && (len(a.status) == 0 || &a.status[0] == &b.status[0])
}

// maxBurst is the most stream messages in flight at once.
const maxBurst = 256

// publish publishes a bug, a status, or a run of stream messages; it
// returns how many of ps, from the first, are acknowledged (a retry
// publishes the rest again, and JetStream drops copies by their ids). A
// run gets opTimeout per 16 messages: a starved machine acknowledges
// slowly, and a run retried whole would never get through.
func (w *Worker) publish(ps []pub) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout*time.Duration(1+len(ps)/16))
	defer cancel()
	switch p := ps[0]; {
	case p.bug != nil:
		if err := w.upsertBug(ctx, p.bug); err != nil {
			return 0, err
		}
		return 1, nil
	case p.status != nil:
		if _, err := w.kv.Put(ctx, workerKey(w.opt.Name), p.status); err != nil {
			return 0, err
		}
		return 1, nil
	}
	acks := make([]jetstream.PubAckFuture, 0, len(ps))
	for _, p := range ps {
		f, err := w.js.PublishAsync(p.subject, p.data, jetstream.WithMsgID(p.id))
		if err != nil {
			break
		}
		acks = append(acks, f)
	}
	for i, f := range acks {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			return i, err
		case <-ctx.Done():
			return i, ctx.Err()
		}
	}
	if len(acks) < len(ps) {
		return len(acks), fmt.Errorf("publishing to the hub's stream: %d of %d message(s) not sent", len(ps)-len(acks), len(ps))
	}
	return len(acks), nil
}

// Unpublished is how many records are still to be published.
func (w *Worker) Unpublished() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.out)
}

// Close publishes what is left, waiting at most wait for the hub, and
// leaves it. What was not published then is published when the worker
// joins again (from its corpus).
func (w *Worker) Close(wait time.Duration) {
	w.mu.Lock()
	w.closing = true
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
	select {
	case <-w.sendDone:
	case <-time.After(wait):
	}
	w.mu.Lock()
	n := len(w.out) + w.dropped
	w.mu.Unlock()
	if n > 0 {
		w.opt.Warnf("hub %s: %d record(s) not published; they will be when this worker joins again", w.opt.URL, n)
	}
	w.iter.Stop()
	w.nc.Close()
	<-w.sendDone
}

// msgID names a message by its content, so that JetStream drops one
// published twice (a retry after a lost acknowledgement).
func msgID(worker string, data []byte) string {
	h := sha256.Sum256(data)
	return worker + "-" + hex.EncodeToString(h[:12])
}
