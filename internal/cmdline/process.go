package cmdline

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/hashicorp/go-hclog"
)

// StartCPUProfile profiles this process into path until stop is called.
func StartCPUProfile(path string) (stop func(), err error) {
	if err := OutFile("--cpuprofile", path); err != nil {
		return nil, err
	}
	pf, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile %s: cannot write it: %s", path, osText(err))
	}
	if err := pprof.StartCPUProfile(pf); err != nil {
		pf.Close()
		return nil, fmt.Errorf("--cpuprofile: %v", err)
	}
	return func() { pprof.StopCPUProfile(); pf.Close() }, nil
}

// Profiled runs fn under a Go CPU profile written to path ("": none).
func Profiled(path string, fn func() error) error {
	if path == "" {
		return fn()
	}
	stop, err := StartCPUProfile(path)
	if err != nil {
		return err
	}
	defer stop()
	return fn()
}

// NewLogger is the program's logger on stderr at a --log-level.
func NewLogger(level string) (hclog.Logger, error) {
	lv := hclog.LevelFromString(level)
	if lv == hclog.NoLevel {
		return nil, fmt.Errorf("unknown --log-level %q (error, warn, info, debug)", level)
	}
	return hclog.New(&hclog.LoggerOptions{Name: "modelfuzz", Level: lv, Output: os.Stderr}), nil
}
