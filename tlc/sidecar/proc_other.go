//go:build !unix

package sidecar

import (
	"os"
	"os/exec"
)

func detach(cmd *exec.Cmd) {}

func terminate(p *os.Process) error { return p.Kill() }
