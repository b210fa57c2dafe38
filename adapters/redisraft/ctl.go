package redisraft

import (
	"bufio"
	"fmt"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ctl is the fuzzer's own connection to a node's Redis port: INFO, PING,
// RAFT.TIMEOUT_NOW, CONFIG SET. One command at a time.
type ctl struct {
	c  net.Conn
	rr *respReader
}

func dialCtl(addr string, timeout time.Duration) (*ctl, error) {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, err
	}
	return &ctl{c: c, rr: newRESPReader(c)}, nil
}

// do sends one command and reads its answer within timeout. An error
// reply is a value of kind '-', not an error.
func (k *ctl) do(timeout time.Duration, words ...string) (value, error) {
	_ = k.c.SetDeadline(time.Now().Add(timeout))
	if _, err := k.c.Write(appendCommand(nil, words...)); err != nil {
		return value{}, err
	}
	v, _, err := k.rr.read()
	if err != nil {
		return value{}, err
	}
	// The strings of v point into the reader's buffer: copy them out.
	return cloneValue(v), nil
}

func (k *ctl) close() {
	if k != nil {
		_ = k.c.Close()
	}
}

func cloneValue(v value) value {
	if v.str != nil {
		v.str = append([]byte(nil), v.str...)
	}
	if v.elems != nil {
		es := make([]value, len(v.elems))
		for i, e := range v.elems {
			es[i] = cloneValue(e)
		}
		v.elems = es
	}
	return v
}

// nodeInfo is what INFO raft says of a node that a mapper reads.
type nodeInfo struct {
	State     string // "up", "loading", "uninitialized", ...
	Role      string // "follower", "pre-candidate", "candidate", "leader"
	Term      int64
	Vote      int64 // the node voted for (a node id), -1 for none
	Leader    int64 // its leader (a node id), -1 for none
	Voters    int64
	Index     int64 // its last log index
	Commit    int64
	Applied   int64
	SnapIndex int64
	SnapTerm  int64
	Snapping  bool // a snapshot is being made (a child process writes it)
}

// parseInfo reads the answer to INFO raft.
func parseInfo(s string) (nodeInfo, error) {
	in := nodeInfo{Vote: -1, Leader: -1}
	seen := 0
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), ":")
		if !ok {
			continue
		}
		num := func(dst *int64) {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				*dst = n
				seen++
			}
		}
		switch k {
		case "raft_state":
			in.State = v
			seen++
		case "raft_role":
			in.Role = v
			seen++
		case "raft_current_term":
			num(&in.Term)
		case "raft_voted_for":
			num(&in.Vote)
		case "raft_leader_id":
			num(&in.Leader)
		case "raft_num_voting_nodes":
			num(&in.Voters)
		case "raft_current_index":
			num(&in.Index)
		case "raft_commit_index":
			num(&in.Commit)
		case "raft_last_applied_index":
			num(&in.Applied)
		case "raft_snapshot_last_idx":
			num(&in.SnapIndex)
		case "raft_snapshot_last_term":
			num(&in.SnapTerm)
		case "raft_snapshot_in_progress":
			in.Snapping = v == "yes"
			seen++
		}
	}
	if seen < 12 {
		return in, fmt.Errorf("INFO raft: %d of its 12 fields found in %q", seen, clip(s, 200))
	}
	return in, nil
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// readAvailable reads what c's receive queue holds without waiting: n is
// 0 and eof false when it holds nothing.
func readAvailable(c net.Conn, buf []byte) (n int, eof bool, err error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return 0, false, fmt.Errorf("not a socket")
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return 0, false, err
	}
	var rerr error
	err = rc.Read(func(fd uintptr) bool {
		n, rerr = syscall.Read(int(fd), buf)
		return true // never wait
	})
	if err != nil {
		return 0, true, err
	}
	switch {
	case rerr == syscall.EAGAIN || rerr == syscall.EINTR:
		return 0, false, nil
	case rerr != nil:
		return 0, true, rerr
	case n == 0:
		return 0, true, nil
	}
	return n, false, nil
}
