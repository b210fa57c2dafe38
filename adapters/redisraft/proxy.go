package redisraft

import (
	"net"
	"slices"
	"strconv"
	"time"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// The proxy. Every node advertises the address of its proxy (raft.addr),
// so every connection a node opens to a peer reaches the fuzzer, which
// opens one of its own to the peer's Redis port: a link. Nothing crosses
// a link by itself. The proxy reads what each side wrote only when a step
// asks (pump, with non-blocking reads of the sockets, in a fixed order of
// the links), parses it into commands and replies (RESP), records each
// as a send and keeps it; a step delivers it (writes its bytes to the
// other side), drops it or copies it. So the trace does not depend on
// when the kernel or a goroutine got to a byte.
//
// What a link can do is what a TCP connection can: carry each direction
// in order, and break. A drop breaks the link the message travels on:
// the message and everything else in flight on it are lost, both sides
// see the connection close (RedisRaft fails the requests it waits on and
// reconnects), as when a real connection is reset; a dropped request
// never leaves its sender waiting for a reply on a connection that lives
// on, which no network could do. A duplicate is a request delivered a
// second time over a connection of its own, whose reply goes nowhere (a
// retransmission on a new connection). Replies are never duplicated: a
// second reply on a connection would answer the sender's next request.

// link is one connection a node opened to a peer's proxy, and the
// proxy's connection to that peer.
type link struct {
	id       int
	from, to int      // processes: from opened it, to serves it
	client   net.Conn // from's connection, accepted by to's proxy
	server   net.Conn // the proxy's connection to to's Redis port
	cbuf     []byte   // bytes read from client, not parsed yet
	sbuf     []byte   // bytes read from server, not parsed yet
	reqs     []*message
	replies  []*message
	asked    []string // the types of the requests delivered, whose replies are due (in order)
	copyOnly bool     // a duplicate's own connection: its replies go nowhere
	authed   bool     // the connection's AUTH went through: the node uses it
	clientUp bool
	serverUp bool
}

// message is a command or a reply held by the proxy.
type message struct {
	id       int
	link     *link
	reply    bool
	from, to int
	typ      string
	args     []schedule.Arg
	raw      []byte
}

// accepted takes a connection to process to's proxy: from the node that
// opened it (found through /proc), joined to a new connection to to's
// Redis port. It runs in the listener's goroutine; the link joins the
// execution at its next pump.
func (r *run) accepted(to int, c net.Conn) {
	r.mu.Lock()
	pids := make([]int, len(r.nodes))
	for i, n := range r.nodes {
		pids[i] = n.pid
	}
	port := r.nodes[to].port
	r.mu.Unlock()
	owner, err := connOwner(c, pids)
	if err != nil || owner < 0 || owner == to {
		// Not one of the nodes (or it died meanwhile): nothing of ours
		// talks to a proxy but the nodes.
		r.s.log.Debug("proxy: connection from outside the cluster refused", "node", to+1, "remote", c.RemoteAddr(), "error", err)
		_ = c.Close()
		return
	}
	s, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), dialTimeout)
	if err != nil {
		_ = c.Close()
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.over {
		_ = c.Close()
		_ = s.Close()
		return
	}
	r.nextLink++
	r.newLinks = append(r.newLinks, &link{id: r.nextLink, from: owner, to: to, client: c, server: s, clientUp: true, serverUp: true})
	r.linkAdded.Broadcast()
}

// adopt moves the links accepted since the last pump into the execution,
// in a fixed order.
func (r *run) adopt() {
	r.mu.Lock()
	nl := r.newLinks
	r.newLinks = nil
	r.mu.Unlock()
	if len(nl) == 0 {
		return
	}
	r.links = append(r.links, nl...)
	slices.SortStableFunc(r.links, func(a, b *link) int {
		if a.from != b.from {
			return a.from - b.from
		}
		if a.to != b.to {
			return a.to - b.to
		}
		return a.id - b.id
	})
}

// pump reads everything the links hold until a pass reads nothing, and
// records what it parses. It also notices nodes that exited by
// themselves.
func (r *run) pump() {
	for {
		r.adopt()
		progress := false
		for _, l := range slices.Clone(r.links) {
			if l.clientUp && r.readSide(l, false) {
				progress = true
			}
			if l.serverUp && r.readSide(l, true) {
				progress = true
			}
		}
		r.reapExits()
		if !progress {
			return
		}
	}
}

