package cmdline

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/hashicorp/go-hclog"
)

// Profiled runs fn under a Go CPU profile written to path ("": none).
func Profiled(path string, fn func() error) error {
	if path == "" {
		return fn()
	}
	pf, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--cpuprofile: %v", err)
	}
	if err := pprof.StartCPUProfile(pf); err != nil {
		pf.Close()
		return fmt.Errorf("--cpuprofile: %v", err)
	}
	defer func() { pprof.StopCPUProfile(); pf.Close() }()
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
