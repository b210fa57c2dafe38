package etcd

import (
	"net"
	"strconv"
	"testing"
)

// Two executions, of one campaign or of two sharing a state directory,
// never get the same port, a port something else listens on is passed
// over, and a released port can be reserved again.
func TestReservePortsExclusive(t *testing.T) {
	dir := t.TempDir()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	bp := busy.Addr().(*net.TCPAddr).Port
	lo, hi := bp, bp+6 // the busy port and five others
	a, err := reservePorts(dir, 3, lo, hi)
	if err != nil {
		t.Skipf("ports near %d in use by others: %v", bp, err)
	}
	b, err := reservePorts(dir, 2, lo, hi)
	if err != nil {
		a.release()
		t.Skipf("ports near %d in use by others: %v", bp, err)
	}
	seen := map[int]bool{}
	for _, p := range append(append([]int{}, a.ports...), b.ports...) {
		if p == bp {
			t.Errorf("port %d reserved while something listens on it", p)
		}
		if seen[p] {
			t.Errorf("port %d reserved twice: %v and %v", p, a.ports, b.ports)
		}
		seen[p] = true
	}
	if c, err := reservePorts(dir, 1, lo, hi); err == nil {
		t.Errorf("a sixth port reserved from five: %v (held %v %v)", c.ports, a.ports, b.ports)
		c.release()
	}
	freed := a.ports[0]
	a.release()
	c, err := reservePorts(dir, 1, freed, freed+1)
	if err != nil {
		t.Fatalf("port %d not reservable after its release: %v", freed, err)
	}
	if c.ports[0] != freed {
		t.Errorf("got %v, want %d", c.ports, freed)
	}
	c.release()
	b.release()
}

func TestPortRangeBelowEphemeral(t *testing.T) {
	lo, hi := portRange()
	if lo < 1024 || hi-lo < 1000 {
		t.Fatalf("port range %d-%d", lo, hi)
	}
	t.Log("member ports from " + strconv.Itoa(lo) + " to " + strconv.Itoa(hi-1))
}