// readSide reads one side of l without waiting and handles the values it
// completes; it reports whether it read anything.
func (r *run) readSide(l *link, server bool) bool {
	c, buf := l.client, &l.cbuf
	if server {
		c, buf = l.server, &l.sbuf
	}
	read := false
	for {
		if cap(*buf)-len(*buf) < 16<<10 {
			nb := make([]byte, len(*buf), 2*cap(*buf)+64<<10)
			copy(nb, *buf)
			*buf = nb
		}
		n, eof, _ := readAvailable(c, (*buf)[len(*buf):cap(*buf)])
		*buf = (*buf)[:len(*buf)+n]
		if n > 0 {
			read = true
		}
		r.parse(l, server)
		if eof {
			r.sideClosed(l, server)
			return true
		}
		if n == 0 {
			return read
		}
	}
}

// parse handles the complete values in the buffer of one side of l.
func (r *run) parse(l *link, server bool) {
	buf := &l.cbuf
	if server {
		buf = &l.sbuf
	}
	for len(*buf) > 0 {
		v, n, err := parseValue(*buf)
		if err == errIncomplete {
			return
		}
		if err != nil {
			// Not RESP: nothing a node sends. Break the link, as a peer
			// would close a connection it cannot read.
			r.s.log.Warn("proxy: unreadable bytes on a link", "from", l.from+1, "to", l.to+1, "error", err)
			*buf = nil
			r.breakLink(l)
			return
		}
		raw := append([]byte(nil), (*buf)[:n]...)
		if server {
			r.replyRead(l, v, raw)
		} else {
			r.requestRead(l, v, raw)
		}
		*buf = (*buf)[n:]
	}
}

// requestRead records a command from l's node and holds it. The AUTH a
// node sends first on every connection (RedisRaft's cluster-user) is part
// of connecting, not of the protocol: it passes at once, unrecorded.
func (r *run) requestRead(l *link, v value, raw []byte) {
	typ, args := decodeCommand(v.command())
	if typ == "AUTH" && !l.authed && len(l.reqs) == 0 {
		l.asked = append(l.asked, typ)
		r.pass(l.server, raw)
		return
	}
	if typ == TypeNode {
		args = r.nodeArgs(v.command())
	}
	m := &message{id: r.newMsgID(), link: l, from: l.from, to: l.to, typ: typ, args: args, raw: raw}
	r.record(schedule.EvSend, m.from, m.to, m.id, typ, args)
	if typ != TypeNode && !l.copyOnly {
		// A peer's link (a join's connection is not one: a node that
		// has joined does not open it again).
		if r.known == nil {
			r.known = map[[2]int]bool{}
		}
		r.known[[2]int{l.from, l.to}] = true
	}
	if !l.serverUp {
		// Its receiver is gone: it reaches no one.
		r.record(schedule.EvDrop, m.to, m.from, m.id, typ, nil)
		return
	}
	l.reqs = append(l.reqs, m)
	r.pending = append(r.pending, m)
}

// replyRead records a reply of l's server to its node and holds it.
func (r *run) replyRead(l *link, v value, raw []byte) {
	typ := "?"
	if len(l.asked) > 0 {
		typ = l.asked[0]
		l.asked = l.asked[1:]
	}
	if typ == "AUTH" && !l.authed {
		l.authed = true
		r.pass(l.client, raw)
		return
	}
	args := decodeReply(typ, v)
	if typ == TypeNode {
		args = nodeReplyArgs(v)
	}
	m := &message{id: r.newMsgID(), link: l, reply: true, from: l.to, to: l.from, typ: ReplyType(typ), args: args, raw: raw}
	r.record(schedule.EvSend, m.from, m.to, m.id, m.typ, args)
	if l.copyOnly || !l.clientUp {
		// The answer to a copy, or to a node that is gone: no one
		// waits for it.
		r.record(schedule.EvDrop, m.to, m.from, m.id, m.typ, nil)
		r.closeIfDone(l)
		return
	}
	l.replies = append(l.replies, m)
	r.pending = append(r.pending, m)
}

// pass writes bytes on at once.
func (r *run) pass(c net.Conn, raw []byte) {
	_ = c.SetWriteDeadline(time.Now().Add(callTimeout))
	_, _ = c.Write(raw)
}

// sideClosed handles the end of one side of l: what was on its way to
// that side is lost; what it sent before still arrives, and the link
// closes once that is delivered.
func (r *run) sideClosed(l *link, server bool) {
	if server {
		if !l.serverUp {
			return
		}
		l.serverUp = false
		_ = l.server.Close()
		r.lose(l.reqs)
		l.reqs = nil
	} else {
		if !l.clientUp {
			return
		}
		l.clientUp = false
		_ = l.client.Close()
		r.lose(l.replies)
		l.replies = nil
	}
	r.closeIfDone(l)
}

