package redisraft

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// Forming the cluster inside an execution (Config.Start "form"), as the
// ModelFuzz evaluation's harness did: every node starts on an empty data
// directory; node 1 runs RAFT.CLUSTER INIT (a leader of term 1 with its
// own configuration entry, committed at once) before the first step, and
// every other node is sent RAFT.CLUSTER JOIN with node 1's proxy address.
// A joining node asks node 1 with RAFT.NODE ADD over a connection of its
// own, which ends at the proxy like any other: that request, the leader's
// configuration entries (the joiner added as a non-voting node, then
// promoted to a voter once it has caught up), the AEs that carry them and
// their replies are held and scheduled like every other message. So a
// schedule can crash, partition or starve a cluster that is still being
// formed, which a template restarted in every execution never is.
//
// The JOIN commands are sent on connections of the fuzzer's own and not
// waited for (a join ends when later steps let it); the first step starts
// once each joiner's RAFT.NODE ADD is held at node 1's proxy, so that
// every execution begins alike. A joiner that crashes before it has
// joined comes back uninitialized (RedisRaft keeps no join state on
// disk), and is sent JOIN again, as an operator would.

// beginForming starts an execution's cluster from nothing.
func (r *run) beginForming() error {
	err := r.startNodes("", stateAny)
	if err == nil {
		first := r.nodes[0]
		v, cerr := first.ctl.do(callTimeout, "RAFT.CLUSTER", "INIT")
		if cerr != nil || v.kind == '-' {
			err = fmt.Errorf("n1: RAFT.CLUSTER INIT: %v %s", cerr, v.text())
		}
	}
	// One joiner at a time, each until its RAFT.NODE ADD is held: the
	// requests are held in the order of the nodes, whichever would have
	// connected first.
	for _, n := range r.nodes[1:] {
		if err != nil {
			break
		}
		if err = r.sendJoin(n); err == nil {
			err = r.joinsHeld(n.index, time.Now().Add(readyTimeout))
		}
	}
	if err != nil {
		r.teardown()
		return err
	}
	for _, n := range r.nodes {
		in, ok := r.info(n)
		if !ok {
			r.teardown()
			return fmt.Errorf("n%d: INFO raft failed at start", n.index+1)
		}
		n.info = in
		r.record(EvState, n.index, -1, 0, in.Role, in.args())
	}
	for _, n := range r.nodes[1:] {
		r.record(schedule.RREvJoin, n.index, 0, 0, schedule.RREvJoin, nil)
	}
	r.pump()
	return nil
}

// sendJoin sends RAFT.CLUSTER JOIN with node 1's proxy address to n on a
// connection of its own, whose answer is not waited for.
func (r *run) sendJoin(n *node) error {
	c, err := net.DialTimeout("tcp", n.addr(), dialTimeout)
	if err != nil {
		return fmt.Errorf("n%d: JOIN: %w", n.index+1, err)
	}
	r.client.mu.Lock()
	r.client.extra = append(r.client.extra, c)
	r.client.mu.Unlock()
	_ = c.SetWriteDeadline(time.Now().Add(callTimeout))
	if _, err := c.Write(appendCommand(nil, "RAFT.CLUSTER", "JOIN", r.proxyAddr(0))); err != nil {
		return fmt.Errorf("n%d: JOIN: %w", n.index+1, err)
	}
	return nil
}

// proxyAddr is the address process p advertises: its proxy's.
func (r *run) proxyAddr(p int) string { return fmt.Sprintf("127.0.0.1:%d", r.nodes[p].pport) }

