package redisraft

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// The template. A cluster is formed once per System the way RedisRaft's
// documentation forms one: node 1 runs RAFT.CLUSTER INIT, every other node
// RAFT.CLUSTER JOIN with node 1's address, and the leader's heartbeats
// (every 20 ms while forming it) bring the joiners in as voters. The
// proxies forward everything meanwhile. Once every node holds the whole
// log, committed, the nodes are killed and their data directories kept.
// Every execution starts from a copy: a full cluster restart, every node a
// follower in the template's term with the same log and no leader, which
// is raft.tla's initial state (see mapper/redisraft.go), without minutes
// of joins per execution. The log holds the proxies' addresses, so the
// System keeps its ports while the template lives; a port taken by
// someone else meanwhile makes a new template on new ports.

// formTimeout bounds the forming of the template's cluster.
const formTimeout = 60 * time.Second

// choosePorts gives every node a Redis port and a proxy port.
func (s *System) choosePorts() error {
	ports, err := freePorts(2 * s.cfg.Nodes)
	if err != nil {
		return err
	}
	s.ports = make([][2]int, s.cfg.Nodes)
	for i := range s.ports {
		s.ports[i] = [2]int{ports[2*i], ports[2*i+1]}
	}
	return nil
}

// makeTemplate forms the template cluster on new ports.
func (s *System) makeTemplate(ctx context.Context) error {
	if err := s.choosePorts(); err != nil {
		return err
	}
	dir := filepath.Join(s.runDir, "template")
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	r := s.newRun(ctx, dir)
	form := *s.cfg
	form.RequestTimeout = 20
	r.cfg = &form
	if err := r.makeDirs(""); err != nil {
		return err
	}
	var fw forwarder
	defer func() {
		for _, n := range r.nodes {
			r.stop(n)
		}
		fw.close()
		r.client.cancel()
	}()
	for _, n := range r.nodes {
		if err := fw.listen(n); err != nil {
			return err
		}
		if err := r.start(n, ""); err != nil {
			return fmt.Errorf("forming the cluster: %w", err)
		}
	}
	if err := r.form(); err != nil {
		return fmt.Errorf("forming the cluster: %w", err)
	}
	s.template = dir
	return nil
}

// form runs INIT and JOIN and waits until every node holds the whole log,
// committed.
func (r *run) form() error {
	first := r.nodes[0]
	v, err := first.ctl.do(callTimeout, "RAFT.CLUSTER", "INIT")
	if err != nil || v.kind == '-' {
		return fmt.Errorf("n1: RAFT.CLUSTER INIT: %v %s", err, v.text())
	}
	for _, n := range r.nodes[1:] {
		v, err := n.ctl.do(formTimeout, "RAFT.CLUSTER", "JOIN", first.addr())
		if err != nil || v.kind == '-' {
			return fmt.Errorf("n%d: RAFT.CLUSTER JOIN %s: %v %s", n.index+1, first.addr(), err, v.text())
		}
	}
	deadline := time.Now().Add(formTimeout)
	for {
		if r.formed() {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the cluster did not converge within %v", formTimeout)
		}
		select {
		case <-r.ctx.Done():
			return r.ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// formed reports whether every node is up, counts every node as a voter
// and holds the same log, all of it committed.
func (r *run) formed() bool {
	var index int64 = -1
	for _, n := range r.nodes {
		in, ok := r.info(n)
		if !ok || in.State != "up" || in.Voters != int64(len(r.nodes)) || in.Commit != in.Index || in.Index == 0 {
			return false
		}
		if index >= 0 && in.Index != index {
			return false
		}
		index = in.Index
	}
	return true
}

// forwarder is the proxies while the template forms: they pass every
// byte on at once.
type forwarder struct {
	mu    sync.Mutex
	lns   []net.Listener
	conns []net.Conn
}

func (f *forwarder) listen(n *node) error {
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(n.pport))
	if err != nil {
		return fmt.Errorf("n%d's proxy: %w", n.index+1, err)
	}
	f.mu.Lock()
	f.lns = append(f.lns, ln)
	f.mu.Unlock()
	target := n.addr()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u, err := net.DialTimeout("tcp", target, dialTimeout)
			if err != nil {
				_ = c.Close()
				continue
			}
			f.mu.Lock()
			f.conns = append(f.conns, c, u)
			f.mu.Unlock()
			go pipe(c, u)
			go pipe(u, c)
		}
	}()
	return nil
}

func pipe(dst, src net.Conn) {
	_, _ = io.Copy(dst, src)
	_ = dst.Close()
	_ = src.Close()
}

func (f *forwarder) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, ln := range f.lns {
		_ = ln.Close()
	}
	for _, c := range f.conns {
		_ = c.Close()
	}
}
