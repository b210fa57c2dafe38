//go:build unix

package sidecar

import (
	"os"
	"os/exec"
	"syscall"
)

// detach puts the sidecar in its own process group, so that a Ctrl-C in
// the terminal stops the fuzzer, which then closes the sidecar, rather
// than killing the sidecar under requests in flight.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

func terminate(p *os.Process) error { return p.Signal(syscall.SIGTERM) }
