package etcd

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Members listen on ports the fuzzer picks and then gives up: etcd binds
// them itself, and a killed member binds its ports again when it restarts.
// A port taken from the kernel's ephemeral range (bind to port 0) is free
// for anyone in between: the local end of any outgoing connection on the
// machine, or another campaign's member, can take it, and the member then
// fails to start or restart (a false "did not start" failure), or a
// restart's readiness probe reaches someone else's listener. So member
// ports come from below the ephemeral range, and each is reserved for the
// execution that uses it by an exclusive lock on a file in PortDir, which
// every campaign and test on the machine honours, whatever its state
// directory; the kernel drops the lock when its holder dies, so a killed
// campaign leaves no reservation behind.

// PortDir holds the port reservations: $TMPDIR/modelfuzz-etcd/ports, the
// same for every state directory.
func PortDir() string { return filepath.Join(DefaultStateDir(), "ports") }

// portRange is the range member ports come from: [lo, hi).
func portRange() (lo, hi int) {
	lo, hi = 20000, 32768
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return lo, hi
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return lo, hi
	}
	eph, err := strconv.Atoi(f[0])
	if err != nil || eph <= 1024 {
		return lo, hi
	}
	if eph < hi {
		hi = eph
	}
	if lo >= hi-1000 {
		lo = max(1024, hi-12000)
	}
	return lo, hi
}

// portLease holds ports reserved for one execution.
type portLease struct {
	ports []int
	locks []*os.File
}

// release gives the ports back.
func (l *portLease) release() {
	if l == nil {
		return
	}
	for _, f := range l.locks {
		_ = f.Close() // closing drops the flock
	}
	l.locks = nil
}

// reservePorts reserves n ports in [lo, hi) that are free now: each has
// its lock file in dir locked by us, and nothing listens on it.
func reservePorts(dir string, n, lo, hi int) (*portLease, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("port reservations: %w", err)
	}
	span := hi - lo
	if span < n {
		return nil, fmt.Errorf("port reservations: %d ports wanted, %d in range %d-%d", n, span, lo, hi-1)
	}
	l := &portLease{}
	start := rand.IntN(span)
	for k := 0; k < span && len(l.ports) < n; k++ {
		p := lo + (start+k)%span
		f, err := os.OpenFile(filepath.Join(dir, strconv.Itoa(p)), os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			l.release()
			return nil, fmt.Errorf("port reservations: %w", err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				continue // another execution's
			}
			l.release()
			return nil, fmt.Errorf("port reservations: %w", err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			f.Close() // in use by something that does not reserve
			continue
		}
		ln.Close()
		l.ports = append(l.ports, p)
		l.locks = append(l.locks, f)
	}
	if len(l.ports) < n {
		l.release()
		return nil, fmt.Errorf("port reservations: only %d of %d ports free in %d-%d", len(l.ports), n, lo, hi-1)
	}
	return l, nil
}
