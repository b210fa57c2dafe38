package redisraft

import (
	"context"
	"math"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelfuzz/modelfuzz/linearize"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// Client requests. A request(v) step sends one operation to the process
// it names, on a connection of its own, as a Redis client would, on key
// "k" + (v/2 mod keys): a GET when v is odd; otherwise SET key v (v mod 4
// = 2), INCR key (v mod 8 = 0), or MULTI, SET key v, INCR key, EXEC (v mod
// 8 = 4). A node that is not the leader answers MOVED with its leader's
// address; the client then sends the operation there, once, as a
// cluster-aware client does. The answer to a write comes when the leader
// has committed and applied it, which later steps decide, so the
// operation runs on in the background and its answer is recorded after
// the last step.

// The request kinds (the Type of request, read and response events).
const (
	opGet   = "get"
	opSet   = "set"
	opIncr  = "incr"
	opMulti = "multi"
)

// Args of client events.
const (
	argKey = "key"
	argCmd = schedule.RRArgCmd // the commands, as EntryValue writes them: the value of the entry they make
	argOut = "out"             // what a read or an increment returned
)

// requestCommands is the operation of request(v).
func requestCommands(v, keys int) (kind, key string, cmds [][]string) {
	k := (v / 2) % keys
	if k < 0 {
		k += keys
	}
	key = "k" + strconv.Itoa(k)
	val := strconv.Itoa(v)
	switch {
	case v%2 != 0:
		return opGet, key, [][]string{{"GET", key}}
	case v%4 == 2 || v%4 == -2:
		return opSet, key, [][]string{{"SET", key, val}}
	case v%8 == 0:
		return opIncr, key, [][]string{{"INCR", key}}
	}
	return opMulti, key, [][]string{{"MULTI"}, {"SET", key, val}, {"INCR", key}, {"EXEC"}}
}

// entryCommands are the commands of an operation as its log entry holds
// them: a transaction's with its MULTI and without its EXEC (RedisRaft
// appends the queued commands behind a MULTI at EXEC).
func entryCommands(cmds [][]string) [][]string {
	if len(cmds) > 2 && cmds[0][0] == "MULTI" {
		return cmds[:len(cmds)-1]
	}
	return cmds
}

// op is one client operation of an execution.
type op struct {
	linearize.Op
	kind    string
	cmds    [][]string
	node    int // the process that answered (after a redirect)
	conn    net.Conn
	rr      *respReader
	replies int // answers read so far
	done    bool
	refused bool   // answered with an error that says it was not done (MOVED, no leader)
	status  string // "ok", or the error's text
}

// clientState is the execution's client operations, shared with the
// goroutines that wait for their answers.
type clientState struct {
	mu     sync.Mutex
	ops    []*op
	extra  []net.Conn // connections of commands not waited for (leader transfers)
	wg     sync.WaitGroup
	ctx    context.Context
	cancel context.CancelFunc
}

func (r *run) now() int64 { return time.Since(r.t0).Nanoseconds() }

// request runs request(v) at process p.
func (r *run) request(p, v int) {
	kind, key, cmds := requestCommands(v, r.cfg.Keys)
	o := &op{kind: kind, cmds: cmds, Op: linearize.Op{Process: p, Value: v, Step: r.step, Key: key}}
	switch kind {
	case opSet:
		o.Put, o.Arg = true, strconv.Itoa(v)
	case opIncr:
		o.Incr = 1
	case opMulti:
		o.Put, o.Arg, o.Incr = true, strconv.Itoa(v), 1
	}
	r.client.mu.Lock()
	r.client.ops = append(r.client.ops, o)
	o.Call = r.now()
	r.client.mu.Unlock()
	for hop := 0; hop < 2; hop++ {
		r.recordRequest(o, p)
		o.node = p
		moved := r.send(o, p)
		if moved < 0 || moved == p || !r.nodes[moved].up() {
			break
		}
		r.record(evRedirect, p, moved, 0, evRedirect, []schedule.Arg{schedule.I(ArgLeader, int64(moved))})
		p = moved
	}
	if !o.done {
		r.await(o)
	}
}

// evRedirect: a node answered MOVED; Peer is the leader it named.
const evRedirect = "redirect"

func (r *run) recordRequest(o *op, p int) {
	args := []schedule.Arg{schedule.I(schedule.ArgValue, int64(o.Value)), schedule.S(argKey, o.Key),
		schedule.S(argCmd, EntryValue(entryCommands(o.cmds)))}
	if o.kind == opGet {
		r.record(schedule.EvRead, p, -1, 0, o.kind, args)
	} else {
		r.record(schedule.EvRequest, p, -1, 0, o.kind, args)
	}
}

// send writes o to process p and takes the answers that come at once
// (before p is idle): it returns the process a MOVED answer names, or -1.
func (r *run) send(o *op, p int) int {
	n := r.nodes[p]
	if o.conn != nil {
		_ = o.conn.Close()
		o.conn, o.rr = nil, nil
	}
	c, err := net.DialTimeout("tcp", n.addr(), dialTimeout)
	if err != nil {
		r.answered(o, p, "error connection refused", false)
		return -1
	}
	o.conn, o.rr, o.replies = c, newRESPReader(c), 0
	var b []byte
	for _, cmd := range o.cmds {
		b = appendCommand(b, cmd...)
	}
	_ = c.SetWriteDeadline(time.Now().Add(callTimeout))
	if _, err := c.Write(b); err != nil {
		r.answered(o, p, "error "+err.Error(), false)
		return -1
	}
	r.settle(p)
	r.poll(n)
	buf := make([]byte, 64<<10)
	for !o.done {
		nr, eof, _ := readAvailable(c, buf)
		o.rr.buf = append(o.rr.buf, buf[:nr]...)
		for !o.done {
			v, n, err := parseValue(o.rr.buf[o.rr.off:])
			if err != nil {
				break
			}
			o.rr.off += n
			if moved := r.take(o, p, cloneValue(v)); moved >= 0 {
				return moved
			}
		}
		if eof && !o.done {
			r.answered(o, p, "error connection closed", false)
		}
		if nr == 0 {
			break
		}
	}
	return -1
}

// take handles one answer to o from p; it returns the process a MOVED
// names (-1 otherwise).
func (r *run) take(o *op, p int, v value) int {
	o.replies++
	last := o.replies == len(o.cmds)
	if v.kind == '-' {
		text := string(v.str)
		if strings.HasPrefix(text, "MOVED ") {
			f := strings.Fields(text)
			if len(f) == 3 {
				if q := r.byProxyAddr(f[2]); q >= 0 {
					return q
				}
			}
		}
		if o.kind == opMulti && !last {
			// The transaction fails at EXEC (EXECABORT); wait for it.
			return -1
		}
		refused := strings.HasPrefix(text, "MOVED ") || strings.HasPrefix(text, "NOLEADER") ||
			strings.HasPrefix(text, "CLUSTERDOWN") || strings.HasPrefix(text, "NOCLUSTER") || strings.HasPrefix(text, "EXECABORT")
		r.answered(o, p, "error "+text, refused)
		return -1
	}
	if !last {
		return -1
	}
	out := ""
	switch o.kind {
	case opGet:
		if !v.null {
			out = string(v.str)
		}
	case opIncr:
		out = strconv.FormatInt(v.num, 10)
	case opMulti:
		if len(v.elems) == 2 {
			out = strconv.FormatInt(v.elems[1].num, 10)
		}
	}
	r.client.mu.Lock()
	if !o.done {
		o.Out = out
	}
	r.client.mu.Unlock()
	r.answered(o, p, "ok", false)
	return -1
}

// answered ends o.
func (r *run) answered(o *op, p int, status string, refused bool) {
	r.client.mu.Lock()
	defer r.client.mu.Unlock()
	if o.done {
		return
	}
	o.done, o.status, o.refused, o.node = true, status, refused, p
	o.Return, o.RetStep = r.now(), r.step
	if o.conn != nil {
		_ = o.conn.Close()
	}
}

// await waits in the background for the rest of o's answers.
func (r *run) await(o *op) {
	r.client.wg.Add(1)
	c, rr, p := o.conn, o.rr, o.node
	go func() {
		defer r.client.wg.Done()
		go func() {
			<-r.client.ctx.Done()
			_ = c.Close()
		}()
		_ = c.SetReadDeadline(time.Time{})
		for {
			v, _, err := rr.read()
			if err != nil {
				return // no answer: unknown outcome
			}
			r.client.mu.Lock()
			done := o.done
			r.client.mu.Unlock()
			if done {
				return
			}
			if r.takeLater(o, p, cloneValue(v)) {
				return
			}
		}
	}()
}

// takeLater is take for answers read in the background (no redirects).
func (r *run) takeLater(o *op, p int, v value) bool {
	r.take(o, p, v)
	r.client.mu.Lock()
	defer r.client.mu.Unlock()
	return o.done
}

// byProxyAddr is the process whose proxy listens on addr (host:port).
func (r *run) byProxyAddr(addr string) int {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return -1
	}
	for _, n := range r.nodes {
		if strconv.Itoa(n.pport) == port {
			return n.index
		}
	}
	return -1
}

