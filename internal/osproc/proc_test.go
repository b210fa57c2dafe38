package osproc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCapBufferKeepsTheEnd(t *testing.T) {
	b := NewCapBuffer(8)
	_, _ = b.Write([]byte("0123456789"))
	_, _ = b.Write([]byte("ab"))
	if got := b.Kept(); got != "456789ab" {
		t.Fatalf("kept %q, want the last 8 bytes", got)
	}
	if got := b.String(); !strings.HasPrefix(got, "[... 4 earlier bytes dropped ...]\n") {
		t.Fatalf("String() = %q: no note of the dropped bytes", got)
	}
}

func TestKillEndsTheGroupAndForgetsIt(t *testing.T) {
	state := t.TempDir()
	reg, err := OpenRegistry(state)
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Release()
	out := NewOutput(1 << 10)
	p, err := Start(reg, []string{"/bin/sh", "-c", "echo up; sleep 60 & wait"}, os.Environ(), t.TempDir(), out.Stdout, out.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	pids, err := os.ReadFile(filepath.Join(reg.Dir(), "pids"))
	if err != nil || !strings.Contains(string(pids), " ") {
		t.Fatalf("the group is not recorded: %q, %v", pids, err)
	}
	if exited, _ := p.Exited(); exited {
		t.Fatal("exited before it was killed")
	}
	p.Kill()
	exited, killed := p.Exited()
	if !exited || !killed {
		t.Fatalf("after Kill: exited %v, killed %v", exited, killed)
	}
	if st := p.ExitStatus(); st != "signal killed" {
		t.Fatalf("exit status %q, want signal killed", st)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		pids, _ = os.ReadFile(filepath.Join(reg.Dir(), "pids"))
		if strings.TrimSpace(string(pids)) == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the killed group is still recorded: %q", pids)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