// closeIfDone closes l when one side is gone, nothing is left to deliver
// to the other and no reply is due from a live server (a copy's reply is
// recorded before its connection closes).
func (r *run) closeIfDone(l *link) {
	if (l.clientUp && l.serverUp) || len(l.reqs) > 0 || len(l.replies) > 0 || (l.serverUp && len(l.asked) > 0) {
		return
	}
	if l.clientUp {
		_ = l.client.Close()
		l.clientUp = false
	}
	if l.serverUp {
		_ = l.server.Close()
		l.serverUp = false
	}
	r.links = slices.DeleteFunc(r.links, func(x *link) bool { return x == l })
}

// breakLink breaks l: everything in flight on it is lost and both sides
// see the connection close.
func (r *run) breakLink(l *link) {
	r.lose(l.reqs)
	r.lose(l.replies)
	l.reqs, l.replies = nil, nil
	if l.clientUp {
		_ = l.client.Close()
		l.clientUp = false
	}
	if l.serverUp {
		_ = l.server.Close()
		l.serverUp = false
	}
	r.closeIfDone(l)
}

// lose records the loss of messages held by the proxy.
func (r *run) lose(ms []*message) {
	for _, m := range ms {
		r.record(schedule.EvDrop, m.to, m.from, m.id, m.typ, nil)
		r.unpend(m)
	}
}

func (r *run) unpend(m *message) {
	r.pending = slices.DeleteFunc(r.pending, func(x *message) bool { return x == m })
}

func (r *run) newMsgID() int {
	r.nextMsg++
	return r.nextMsg
}

// held reports whether the partition keeps m from its receiver.
func (r *run) held(m *message) bool {
	return r.cut != 0 && r.cut.Has(m.from) != r.cut.Has(m.to)
}

// head reports whether m is the first of its direction of its link: the
// only one of them the connection can hand over next.
func head(m *message) bool {
	q := m.link.reqs
	if m.reply {
		q = m.link.replies
	}
	return len(q) > 0 && q[0] == m
}

// inbox lists the messages held for process p, in the order they were
// read: all of them (deliverable false), or those that can be delivered
// now (the first of their direction of their link, not held by a
// partition).
func (r *run) inbox(p int, deliverable bool) []*message {
	var out []*message
	for _, m := range r.pending {
		if m.to == p && (!deliverable || head(m) && !r.held(m)) {
			out = append(out, m)
		}
	}
	return out
}

// deliver hands m to its receiver: its bytes are written to the other
// side of its link, then the receiver is given the time to handle it
// (settle).
func (r *run) deliver(m *message) {
	l := m.link
	q := &l.reqs
	c := l.server
	if m.reply {
		q, c = &l.replies, l.client
	}
	*q = (*q)[1:]
	r.unpend(m)
	r.record(schedule.EvRecv, m.to, m.from, m.id, m.typ, m.args)
	if !m.reply {
		l.asked = append(l.asked, commandOf(m.typ))
	}
	_ = c.SetWriteDeadline(time.Now().Add(callTimeout))
	if _, err := c.Write(m.raw); err != nil {
		// The receiver's side closed under it: the pump sees the end.
		r.s.log.Debug("proxy: write failed", "to", m.to+1, "error", err)
	}
	r.closeIfDone(l)
}

// commandOf is the command type of a message type (a reply's, its
// command's).
func commandOf(typ string) string {
	if len(typ) > len(replySuffix) && typ[len(typ)-len(replySuffix):] == replySuffix {
		return typ[:len(typ)-len(replySuffix)]
	}
	return typ
}

// duplicate puts a copy of request m in its receiver's inbox: it will
// travel over a connection of its own, and its reply goes nowhere. It
// reports false when the receiver's Redis port cannot be reached.
func (r *run) duplicate(m *message) bool {
	s, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(r.nodes[m.to].port), dialTimeout)
	if err != nil {
		return false
	}
	r.mu.Lock()
	r.nextLink++
	l := &link{id: r.nextLink, from: m.from, to: m.to, server: s, copyOnly: true, serverUp: true}
	r.mu.Unlock()
	r.links = append(r.links, l)
	c := &message{id: r.newMsgID(), link: l, from: m.from, to: m.to, typ: m.typ, args: m.args, raw: m.raw}
	l.reqs = append(l.reqs, c)
	r.pending = append(r.pending, c)
	r.record(schedule.EvDuplicate, m.to, m.from, c.id, m.typ, []schedule.Arg{schedule.I(schedule.ArgCopyOf, int64(m.id))})
	return true
}