// responses records the client answers after the last step, in the order
// of the requests: when an answer comes depends on the scheduling of
// processes and goroutines, and its place among the steps would make
// traces differ from run to run (the history keeps the times).
func (r *run) responses(step int) {
	r.client.mu.Lock()
	defer r.client.mu.Unlock()
	r.step = step
	for _, o := range r.client.ops {
		if !o.done {
			continue
		}
		args := []schedule.Arg{schedule.I(schedule.ArgValue, int64(o.Value)), schedule.S(argKey, o.Key), schedule.S(argStatus, o.status)}
		if o.status == "ok" && (o.kind != opSet) {
			args = append(args, schedule.S(argOut, o.Out))
		}
		r.record(schedule.EvResponse, o.node, -1, 0, o.kind, args)
	}
}

// history is the client history, once every operation has ended: refused
// operations are left out (they did nothing), reads without an answer too
// (they constrain nothing), writes without one may take effect at any
// time after their call, or never.
func (r *run) history() linearize.History {
	r.client.mu.Lock()
	defer r.client.mu.Unlock()
	var h linearize.History
	for _, o := range r.client.ops {
		switch {
		case o.refused:
		case o.done && o.status == "ok":
			h = append(h, o.Op)
		case o.kind != opGet:
			x := o.Op
			x.Return, x.Pending, x.RetStep, x.Out = math.MaxInt64, true, -1, ""
			h = append(h, x)
		}
	}
	return h
}
