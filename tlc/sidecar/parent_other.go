//go:build !linux

package sidecar

import "syscall"

func sidecarProcAttr() *syscall.SysProcAttr { return nil }