// joinsHeld waits until the RAFT.NODE ADD of joiner p is held at node 1's
// proxy.
func (r *run) joinsHeld(p int, deadline time.Time) error {
	for {
		r.pump()
		if r.holdsJoinOf(p) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no RAFT.NODE ADD from n%d within %v of its JOIN", p+1, readyTimeout)
		}
		select {
		case <-r.ctx.Done():
			return r.ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
}

func (r *run) holdsJoinOf(p int) bool {
	for _, m := range r.pending {
		if m.from == p && m.to == 0 && !m.reply && m.typ == TypeNode {
			return true
		}
	}
	return false
}

// rejoin sends JOIN again to a restarted node that came back
// uninitialized (it crashed before it had joined).
func (r *run) rejoin(n *node) {
	if !r.cfg.forming() || n.index == 0 || n.info.State != "uninitialized" {
		return
	}
	if err := r.sendJoin(n); err != nil {
		r.s.log.Warn("restart: JOIN not sent", "node", n.index+1, "error", err)
		return
	}
	r.record(schedule.RREvJoin, n.index, 0, 0, schedule.RREvJoin, nil)
}

// TypeNode is RAFT.NODE (ADD or REMOVE), which a joining node sends.
const TypeNode = "RAFT.NODE"

// awaitPeers waits, in a cluster being formed, until every live node is
// connected to each live peer its configuration names (a node connects to
// a peer it has just learnt of on its own, at its next periodic run), so
// that what the next step does does not depend on how long that took. A
// node's INFO raft lists its peers and the state of its connection to
// each.
func (r *run) awaitPeers() {
	deadline := time.Now().Add(relinkTimeout)
	for r.ctx.Err() == nil {
		r.pump()
		waiting := ""
		for _, n := range r.nodes {
			if !n.up() || n.ctl == nil {
				continue
			}
			v, err := n.ctl.do(callTimeout, "INFO", "raft")
			if err != nil {
				r.lost(n, err)
				continue
			}
			for id, state := range peerStates(string(v.str)) {
				if p := int(id - 1); p >= 0 && p < len(r.nodes) && p != n.index && r.nodes[p].up() && state != "connected" {
					waiting = fmt.Sprintf("n%d->n%d %s", n.index+1, p+1, state)
				}
			}
		}
		if waiting == "" {
			return
		}
		if time.Now().After(deadline) {
			r.s.log.Warn("a node did not connect to a peer it knows", "link", waiting)
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// peerStates reads the peers of INFO raft's answer
// ("raft_node0:id=2,state=connected,...") by node id.
func peerStates(info string) map[int64]string {
	out := map[int64]string{}
	for _, line := range strings.Split(info, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.HasPrefix(k, "raft_node") || k == "raft_node_id" {
			continue
		}
		var id int64 = -1
		state := ""
		for _, f := range strings.Split(v, ",") {
			fk, fv, _ := strings.Cut(f, "=")
			switch fk {
			case "id":
				id, _ = strconv.ParseInt(fv, 10, 64)
			case "state":
				state = fv
			}
		}
		if id >= 0 {
			out[id] = state
		}
	}
	return out
}

// nodeArgs describes a RAFT.NODE command (ADD id addr, REMOVE id) with the
// address a node of the cluster's proxy named by the node ("n2"): the
// ports change from one System to the next, and a trace must not.
func (r *run) nodeArgs(words [][]byte) []schedule.Arg {
	out := make([]string, 0, len(words))
	for _, w := range words[1:] {
		x := string(w)
		for _, n := range r.nodes {
			if x == r.proxyAddr(n.index) {
				x = "n" + strconv.Itoa(n.index+1)
			}
		}
		if plain([]byte(x)) {
			out = append(out, x)
		} else {
			out = append(out, wordsText([][]byte{w}))
		}
	}
	return []schedule.Arg{schedule.S(ArgArgs, strings.Join(out, " "))}
}

// nodeReplyArgs describes the answer to RAFT.NODE ADD (the node's id and
// the cluster's dbid) without the dbid, which is random: its error, or
// "id" and the id.
func nodeReplyArgs(v value) []schedule.Arg {
	if v.kind == '-' {
		return []schedule.Arg{schedule.S(ArgError, string(v.str))}
	}
	if v.kind == '*' && len(v.elems) == 2 && v.elems[0].kind == ':' {
		return []schedule.Arg{schedule.I(ArgNode, v.elems[0].num-1)}
	}
	return []schedule.Arg{schedule.S(ArgReply, v.text())}
}
