package redisraft

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
)

// Which node opened a connection to a proxy. RedisRaft's nodes connect to
// each other's advertised address, which is the peer's proxy; the proxy
// must know the sender to tell a node's link from a client's connection
// and to know who sent what. A RAFT.TIMEOUT_NOW names no sender, so the
// proxy asks the kernel instead: the connection's other end is a socket
// whose inode /proc/net/tcp gives, and the node whose file descriptors
// include that socket opened it (Linux).

// connOwner returns the index in pids of the process that holds the other
// end of c, an accepted loopback connection; -1 when none of them does
// (a client).
func connOwner(c net.Conn, pids []int) (int, error) {
	local, ok1 := c.LocalAddr().(*net.TCPAddr)
	remote, ok2 := c.RemoteAddr().(*net.TCPAddr)
	if !ok1 || !ok2 {
		return -1, fmt.Errorf("not a TCP connection")
	}
	// The other end's socket: its local port is our remote one.
	inode, err := socketInode(remote.Port, local.Port)
	if err != nil {
		return -1, err
	}
	want := "socket:[" + strconv.FormatUint(inode, 10) + "]"
	for i, pid := range pids {
		if pid <= 0 {
			continue
		}
		if holds(pid, want) {
			return i, nil
		}
	}
	return -1, nil
}

// socketInode finds the inode of the TCP socket with local port lport
// connected to remote port rport.
func socketInode(lport, rport int) (uint64, error) {
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue
		}
		inode, found := scanTCPTable(bufio.NewScanner(f), lport, rport)
		f.Close()
		if found {
			return inode, nil
		}
	}
	return 0, fmt.Errorf("no socket from port %d to port %d in /proc/net/tcp", lport, rport)
}

// scanTCPTable reads /proc/net/tcp's lines ("sl local rem st ... inode"),
// addresses as HEXIP:HEXPORT.
func scanTCPTable(sc *bufio.Scanner, lport, rport int) (uint64, bool) {
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 10 || !strings.HasSuffix(f[0], ":") {
			continue
		}
		if hexPort(f[1]) != lport || hexPort(f[2]) != rport {
			continue
		}
		inode, err := strconv.ParseUint(f[9], 10, 64)
		if err == nil && inode != 0 {
			return inode, true
		}
	}
	return 0, false
}

func hexPort(addr string) int {
	i := strings.LastIndexByte(addr, ':')
	if i < 0 {
		return -1
	}
	p, err := strconv.ParseUint(addr[i+1:], 16, 32)
	if err != nil {
		return -1
	}
	return int(p)
}

// holds reports whether process pid has a file descriptor on target (a
// readlink value such as "socket:[1234]").
func holds(pid int, target string) bool {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if l, err := os.Readlink(dir + "/" + e.Name()); err == nil && l == target {
			return true
		}
	}
	return false
}
